#!/usr/bin/env bash
# mpi1_removed.sh — Fortran MPI-1 programs using the procedures MPI-3.0
# removed build with the build tree's mpifort: mpi1_removed.f (mpif.h,
# linked -no-pie so that its COMMON data has addresses a default INTEGER
# holds) passes at 1 to 4 ranks, and `use mpi` declares each procedure.
set -euo pipefail
source "$UZ_SOURCE_DIR/tests/wrappers/testlib.sh"
unset FC UZURA_FC UZURA_WRAPPER_ACTIVE
mpifort=$UZ_BUILD_DIR/bin/mpifort
mpiexec=$UZ_BUILD_DIR/bin/mpiexec
[ -x "$mpifort" ] || skip "mpifort was not built (no Fortran compiler)"
scratch

"$mpifort" -no-pie -o "$UZ_SCRATCH/mpi1f" "$UZ_SOURCE_DIR/tests/fortran/mpi1_removed.f"
for n in 1 2 3 4; do
    out=$(timeout 60 "$mpiexec" -n "$n" "$UZ_SCRATCH/mpi1f") || { echo "$out" >&2; fail "mpi1_removed.f at $n ranks"; }
    expect_eq "mpi1_removed.f at $n ranks" "mpi1_removed.f: passed ($n ranks)" "$out"
done

# `use mpi` has an interface for each: a wrong argument count is an error.
cat >"$UZ_SCRATCH/mod.f90" <<'F'
program mod
   use mpi
   implicit none
   integer :: ierr, t, e, eh, bl(1) = 1, d(1) = 0, ty(1)
   integer, save :: a     ! static: its address fits a default INTEGER (-no-pie)
   external :: handler
   ty(1) = MPI_INTEGER
   call MPI_Init(ierr)
   call MPI_Address(a, e, ierr)
   call MPI_Type_extent(MPI_INTEGER, e, ierr)
   call MPI_Type_lb(MPI_INTEGER, e, ierr)
   call MPI_Type_ub(MPI_INTEGER, e, ierr)
   call MPI_Type_hvector(1, 1, 4, MPI_INTEGER, t, ierr)
   call MPI_Type_free(t, ierr)
   call MPI_Type_hindexed(1, bl, d, MPI_INTEGER, t, ierr)
   call MPI_Type_free(t, ierr)
   call MPI_Type_struct(1, bl, d, ty, t, ierr)
   call MPI_Type_extent(t, e, ierr)
   if (e /= 4) stop 2
   call MPI_Type_free(t, ierr)
   call MPI_Errhandler_create(handler, eh, ierr)
   call MPI_Errhandler_set(MPI_COMM_WORLD, eh, ierr)
   call MPI_Errhandler_get(MPI_COMM_WORLD, eh, ierr)
   if (ierr /= MPI_SUCCESS) stop 3
   print '(a)', 'use mpi: ok'
   call MPI_Finalize(ierr)
end program
subroutine handler(comm, code)
   integer :: comm, code
end subroutine
F
(cd "$UZ_SCRATCH" && "$mpifort" -no-pie -o mod mod.f90)
expect_eq "use mpi program" "use mpi: ok" "$(timeout 60 "$mpiexec" -n 1 "$UZ_SCRATCH/mod")"
sed -i 's/call MPI_Type_lb(MPI_INTEGER, e, ierr)/call MPI_Type_lb(MPI_INTEGER, e)/' "$UZ_SCRATCH/mod.f90"
if (cd "$UZ_SCRATCH" && "$mpifort" -o mod2 mod.f90 2>/dev/null); then
    fail "use mpi accepted MPI_Type_lb without IERROR"
fi
echo "ok: use mpi checks the arguments of MPI_TYPE_LB"
