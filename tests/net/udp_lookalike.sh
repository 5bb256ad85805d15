#!/usr/bin/env bash
# udp_lookalike.sh — messages made of the udp header's magic and version
# arrive intact (udp_lookalike.c checks every byte); the senders put some
# headers last and kept those of look-alike payloads first; no receiver
# found a datagram malformed (one misread as header-first would be).
#
#   udp_lookalike.sh MPIEXEC PROGRAM [loop|netns]
set -u
mpiexec=$1 prog=$2 mode=${3:-loop}
. "$(dirname "$0")/udp_job.sh"
export UZURA_UDP_MTU=1500       # records cut into many segments, also on loopback
udp_job "$mode" 120 "$mpiexec" "$prog"
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
