#!/usr/bin/env bash
# udp_lookalike.sh — messages made of the udp header's magic and version
# arrive intact (udp_lookalike.c checks every byte); the senders put some
# headers last and kept those of look-alike payloads first; no receiver
# found a datagram malformed (one misread as header-first would be).
#
#   udp_lookalike.sh MPIEXEC PROGRAM [loop|netns]
set -u
mpiexec=$1 prog=$2 mode=${3:-loop}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export UZURA_VERBOSE=2
if [ "$mode" = netns ]; then
    "$here/udp_netns_run.sh" 2 1 "$mpiexec" "$prog" >"$out" 2>&1
else
    # 1500-byte datagrams, so that records are cut into many segments.
    UZURA_SHM=0 UZURA_NET=udp UZURA_UDP_MTU=1500 "$mpiexec" -n 2 --timeout 120 "$prog" >"$out" 2>&1
fi
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: the job failed ($rc)"; exit 1; }
grep -q "all .* messages intact" "$out" || { echo "FAIL: messages damaged"; exit 1; }
for r in 0 1; do
    line=$(grep "Uzura rank $r: udp:" "$out")
    [ -n "$line" ] || { echo "FAIL: no udp counters from rank $r"; exit 1; }
    last=$(echo "$line" | sed 's/.*headers last \([0-9]*\).*/\1/')
    kept=$(echo "$line" | sed 's/.*kept first for a look-alike payload \([0-9]*\).*/\1/')
    bad=$(echo "$line" | sed 's/.*malformed \([0-9]*\).*/\1/')
    echo "rank $r: headers last $last, kept first for a look-alike payload $kept, malformed received $bad"
    [ "${last:-0}" -gt 0 ] || { echo "FAIL: rank $r put no header last"; exit 1; }
    [ "${kept:-0}" -gt 0 ] || { echo "FAIL: rank $r never met a look-alike payload"; exit 1; }
    [ "${bad:-1}" -eq 0 ] || { echo "FAIL: rank $r received malformed datagrams"; exit 1; }
done
echo PASS
