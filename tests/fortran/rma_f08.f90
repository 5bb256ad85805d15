! rma_f08.f90 — one-sided communication from `use mpi_f08` and `use mpi`:
! MPI_Win_create on a Fortran array, MPI_Put and MPI_Get with fences,
! MPI_Accumulate under a lock, MPI_Win_allocate_shared with
! MPI_Win_shared_query and C_F_POINTER, and the window attributes.
program rma_f08
   use mpi_f08
   use uzftest
   use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
   implicit none
   integer, parameter :: n = 16
   integer :: rank, size, right, left, i, total, disp_unit, flavor
   integer(kind=MPI_ADDRESS_KIND) :: wsize, qsize
   integer :: mem(n), got(n), src(n)
   double precision :: acc(1)
   type(MPI_Win) :: win, swin
   type(MPI_Comm) :: shm
   type(c_ptr) :: base
   double precision, pointer :: shared(:)
   logical :: flag
   integer(kind=MPI_ADDRESS_KIND) :: attr

   call MPI_Init()
   call MPI_Comm_rank(MPI_COMM_WORLD, rank)
   call MPI_Comm_size(MPI_COMM_WORLD, size)
   call uzft_init(rank)
   right = mod(rank + 1, size)
   left = mod(rank - 1 + size, size)

   mem = -1
   wsize = n * 4
   call MPI_Win_create(mem, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
   call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, attr, flag)
   call check(flag .and. attr == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR')
   src = [(rank * 100 + i, i = 1, n)]
   call MPI_Win_fence(0, win)
   call MPI_Put(src, n, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win)
   call MPI_Win_fence(0, win)
   do i = 1, n
      call check_int(mem(i), left * 100 + i, 'put from the left')
   end do
   call MPI_Get(got, n, MPI_INTEGER, left, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win)
   call MPI_Win_fence(0, win)
   do i = 1, n
      call check_int(got(i), mod(left - 1 + size, size) * 100 + i, 'get from the left')
   end do
   call MPI_Win_free(win)
   call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')

   ! Shared memory: every rank adds to rank 0's element, then reads it by load.
   call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shm)
   wsize = 0
   if (rank == 0) wsize = 8
   call MPI_Win_allocate_shared(wsize, 8, MPI_INFO_NULL, shm, base, swin)
   call MPI_Win_shared_query(swin, 0, qsize, disp_unit, base)
   call check(qsize == 8 .and. disp_unit == 8, 'MPI_Win_shared_query')
   call c_f_pointer(base, shared, [1])
   call MPI_Win_lock_all(0, swin)
   if (rank == 0) shared(1) = 0d0
   call MPI_Win_sync(swin)
   call MPI_Barrier(shm)
   call MPI_Win_sync(swin)
   acc(1) = rank + 1d0
   call MPI_Accumulate(acc, 1, MPI_DOUBLE_PRECISION, 0, 0_MPI_ADDRESS_KIND, 1, MPI_DOUBLE_PRECISION, &
                       MPI_SUM, swin)
   call MPI_Win_flush(0, swin)
   call MPI_Win_sync(swin)
   call MPI_Barrier(shm)
   call MPI_Win_sync(swin)
   call MPI_Comm_size(shm, i)
   call check_real(shared(1), i * (i + 1) / 2d0, 0d0, 'sum by accumulate, read by load')
   call MPI_Win_unlock_all(swin)
   call MPI_Win_get_attr(swin, MPI_WIN_CREATE_FLAVOR, attr, flag)
   flavor = int(attr)
   call check_int(flavor, MPI_WIN_FLAVOR_SHARED, 'shared flavour')
   call MPI_Win_free(swin)
   call MPI_Comm_free(shm)

   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
   call uzft_finish(total, 'rma_f08')
   call MPI_Finalize()
end program rma_f08
