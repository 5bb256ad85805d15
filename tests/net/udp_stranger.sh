#!/usr/bin/env bash
# udp_stranger.sh — forged datagrams at a rank's port change nothing, and
# are counted.  Passes when every message of the job arrived intact and
# rank 0 counted at least as many rejected + malformed datagrams as were
# sent to it, and rejected by their MAC all whose header was well-formed
# (at the datagram's start or its end).
#
#   udp_stranger.sh MPIEXEC PROGRAM [netns]     (netns: 2 hosts, 1 rank each)
set -u
mpiexec=$1 prog=$2 mode=${3:-loop}
. "$(dirname "$0")/udp_job.sh"
udp_job "$mode" 60 "$mpiexec" "$prog"
grep -q "all messages intact" "$out" || { echo "FAIL: messages damaged"; exit 1; }
sent=$(grep -o 'sent [0-9]* forged' "$out" | awk '{s += $2} END {print s + 0}')
counted=$(grep 'Uzura rank 0: udp:' "$out" | sed 's/.*rejected \([0-9]*\); malformed \([0-9]*\).*/\1 \2/' | awk '{print $1 + $2}')
wellformed=$(grep -o ', [0-9]* well-formed' "$out" | awk '{s += $2} END {print s + 0}')
rejected=$(grep 'Uzura rank 0: udp:' "$out" | sed 's/.*rejected \([0-9]*\);.*/\1/')
echo "forged datagrams sent: $sent; rank 0 rejected or found malformed: ${counted:-none}"
echo "well-formed ones (header first or last) sent: $wellformed; rejected by their MAC: ${rejected:-none}"
[ "$sent" -gt 0 ] && [ "${counted:-0}" -ge "$sent" ] || { echo "FAIL: not every forged datagram was counted"; exit 1; }
# Those must get as far as the MAC: a header last that was not found
# would have been counted malformed instead.
[ "$wellformed" -gt 0 ] && [ "${rejected:-0}" -ge "$wellformed" ] ||
    { echo "FAIL: well-formed forgeries were not all rejected by their MAC"; exit 1; }
echo PASS
