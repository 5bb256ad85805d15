#!/usr/bin/env bash
# udp_stopgo.sh — a slow receiver (udp_stress with a pause between
# receives) behind a small socket buffer makes the receiver send STOP and
# then GO, and the sender obey them; every message still arrives intact.
#
#   udp_stopgo.sh MPIEXEC UDP_STRESS [netns]
set -u
mpiexec=$1 prog=$2 mode=${3:-loop}
. "$(dirname "$0")/udp_job.sh"
export UZURA_UDP_SOCKBUF=256k
udp_job "$mode" 120 "$mpiexec" "$prog" 32 300
line=$(grep 'Uzura rank 1: udp:' "$out")
stop=$(echo "$line" | sed 's/.*STOP sent \([0-9]*\).*/\1/')
go=$(echo "$line" | sed 's/.*GO sent \([0-9]*\).*/\1/')
obeyed=$(grep 'Uzura rank 0: udp:' "$out" | sed 's/.*STOP sent [0-9]* received \([0-9]*\).*/\1/')
echo "receiver sent STOP $stop times and GO $go times; the sender received STOP $obeyed times"
[ "${stop:-0}" -gt 0 ] && [ "${go:-0}" -gt 0 ] && [ "${obeyed:-0}" -gt 0 ] ||
    { echo "FAIL: STOP/GO was not exercised"; exit 1; }
echo PASS
