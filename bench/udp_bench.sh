#!/usr/bin/env bash
# udp_bench.sh — latency and bandwidth between two network namespaces
# (tests/net/netns.sh: uzh0 and uzh1 on a bridge) for Uzura's tcp, udp and
# raw-Ethernet (udp protocol, EtherType 0x88B5) transports, beside kernel
# TCP (bench/tcp_raw.c, a plain socket program, with blocking reads and
# with polling reads as an MPI rank waits) and kernel UDP with
# segmentation offload and no protocol at all (bench/udp_raw.c: the
# ceiling of any protocol over datagrams of this MTU), and the same with a
# 48-byte header in every datagram laid out as udp lays out its own
# (udp_raw --hdr 48 --alt: the ceiling of a protocol that, like GigaE PM,
# numbers every datagram).
#
# Both "hosts" share one machine: a TCP client and server that block in
# recv() may be woken on the same core, where the receiver copies what the
# sender just wrote from a warm cache (docs/performance.md: 128 KiB at
# 4.8-6.1 GB/s pinned to one core, 3.3 GB/s pinned apart).  Ranks that
# poll, like Uzura's, run on two cores; so does tcp_raw --spin.
#
#   bench/udp_bench.sh BUILD_DIR [MTU]
#
# Bandwidth is measured two ways: ping-pong (bytes / one-way time, one
# message in flight) and streaming (64 messages in flight, then a short
# reply: bench/p2p.c rate, tcp_raw's stream table; the pattern of osu_bw).
#
# ROUNDS (default 3) rounds, each running every contender once in turn, so
# that a change of load on the machine hits all of them alike; each cell
# is the best over the rounds (lowest latency, highest bandwidth).
# LAT_RANGE / BW_RANGE / STREAM_RANGE ("min max" bytes) narrow the sweeps.
# Prints summary tables and the ratios the issue asks about.  Needs root.
set -u
build=${1:?usage: udp_bench.sh BUILD_DIR [MTU]}
mtu=${2:-1500}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../tests/net/netns.sh
mpiexec=$build/bin/mpiexec
p2p=$build/bench/p2p
[ -x "$p2p" ] || p2p=$(dirname "$build")/p2p
out=$(mktemp -d)
trap 'UZURA_NETNS_HOLDER=$$ $netns down >/dev/null; rm -rf "$out"' EXIT
UZURA_NETNS_HOLDER=$$ $netns up 2 "$mtu" || exit $?
cc -O2 -o "$out/tcp_raw" "$here/tcp_raw.c" || exit 1
cc -O2 -o "$out/udp_raw" "$here/udp_raw.c" || exit 1

uzura() {  # NAME ROUND [--no-stream] ENV... : the modes into $out/NAME.ROUND.{lat,bw,st}
    local name=$1 round=$2 stream=1
    shift 2
    [ "${1:-}" = --no-stream ] && { stream=0; shift; }
    env "$@" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 \
        "$p2p" latency ${LAT_RANGE:-1 65536} 2>/dev/null | grep -v '^#' >"$out/$name.$round.lat"
    env "$@" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 \
        "$p2p" bw ${BW_RANGE:-1024 16777216} 2>/dev/null | grep -v '^#' >"$out/$name.$round.bw"
    [ $stream = 1 ] || return 0
    # p2p rate prints messages per second; bytes times that is MB/s.
    env "$@" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 \
        "$p2p" rate ${STREAM_RANGE:-65536 1048576} 2>/dev/null |
        awk '!/^#/ { printf "%s %.3f\n", $1, $1 * $2 / 1e6 }' >"$out/$name.$round.st"
}

kernel_tcp() {  # NAME ROUND [--spin]: tcp_raw's latency, bw and stream tables
    ip netns exec uzh1 "$out/tcp_raw" server >/dev/null 2>&1 &
    ip netns exec uzh0 "$out/tcp_raw" client 10.77.0.2 ${3:-} >"$out/k.txt" 2>&1
    wait
    awk '/^# kernel TCP latency/ { m = "lat"; next } /^# kernel TCP bw/ { m = "bw"; next }
         /^# kernel TCP stream/ { m = "st"; next }
         /^#/ { m = ""; next } m != "" { print > ("'"$out/$1.$2."'" m) }' "$out/k.txt"
}

kernel_udp() {  # NAME ROUND [ARGS]: udp_raw's ping-pong and stream tables, segments of one MTU
    local name=$1 round=$2
    shift 2
    ip netns exec uzh1 "$out/udp_raw" server --seg $((mtu - 28)) "$@" >/dev/null 2>&1 &
    sleep 0.3
    timeout 300 ip netns exec uzh0 "$out/udp_raw" client 10.77.0.2 --seg $((mtu - 28)) "$@" >"$out/u.txt" 2>/dev/null
    kill %1 2>/dev/null
    wait
    awk '/^# udp_raw ping-pong/ { m = "bw"; next } /^# udp_raw stream/ { m = "st"; next }
         /^#/ { m = ""; next } m != "" { print > ("'"$out/$name.$round."'" m) }' "$out/u.txt"
}

for round in $(seq "$rounds"); do
    uzura tcp "$round" UZURA_NET=tcp
    uzura udp "$round" UZURA_NET=udp
    uzura ether "$round" --no-stream UZURA_NET=udp UZURA_UDP_ETHER=1
    kernel_tcp ktcp "$round"
    kernel_tcp ktcpspin "$round" --spin
    kernel_udp kudp "$round"
    kernel_udp kudph "$round" --hdr 48 --alt
done

best() {  # NAME KIND(lat|bw|st) BYTES: best value over the rounds
    cat "$out/$1".*."$2" 2>/dev/null | awk -v b="$3" -v k="$2" '
        $1 == b { v = $2 + 0; if (!n++ || (k == "lat" ? v < r : v > r)) r = v }
        END { if (n) printf "%.1f", r; else printf "-" }'
}

label() {  # NAME: the row's name in the tables
    case $1 in
    ktcp) echo "kernel TCP (tcp_raw)" ;;
    ktcpspin) echo "kernel TCP, polling reads (tcp_raw --spin)" ;;
    kudp) echo "kernel UDP, no protocol (udp_raw)" ;;
    kudph) echo "kernel UDP, a 48-byte header per datagram (udp_raw --hdr 48 --alt)" ;;
    *) echo "Uzura $1" ;;
    esac
}

ratios() {  # KIND(bw|st) BYTES...: udp against kernel TCP both ways and the datagram ceiling
    local kind=$1 b u t s k
    shift
    for b in "$@"; do
        u=$(best udp "$kind" "$b") t=$(best ktcp "$kind" "$b") s=$(best ktcpspin "$kind" "$b") k=$(best kudp "$kind" "$b")
        awk -v b="$b" -v u="$u" -v t="$t" -v s="$s" -v k="$k" 'BEGIN {
            printf "  %8d B: udp %s, kernel TCP %s (%.2fx), polling %s (%.2fx), kernel UDP %s (%.2fx)\n", b, u, t,
                   (t > 0 ? u / t : 0), s, (s > 0 ? u / s : 0), k, (k > 0 ? u / k : 0) }'
    done
}

echo "# udp_bench.sh $build $mtu, $rounds rounds, best of each; $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| MTU $mtu | latency 8 B (µs) | latency 64 KiB (µs) | bandwidth 64 KiB (MB/s) | bandwidth 1 MiB (MB/s) | bandwidth 16 MiB (MB/s) |"
echo "|---|---|---|---|---|---|"
for n in tcp udp ether ktcp ktcpspin kudp kudph; do
    echo "| $(label $n) | $(best $n lat 8) | $(best $n lat 65536) | $(best $n bw 65536) | $(best $n bw 1048576) | $(best $n bw 16777216) |"
done
echo
echo "udp bandwidth against kernel TCP (blocking reads; polling reads) and the datagram ceiling:"
ratios bw 65536 131072 262144 524288 1048576 4194304 16777216
echo
echo "Streaming bandwidth (MB/s), 64 messages in flight, then a short reply:"
echo
echo "| MTU $mtu | 64 KiB | 256 KiB | 1 MiB |"
echo "|---|---|---|---|"
for n in tcp udp ktcp ktcpspin kudp kudph; do
    echo "| $(label $n) | $(best $n st 65536) | $(best $n st 262144) | $(best $n st 1048576) |"
done
echo
echo "udp streaming bandwidth against kernel TCP (blocking reads; polling reads) and the datagram ceiling:"
ratios st 65536 131072 262144 524288 1048576
echo
echo "The ceilings themselves against kernel TCP with polling reads: kernel UDP with no"
echo "protocol, and with a header in every datagram laid out as udp sends it.  Where the"
echo "second is below 0.9x, no protocol with a header per datagram of this MTU can reach"
echo "0.9x of kernel TCP on this machine:"
for b in 65536 131072 262144 524288 1048576 4194304 16777216; do
    for kind in bw st; do
        k=$(best kudp $kind $b) h=$(best kudph $kind $b) s=$(best ktcpspin $kind $b)
        [ "$k" = - ] || [ "$s" = - ] && continue
        awk -v b=$b -v kind=$kind -v k="$k" -v h="$h" -v s="$s" 'BEGIN {
            printf "  %8d B %-9s: polling TCP %s, kernel UDP %s (%.2fx), with headers %s (%.2fx)\n", b,
                   (kind == "bw" ? "ping-pong" : "streaming"), s, k, (s > 0 ? k / s : 0), h, (s > 0 ? h / s : 0) }'
    done
done
