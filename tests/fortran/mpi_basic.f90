! mpi_basic.f90 — `use mpi`: the explicit interfaces with buffers of any
! type and rank, point-to-point with status checks, collectives with
! MPI_IN_PLACE, derived datatypes (including MPI_TYPE_CREATE_F90_*),
! MPI_COMM_SPLIT, a Cartesian topology, MPI_ERRORS_RETURN, strings and
! info values, MPI_SIZEOF, the Fortran booleans the C library was told.
program mpi_basic
   use mpi
   use uzftest
   implicit none
   integer :: ierr, rank, np, total

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Comm_size')
   call test_p2p()
   call test_collectives()
   call test_types()
   call test_split_cart()
   call test_errors_strings()
   call test_misc()
   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.use_mpi')

contains

   subroutine test_p2p()
      integer :: next, prev, i, count, outcount, idx(4), req(4), st(MPI_STATUS_SIZE)
      integer :: sts(MPI_STATUS_SIZE, 4)
      real :: a(3, 4), b(3, 4)
      complex(8) :: z, zr
      logical :: flag
      next = mod(rank + 1, np)
      prev = mod(rank + np - 1, np)
      a = reshape([(real(i + 100 * rank), i = 1, 12)], [3, 4])
      b = 0
      ! A rank-2 array and a complex scalar through the same interface.
      call MPI_Irecv(b, 12, MPI_REAL, prev, 1, MPI_COMM_WORLD, req(1), ierr)
      call MPI_Irecv(zr, 1, MPI_DOUBLE_COMPLEX, prev, 2, MPI_COMM_WORLD, req(2), ierr)
      z = cmplx(rank, -rank, kind=8)
      call MPI_Isend(a, 12, MPI_REAL, next, 1, MPI_COMM_WORLD, req(3), ierr)
      call MPI_Isend(z, 1, MPI_DOUBLE_COMPLEX, next, 2, MPI_COMM_WORLD, req(4), ierr)
      call MPI_Waitall(4, req, sts, ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Waitall')
      call check_int(sts(MPI_SOURCE, 1), prev, 'statuses(MPI_SOURCE, 1)')
      call check_int(sts(MPI_TAG, 2), 2, 'statuses(MPI_TAG, 2)')
      call MPI_Get_count(sts(:, 1), MPI_REAL, count, ierr)
      call check_int(count, 12, 'MPI_Get_count')
      call check(b(3, 4) == 12 + 100 * prev, 'rank-2 array received')
      call check(zr == cmplx(prev, -prev, kind=8), 'complex scalar received')
      call check(all(req == MPI_REQUEST_NULL), 'requests freed')
      ! MPI_Waitsome: indices count from 1.
      call MPI_Irecv(b, 1, MPI_REAL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req(1), ierr)
      req(2) = MPI_REQUEST_NULL
      call MPI_Irecv(b, 1, MPI_REAL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req(3), ierr)
      call MPI_Waitsome(3, req, outcount, idx, MPI_STATUSES_IGNORE, ierr)
      call check(outcount >= 1, 'MPI_Waitsome outcount')
      call check(all(idx(1:outcount) == 1 .or. idx(1:outcount) == 3), 'MPI_Waitsome indices')
      call MPI_Waitall(3, req, MPI_STATUSES_IGNORE, ierr)
      call MPI_Waitsome(3, req, outcount, idx, MPI_STATUSES_IGNORE, ierr)
      call check_int(outcount, MPI_UNDEFINED, 'MPI_Waitsome with no active request')
      ! Probe, then receive with a status.
      call MPI_Send(rank, 1, MPI_INTEGER, next, 9, MPI_COMM_WORLD, ierr)
      call MPI_Probe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, st, ierr)
      call check_int(st(MPI_SOURCE), prev, 'MPI_Probe source')
      call MPI_Iprobe(prev, 9, MPI_COMM_WORLD, flag, st, ierr)
      call check(flag, 'MPI_Iprobe flag')
      call MPI_Recv(i, 1, MPI_INTEGER, st(MPI_SOURCE), st(MPI_TAG), MPI_COMM_WORLD, st, ierr)
      call check_int(i, prev, 'received after probe')
      call MPI_Test(req(1), flag, st, ierr)
      call check(flag, 'MPI_Test of a null request')
   end subroutine

   subroutine test_collectives()
      integer :: i, v(8), w(8)
      double precision :: d(5), dmin
      v = 0
      v(rank + 1) = rank + 1
      call MPI_Allreduce(MPI_IN_PLACE, v, np, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check(all(v(1:np) == [(i, i = 1, np)]), 'MPI_Allreduce MPI_IN_PLACE')
      d = rank
      call MPI_Allreduce(MPI_IN_PLACE, d, 5, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
      call check(all(d == np - 1), 'MPI_Allreduce MAX')
      dmin = rank + 0.5d0
      call MPI_Allreduce(MPI_IN_PLACE, dmin, 1, MPI_DOUBLE_PRECISION, MPI_MIN, MPI_COMM_WORLD, ierr)
      call check_real(dmin, 0.5d0, 0d0, 'MPI_Allreduce MIN on a scalar')
      ! Scatter with MPI_IN_PLACE at the root.
      w = [(10 * i, i = 1, 8)]
      if (rank == 0) then
         call MPI_Scatter(w, 1, MPI_INTEGER, MPI_IN_PLACE, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
         call check_int(w(1), 10, 'MPI_Scatter in place at the root')
      else
         call MPI_Scatter(w, 1, MPI_INTEGER, i, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
         call check_int(i, 10 * (rank + 1), 'MPI_Scatter')
      end if
      call MPI_Exscan(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      if (rank > 0) call check_int(i, rank * (rank + 1) / 2, 'MPI_Exscan')
      ! Reduce_scatter_block in place.
      v = rank
      call MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call check_int(v(1), np * (np - 1) / 2, 'MPI_Reduce_scatter_block in place')
   end subroutine

   subroutine test_types()
      integer :: t, t2, sz, r8, i8
      integer(kind=MPI_ADDRESS_KIND) :: lb, ext
      double precision :: m(6, 6), col(6)
      integer :: i, j, partner
      partner = ieor(rank, 1)
      if (partner >= np) partner = rank
      m = reshape([((dble(i * 10 + j + 1000 * rank), i = 1, 6), j = 1, 6)], [6, 6])
      ! Row 3 of m (stride 6) as a contiguous column on the other side.
      call MPI_Type_vector(6, 1, 6, MPI_DOUBLE_PRECISION, t, ierr)
      call MPI_Type_commit(t, ierr)
      call MPI_Sendrecv(m(3, 1), 1, t, partner, 4, col, 6, MPI_DOUBLE_PRECISION, partner, 4, &
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call check(all(col == [(dble(30 + j + 1000 * partner), j = 1, 6)]), 'vector type')
      call MPI_Type_create_resized(t, 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND, t2, ierr)
      call MPI_Type_get_extent(t2, lb, ext, ierr)
      call check(ext == 8 .and. lb == 0, 'MPI_Type_create_resized')
      call MPI_Type_free(t2, ierr)
      call MPI_Type_free(t, ierr)
      call check(t == MPI_DATATYPE_NULL, 'MPI_Type_free')
      ! Types by precision and range.
      call MPI_Type_create_f90_real(15, 307, r8, ierr)
      call MPI_Type_size(r8, sz, ierr)
      call check_int(sz, 8, 'MPI_Type_create_f90_real(15, 307) size')
      call MPI_Type_create_f90_integer(18, i8, ierr)
      call MPI_Type_size(i8, sz, ierr)
      call check_int(sz, 8, 'MPI_Type_create_f90_integer(18) size')
      call MPI_Type_create_f90_complex(6, 37, t, ierr)
      call MPI_Type_size(t, sz, ierr)
      call check_int(sz, 8, 'MPI_Type_create_f90_complex(6, 37) size')
      call MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, t, ierr)
      call check(t == MPI_REAL, 'MPI_Type_match_size')
   end subroutine

   subroutine test_split_cart()
      integer :: sub, srank, ssize, cart, dims(3), coords(3), nbr(2), r
      logical :: periods(3), inter
      call MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, sub, ierr)
      call MPI_Comm_rank(sub, srank, ierr)
      call MPI_Comm_size(sub, ssize, ierr)
      call check_int(srank, mod(rank, 2), 'rank in the split')
      call check_int(ssize, min(2, np - 2 * (rank / 2)), 'size of the split')
      call MPI_Comm_test_inter(sub, inter, ierr)
      call check(.not. inter, 'MPI_Comm_test_inter')
      call MPI_Comm_free(sub, ierr)
      dims = 0
      dims(3) = 1
      call MPI_Dims_create(np, 3, dims, ierr)
      call check_int(product(dims), np, 'MPI_Dims_create')
      periods = [.true., .true., .false.]
      call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart, ierr)
      call MPI_Comm_rank(cart, r, ierr)
      call MPI_Cart_coords(cart, r, 3, coords, ierr)
      call MPI_Cart_shift(cart, 0, -1, nbr(1), nbr(2), ierr)
      coords(1) = modulo(coords(1) - 1, dims(1))
      call MPI_Cart_rank(cart, coords, r, ierr)
      call check_int(nbr(2), r, 'MPI_Cart_shift by -1 (periodic)')
      call MPI_Comm_free(cart, ierr)
   end subroutine

   subroutine test_errors_strings()
      integer :: eclass, rlen, info, nkeys, vlen, i
      character(len=MPI_MAX_ERROR_STRING) :: msg
      character(len=MPI_MAX_INFO_KEY) :: key
      character(len=20) :: val
      character(len=4) :: short
      logical :: flag
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
      call MPI_Bcast(i, 1, MPI_INTEGER, np, MPI_COMM_WORLD, ierr)
      call MPI_Error_class(ierr, eclass, i)
      call check_int(eclass, MPI_ERR_ROOT, 'class of a bad root')
      call MPI_Recv(i, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Error_class(ierr, eclass, i)
      call check_int(eclass, MPI_ERR_TYPE, 'class of MPI_DATATYPE_NULL')
      call MPI_Error_string(ierr, msg, rlen, i)
      call check(rlen > 0 .and. index(msg, 'datatype') > 0, 'error string names the argument')
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
      ! Info: keys and values, trailing blanks, a value longer than the buffer.
      call MPI_Info_create(info, ierr)
      call MPI_Info_set(info, 'color  ', 'blue and green   ', ierr)
      call MPI_Info_set(info, 'shape', 'round', ierr)
      call MPI_Info_get_nkeys(info, nkeys, ierr)
      call check_int(nkeys, 2, 'MPI_Info_get_nkeys')
      call MPI_Info_get_nthkey(info, 0, key, ierr)
      call check(key == 'color', 'MPI_Info_get_nthkey')
      vlen = len(val)
      call MPI_Info_get_string(info, 'color', vlen, val, flag, ierr)
      call check(flag .and. val == 'blue and green', 'MPI_Info_get_string value')
      call check_int(vlen, 14, 'MPI_Info_get_string length')
      vlen = len(short)
      call MPI_Info_get_string(info, 'color', vlen, short, flag, ierr)
      call check(flag .and. short == 'blue', 'MPI_Info_get_string truncated')
      call check_int(vlen, 14, 'MPI_Info_get_string length when truncated')
      call MPI_Info_get_valuelen(info, 'shape', vlen, flag, ierr)
      call check(flag .and. vlen == 5, 'MPI_Info_get_valuelen')
      call MPI_Info_get_string(info, 'nothing', vlen, val, flag, ierr)
      call check(.not. flag, 'missing key')
      call MPI_Info_free(info, ierr)
      call check(info == MPI_INFO_NULL, 'MPI_Info_free')
   end subroutine

   subroutine test_misc()
      integer :: sz, version, subversion
      logical :: lt, lf, is_set
      integer(kind=8) :: big(2, 3)
      character(len=7) :: word
      real(kind=4) :: r
      double precision :: t
      integer(kind=MPI_ADDRESS_KIND) :: a
      call MPI_Sizeof(r, sz, ierr)
      call check_int(sz, 4, 'MPI_Sizeof(real)')
      call MPI_Sizeof(big, sz, ierr)
      call check_int(sz, 8, 'MPI_Sizeof(integer(8) array)')
      call MPI_Sizeof(word, sz, ierr)
      call check_int(sz, 7, 'MPI_Sizeof(character(len=7))')
      t = MPI_Wtime()
      call check(MPI_Wtime() >= t .and. MPI_Wtick() > 0, 'MPI_Wtime, MPI_Wtick')
      a = MPI_Aint_add(4096_MPI_ADDRESS_KIND, -96_MPI_ADDRESS_KIND)
      call check(a == 4000 .and. MPI_Aint_diff(a, 1000_MPI_ADDRESS_KIND) == 3000, 'MPI_Aint_add/diff')
      call MPI_Get_version(version, subversion, ierr)
      call check(version == MPI_VERSION .and. subversion == MPI_SUBVERSION, 'MPI_Get_version')
      lt = .false.
      lf = .true.
      call MPI_Abi_get_fortran_booleans(4, lt, lf, is_set, ierr)
      call check(is_set .and. lt .and. .not. lf, 'MPI_Abi_get_fortran_booleans')
      call check(MPI_STATUS_SIZE == 8 .and. MPI_SOURCE == 1 .and. MPI_TAG == 2 .and. &
                 MPI_ERROR == 3, 'status layout constants')
      call check(MPI_ADDRESS_KIND == 8 .and. MPI_OFFSET_KIND == 8 .and. MPI_COUNT_KIND == 8, 'kinds')
   end subroutine
end program mpi_basic
