#!/usr/bin/env bash
# io_ext32_ref.sh — the external32 reference check: io_ext32_writer.c built
# with a peer MPI (MPICH if installed, else Open MPI; tools/peers/install.sh)
# writes a file under "external32", the same program built with Uzura writes
# another, and the two must be equal byte for byte.
#
#   io_ext32_ref.sh UZURA_WRITER UZURA_MPIEXEC
#
# Exits 77 (skipped) when no peer is installed.
#
# MPICH 5.0.2 and Open MPI 5.0.11 write identical files for the mix in
# io_ext32_writer.c, at 1 and at 2 ranks, and the bytes are the standard's
# big-endian encodings (checked when this test was written).  Left out of
# the mix because the peers disagree or break (one type per file, 2 values):
#   MPI_LONG         4 bytes in the standard's table; MPICH writes 2 longs
#                    as their 4-byte encodings followed by 8 bytes of
#                    garbage, Open MPI as 8 correct bytes (though its
#                    MPI_Pack_external_size says 8 per long);
#   MPI_LONG_DOUBLE  MPICH writes IEEE binary128 as the standard says, Open
#                    MPI the x87 80-bit bytes in a 16-byte slot
#                    (io_datarep.c checks binary128 itself);
#   MPI_WCHAR        MPICH fails an assertion in
#                    typerep_yaksa_pack_external.c; Open MPI writes 4 bytes;
#   structs mixing basic types: MPICH dies (SIGILL) in
#                    MPI_Pack_external_size, so the writer writes member by
#                    member.
set -u
writer=$1 mpiexec=$2
here=$(cd "$(dirname "$0")" && pwd)
peers=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
if [ -x "$peers/mpich/bin/mpicc" ]; then
    peer=MPICH
    cc=$peers/mpich/bin/mpicc
    run=("$peers/mpich/bin/mpiexec")
elif [ -x "$peers/openmpi/bin/mpicc" ]; then
    peer="Open MPI"
    cc=$peers/openmpi/bin/mpicc
    run=("$peers/openmpi/bin/mpiexec" --allow-run-as-root --oversubscribe)
else
    echo "SKIPPED: no peer MPI (tools/peers/install.sh installs them)"
    exit 77
fi

tmp=${UZURA_TEST_TMPDIR:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$tmp/uzura_ext32.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

"$cc" -O1 -o "$work/peer_writer" "$here/io_ext32_writer.c" ||
    { echo "FAIL: $peer's mpicc could not build io_ext32_writer.c"; exit 1; }
"${run[@]}" -n 2 "$work/peer_writer" "$work/reference.dat" ||
    { echo "FAIL: the $peer-built writer failed"; exit 1; }
"$mpiexec" -n 2 "$writer" "$work/uzura.dat" ||
    { echo "FAIL: the Uzura-built writer failed"; exit 1; }
if ! cmp "$work/reference.dat" "$work/uzura.dat"; then
    echo "first differing bytes (offset, $peer octal, Uzura octal):"
    cmp -l "$work/reference.dat" "$work/uzura.dat" | head -20
    echo "io_ext32_ref: FAILED (Uzura's external32 file differs from $peer's)"
    exit 1
fi
echo "io_ext32_ref: passed ($(stat -c %s "$work/reference.dat") bytes equal to $peer's)"
