#!/usr/bin/env bash
# performance.sh — every side-by-side comparison of docs/performance.md in
# one run: Uzura, MPICH and Open MPI (tools/peers/install.sh) alternating
# round after round through bench/compare.py, then the network benchmarks.
#
#   bench/performance.sh [BUILD_DIR] [OUT_DIR] [SECTIONS...]
#
# SECTIONS (default: all): p2p huge memory coll kernels comm dtype net.  Each section
# writes OUT_DIR/<section>.md (Markdown tables, each preceded by the command
# that produced it); paste them into docs/performance.md.
#
# ALSO="old=/path/to/old/build" runs another Uzura build as one more column
# (compare.py --also), for "before and after" tables; COLL_NP and COLL_OPS
# narrow the coll section (default: np 2 4 8, every operation).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-/tmp/uzura-perf}
shift $(( $# >= 2 ? 2 : $# ))
sections=${*:-p2p huge memory coll kernels comm dtype net}
ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT"
cd "$ROOT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
also=()
for a in ${ALSO:-}; do also+=(--also "$a"); done
cmp() { python3 bench/compare.py --build "$BUILD" --rounds "$ROUNDS" "${also[@]}" "$@"; echo; }

for s in $sections; do
    echo "==> $s ($(date +%T))" >&2
    case $s in
    p2p)
        { cmp p2p latency 0 65536
          cmp p2p bw 1024 16777216
          cmp p2p bibw 1024 16777216
          cmp p2p rate 1 65536
          # The machine's own ceiling for the bibw rows, no MPI involved.
          echo '`bench/copy_ceiling 1024 16777216` (MB/s, both directions)'; echo; echo '```'
          "$BUILD/bench/copy_ceiling" 1024 16777216; echo '```'; echo; } >"$OUT/p2p.md" ;;
    huge)
        { cmp --unit time huge_send cold
          cmp --unit time huge_send warm; } >"$OUT/huge.md" ;;
    memory)
        { for np in 2 8 64; do
              for mode in ring all; do cmp --np $np --rounds 1 --unit memory p2p_memory $mode; done
          done; } >"$OUT/memory.md" ;;
    coll)
        { for np in ${COLL_NP:-2 4 8}; do
              for op in ${COLL_OPS:-barrier bcast reduce allreduce allgather allgatherv gather gatherv scatter scatterv \
                             alltoall alltoallv alltoallw reduce_scatter reduce_scatter_v scan exscan}; do
                  cmp --np $np --unit lat coll_bench $op 8 4194304
              done
          done; } >"$OUT/coll.md" ;;
    kernels)
        # NAS-like kernels: FT's transpose by Alltoall, IS's bucket sort by Alltoallv.
        { for np in ${KERNEL_NP:-2 4 8}; do
              cmp --np $np ft_kernel 32 128
              cmp --np $np is_kernel 20 23
          done; } >"$OUT/kernels.md" ;;
    comm)
        { for np in 2 4 8; do cmp --np $np comm_split time; done; } >"$OUT/comm.md" ;;
    dtype)
        bench/compare_pack.sh "$BUILD" "$ROUNDS" >"$OUT/dtype.md" ;;
    net)
        { echo '### tcp'; bench/net_compare.sh "$BUILD"
          echo; echo '### udp'; bench/udp_bench.sh "$BUILD"; } >"$OUT/net.md" 2>&1 ;;
    *) echo "unknown section $s" >&2; exit 2 ;;
    esac
done
echo "==> done ($(date +%T)); results in $OUT" >&2
