#!/usr/bin/env bash
# tcp_stranger.sh — strangers without the job key knock at every rank's tcp
# port while the ranks talk (tcp_stranger.c); the job must end normally,
# with every message intact, and each rank must have counted (and dropped)
# every connection that did not present the key.
#
#   tcp_stranger.sh MPIEXEC PROGRAM NP              one host, UZURA_SHM=0
#   tcp_stranger.sh MPIEXEC PROGRAM NP netns HOSTS  HOSTS namespaces (netns.sh),
#                                                   NP/HOSTS ranks on each;
#                                                   the strangers live in uzh0
set -u
mpiexec=$1 prog=$2 np=$3 mode=${4:-local} nhosts=${5:-1}
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIPPED: python3 is not installed"; exit 77; }

tmp=$(mktemp -d /tmp/uzura-stranger.XXXXXX)
netns() { UZURA_NETNS_HOLDER=$$ "$here/netns.sh" "$@"; }
cleanup() {
    [ -n "${job:-}" ] && kill "$job" 2>/dev/null
    [ "$mode" = netns ] && netns down >/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

launch=(env UZURA_NET=tcp UZURA_VERBOSE=2 "$mpiexec" -n "$np" --timeout 120)
stranger=(python3 "$here/tcp_stranger.py")
if [ "$mode" = netns ]; then
    netns up "$nhosts" || exit $?
    hosts=$(seq -s, -f 'uzh%g' 0 $((nhosts - 1)))
    launch+=(--launcher-exec 'ip netns exec' -hosts "$hosts" -ppn $((np / nhosts)))
    stranger=(ip netns exec uzh0 "${stranger[@]}")
else
    launch=(env UZURA_SHM=0 "${launch[@]}")
fi

"${launch[@]}" "$prog" "$tmp/stop" 3 >"$tmp/out" 2>&1 &
job=$!

# Each rank says where it listens (UZURA_VERBOSE=2).
for _ in $(seq 200); do
    [ "$(grep -c 'tcp listening on' "$tmp/out")" -ge "$np" ] && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
targets=()
for ((r = 0; r < np; r++)); do
    addr=$(sed -n "s/^Uzura rank $r: tcp listening on \([^,]*\).*/\1/p" "$tmp/out" | head -1)
    [ -n "$addr" ] && targets+=("$addr")
done
if [ "${#targets[@]}" -ne "$np" ]; then
    echo "FAIL: not every rank said where it listens"; cat "$tmp/out"; exit 1
fi

"${stranger[@]}" "${targets[@]}" >"$tmp/expect" 2>&1
touch "$tmp/stop"
wait "$job"
code=$?
job=
cat "$tmp/out"
cat "$tmp/expect"
fails=0
if [ "$code" != 0 ] || ! grep -q '^tcp_stranger: passed' "$tmp/out"; then
    echo "FAIL: the job did not end normally (exit $code)"; fails=1
fi
for ((r = 0; r < np; r++)); do
    want=$(sed -n "s/^expect \([0-9]*\) ${targets[$r]}\$/\1/p" "$tmp/expect")
    got=$(sed -n "s/^Uzura rank $r: tcp .*rejected connections \([0-9]*\),.*/\1/p" "$tmp/out")
    if [ -z "$want" ] || [ -z "$got" ] || [ "$got" -lt "$want" ]; then
        echo "FAIL: rank $r counted ${got:-no} rejected connections, expected at least ${want:-?}"; fails=1
    else
        echo "ok   rank $r at ${targets[$r]}: $got strangers rejected (at least $want expected)"
    fi
done
exit $fails
