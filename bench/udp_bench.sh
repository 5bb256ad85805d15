#!/usr/bin/env bash
# udp_bench.sh — latency and bandwidth between two network namespaces
# (tests/net/netns.sh: uzh0 and uzh1 on a bridge) for Uzura's tcp, udp and
# raw-Ethernet (udp protocol, EtherType 0x88B5) transports, beside kernel
# TCP measured by a plain socket program (bench/tcp_raw.c, when present).
#
#   bench/udp_bench.sh BUILD_DIR [MTU]
#
# LAT_RANGE / BW_RANGE ("min max" bytes) narrow the sweeps.  Prints the p2p curves (bench/p2p.c: one-way latency in µs, ping-pong
# bandwidth in MB/s) and a summary table.  Needs root (namespaces).
set -u
build=${1:?usage: udp_bench.sh BUILD_DIR [MTU]}
mtu=${2:-1500}
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../tests/net/netns.sh
mpiexec=$build/bin/mpiexec
p2p=$build/bench/p2p
[ -x "$p2p" ] || p2p=$(dirname "$build")/p2p
out=$(mktemp -d)
trap 'UZURA_NETNS_HOLDER=$$ $netns down >/dev/null; rm -rf "$out"' EXIT
UZURA_NETNS_HOLDER=$$ $netns up 2 "$mtu" || exit $?

run() {  # NAME ENV... : both modes into $out/NAME.{lat,bw}
    local name=$1
    shift
    env "$@" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 \
        "$p2p" latency ${LAT_RANGE:-1 65536} >"$out/$name.lat" 2>/dev/null
    env "$@" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 \
        "$p2p" bw ${BW_RANGE:-1024 16777216} >"$out/$name.bw" 2>/dev/null
}

run tcp UZURA_NET=tcp
run udp UZURA_NET=udp
run ether UZURA_NET=udp UZURA_UDP_ETHER=1

# Kernel TCP without MPI, if the tcp engineer's plain socket program is here.
if [ -f "$here/tcp_raw.c" ] && cc -O2 -o "$out/tcp_raw" "$here/tcp_raw.c" 2>/dev/null; then
    echo "# kernel TCP (bench/tcp_raw.c)"
    ip netns exec uzh1 "$out/tcp_raw" server >"$out/kernel.txt" 2>&1 &
    sleep 0.5
    ip netns exec uzh0 "$out/tcp_raw" client 10.77.0.2 >>"$out/kernel.txt" 2>&1
    wait
    cat "$out/kernel.txt"
fi

for n in tcp udp ether; do
    echo "# $n"
    paste "$out/$n.lat" /dev/null | sed 's/\t//'
    cat "$out/$n.bw"
done
pick() { awk -v b="$2" '$1 == b { print $2 }' "$1"; }
echo
echo "| transport (MTU $mtu) | latency 8 B (µs) | latency 64 KiB (µs) | bandwidth 64 KiB (MB/s) | bandwidth 1 MiB (MB/s) | bandwidth 16 MiB (MB/s) |"
echo "|---|---|---|---|---|---|"
for n in tcp udp ether; do
    echo "| $n | $(pick $out/$n.lat 8) | $(pick $out/$n.lat 65536) | $(pick $out/$n.bw 65536) | $(pick $out/$n.bw 1048576) | $(pick $out/$n.bw 16777216) |"
done
