! uzftest.f90 — checks for the Fortran test programs: each failed check
! prints the rank, a line tag and what was wrong, and is counted; the
! program sums the counts over its ranks (with its own bindings) and calls
! uzft_finish, which stops with a non-zero code on failure.  No MPI here, so
! that the same module serves `use mpi` and `use mpi_f08` programs.
module uzftest
   implicit none
   private
   public :: uzft_init, check, check_int, check_real, uzft_failures, uzft_finish
   integer, save :: failures = 0, myrank = -1
contains
   subroutine uzft_init(rank)
      integer, intent(in) :: rank
      myrank = rank
   end subroutine

   subroutine check(cond, what)
      logical, intent(in) :: cond
      character(len=*), intent(in) :: what
      if (.not. cond) then
         failures = failures + 1
         write (*, '(a,i0,2a)') 'FAIL rank ', myrank, ': ', what
         flush (6)
      end if
   end subroutine

   subroutine check_int(got, want, what)
      integer, intent(in) :: got, want
      character(len=*), intent(in) :: what
      if (got /= want) then
         failures = failures + 1
         write (*, '(a,i0,3a,i0,a,i0)') 'FAIL rank ', myrank, ': ', what, ' = ', got, &
            ', expected ', want
         flush (6)
      end if
   end subroutine

   subroutine check_real(got, want, tol, what)
      double precision, intent(in) :: got, want, tol
      character(len=*), intent(in) :: what
      if (abs(got - want) > tol) then
         failures = failures + 1
         write (*, '(a,i0,3a,es23.15,a,es23.15)') 'FAIL rank ', myrank, ': ', what, ' = ', got, &
            ', expected ', want
         flush (6)
      end if
   end subroutine

   integer function uzft_failures()
      uzft_failures = failures
   end function

   ! total: the failures of all ranks.
   subroutine uzft_finish(total, name)
      integer, intent(in) :: total
      character(len=*), intent(in) :: name
      if (total /= 0) then
         if (myrank == 0) write (*, '(3a,i0,a)') 'FAIL ', name, ': ', total, ' failed checks'
         stop 1
      end if
      if (myrank == 0) write (*, '(3a)') 'PASS ', name
   end subroutine
end module uzftest
