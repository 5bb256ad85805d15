#!/bin/bash
# ab_builds.sh — alternate two builds' p2p runs N times and print each size's
# median for both and their ratio: for differences of a few percent, which
# one compare.py round cannot tell from the machine's noise.
#
#   N=12 bench/ab_builds.sh BUILD_A BUILD_B rate 1 64
#   N=10 bench/ab_builds.sh BUILD_A BUILD_B latency 0 64
#
# Each run is `mpiexec -n 2 bench/p2p MODE LO HI --seconds 0.7` of that
# build; the ratio is A / B (for latency, below 1 is faster; for rate, above).
set -e
N=${N:-12}
A=$1; B=$2; shift 2
[ -x "$A/bin/mpiexec" ] && [ -x "$B/bin/mpiexec" ] || { echo "usage: N=12 $0 BUILD_A BUILD_B MODE LO HI" >&2; exit 2; }
for i in $(seq "$N"); do
  for b in "$A" "$B"; do
    "$b/bin/mpiexec" -n 2 "$b/bench/p2p" "$@" --seconds 0.7 2>/dev/null | grep -v '#' |
      awk -v b="$b" '{print b, $1, $2}'
  done
done | python3 -c "
import sys, statistics, collections
a, b = sys.argv[1:3]
d = collections.defaultdict(list)
for line in sys.stdin:
    build, size, v = line.split()
    d[(int(size), build)].append(float(v))
print('| bytes | A | B | A / B |')
print('|---|---|---|---|')
for s in sorted({k[0] for k in d}):
    ma, mb = statistics.median(d[(s, a)]), statistics.median(d[(s, b)])
    print('| %d | %.4g | %.4g | %.3f |' % (s, ma, mb, ma / mb))
" "$A" "$B"
