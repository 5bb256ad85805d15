#!/usr/bin/env python3
"""test_checker.py — check_layers.py must still find the violations planted in fixtures/.

fixtures/ is a fake src/ of three layers (base, transport, pt2pt) with three
upward or escaping includes and some legal ones.  The checker must exit 1
and report exactly those three, by file:line: a checker that finds nothing
would let tests/layers pass on any tree.
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
EXPECTED = {"base/x.h:2", "transport/t.c:2", "transport/t.c:3"}


def main():
    run = subprocess.run([sys.executable, os.path.join(HERE, "check_layers.py"), FIXTURES],
                         capture_output=True, text=True)
    print(run.stdout, end="")
    print(run.stderr, end="", file=sys.stderr)
    found = set()
    for line in run.stdout.splitlines():
        m = re.match(r"(.*?):(\d+): ", line)
        if m:
            found.add(f"{os.path.relpath(m.group(1), FIXTURES)}:{m.group(2)}")
    failures = []
    if run.returncode != 1:
        failures.append(f"exit status {run.returncode}, expected 1")
    if found - EXPECTED:
        failures.append(f"reported but legal: {sorted(found - EXPECTED)}")
    if EXPECTED - found:
        failures.append(f"missed: {sorted(EXPECTED - found)}")
    if not run.stdout.rstrip().endswith(f"files checked, {len(EXPECTED)} violations"):
        failures.append("no summary line counting 3 violations")
    for f in failures:
        print(f"FAIL: {f}")
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
