#!/usr/bin/env bash
# profile_overhead.sh — what the traffic profile (mpiexec --profile,
# docs/profile.md) costs on the fast path: ping-pong latency and message
# rate of bench/p2p between two ranks, off and on, alternating ROUNDS times
# so that both see the same machine.  Needs a quiet machine.
#
#   bench/profile_overhead.sh [BUILD_DIR] [MAX_BYTES]
#
# Prints, per benchmark and round, the "bytes value" lines of both runs side
# by side: latency in microseconds (lower is better), rate in messages per
# second (higher is better).  "off" has UZURA_PROFILE unset, which is what
# every run without --profile pays: one predictable branch per call.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
MAX=${2:-1024}
ROUNDS=${ROUNDS:-3}
dir=$(mktemp -d /tmp/uzura-profile-overhead.XXXXXX)
trap 'rm -rf "$dir"' EXIT
run() {     # run off|on BENCH MIN: the bench's output
    local profile=()
    [ "$1" = on ] && profile=(--profile="$dir")
    env -u UZURA_PROFILE "$BUILD/bin/mpiexec" -n 2 "${profile[@]}" "$BUILD/bench/p2p" "$2" "$3" "$MAX" 2>/dev/null |
        grep -v '^#'
}
for bench in latency rate; do
    min=0
    [ "$bench" = rate ] && min=1
    for r in $(seq "$ROUNDS"); do
        echo "# $bench, round $r: bytes off on"
        paste -d" " <(run off "$bench" "$min") <(run on "$bench" "$min" | cut -d" " -f2)
    done
done
