! io_f08.f90 — MPI-IO from `use mpi_f08`: a file opened on every rank, a
! strided view made of a Fortran vector type, collective and independent
! writes and reads through it, the shared pointer, a nonblocking read,
! statuses counted with MPI_Get_count, and an error class returned (files
! default to MPI_ERRORS_RETURN) for a write to a read-only file.
program io_f08
   use mpi_f08
   use uzftest
   implicit none
   integer, parameter :: n = 8
   integer :: rank, size, i, total, cnt, ierr, cls
   integer :: mine(n), got(n)
   type(MPI_File) :: fh
   type(MPI_Datatype) :: ftype
   type(MPI_Status) :: st
   type(MPI_Request) :: req
   character(len=256) :: path
   character(len=32) :: tag
   integer(kind=MPI_OFFSET_KIND) :: fsize, pos

   call MPI_Init()
   call MPI_Comm_rank(MPI_COMM_WORLD, rank)
   call MPI_Comm_size(MPI_COMM_WORLD, size)
   call uzft_init(rank)
   if (rank == 0) then
      call get_environment_variable('UZURA_TEST_TMPDIR', path)
      if (len_trim(path) == 0) call get_environment_variable('TMPDIR', path)
      if (len_trim(path) == 0) path = '/tmp'
      write (tag, '(i0)') getpid_of_run()
      path = trim(path) // '/io_f08.' // trim(tag) // '.dat'
   end if
   call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD)

   call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
   ! Element i of rank r lands at integer (i-1)*size + r of the file.
   call MPI_Type_vector(n, 1, size, MPI_INTEGER, ftype)
   call MPI_Type_commit(ftype)
   call MPI_File_set_view(fh, int(rank * 4, MPI_OFFSET_KIND), MPI_INTEGER, ftype, 'native', MPI_INFO_NULL)
   do i = 1, n
      mine(i) = rank * 1000 + i
   end do
   call MPI_File_write_all(fh, mine, n, MPI_INTEGER, st)
   call MPI_Get_count(st, MPI_INTEGER, cnt)
   call check_int(cnt, n, 'write_all count')
   call MPI_File_sync(fh)
   call MPI_Barrier(MPI_COMM_WORLD)
   call MPI_File_sync(fh)
   call MPI_File_get_size(fh, fsize)
   call check(fsize == int(n * size * 4, MPI_OFFSET_KIND), 'file size after write_all')
   got = -1
   call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, n, MPI_INTEGER, st)
   do i = 1, n
      call check_int(got(i), rank * 1000 + i, 'read_at through the view')
   end do
   call MPI_File_get_position(fh, pos)
   call check(pos == int(n, MPI_OFFSET_KIND), 'individual pointer after write_all')

   ! The whole file as bytes of integers, read by a nonblocking call.
   call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
   got = -1
   call MPI_File_iread_at(fh, int(rank, MPI_OFFSET_KIND), got, 1, MPI_INTEGER, req)
   call MPI_Wait(req, st)
   call MPI_Get_count(st, MPI_INTEGER, cnt)
   call check_int(cnt, 1, 'iread_at count')
   call check_int(got(1), rank * 1000 + 1, 'iread_at: rank r element 1 at integer r')

   ! Ordered writes after the end, in rank order.
   call MPI_File_seek_shared(fh, int(n * size, MPI_OFFSET_KIND), MPI_SEEK_SET)
   call MPI_File_write_ordered(fh, rank, 1, MPI_INTEGER, st)
   call MPI_File_read_at_all(fh, int(n * size + rank, MPI_OFFSET_KIND), got, 1, MPI_INTEGER, st)
   call check_int(got(1), rank, 'write_ordered in rank order')
   call MPI_File_close(fh)
   call check(fh == MPI_FILE_NULL, 'MPI_File_close sets MPI_FILE_NULL')

   ! A read-only file refuses a write with MPI_ERR_READ_ONLY, returned.
   call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_RDONLY, MPI_INFO_NULL, fh)
   call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, mine, 1, MPI_INTEGER, st, ierr)
   call MPI_Error_class(ierr, cls)
   call check_int(cls, MPI_ERR_READ_ONLY, 'write to a read-only file')
   call MPI_File_close(fh)
   call MPI_Barrier(MPI_COMM_WORLD)
   if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL)
   call MPI_Type_free(ftype)

   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
   call uzft_finish(total, 'io_f08')
   call MPI_Finalize()
contains
   ! A number that differs between runs (the clock), for the file name.
   integer function getpid_of_run()
      integer(8) :: c
      call system_clock(c)
      getpid_of_run = int(mod(c, 1000000000_8))
   end function
end program io_f08
