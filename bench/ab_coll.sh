#!/bin/bash
# ab_coll.sh — alternate two builds' coll_bench runs N times and print each
# (operation, size)'s median for both and their ratio: ab_builds.sh for
# collectives, for changes of a few percent that one compare.py round
# cannot tell from the machine's noise.
#
#   N=3 bench/ab_coll.sh BUILD_A BUILD_B bcast reduce gather
#   NP=4 LO=8 HI=4096 N=5 bench/ab_coll.sh build /tmp/build-ref scan
#
# Each run is `mpiexec -n NP coll_bench OP LO HI` of that build (defaults:
# NP 2, LO 8, HI 64), under BUILD_A's mpiexec; the ratio is A / B (times:
# below 1 is faster).
set -e
N=${N:-3}
A=$1; B=$2; shift 2 || true
[ -x "$A/bench/coll_bench" ] && [ -x "$B/bench/coll_bench" ] && [ $# -gt 0 ] ||
  { echo "usage: N=3 $0 BUILD_A BUILD_B OP..." >&2; exit 2; }
for i in $(seq "$N"); do
  for op in "$@"; do
    for b in "$A" "$B"; do
      "$A/bin/mpiexec" -n "${NP:-2}" "$b/bench/coll_bench" "$op" "${LO:-8}" "${HI:-64}" 2>/dev/null |
        grep -v '#' | awk -v b="$b" -v op="$op" '{print op, b, $1, $2}'
    done
  done
done | python3 -c "
import sys, statistics, collections
a, b = sys.argv[1:3]
d = collections.defaultdict(list)
for line in sys.stdin:
    op, build, size, v = line.split()
    d[(op, int(size), build)].append(float(v))
print('| op | bytes | A | B | A / B |')
print('|---|---|---|---|---|')
for op, size in sorted({(k[0], k[1]) for k in d}):
    ma, mb = statistics.median(d[(op, size, a)]), statistics.median(d[(op, size, b)])
    print('| %s | %d | %.3f | %.3f | %.2f |' % (op, size, ma, mb, ma / mb))
" "$A" "$B"
