#!/bin/sh
# compare_pack.sh — the datatype benchmarks side by side with MPICH and Open
# MPI (the peers of tools/peers/install.sh), as Markdown tables for
# docs/datatypes.md:
#
#   bench/compare_pack.sh [build-dir] [rounds]
#
# pack_bench (MPI_Pack/MPI_Unpack throughput, one process) and
# dtype_pingpong (ping-pong bandwidth with strided vector types, two
# processes) are built from the same source with each implementation's
# mpicc and run alternately, round after round; bench/compare.py keeps the
# best figure of each row and prints Uzura's ratio to the best peer.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ROUNDS=${2:-3}
cd "$ROOT"
python3 bench/compare.py pack_bench --np 1 --rounds "$ROUNDS" --build "$BUILD"
echo
python3 bench/compare.py dtype_pingpong --np 2 --rounds "$ROUNDS" --build "$BUILD"
