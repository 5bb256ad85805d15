"""mpi4py_summary.py — reads the logs of tests/external/mpi4py.sh's runs of
mpi4py's test suite and says what happened: one result line per process
count, the failures, the bench checks, the closing summary, and
docs/conformance.md.

  count N RC SECONDS RANKLOG...   one result line (key=value words)
  show LINE                       the line for people
  failures RANKLOG...             the ERROR/FAIL reports of the run
  bench NAME LOG                  exit 0 if the bench's output is right
  total RESULTS VERSION SECONDS   the closing summary line
  docs RESULTS VERSION EXCLUDES [COUNTS]
                                  docs/conformance.md on stdout
  count-excluded TESTDIR EXCLUDES how many tests each exclusion leaves out
                                  (run by the venv's python, one process)
"""
import re
import sys
from pathlib import Path

RAN = re.compile(r"^Ran (\d+) tests? in ([\d.]+)s")
VERDICT = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$")


def rank_counts(log):
    """(ran, failures, errors, skipped, verdict) from one rank's unittest
    output; verdict is None when the run never reached its summary."""
    ran = failures = errors = skipped = 0
    verdict = None
    for line in Path(log).read_text(errors="replace").splitlines():
        m = RAN.match(line)
        if m:
            ran = int(m.group(1))
            continue
        m = VERDICT.match(line)
        if m:
            verdict = m.group(1)
            for part in (m.group(2) or "").split(","):
                if "=" in part:
                    k, v = part.strip().split("=")
                    if k == "failures":
                        failures = int(v)
                    elif k == "errors":
                        errors = int(v)
                    elif k == "skipped":
                        skipped = int(v)
                    elif k == "unexpected successes":
                        failures += int(v)
    return ran, failures, errors, skipped, verdict


def rank_of(log):
    m = re.search(r"rank(\d+)\.log$", log)
    return int(m.group(1)) if m else 0


def count(n, rc, secs, logs):
    logs = sorted(logs, key=rank_of)
    per = [rank_counts(l) for l in logs]
    if not per:
        per = [(0, 0, 0, 0, None)]
    ran, failures, errors, skipped, _ = per[0]
    # A failure on any rank fails the run; report the worst rank.
    failures = max(p[1] for p in per)
    errors = max(p[2] for p in per)
    complete = len(per) == int(n) and all(p[4] is not None for p in per)
    ok = int(rc) == 0 and complete and all(p[4] == "OK" for p in per)
    passed = ran - failures - errors - skipped
    return (f"n={n} result={'ok' if ok else 'FAIL'} ran={ran} passed={passed} "
            f"failed={failures + errors} skipped={skipped} seconds={secs} rc={rc} "
            f"complete={int(complete)} ")


def parse(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def show(line):
    d = parse(line)
    note = "" if d["complete"] == "1" else " (the run did not finish: crash or timeout)"
    print(f"N={d['n']}: {d['ran']} run, {d['passed']} passed, {d['failed']} failed, "
          f"{d['skipped']} skipped in {d['seconds']} s: {d['result']}{note}")


def failures(logs):
    shown = 0
    for log in sorted(logs, key=rank_of):
        text = Path(log).read_text(errors="replace").splitlines()
        keep = False
        for line in text:
            if line.startswith(("ERROR:", "FAIL:")):
                keep = True
                print(f"[rank {rank_of(log)}] {line}")
                shown += 1
                continue
            if line.startswith("Ran ") or line.startswith("=" * 20):
                keep = False
            if keep and shown < 400:
                print(f"[rank {rank_of(log)}]   {line}")
        if not any(RAN.match(l) for l in text):
            print(f"[rank {rank_of(log)}] no summary; the log ends with:")
            for line in text[-15:]:
                print(f"[rank {rank_of(log)}]   {line}")


def bench(name, log):
    out = Path(log).read_text(errors="replace")
    if name == "helloworld":
        ranks = set(int(m) for m in re.findall(r"Hello, World! I am process +(\d+) of 4", out))
        return 0 if ranks == {0, 1, 2, 3} else 1
    if name == "ringtest":
        return 0 if re.search(r"time for \d+ loops", out) else 1
    return 1


def results(path):
    runs, benches = [], {}
    for line in Path(path).read_text().splitlines():
        if line.startswith("n="):
            runs.append(parse(line))
        elif line.startswith("bench "):
            _, name, verdict = line.split()
            benches[name] = verdict
    return runs, benches


def total(path, version, secs):
    runs, benches = results(path)
    ok = runs and all(r["result"] == "ok" for r in runs) and all(
        v == "ok" for v in benches.values())
    parts = [f"N={r['n']} {r['passed']}/{r['ran']} passed, {r['failed']} failed, "
             f"{r['skipped']} skipped" for r in runs]
    parts += [f"bench {k} {v}" for k, v in benches.items()]
    print(f"mpi4py {version} on Uzura: {'PASS' if ok else 'FAIL'} ({'; '.join(parts)}) "
          f"in {secs} s")


def excludes(path):
    rows = []
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        kind, what, chapter, why = [f.strip() for f in line.split("|", 3)]
        rows.append((kind, what, chapter, why))
    return rows


def count_excluded(testdir, excl_path):
    """One line "what|count" per exclusion; the count is "?" when the
    module cannot even be loaded without the missing chapter."""
    import fnmatch
    import unittest
    sys.path.insert(0, testdir)

    def names(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from names(t)
            else:
                yield t.id()

    for kind, what, _chapter, _why in excludes(excl_path):
        module = what.split(".")[0]
        try:
            ids = list(names(unittest.defaultTestLoader.loadTestsFromName(module)))
            if any(".FailedTest" in i or i.startswith("unittest.loader") for i in ids):
                raise ImportError(module)
        except Exception:
            print(f"{what}|?")
            continue
        if kind == "module":
            print(f"{what}|{len(ids)}")
        else:
            pattern = what if "*" in what else f"*{what}*"
            print(f"{what}|{sum(1 for i in ids if fnmatch.fnmatchcase(i, pattern))}")


def docs(path, version, excl_path, counts_path=None):
    runs, benches = results(path)
    rows = excludes(excl_path)
    counts = {}
    if counts_path and Path(counts_path).exists():
        for line in Path(counts_path).read_text().splitlines():
            what, _, n = line.rpartition("|")
            counts[what] = n
    known = sum(int(counts[r[1]]) for r in rows if counts.get(r[1], "?") != "?")
    unknown = sum(1 for r in rows if counts.get(r[1], "?") == "?")
    excluded = f"{known}" + (f" + {unknown} modules" if unknown else "")
    out = []
    w = out.append
    w("# Conformance: mpi4py's test suite")
    w("")
    w("Generated by `tests/external/mpi4py.sh --write-docs` from its last run; do not edit.")
    w("")
    w(f"mpi4py {version}, built from its PyPI sdist by Uzura's `mpicc`, runs its own suite")
    w("(`test/main.py` from the sdist) under Uzura's `mpiexec -n N`.  ctest runs the same")
    w("script as `external.mpi4py` (label `external`), SKIPPED when PyPI cannot be reached.")
    w("NumPy is not installed in the test venv, so the array tests that need it skip.")
    w("")
    w("| N | run | passed | failed | skipped | excluded | time (s) | result |")
    w("|---|---|---|---|---|---|---|---|")
    for r in runs:
        w(f"| {r['n']} | {r['ran']} | {r['passed']} | {r['failed']} | {r['skipped']} | "
          f"{excluded} | {r['seconds']} | {r['result']} |")
    w("")
    w("\"excluded\" counts the tests the exclusions below leave out (as loaded in one")
    w("process); a module that cannot be loaded without its chapter counts as one module.")
    w("")
    w("\"skipped\" are tests mpi4py itself skips: most because they need NumPy, CuPy,")
    w("Numba or cffi, or need more (or fewer) processes than N.")
    w("")
    for k, v in benches.items():
        w(f"`mpiexec -n 4 python -m mpi4py.bench {k}`: {v}.  ")
    w("")
    w("## Excluded")
    w("")
    w("Only by chapter: each needs a chapter that [api-coverage.md](api-coverage.md) lists")
    w("as not implemented yet.  The list is `tests/external/mpi4py_excludes.txt`; a module")
    w("is left out whole (`main.py -e`) only when it cannot be loaded without the chapter,")
    w("otherwise the tests are named (`main.py -x`).  The same list applies at every N.")
    w("")
    w("| excluded | what | tests | chapter | why |")
    w("|---|---|---|---|---|")
    for kind, what, chapter, why in rows:
        n = counts.get(what, "?")
        n = "whole module (cannot load)" if n == "?" else n
        w(f"| {kind} | `{what}` | {n} | {chapter} | {why} |")
    print("\n".join(out))


def main(argv):
    cmd = argv[1]
    if cmd == "count":
        print(count(argv[2], argv[3], argv[4], argv[5:]))
    elif cmd == "show":
        show(argv[2])
    elif cmd == "failures":
        failures(argv[2:])
    elif cmd == "bench":
        return bench(argv[2], argv[3])
    elif cmd == "total":
        total(argv[2], argv[3], argv[4])
    elif cmd == "docs":
        docs(argv[2], argv[3], argv[4], argv[5] if len(argv) > 5 else None)
    elif cmd == "count-excluded":
        count_excluded(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
