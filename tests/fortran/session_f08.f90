! session_f08.f90 — the Sessions model through `use mpi_f08`, in a program
! that never calls MPI_Init: a session with an error handler written in
! Fortran, its process sets (names by index and MPI_SESSION_GET_NTH_PSET's
! length query, sizes from MPI_SESSION_GET_PSET_INFO), a communicator from
! mpi://WORLD with a reduction and a ring exchange checked, an unknown set
! raising MPI_ERR_ARG through the session's handler, handle conversion
! (MPI_Session_c2f/f2c through %MPI_VAL), and a second round after
! MPI_SESSION_FINALIZE tore the runtime down.
module session_f08_procs
   use mpi_f08
   implicit none
   integer, save :: handled = 0, handled_class = -1
contains
   subroutine on_error(session, error_code)
      type(MPI_Session) :: session
      integer :: error_code
      integer :: ierr
      if (session == MPI_SESSION_NULL) handled = -1000
      handled = handled + 1
      call MPI_Error_class(error_code, handled_class, ierr)
   end subroutine
end module

program session_f08
   use mpi_f08
   use uzftest
   use session_f08_procs
   implicit none
   type(MPI_Session) :: session, copy
   type(MPI_Errhandler) :: eh
   type(MPI_Group) :: group
   type(MPI_Comm) :: comm
   type(MPI_Info) :: info
   character(len=64) :: name, value
   integer :: round, n, length, rank, size, ierr, sum, got, total
   logical :: flag

   do round = 1, 2
      call MPI_Session_create_errhandler(on_error, eh)
      call MPI_Session_init(MPI_INFO_NULL, eh, session)
      call MPI_Errhandler_free(eh)
      copy%MPI_VAL = session%MPI_VAL
      call check(copy == session, 'session handle copied through MPI_VAL')

      call MPI_Session_get_num_psets(session, MPI_INFO_NULL, n)
      call check_int(n, 3, 'number of process sets')
      length = 0
      call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, length, name)
      ! Fortran lengths count no terminating null (docs/fortran.md).
      call check_int(length, len('mpi://WORLD'), 'length of pset 0')
      length = len(name)
      call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 1, length, name)
      call check(trim(name) == 'mpi://SELF', 'pset 1 is mpi://SELF, got '//trim(name))

      call MPI_Group_from_session_pset(session, 'mpi://WORLD', group)
      call MPI_Comm_create_from_group(group, 'session_f08', MPI_INFO_NULL, MPI_ERRHANDLER_NULL, comm)
      call MPI_Group_free(group)
      call MPI_Comm_rank(comm, rank)
      call MPI_Comm_size(comm, size)
      call uzft_init(rank)

      call MPI_Session_get_pset_info(session, 'mpi://WORLD', info)
      length = len(value)
      call MPI_Info_get_string(info, 'mpi_size', length, value, flag)
      read (value, *) got
      call check(flag, 'mpi_size is set')
      call check_int(got, size, 'mpi_size of mpi://WORLD')
      call MPI_Info_free(info)

      call MPI_Allreduce(rank + round, sum, 1, MPI_INTEGER, MPI_SUM, comm)
      call check_int(sum, size * (size - 1) / 2 + size * round, 'allreduce over the session communicator')
      call MPI_Sendrecv(rank * 10 + round, 1, MPI_INTEGER, mod(rank + 1, size), 4, &
                        got, 1, MPI_INTEGER, mod(rank + size - 1, size), 4, comm, MPI_STATUS_IGNORE)
      call check_int(got, mod(rank + size - 1, size) * 10 + round, 'ring value')

      ! An unknown set: the session's Fortran handler sees MPI_ERR_ARG.
      call MPI_Group_from_session_pset(session, 'mpi://nowhere', group, ierr)
      call check_int(handled, round, 'handler calls')
      call check_int(handled_class, MPI_ERR_ARG, 'class seen by the handler')

      call MPI_Initialized(flag)
      call check(.not. flag, 'MPI_Initialized stays false with sessions alone')
      call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, comm)
      call MPI_Comm_free(comm)
      call MPI_Session_finalize(session)
      call check(session == MPI_SESSION_NULL, 'MPI_Session_finalize set MPI_SESSION_NULL')
   end do
   call uzft_finish(total, 'session_f08')
end program
