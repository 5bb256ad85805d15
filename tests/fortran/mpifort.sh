#!/usr/bin/env bash
# mpifort.sh — the build tree's mpifort, mpif90 and mpif77: -show prints the
# command (module and mpif.h directories, libmpifort before libmpi_abi),
# UZURA_FC / FC choose the compiler, and programs of each flavour (fixed-form
# mpif.h passing a scalar and an array to the same procedure, `use mpi`,
# `use mpi_f08`) build and run under mpiexec.
set -euo pipefail
source "$UZ_SOURCE_DIR/tests/wrappers/testlib.sh"
unset FC UZURA_FC UZURA_WRAPPER_ACTIVE
bin=$UZ_BUILD_DIR/bin
[ -x "$bin/mpifort" ] || skip "mpifort was not built (no Fortran compiler)"

inc="-I$UZ_SOURCE_DIR/src/binding/fortran/gen -I$UZ_BUILD_DIR/fortran/modules"
lib=$UZ_BUILD_DIR/lib
link="-L$lib -Wl,-rpath,$lib -Wl,--enable-new-dtags${UZ_SANITIZE:+ -fsanitize=$UZ_SANITIZE} -lmpifort -lmpi_abi"
for w in mpifort mpif90 mpif77; do
    expect_eq "$w -show" "gfortran $inc -o a a.f90 $link" "$("$bin/$w" -show -o a a.f90)"
done
expect_eq "mpifort -c adds no link flags" "gfortran $inc -c a.f" "$("$bin/mpifort" -show -c a.f)"
expect_eq "mpifort -showme:libs" "mpifort mpi_abi" "$("$bin/mpifort" -showme:libs)"
expect_eq "mpifort -showme:incdirs" "$UZ_SOURCE_DIR/src/binding/fortran/gen $UZ_BUILD_DIR/fortran/modules" \
    "$("$bin/mpifort" -showme:incdirs)"
expect_eq "mpifort FC" "myfc" "$(FC=myfc "$bin/mpifort" -show a.f90 | cut -d' ' -f1)"
expect_eq "mpifort UZURA_FC beats FC" "uzfc" "$(FC=myfc UZURA_FC=uzfc "$bin/mpifort" -show a.f90 | cut -d' ' -f1)"
expect_eq "mpifort ignores FC=mpif90" "gfortran" "$(FC=mpif90 "$bin/mpifort" -show a.f90 | cut -d' ' -f1)"
expect_eq "mpifort ignores CC" "gfortran" "$(CC=mycc UZURA_CC=uzcc "$bin/mpifort" -show a.f90 | cut -d' ' -f1)"

scratch
cat >"$UZ_SCRATCH/hello77.f" <<'F'
      PROGRAM HELLO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, A(3)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      I = RANK
      A(1) = RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, I, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, A, 1, MPI_INTEGER, MPI_MAX,
     &                   MPI_COMM_WORLD, IERR)
      PRINT '(A,I0,A,I0,A,I0,A,I0)', 'f77 rank ', RANK, ' of ', NP,
     &      ' sum ', I, ' max ', A(1)
      CALL MPI_FINALIZE(IERR)
      END
F
cat >"$UZ_SCRATCH/hello90.f90" <<'F'
program hello
   use mpi
   implicit none
   integer :: ierr, rank, np
   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   print '(a,i0,a,i0)', 'mpi rank ', rank, ' of ', np
   call MPI_Finalize(ierr)
end program
F
cat >"$UZ_SCRATCH/hello08.f90" <<'F'
program hello
   use mpi_f08
   implicit none
   integer :: rank, np
   call MPI_Init()
   call MPI_Comm_rank(MPI_COMM_WORLD, rank)
   call MPI_Comm_size(MPI_COMM_WORLD, np)
   print '(a,i0,a,i0)', 'mpi_f08 rank ', rank, ' of ', np
   call MPI_Finalize()
end program
F
cd "$UZ_SCRATCH"
"$bin/mpif77" -Wall -Werror -o hello77 hello77.f
"$bin/mpif90" -Wall -o hello90 hello90.f90
"$bin/mpifort" -Wall -o hello08 hello08.f90
expect_eq "mpif.h program at 2 ranks" $'f77 rank 0 of 2 sum 1 max 1\nf77 rank 1 of 2 sum 1 max 1' \
    "$("$bin/mpiexec" -n 2 ./hello77 | sort)"
expect_eq "use mpi program at 2 ranks" "$(expected_ranks 2 "")" "$("$bin/mpiexec" -n 2 ./hello90 | sed 's/^mpi //' | sort)"
expect_eq "use mpi_f08 program, singleton" "mpi_f08 rank 0 of 1" "$(./hello08)"
expect_eq "RUNPATH of a program mpifort built" "$lib" "$(dyn_path RUNPATH hello08)"
