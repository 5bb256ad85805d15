#!/usr/bin/env bash
# tcp_peer_gone.sh — a peer's connections vanish while rank 0 waits on it
# (tcp_peer_gone.c): rank 0's requests must fail with MPI_ERR_PROC_ABORTED
# and a message naming the rank, and the job must end at once, cleanly.
#
#   tcp_peer_gone.sh MPIEXEC PROGRAM           one host, UZURA_SHM=0
#   tcp_peer_gone.sh MPIEXEC PROGRAM netns     ranks 0 and 1 in namespaces uzh0, uzh1
set -u
mpiexec=$1 prog=$2 mode=${3:-local}
here=$(cd "$(dirname "$0")" && pwd)
netns() { UZURA_NETNS_HOLDER=$$ "$here/netns.sh" "$@"; }

launch=(env UZURA_NET=tcp "$mpiexec" -n 2 --timeout 30)
if [ "$mode" = netns ]; then
    netns up 2 || exit $?
    trap 'netns down >/dev/null' EXIT
    launch+=(--launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1)
else
    launch=(env UZURA_SHM=0 "${launch[@]}")
fi

fails=0
check() {   # check ARG EXPECTED_CODE PATTERN
    local t0 t1 out code secs
    t0=$(date +%s.%N)
    out=$("${launch[@]}" "$prog" "$1" 2>&1)
    code=$?
    t1=$(date +%s.%N)
    secs=$(echo "$t1 - $t0" | bc)
    echo "$out"
    if [ "$code" != "$2" ]; then
        echo "FAIL $1: exit code $code, expected $2"; fails=$((fails + 1)); return
    fi
    if ! grep -Eq "$3" <<<"$out"; then
        echo "FAIL $1: output lacks /$3/"; fails=$((fails + 1)); return
    fi
    if [ "$(echo "$secs > 5" | bc)" = 1 ]; then
        echo "FAIL $1: took $secs s"; fails=$((fails + 1)); return
    fi
    echo "ok   $1: exit $code in ${secs}s"
}

check return 3 'tcp_peer_gone: rank 0 passed'
check fatal 58 'rank 0 .*tcp: .*rank 1 .*(closed its connection|failed).*MPI_ERR_PROC_ABORTED'
sleep 0.2
if pgrep -x "$(basename "$prog")" >/dev/null; then
    echo "FAIL: processes left behind:"; pgrep -ax "$(basename "$prog")"; fails=$((fails + 1))
fi
exit $fails
