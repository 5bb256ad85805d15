#!/usr/bin/env python3
"""compare.py — run the same benchmark built with Uzura, MPICH and Open MPI,
alternating between them in one session, and print the figures side by side
with Uzura's ratio to the best peer.

  bench/compare.py p2p latency 0 4096 [--np 2] [--rounds 3]
  bench/compare.py p2p bw 1024 16777216
  bench/compare.py pack_bench ...          (any program in bench/)
  bench/compare.py p2p latency 0 65536 --also old=/tmp/old/build --only uzura,old
                                           (this build against another Uzura build)

The peers come from tools/peers/install.sh (MPICH and Open MPI from PyPI,
each in its own venv).  Each program is built from bench/<name>.c with each
implementation's mpicc; every round runs each implementation once, each
round starting with the next one (so that what a session's first run pays
for, such as memory the virtual machine has not used yet, is not always
paid by the same implementation), and the best value per row over the
rounds is kept (lowest for latency-like units, highest otherwise).  With
three rounds or more a second ratio compares the medians of the rounds
instead, which is fairer when the differences are within the machine's
noise (the best of one implementation's rounds beats the best of two
others' only a third of the time when all three are equally fast).
Output is a Markdown table, ready for docs/performance.md, preceded by the
exact command.
"""

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(os.environ.get("UZURA_PEERS_DIR", Path.home() / ".cache/uzura/peers"))
LOWER_IS_BETTER = {"latency", "time", "barrier", "lat", "memory"}


def lower_is_better(args, prog_args, header):
    """Times are better low, rates high.  --unit decides when given; else the
    program's own header line ("# bcast, 4 ranks: bytes, microseconds per
    call") says what it prints, and only a program that prints no header is
    judged by its first argument ("latency")."""
    if args.unit:
        return any(w in args.unit for w in LOWER_IS_BETTER)
    text = " ".join(header).lower()
    if re.search(r"\b(mb|gb)/s\b|\bmops/s\b|\brate\b|bandwidth|per second", text):
        return False
    if re.search(r"\b(micro|milli|nano)?seconds\b|\bus\b|µs|\blatency\b|\btime\b", text):
        return True
    unit = prog_args[0] if prog_args else args.program
    return any(w in unit for w in LOWER_IS_BETTER)


def uzura_build(build):
    uz_mpicc = build / "bin" / "mpicc"
    return {
        "cc": [str(uz_mpicc)] if uz_mpicc.exists() else
              ["gcc", f"-I{ROOT}/include", f"-I{ROOT}/src/binding/gen", f"-L{build}/lib",
               f"-Wl,-rpath,{build}/lib", "-lmpi_abi"],
        "run": [str(build / "bin" / "mpiexec"), "-n", "{np}"],
        "env": {},
    }


def implementations(build, also):
    impls = {
        "uzura": uzura_build(build),
        "mpich": {
            "cc": [str(PEERS / "mpich/bin/mpicc")],
            "run": [str(PEERS / "mpich/bin/mpiexec"), "-n", "{np}"],
            "env": {},
        },
        "openmpi": {
            "cc": [str(PEERS / "openmpi/bin/mpicc")],
            "run": [str(PEERS / "openmpi/bin/mpirun"), "--allow-run-as-root", "--oversubscribe",
                    "-n", "{np}"],
            "env": {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
        },
    }
    for name, other in also:
        impls[name] = uzura_build(Path(other))
    return {k: v for k, v in impls.items() if k == "uzura" or Path(v["cc"][0]).exists()}


def build_program(name, impl, cc, outdir, extra_cflags):
    exe = outdir / f"{name}.{impl}"
    cmd = cc + ["-O2", "-o", str(exe), str(ROOT / "bench" / f"{name}.c")] + extra_cflags + ["-lm"]
    subprocess.run(cmd, check=True)
    return exe


def parse(output):
    rows = {}
    for line in output.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) < 2:
            continue
        try:
            rows[parts[0]] = float(parts[-1])
        except ValueError:
            continue
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("args", nargs="*")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--unit", default=None, help="latency-like (lower is better) if it contains one of "
                    + ", ".join(sorted(LOWER_IS_BETTER)) + "; by default the program's '#' header line decides")
    ap.add_argument("--only", default=None, help="comma-separated implementations to run")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for Uzura's runs")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=BUILD",
                    help="another Uzura build directory to run as implementation NAME (e.g. the old library)")
    args, passthrough = ap.parse_known_args()
    prog_args = args.args + passthrough
    build = Path(args.build)
    impls = implementations(build, [a.split("=", 1) for a in args.also])
    if args.only:
        impls = {k: v for k, v in impls.items() if k in args.only.split(",")}
    samples = {k: {} for k in impls}
    header = []
    with tempfile.TemporaryDirectory() as tmp:
        exes = {k: build_program(args.program, k, v["cc"], Path(tmp), []) for k, v in impls.items()}
        names = list(impls)
        for rnd in range(args.rounds):
            for k in names[rnd % len(names):] + names[:rnd % len(names)]:
                v = impls[k]
                env = dict(os.environ, **v["env"])
                if k == "uzura" or k in dict(a.split("=", 1) for a in args.also):
                    env.update(dict(e.split("=", 1) for e in args.env))
                cmd = [a.format(np=args.np) for a in v["run"]] + [str(exes[k])] + prog_args
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
                if out.returncode != 0:
                    print(f"# {k} failed ({out.returncode}): {out.stderr.strip()[:300]}", file=sys.stderr)
                    continue
                if not header:
                    header = [l for l in out.stdout.splitlines() if l.startswith("#")]
                for row, val in parse(out.stdout).items():
                    samples[k].setdefault(row, []).append(val)

    lower = lower_is_better(args, prog_args, header)
    pick = min if lower else max
    results = {k: {r: pick(v) for r, v in samples[k].items()} for k in impls}

    cmdline = "bench/compare.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    print(f"`{cmdline}` ({'lower' if lower else 'higher'} is better)\n")
    names = list(impls)
    peers = [n for n in names if n != "uzura"]
    median_col = args.rounds >= 3
    extra = ["uzura / best peer"] + (["same, medians"] if median_col else [])
    print("| " + " | ".join(["row"] + names + extra) + " |")
    print("|" + "---|" * (len(names) + 1 + len(extra)))
    rows = sorted({r for k in results for r in results[k]}, key=lambda r: (float(r) if r.replace('.', '', 1).isdigit() else 0, r))
    for r in rows:
        vals = [results[n].get(r) for n in names]
        peer_vals = [results[n].get(r) for n in peers if results[n].get(r) is not None]
        ratio = ""
        u = results.get("uzura", {}).get(r)
        if u is not None and peer_vals:
            best = min(peer_vals) if lower else max(peer_vals)
            ratio = f"{u / best:.2f}" if best else ""
        cells = [f"{v:.3f}" if v is not None else "—" for v in vals]
        ratios = [ratio]
        if median_col:
            # Best-of-rounds favours whoever has more samples: with equal
            # speeds, one implementation beats the best of two others only a
            # third of the time.  Medians are the fairer comparison.
            um = samples.get("uzura", {}).get(r)
            pm = [statistics.median(samples[n][r]) for n in peers if samples[n].get(r)]
            m = ""
            if um and pm:
                bestm = min(pm) if lower else max(pm)
                m = f"{statistics.median(um) / bestm:.2f}" if bestm else ""
            ratios.append(m)
        print("| " + " | ".join([r] + cells + ratios) + " |")


if __name__ == "__main__":
    main()
