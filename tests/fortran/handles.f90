! handles.f90 — handles, statuses and objects crossing between Fortran and
! C in one program (handles_c.c holds the C half): MPI_Comm_f2c/c2f,
! MPI_Type_*, MPI_Request_*, MPI_Op_*, MPI_Info_*, MPI_Group_* and
! MPI_Status_f2c/c2f/f2f08/f082c/c2f08, in both directions.
subroutine fortran_sum(invec, inoutvec, len, datatype)
   implicit none
   integer :: len, datatype
   integer :: invec(len), inoutvec(len)
   inoutvec = inoutvec + invec
   if (datatype == 0) inoutvec = -1
end subroutine

program handles
   use mpi
   use uzftest
   use, intrinsic :: iso_c_binding, only: c_int
   implicit none
   interface
      ! C functions with Fortran's conventions: every argument by address.
      subroutine c_check_comm(comm, size, newcomm, ok) bind(C, name='c_check_comm')
         import :: c_int
         integer(c_int) :: comm, size, newcomm, ok
      end subroutine
      subroutine c_make_type(newtype) bind(C, name='c_make_type')
         import :: c_int
         integer(c_int) :: newtype
      end subroutine
      subroutine c_check_status(status, source, tag, back, ok) bind(C, name='c_check_status')
         import :: c_int
         integer(c_int) :: status(*), source, tag, back(*), ok
      end subroutine
      subroutine c_check_status08(status, source, tag, ok) bind(C, name='c_check_status08')
         import :: c_int, MPI_Status
         type(MPI_Status) :: status
         integer(c_int) :: source, tag, ok
      end subroutine
      subroutine c_wait(request, ok) bind(C, name='c_wait')
         import :: c_int
         integer(c_int) :: request, ok
      end subroutine
      subroutine c_reduce_with(op, comm, value, result) bind(C, name='c_reduce_with')
         import :: c_int
         integer(c_int) :: op, comm, value, result
      end subroutine
      subroutine c_info_value(info, ok) bind(C, name='c_info_value')
         import :: c_int
         integer(c_int) :: info, ok
      end subroutine
      subroutine c_group_size(group, size) bind(C, name='c_group_size')
         import :: c_int
         integer(c_int) :: group, size
      end subroutine
   end interface
   external :: fortran_sum
   integer :: ierr, rank, np, total, sub, newcomm, ok, sum, t, i, req, op, info, grp, gsize
   integer :: st(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE), next, prev
   double precision :: m(3, 4), col(4)
   type(MPI_Status) :: st08

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   next = mod(rank + 1, np)
   prev = mod(rank + np - 1, np)

   ! A Fortran communicator in C, and a C one back in Fortran.
   call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, sub, ierr)
   call c_check_comm(sub, np, newcomm, ok)
   call check_int(ok, 1, 'C sees the Fortran communicator')
   call MPI_Allreduce(1, sum, 1, MPI_INTEGER, MPI_SUM, newcomm, ierr)
   call check_int(sum, np, 'Fortran uses the communicator C made')
   call MPI_Comm_rank(newcomm, i, ierr)
   call check_int(i, np - 1 - rank, 'rank order of the C duplicate')
   call MPI_Comm_free(newcomm, ierr)
   call MPI_Comm_free(sub, ierr)

   ! A C datatype (the row of a 3x4 column-major array) used from Fortran.
   call c_make_type(t)
   m = reshape([(dble(i + 100 * rank), i = 1, 12)], [3, 4])
   call MPI_Sendrecv(m(2, 1), 1, t, next, 1, col, 4, MPI_DOUBLE_PRECISION, prev, 1, &
                     MPI_COMM_WORLD, st, ierr)
   call check(all(col == [(dble(2 + 3 * i + 100 * prev), i = 0, 3)]), 'C datatype in Fortran')
   call MPI_Type_free(t, ierr)

   ! A Fortran status read by C; C's conversion back.
   call c_check_status(st, prev, 1, back, ok)
   call check_int(ok, 1, 'C reads the Fortran status')
   call check(all(back(1:3) == st(1:3)), 'MPI_Status_c2f gives the same status')
   call MPI_Status_f2f08(st, st08, ierr)
   call check(st08%MPI_SOURCE == prev .and. st08%MPI_TAG == 1, 'MPI_Status_f2f08')
   call c_check_status08(st08, prev, 1, ok)
   call check_int(ok, 1, 'C reads TYPE(MPI_Status) (MPI_Status_f082c, MPI_Status_c2f08)')

   ! A Fortran request completed in C.
   call MPI_Irecv(i, 1, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, req, ierr)
   call MPI_Send(rank, 1, MPI_INTEGER, next, 2, MPI_COMM_WORLD, ierr)
   call c_wait(req, ok)
   call check_int(ok, 1, 'C waits for the Fortran request')
   call check_int(req, MPI_REQUEST_NULL, 'the request C completed is null in Fortran')
   call check_int(i, prev, 'data of the request C completed')

   ! A Fortran operation run by a C reduction.
   call MPI_Op_create(fortran_sum, .true., op, ierr)
   call c_reduce_with(op, MPI_COMM_WORLD, rank + 1, sum)
   call check_int(sum, np * (np + 1) / 2, 'Fortran operation in a C MPI_Allreduce')
   call MPI_Op_free(op, ierr)

   ! Info and group objects.
   call MPI_Info_create(info, ierr)
   call MPI_Info_set(info, 'made_in', 'fortran', ierr)
   call c_info_value(info, ok)
   call check_int(ok, 1, 'C reads the Fortran info')
   call MPI_Info_free(info, ierr)
   call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
   call c_group_size(grp, gsize)
   call check_int(gsize, np, 'C sees the Fortran group')
   call MPI_Group_free(grp, ierr)

   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.handles_c')
end program handles
