! status_error.f90 — `use mpi`: a status's MPI_ERROR entry is the program's.
! The calls that return one status (probes, receives, matched probes and
! receives, MPI_Wait, MPI_Test, MPI_Sendrecv) fill source, tag and count
! and leave MPI_ERROR as it was (MPI 4.1 §3.2.5), with MPI_PROC_NULL
! (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0) and with a real message.
program status_error
   use mpi
   use uzftest
   implicit none
   integer, parameter :: sentinel = 4242
   integer :: ierr, rank, np, total

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   call test_proc_null()
   call test_messages()
   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.status_error')

contains

   subroutine preset(st)
      integer, intent(out) :: st(MPI_STATUS_SIZE)
      st = -7
      st(MPI_ERROR) = sentinel
   end subroutine

   subroutine check_status(st, source, tag, count, what)
      integer, intent(in) :: st(MPI_STATUS_SIZE), source, tag, count
      character(len=*), intent(in) :: what
      integer :: n
      call MPI_Get_count(st, MPI_INTEGER, n, ierr)
      call check_int(st(MPI_SOURCE), source, what // ': status(MPI_SOURCE)')
      call check_int(st(MPI_TAG), tag, what // ': status(MPI_TAG)')
      call check_int(n, count, what // ': count')
      call check_int(st(MPI_ERROR), sentinel, what // ': status(MPI_ERROR)')
   end subroutine

   subroutine test_proc_null()
      integer :: st(MPI_STATUS_SIZE), req, msg, buf(4)
      logical :: flag
      call preset(st)
      call MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, st, ierr)
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Probe(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, flag, st, ierr)
      call check(flag, 'MPI_Iprobe(MPI_PROC_NULL) flag')
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Iprobe(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Recv(buf, 4, MPI_INTEGER, MPI_PROC_NULL, 1, MPI_COMM_WORLD, st, ierr)
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Recv(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Irecv(buf, 4, MPI_INTEGER, MPI_PROC_NULL, 1, MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, st, ierr)
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Irecv(MPI_PROC_NULL)+MPI_Wait')
      call preset(st)
      call MPI_Sendrecv(buf, 4, MPI_INTEGER, MPI_PROC_NULL, 1, buf, 4, MPI_INTEGER, MPI_PROC_NULL, 1, &
                        MPI_COMM_WORLD, st, ierr)
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Sendrecv(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, msg, st, ierr)
      call check(msg == MPI_MESSAGE_NO_PROC, 'MPI_Mprobe(MPI_PROC_NULL) message')
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Mprobe(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Mrecv(buf, 4, MPI_INTEGER, msg, st, ierr)
      call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv(MPI_MESSAGE_NO_PROC) consumes the message')
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Mrecv(MPI_MESSAGE_NO_PROC)')
      call preset(st)
      call MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, flag, msg, st, ierr)
      call check(flag .and. msg == MPI_MESSAGE_NO_PROC, 'MPI_Improbe(MPI_PROC_NULL) flag and message')
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Improbe(MPI_PROC_NULL)')
      call preset(st)
      call MPI_Imrecv(buf, 4, MPI_INTEGER, msg, req, ierr)
      call MPI_Wait(req, st, ierr)
      call check_status(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, 'MPI_Imrecv(MPI_MESSAGE_NO_PROC)+MPI_Wait')
   end subroutine

   ! Each rank sends to the next and receives from the previous one.
   subroutine test_messages()
      integer :: st(MPI_STATUS_SIZE), pst(MPI_STATUS_SIZE), sreq, req, msg, next, prev
      integer :: out(100), in(100), i
      logical :: flag
      next = mod(rank + 1, np)
      prev = mod(rank + np - 1, np)
      out = [(rank * 1000 + i, i = 1, 100)]

      in = 0
      call MPI_Isend(out, 100, MPI_INTEGER, next, 11, MPI_COMM_WORLD, sreq, ierr)
      call preset(pst)
      call MPI_Mprobe(prev, 11, MPI_COMM_WORLD, msg, pst, ierr)
      call check_status(pst, prev, 11, 100, 'MPI_Mprobe')
      call preset(st)
      call MPI_Mrecv(in, 100, MPI_INTEGER, msg, st, ierr)
      call check_status(st, prev, 11, 100, 'MPI_Mrecv')
      call check(all(in == [(prev * 1000 + i, i = 1, 100)]), 'MPI_Mrecv data')
      call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)

      in = 0
      call MPI_Isend(out, 100, MPI_INTEGER, next, 12, MPI_COMM_WORLD, sreq, ierr)
      call preset(pst)
      flag = .false.
      do while (.not. flag)
         call MPI_Improbe(prev, 12, MPI_COMM_WORLD, flag, msg, pst, ierr)
      end do
      call check_status(pst, prev, 12, 100, 'MPI_Improbe')
      call preset(st)
      call MPI_Imrecv(in, 100, MPI_INTEGER, msg, req, ierr)
      call MPI_Wait(req, st, ierr)
      call check_status(st, prev, 12, 100, 'MPI_Imrecv+MPI_Wait')
      call check(all(in == [(prev * 1000 + i, i = 1, 100)]), 'MPI_Imrecv data')
      call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)

      in = 0
      call MPI_Isend(out, 100, MPI_INTEGER, next, 13, MPI_COMM_WORLD, sreq, ierr)
      call preset(pst)
      call MPI_Probe(prev, 13, MPI_COMM_WORLD, pst, ierr)
      call check_status(pst, prev, 13, 100, 'MPI_Probe')
      call preset(st)
      call MPI_Recv(in, 100, MPI_INTEGER, prev, 13, MPI_COMM_WORLD, st, ierr)
      call check_status(st, prev, 13, 100, 'MPI_Recv')
      call check(all(in == [(prev * 1000 + i, i = 1, 100)]), 'MPI_Recv data')
      call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)

      in = 0
      call MPI_Isend(out, 100, MPI_INTEGER, next, 14, MPI_COMM_WORLD, sreq, ierr)
      call MPI_Irecv(in, 100, MPI_INTEGER, prev, 14, MPI_COMM_WORLD, req, ierr)
      call preset(st)
      flag = .false.
      do while (.not. flag)
         call MPI_Test(req, flag, st, ierr)
      end do
      call check_status(st, prev, 14, 100, 'MPI_Irecv+MPI_Test')
      call check(all(in == [(prev * 1000 + i, i = 1, 100)]), 'MPI_Irecv data')
      call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)

      in = 0
      call preset(st)
      call MPI_Sendrecv(out, 100, MPI_INTEGER, next, 15, in, 100, MPI_INTEGER, prev, 15, &
                        MPI_COMM_WORLD, st, ierr)
      call check_status(st, prev, 15, 100, 'MPI_Sendrecv')
      call check(all(in == [(prev * 1000 + i, i = 1, 100)]), 'MPI_Sendrecv data')
   end subroutine
end program status_error
