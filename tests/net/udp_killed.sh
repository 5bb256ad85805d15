#!/usr/bin/env bash
# udp_killed.sh — a peer killed mid-exchange becomes an error at the
# survivor within UZURA_UDP_PEER_TIMEOUT, never a hang (udp_killed.c), and
# a rank that simply dies makes mpiexec end the job promptly.
#
#   udp_killed.sh MPIEXEC PROGRAM [netns]
set -u
mpiexec=$1 prog=$2 mode=${3:-loop}
here=$(cd "$(dirname "$0")" && pwd)
timeout=2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export UZURA_UDP_PEER_TIMEOUT=$timeout UZURA_TEST_TIMEOUT=60
start=$(date +%s)
if [ "$mode" = netns ]; then
    "$here/udp_netns_run.sh" 2 1 "$mpiexec" "$prog" $timeout >"$out" 2>&1
else
    UZURA_SHM=0 UZURA_NET=udp "$mpiexec" -n 2 --timeout 60 "$prog" $timeout >"$out" 2>&1
fi
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
elapsed=$(($(date +%s) - start))
echo "mpiexec exited $rc after ${elapsed} s"
grep -q "udp_killed: PASS" "$out" || { echo "FAIL: the survivor did not report the dead peer in time"; exit 1; }
[ $rc -ne 124 ] || { echo "FAIL: the job hung until mpiexec's timeout"; exit 1; }
echo PASS
