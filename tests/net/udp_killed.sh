#!/usr/bin/env bash
# udp_killed.sh — a peer killed mid-exchange becomes an error at the
# survivor within UZURA_UDP_PEER_TIMEOUT, never a hang (udp_killed.c), and
# a rank that simply dies makes mpiexec end the job promptly.
#
# By default the peer is stopped, not killed (its port stays open and
# silent, like a vanished host) and the error must come from the timeout.
# With "icmp" the peer is killed and the timeout left long (600 s): the
# error must come from the ICMP port-unreachable answer to a datagram for
# the dead process, within the same 2 s.  With "midway" the peer stops in
# the middle of a 64 MiB message (udp_killed.c).
#
#   udp_killed.sh MPIEXEC PROGRAM [loop|netns] [icmp|midway]
set -u
mpiexec=$1 prog=$2 mode=${3:-loop} how=${4:-timeout}
here=$(cd "$(dirname "$0")" && pwd)
timeout=2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export UZURA_UDP_PEER_TIMEOUT=$timeout UZ_TEST_TIMEOUT=60
stop=stop
[ "$how" = icmp ] && { export UZURA_UDP_PEER_TIMEOUT=600; stop=; }
[ "$how" = midway ] && stop=midway
start=$(date +%s)
if [ "$mode" = netns ]; then
    "$here/udp_netns_run.sh" 2 1 "$mpiexec" "$prog" $timeout $stop >"$out" 2>&1
else
    UZURA_SHM=0 UZURA_NET=udp "$mpiexec" -n 2 --timeout 60 "$prog" $timeout $stop >"$out" 2>&1
fi
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
elapsed=$(($(date +%s) - start))
echo "mpiexec exited $rc after ${elapsed} s"
grep -q "udp_killed: PASS" "$out" || { echo "FAIL: the survivor did not report the dead peer in time"; exit 1; }
[ $rc -ne 124 ] || { echo "FAIL: the job hung until mpiexec's timeout"; exit 1; }
if [ "$how" = icmp ]; then
    grep -q "port is closed" "$out" || { echo "FAIL: the error did not come from the ICMP answer"; exit 1; }
else
    grep -q "did not acknowledge\|gave no sign of life" "$out" ||
        { echo "FAIL: the error does not say why the peer was declared dead"; exit 1; }
fi
echo PASS
