! f08_basic.f90 — `use mpi_f08`: handle types and their comparison,
! TYPE(MPI_Status), optional ierror, TYPE(*), DIMENSION(..) buffers
! (scalars, arrays of any rank, non-contiguous sections), large counts,
! point-to-point, collectives with MPI_IN_PLACE (blocking and not), derived
! datatypes, MPI_Comm_split, a Cartesian topology with a neighbourhood
! collective, MPI_Alltoallw, errors returned, an error handler and a
! reduction operation written in Fortran.
module f08_procs
   use mpi_f08
   implicit none
   integer, save :: handled = 0, handled_class = -1
contains
   subroutine on_error(comm, error_code)
      type(MPI_Comm) :: comm
      integer :: error_code
      integer :: ierr
      handled = handled + 1
      call MPI_Error_class(error_code, handled_class, ierr)
      if (comm == MPI_COMM_NULL) handled = -1000
   end subroutine

   ! A sum, reached through the f08 interface (TYPE(C_PTR) vectors).
   subroutine vsum(invec, inoutvec, len, datatype)
      use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
      double precision, pointer :: a(:), b(:)
      if (datatype /= MPI_DOUBLE_PRECISION) stop 'vsum: wrong datatype'
      call c_f_pointer(invec, a, [len])
      call c_f_pointer(inoutvec, b, [len])
      b = b + a
   end subroutine
end module f08_procs

program f08_basic
   use mpi_f08
   use f08_procs
   use uzftest
   implicit none
   integer :: rank, np, total, ierr

   call MPI_Init()
   call MPI_Comm_rank(MPI_COMM_WORLD, rank)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Comm_size ierror')
   call check(MPI_COMM_WORLD /= MPI_COMM_NULL .and. MPI_COMM_WORLD == MPI_COMM_WORLD, &
              'handle comparison')
   call check(MPI_COMM_WORLD%MPI_VAL == 257 .and. MPI_DOUBLE_PRECISION%MPI_VAL == 540, &
              'handle values of the standard ABI')
   call test_p2p()
   call test_sections()
   call test_collectives()
   call test_types()
   call test_topology()
   call test_errors()
   call test_misc()
   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
   call MPI_Finalize()
   call uzft_finish(total, 'fortran.use_mpi_f08')

contains

   subroutine test_p2p()
      type(MPI_Status) :: st, sts(2)
      type(MPI_Request) :: req(2)
      integer :: next, prev, n, idx, x, y
      integer(kind=MPI_COUNT_KIND) :: big_count, got
      double precision :: d(5), e(5)
      integer :: f_status(MPI_STATUS_SIZE)
      type(MPI_Status) :: back
      next = mod(rank + 1, np)
      prev = mod(rank + np - 1, np)
      ! MPI_ERROR is the program's: a call returning one status leaves it.
      st%MPI_ERROR = 4242
      call MPI_Sendrecv(rank, 1, MPI_INTEGER, next, 5, x, 1, MPI_INTEGER, MPI_ANY_SOURCE, &
                        MPI_ANY_TAG, MPI_COMM_WORLD, st)
      call check_int(x, prev, 'sendrecv value')
      call check_int(st%MPI_SOURCE, prev, 'status%MPI_SOURCE')
      call check_int(st%MPI_TAG, 5, 'status%MPI_TAG')
      call check_int(st%MPI_ERROR, 4242, 'status%MPI_ERROR kept')
      call MPI_Get_count(st, MPI_INTEGER, n)
      call check_int(n, 1, 'MPI_Get_count')
      ! TYPE(MPI_Status) <-> INTEGER status
      call MPI_Status_f082f(st, f_status)
      call check(f_status(MPI_SOURCE) == prev .and. f_status(MPI_TAG) == 5, 'MPI_Status_f082f')
      call MPI_Status_f2f08(f_status, back)
      call check(back%MPI_SOURCE == prev .and. back%MPI_TAG == 5, 'MPI_Status_f2f08')
      ! Large counts: INTEGER(KIND=MPI_COUNT_KIND) selects MPI_Send_c and friends.
      d = [(dble(rank * 10 + n), n = 1, 5)]
      big_count = 5
      call MPI_Irecv(e, big_count, MPI_DOUBLE_PRECISION, prev, 6, MPI_COMM_WORLD, req(1))
      call MPI_Isend(d, big_count, MPI_DOUBLE_PRECISION, next, 6, MPI_COMM_WORLD, req(2))
      call MPI_Waitany(2, req, idx, st)
      call check(idx == 1 .or. idx == 2, 'MPI_Waitany index counts from 1')
      call MPI_Waitall(2, req, sts)
      call check(all(req == MPI_REQUEST_NULL), 'requests after MPI_Waitall')
      call check(e(5) == prev * 10 + 5, 'large-count transfer')
      if (idx == 2) st = sts(1)
      call MPI_Get_count(st, MPI_DOUBLE_PRECISION, got)
      call check(got == 5 .or. idx == 2, 'MPI_Get_count_c')
      ! A scalar buffer and MPI_STATUS_IGNORE.
      y = -1
      call MPI_Sendrecv(rank * 3, 1, MPI_INTEGER, next, 7, y, 1, MPI_INTEGER, prev, 7, &
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call check_int(y, prev * 3, 'scalar expression as a buffer')
   end subroutine

   ! Array sections: a strided section goes to C as a derived datatype.
   subroutine test_sections()
      double precision :: a(20), b(20), m(4, 6), row(6)
      integer :: i, partner, ierr2
      partner = ieor(rank, 1)
      if (partner >= np) partner = rank
      a = [(dble(i + 100 * rank), i = 1, 20)]
      b = -1
      call MPI_Sendrecv(a(1:20:2), 10, MPI_DOUBLE_PRECISION, partner, 8, &
                        b(2:20:2), 10, MPI_DOUBLE_PRECISION, partner, 8, MPI_COMM_WORLD, &
                        MPI_STATUS_IGNORE)
      call check(all(b(2:20:2) == [(dble(2 * i - 1 + 100 * partner), i = 1, 10)]), &
                 'strided section to strided section')
      call check(all(b(1:19:2) == -1), 'untouched between the strides')
      m = reshape([(dble(i + 1000 * rank), i = 1, 24)], [4, 6])
      call MPI_Sendrecv(m(2, :), 6, MPI_DOUBLE_PRECISION, partner, 9, row, 6, &
                        MPI_DOUBLE_PRECISION, partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call check(all(row == [(dble(2 + 4 * i + 1000 * partner), i = 0, 5)]), 'row of a 2-D array')
      ! A reversed section.
      call MPI_Sendrecv(a(20:1:-1), 20, MPI_DOUBLE_PRECISION, partner, 10, b, 20, &
                        MPI_DOUBLE_PRECISION, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call check(b(1) == 20 + 100 * partner .and. b(20) == 1 + 100 * partner, 'reversed section')
      ! A section whose count does not cover it is refused, not misread.
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
      call MPI_Send(a(1:20:2), 3, MPI_DOUBLE_PRECISION, partner, 11, MPI_COMM_WORLD, ierr2)
      call MPI_Error_class(ierr2, i)
      call check_int(i, MPI_ERR_BUFFER, 'section with a partial count')
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
   end subroutine

   subroutine test_collectives()
      integer :: v(4), i, counts(4), displs(4), gath(16)
      double precision :: s(3)
      type(MPI_Request) :: req
      type(MPI_Op) :: op
      v = rank + 1
      call MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
      call check(all(v == np * (np + 1) / 2), 'MPI_Allreduce MPI_IN_PLACE')
      s = rank
      call MPI_Iallreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      call check(all(s == np * (np - 1) / 2), 'MPI_Iallreduce MPI_IN_PLACE')
      ! Allgatherv in place: rank r holds r+1 values at offset r*(r+1)/2.
      do i = 1, np
         counts(i) = i
         displs(i) = (i - 1) * i / 2
      end do
      gath = -1
      gath(displs(rank + 1) + 1:displs(rank + 1) + rank + 1) = rank
      call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, gath, counts, displs, MPI_INTEGER, &
                          MPI_COMM_WORLD)
      do i = 1, np
         call check(all(gath(displs(i) + 1:displs(i) + i) == i - 1), 'MPI_Allgatherv in place')
      end do
      ! A Fortran operation with the mpi_f08 interface (TYPE(C_PTR) vectors).
      call MPI_Op_create(vsum, .true., op)
      call MPI_Allreduce([dble(rank), 1d0, 2d0], s, 3, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
      call check(op /= MPI_OP_NULL, 'MPI_Op_create')
      call check(s(1) == np * (np - 1) / 2 .and. s(2) == np .and. s(3) == 2 * np, &
                 'Fortran operation (mpi_f08 interface)')
      call MPI_Op_free(op)
      call check(op == MPI_OP_NULL, 'MPI_Op_free')
   end subroutine

   subroutine test_types()
      type :: particle
         sequence
         double precision :: x, y
         integer :: id
      end type
      type(particle) :: p(3), q(3)
      type(MPI_Datatype) :: ptype, tmp, sub
      integer(kind=MPI_ADDRESS_KIND) :: addr(3), lb, ext
      integer :: partner, i, sz
      double precision :: grid(6, 5), got(3, 2)
      partner = ieor(rank, 1)
      if (partner >= np) partner = rank
      do i = 1, 3
         p(i) = particle(dble(i), dble(-i), 100 * rank + i)
      end do
      call MPI_Get_address(p(1)%x, addr(1))
      call MPI_Get_address(p(1)%y, addr(2))
      call MPI_Get_address(p(1)%id, addr(3))
      addr = addr - addr(1)
      call MPI_Type_create_struct(3, [1, 1, 1], addr, &
                                  [MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_INTEGER], tmp)
      call MPI_Type_create_resized(tmp, 0_MPI_ADDRESS_KIND, int(storage_size(p(1)) / 8, &
                                   MPI_ADDRESS_KIND), ptype)
      call MPI_Type_free(tmp)
      call MPI_Type_commit(ptype)
      call MPI_Type_get_extent(ptype, lb, ext)
      call check(ext == storage_size(p(1)) / 8, 'extent of the particle type')
      call MPI_Sendrecv(p, 3, ptype, partner, 12, q, 3, ptype, partner, 12, MPI_COMM_WORLD, &
                        MPI_STATUS_IGNORE)
      call check(q(3)%id == 100 * partner + 3 .and. q(2)%y == -2, 'array of derived type')
      call MPI_Type_free(ptype)
      ! A 3x2 block of a 6x5 array, starting at (2,3).
      grid = reshape([(dble(i + 100 * rank), i = 1, 30)], [6, 5])
      call MPI_Type_create_subarray(2, [6, 5], [3, 2], [1, 2], MPI_ORDER_FORTRAN, &
                                    MPI_DOUBLE_PRECISION, sub)
      call MPI_Type_commit(sub)
      call MPI_Type_size(sub, sz)
      call check_int(sz, 48, 'subarray size')
      call MPI_Sendrecv(grid, 1, sub, partner, 13, got, 6, MPI_DOUBLE_PRECISION, partner, 13, &
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call check(got(1, 1) == 14 + 100 * partner .and. got(3, 2) == 22 + 100 * partner, &
                 'subarray block')
      call MPI_Type_free(sub)
      call check(sub == MPI_DATATYPE_NULL, 'MPI_Type_free')
   end subroutine

   subroutine test_topology()
      type(MPI_Comm) :: half, cart
      integer :: hrank, hsize, dims(2), nb(4), sendv(4), recvv(4), i, coords(2)
      integer :: scounts(16), sdispls(16), rcounts(16), rdispls(16), sbuf(16), rbuf(16)
      type(MPI_Datatype) :: stypes(16), rtypes(16)
      call MPI_Comm_split(MPI_COMM_WORLD, merge(0, 1, rank < np / 2), rank, half)
      call MPI_Comm_rank(half, hrank)
      call MPI_Comm_size(half, hsize)
      if (np > 1) call check_int(hsize, merge(np / 2, np - np / 2, rank < np / 2), 'split size')
      call MPI_Comm_free(half)
      call check(half == MPI_COMM_NULL, 'MPI_Comm_free')
      dims = 0
      call MPI_Dims_create(np, 2, dims)
      call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .true.], .false., cart)
      call MPI_Cart_coords(cart, rank, 2, coords)
      ! The neighbours in Cartesian order: -x, +x, -y, +y.
      call MPI_Cart_shift(cart, 0, 1, nb(1), nb(2))
      call MPI_Cart_shift(cart, 1, 1, nb(3), nb(4))
      sendv = rank
      call MPI_Neighbor_alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, cart)
      call check(all(recvv == nb), 'MPI_Neighbor_alltoall gets each neighbour''s rank')
      ! Neighbor_alltoallw: one datatype per neighbour (arrays of handles).
      stypes(1:4) = MPI_INTEGER
      rtypes(1:4) = MPI_INTEGER
      scounts(1:4) = 1
      rcounts(1:4) = 1
      sdispls(1:4) = [(4 * (i - 1), i = 1, 4)]
      rdispls(1:4) = sdispls(1:4)
      sbuf = rank + 1000
      rbuf = -1
      call MPI_Neighbor_alltoallw(sbuf, scounts, int(sdispls, MPI_ADDRESS_KIND), stypes, rbuf, &
                                  rcounts, int(rdispls, MPI_ADDRESS_KIND), rtypes, cart)
      call check(all(rbuf(1:4) == nb + 1000), 'MPI_Neighbor_alltoallw (byte displacements)')
      call MPI_Comm_free(cart)
      ! Alltoallw on the world.
      do i = 1, np
         scounts(i) = 1
         rcounts(i) = 1
         sdispls(i) = 4 * (i - 1)
         rdispls(i) = 4 * (i - 1)
         stypes(i) = MPI_INTEGER
         rtypes(i) = MPI_INTEGER
         sbuf(i) = 10 * rank + i
      end do
      call MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, &
                         MPI_COMM_WORLD)
      do i = 1, np
         call check_int(rbuf(i), 10 * (i - 1) + rank + 1, 'MPI_Alltoallw')
      end do
   end subroutine

   subroutine test_errors()
      type(MPI_Comm) :: dup
      type(MPI_Errhandler) :: eh
      integer :: ierr2, eclass, x
      character(len=MPI_MAX_ERROR_STRING) :: msg
      integer :: rlen
      call MPI_Comm_dup(MPI_COMM_WORLD, dup)
      call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
      call MPI_Send(x, 1, MPI_INTEGER, -7, 0, dup, ierr2)
      call MPI_Error_class(ierr2, eclass)
      call check_int(eclass, MPI_ERR_RANK, 'errors returned: bad rank')
      call MPI_Error_string(ierr2, msg, rlen)
      call check(rlen > 0 .and. index(msg(1:rlen), 'MPI_Send') > 0, 'error string names MPI_Send')
      call MPI_Send(x, 1, MPI_INTEGER, 0, -1, dup, ierr2)
      call MPI_Error_class(ierr2, eclass)
      call check_int(eclass, MPI_ERR_TAG, 'errors returned: bad tag')
      call MPI_Comm_create_errhandler(on_error, eh)
      call MPI_Comm_set_errhandler(dup, eh)
      call MPI_Errhandler_free(eh)
      call check(eh == MPI_ERRHANDLER_NULL, 'MPI_Errhandler_free')
      call MPI_Send(x, -3, MPI_INTEGER, 0, 0, dup)
      call check_int(handled, 1, 'Fortran error handler called')
      call check_int(handled_class, MPI_ERR_COUNT, 'Fortran error handler got the code')
      call MPI_Comm_free(dup)
   end subroutine

   subroutine test_misc()
      character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
      character(len=MPI_MAX_OBJECT_NAME) :: name
      integer :: rlen, sz
      logical :: flag
      complex(kind=8) :: z(2, 2)
      integer(kind=2) :: h
      double precision :: t
      call MPI_Get_library_version(version, rlen)
      call check(rlen > 0 .and. version(1:5) == 'Uzura', 'MPI_Get_library_version')
      call MPI_Type_set_name(MPI_DOUBLE_PRECISION, 'dp')
      call MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, rlen)
      call check(name == 'dp' .and. rlen == 2, 'MPI_Type_get_name')
      call MPI_Sizeof(z, sz)
      call check_int(sz, 16, 'MPI_Sizeof(complex(8))')
      call MPI_Sizeof(h, sz)
      call check_int(sz, 2, 'MPI_Sizeof(integer(2))')
      call MPI_Initialized(flag)
      call check(flag, 'MPI_Initialized')
      t = MPI_Wtime()
      call check(MPI_Wtime() >= t .and. MPI_Wtick() > 0, 'MPI_Wtime, MPI_Wtick')
      call check(MPI_Aint_diff(MPI_Aint_add(1000_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND), &
                               1000_MPI_ADDRESS_KIND) == 24, 'MPI_Aint_add, MPI_Aint_diff')
      call check(.not. MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
   end subroutine
end program f08_basic
