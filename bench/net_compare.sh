#!/usr/bin/env bash
# net_compare.sh — Uzura's tcp transport beside kernel TCP with nothing on
# top, between two network namespaces joined by veth pairs and a bridge
# (tests/net/netns.sh: uzh0 = 10.77.0.1, uzh1 = 10.77.0.2).
#
#   bench/net_compare.sh BUILD_DIR [MTU]
#
# Uzura: bench/p2p.c (latency, ping-pong bandwidth, and the windowed stream
# of "rate" turned into MB/s), one rank per namespace, UZURA_NET=tcp.
# Kernel TCP: bench/tcp_raw.c, blocking reads and polling reads.  Prints
# the curves, then a summary table (best of 5 at each point).  Needs root.
set -u
build=${1:?usage: net_compare.sh BUILD_DIR [MTU]}
mtu=${2:-1500}
here=$(cd "$(dirname "$0")" && pwd)
netns() { UZURA_NETNS_HOLDER=$$ "$here/../tests/net/netns.sh" "$@"; }
mpiexec=$build/bin/mpiexec
p2p=$build/bench/p2p
out=$(mktemp -d /tmp/uzura-netbench.XXXXXX)
trap 'netns down >/dev/null; rm -rf "$out"' EXIT
netns up 2 "$mtu" || exit $?
raw=$out/tcp_raw
cc -O2 -o "$raw" "$here/tcp_raw.c" || exit 1

# Each rank (and each end of tcp_raw) on a core of its own, as on two real
# hosts; left to itself the scheduler of a busy machine may put both on one
# core, and then every message waits for a time slice.
cores=$(nproc)
pin() {  # CORE PROGRAM ARGS...
    if [ "$cores" -ge 2 ] && command -v taskset >/dev/null; then taskset -c "$@"; else "${@:2}"; fi
}
export -f pin
export cores
uzura() {  # MODE LO HI
    env UZURA_NET=tcp "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 \
        --timeout 600 bash -c 'pin $((PMI_RANK % cores)) "$0" "$@"' "$p2p" "$@" 2>/dev/null | grep -v '^#'
}
uzura latency 1 65536 >"$out/uz.lat"
uzura bw 1024 16777216 >"$out/uz.bw"
uzura rate 1024 262144 | awk '{ printf "%s %.3f\n", $1, $1 * $2 / 1e6 }' >"$out/uz.stream"

kernel() {  # NAME [--spin]
    ip netns exec uzh1 bash -c 'pin 1 "$@"' pin "$raw" server >/dev/null 2>&1 &
    local server=$!
    ip netns exec uzh0 bash -c 'pin 0 "$@"' pin "$raw" client 10.77.0.2 "${@:2}" >"$out/$1.all"
    wait "$server"
    awk -v f="$out/$1" '/^#/ { split($0, w, " "); name = w[4]; next } { print > (f "." name) }' "$out/$1.all"
}
kernel kt
kernel ks --spin

for f in uz.lat kt.latency ks.latency uz.bw kt.bw ks.bw uz.stream kt.stream ks.stream; do
    echo "# $f"
    cat "$out/$f"
done
pick() { awk -v b="$2" '$1 == b { print $2 }' "$out/$1"; }
echo
echo "One rank in each of two namespaces (veth + bridge, MTU $mtu), each pinned to its own core of $(nproc)."
echo
echo "| | Uzura tcp | kernel TCP, blocking reads | kernel TCP, polling reads |"
echo "|---|---|---|---|"
for b in 1 8 1024 16384 65536; do
    echo "| latency $b B (µs) | $(pick uz.lat $b) | $(pick kt.latency $b) | $(pick ks.latency $b) |"
done
for b in 65536 1048576 16777216; do
    echo "| ping-pong bandwidth $b B (MB/s) | $(pick uz.bw $b) | $(pick kt.bw $b) | $(pick ks.bw $b) |"
done
for b in 1024 65536 262144; do
    echo "| streaming bandwidth $b B (MB/s) | $(pick uz.stream $b) | $(pick kt.stream $b) | $(pick ks.stream $b) |"
done
