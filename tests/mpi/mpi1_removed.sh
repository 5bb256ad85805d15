#!/usr/bin/env bash
# mpi1_removed.sh — an MPI-1 program using the procedures MPI-3.0 removed
# (mpi1_removed.c) builds with the build tree's mpicc; the compiler warns at
# each use, naming the replacement, and says nothing when the program
# defines UZURA_NO_DEPRECATION_WARNINGS; the program passes at 1 to 4 ranks.
set -euo pipefail
source "$UZ_SOURCE_DIR/tests/wrappers/testlib.sh"
unset CC UZURA_CC UZURA_WRAPPER_ACTIVE
export LC_ALL=C     # the compiler's quotes in plain ASCII
mpicc=$UZ_BUILD_DIR/bin/mpicc
mpiexec=$UZ_BUILD_DIR/bin/mpiexec
src=$UZ_SOURCE_DIR/tests/mpi/mpi1_removed.c
inc=$UZ_SOURCE_DIR/tests/include
scratch

"$mpicc" -Wall -I"$inc" -c -o "$UZ_SCRATCH/warned.o" "$src" 2>"$UZ_SCRATCH/warnings"
for pair in MPI_Address:MPI_Get_address MPI_Type_extent:MPI_Type_get_extent MPI_Type_lb:MPI_Type_get_extent \
            MPI_Type_ub:MPI_Type_get_extent MPI_Type_hvector:MPI_Type_create_hvector \
            MPI_Type_hindexed:MPI_Type_create_hindexed MPI_Type_struct:MPI_Type_create_struct \
            MPI_Errhandler_create:MPI_Comm_create_errhandler MPI_Errhandler_set:MPI_Comm_set_errhandler \
            MPI_Errhandler_get:MPI_Comm_get_errhandler PMPI_Type_extent:MPI_Type_get_extent; do
    old=${pair%%:*} new=${pair#*:}
    grep -q "'$old' is deprecated: ${old#P} was removed in MPI-3.0; use $new" "$UZ_SCRATCH/warnings" ||
        { cat "$UZ_SCRATCH/warnings" >&2; fail "no deprecation warning for $old naming $new"; }
    echo "ok: $old is deprecated in favour of $new"
done
# The replacements themselves do not warn.
! grep -q "'MPI_Type_get_extent' is deprecated" "$UZ_SCRATCH/warnings" || fail "MPI_Type_get_extent warned"

"$mpicc" -Wall -Werror -DUZURA_NO_DEPRECATION_WARNINGS -I"$inc" -o "$UZ_SCRATCH/mpi1_removed" "$src" \
    2>"$UZ_SCRATCH/quiet" || { cat "$UZ_SCRATCH/quiet" >&2; fail "mpicc -Werror with UZURA_NO_DEPRECATION_WARNINGS"; }
expect_eq "no warnings with UZURA_NO_DEPRECATION_WARNINGS" "" "$(cat "$UZ_SCRATCH/quiet")"

for n in 1 2 3 4; do
    out=$(timeout 60 "$mpiexec" -n "$n" "$UZ_SCRATCH/mpi1_removed") || { echo "$out" >&2; fail "mpi1_removed at $n ranks"; }
    expect_eq "mpi1_removed at $n ranks" "mpi1_removed: passed (0 failures, $n ranks)" "$out"
done
