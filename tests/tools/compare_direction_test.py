#!/usr/bin/env python3
"""compare_direction_test.py — bench/compare.py must know, for every kind of
figure the bench programs print, whether lower or higher is better: it
picks each implementation's best round and the best peer by it, so a wrong
guess inverts every ratio of a table (as it once did for coll_bench, whose
first argument is an operation name, not a unit).

Runs the real programs from the build at tiny sizes, takes their header
lines, and checks the direction compare.py derives from them.
usage: compare_direction_test.py SOURCE_DIR BUILD_DIR
"""
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

src, build = Path(sys.argv[1]), Path(sys.argv[2])
spec = importlib.util.spec_from_file_location("compare", src / "bench" / "compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

# (program and arguments, ranks, lower is better)
CASES = [
    (["coll_bench", "bcast", "8", "8"], 2, True),
    (["coll_bench", "alltoall", "8", "8"], 2, True),
    (["coll_bench", "barrier"], 2, True),
    (["p2p", "latency", "8", "8"], 2, True),
    (["p2p", "bw", "4096", "4096"], 2, False),
    (["p2p", "bibw", "4096", "4096"], 2, False),
    (["p2p", "rate", "8", "8"], 2, False),
    (["rma_bench", "put_lat", "lock", "8", "8"], 2, True),
    (["rma_bench", "put_bw", "lock", "4096", "4096"], 2, False),
    (["rma_bench", "fop_rate", "lock"], 2, False),
    (["io_bench", "write_all", "65536", "65536"], 2, False),
]


class Args:
    unit = None


failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for argv, np, want in CASES:
        exe = build / "bench" / argv[0]
        cmd = [str(build / "bin" / "mpiexec"), "-n", str(np), "--timeout", "60", str(exe)] + argv[1:]
        out = subprocess.run(cmd, capture_output=True, text=True, env={"UZURA_BENCH_DIR": tmp, "PATH": "/usr/bin:/bin"})
        if out.returncode != 0:
            print(f"FAILED to run {' '.join(argv)}: {out.stderr.strip()[:300]}")
            failures += 1
            continue
        header = [l for l in out.stdout.splitlines() if l.startswith("#")]
        got = compare.lower_is_better(Args, argv[1:], header)
        verdict = "ok" if got == want else "WRONG"
        failures += got != want
        print(f"{verdict}: {' '.join(argv)}: {'lower' if got else 'higher'} is better; header {header[:1]}")

print(f"compare_direction_test: {len(CASES) - failures}/{len(CASES)} passed")
sys.exit(1 if failures else 0)
