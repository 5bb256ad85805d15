#!/usr/bin/env bash
# mpit_peer_dead.sh — the MPI_T event peer_declared_dead reaches a tool's
# callback when a tcp or udp peer goes silent (mpit_peer_dead.c): rank 0
# must report it passed and end the job with MPI_Abort(.., 3), promptly.
#
#   mpit_peer_dead.sh MPIEXEC PROGRAM tcp|udp
set -u
mpiexec=$1 prog=$2 net=$3
# udp: the silent rank's closed port answers ICMP port-unreachable; the
# short timeout is the fallback should that answer not come.
out=$(env UZURA_SHM=0 UZURA_NET="$net" UZURA_UDP_PEER_TIMEOUT=3 "$mpiexec" -n 2 --timeout 60 "$prog" "$net" 2>&1)
code=$?
echo "$out"
if [ "$code" != 3 ]; then
    echo "FAIL: exit code $code, expected 3"; exit 1
fi
if ! grep -q 'mpit_peer_dead: rank 0 passed' <<<"$out"; then
    echo "FAIL: rank 0 did not pass"; exit 1
fi
sleep 0.2
if pgrep -x "$(basename "$prog")" >/dev/null; then
    echo "FAIL: processes left behind:"; pgrep -ax "$(basename "$prog")"; exit 1
fi
echo "ok"
