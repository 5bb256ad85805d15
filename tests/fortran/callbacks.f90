! callbacks.f90 — Fortran procedures that the C library calls back (`use
! mpi` conventions): a user reduction operation, an error handler,
! attribute copy and delete procedures (with the predefined
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN and MPI-1's
! MPI_DUP_FN), attribute values both ways, and a procedure the C library
! may not implement yet reporting MPI_ERR_UNSUPPORTED_OPERATION.
module callbacks_state
   implicit none
   integer, save :: handler_calls = 0, handler_code = 0, handler_comm = -1
   integer, save :: copies = 0, deletes = 0, last_deleted = 0
end module

! An element-wise "largest absolute value, keeping the sign" on INTEGERs,
! and a complex product on pairs of DOUBLE PRECISION (a derived datatype).
subroutine absmax(invec, inoutvec, len, datatype)
   use mpi
   implicit none
   integer :: len, datatype
   integer :: invec(len), inoutvec(len)
   integer :: i
   if (datatype /= MPI_INTEGER) stop 'absmax: wrong datatype'
   do i = 1, len
      if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
   end do
end subroutine

subroutine cprod(invec, inoutvec, len, datatype)
   implicit none
   integer :: len, datatype
   double precision :: invec(2, len), inoutvec(2, len)
   double precision :: re, im
   integer :: i
   do i = 1, len
      re = invec(1, i) * inoutvec(1, i) - invec(2, i) * inoutvec(2, i)
      im = invec(1, i) * inoutvec(2, i) + invec(2, i) * inoutvec(1, i)
      inoutvec(:, i) = [re, im]
   end do
   if (datatype == 0) stop 'cprod: no datatype'
end subroutine

subroutine extent_fn(datatype, extent, extra_state, ierror)
   use mpi
   implicit none
   integer :: datatype, ierror
   integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
   extent = 8
   ierror = MPI_SUCCESS
   if (datatype == 0 .or. extra_state < 0) ierror = MPI_ERR_OTHER
end subroutine

subroutine my_handler(comm, code)
   use callbacks_state
   implicit none
   integer :: comm, code
   handler_calls = handler_calls + 1
   handler_code = code
   handler_comm = comm
end subroutine

subroutine my_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
   use mpi
   use callbacks_state
   implicit none
   integer :: oldcomm, keyval, ierror
   integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
   logical :: flag
   copies = copies + 1
   val_out = val_in + extra_state        ! the copy differs, to see that this ran
   flag = .true.
   ierror = MPI_SUCCESS
   if (oldcomm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID) ierror = MPI_ERR_OTHER
end subroutine

subroutine my_delete(comm, keyval, val, extra_state, ierror)
   use mpi
   use callbacks_state
   implicit none
   integer :: comm, keyval, ierror
   integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
   deletes = deletes + 1
   last_deleted = int(val)
   ierror = MPI_SUCCESS
   if (comm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra_state /= 1000) &
      ierror = MPI_ERR_OTHER
end subroutine

program callbacks
   use mpi
   use uzftest
   use callbacks_state
   implicit none
   external :: absmax, cprod, my_handler, my_copy, my_delete, extent_fn
   integer :: ierr, rank, np, total
   integer :: op, v(3), eh, dup, key, key2, key3, tkey, pair, cop, eclass, oldkey
   integer(kind=MPI_ADDRESS_KIND) :: val, extra
   integer :: ival
   logical :: flag
   double precision :: z(2), zp(2)

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)

   ! --- a user operation
   call MPI_Op_create(absmax, .true., op, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Op_create')
   v = [rank, -rank, merge(-7, 1, rank == np - 1)]
   call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
   call check(v(1) == np - 1 .and. v(2) == -(np - 1), 'user op result')
   call check_int(v(3), -7, 'user op keeps the sign')
   call MPI_Op_free(op, ierr)
   call check(op == MPI_OP_NULL, 'MPI_Op_free')
   ! Non-commutative, on a derived datatype: (1+i)**np
   call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair, ierr)
   call MPI_Type_commit(pair, ierr)
   call MPI_Op_create(cprod, .false., cop, ierr)
   z = [1d0, 1d0]
   call MPI_Reduce(z, zp, 1, pair, cop, 0, MPI_COMM_WORLD, ierr)
   if (rank == 0) then
      call check_real(zp(1), real((1d0, 1d0)**np), 1d-12, 'product re')
      call check_real(zp(2), aimag((1d0, 1d0)**np), 1d-12, 'product im')
   end if
   call MPI_Op_free(cop, ierr)
   call MPI_Type_free(pair, ierr)

   ! --- an error handler written in Fortran
   call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
   call MPI_Comm_create_errhandler(my_handler, eh, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Comm_create_errhandler')
   call MPI_Comm_set_errhandler(dup, eh, ierr)
   call MPI_Errhandler_free(eh, ierr)
   call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
   call check_int(handler_calls, 1, 'handler called')
   call check_int(handler_code, MPI_ERR_OTHER, 'handler got the code')
   call check_int(handler_comm, dup, 'handler got the communicator')
   call MPI_Send(ival, 1, MPI_INTEGER, np + 3, 0, dup, ierr)
   call check_int(handler_calls, 2, 'handler called for a real error')
   call MPI_Error_class(handler_code, eclass, ierr)
   call check_int(eclass, MPI_ERR_RANK, 'handler got MPI_ERR_RANK')

   ! --- attributes and keys with Fortran callbacks
   extra = 1000
   call MPI_Comm_create_keyval(my_copy, my_delete, key, extra, ierr)
   call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
   call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key3, extra, ierr)
   val = 5
   call MPI_Comm_set_attr(dup, key, val, ierr)
   val = -123456789012_MPI_ADDRESS_KIND
   call MPI_Comm_set_attr(dup, key2, val, ierr)
   call MPI_Comm_set_attr(dup, key3, 77_MPI_ADDRESS_KIND, ierr)
   val = 0
   call MPI_Comm_get_attr(dup, key, val, flag, ierr)
   call check(flag .and. val == 5, 'MPI_Comm_get_attr')
   block
      integer :: dup2
      call MPI_Comm_dup(dup, dup2, ierr)
      call check_int(copies, 1, 'copy procedure ran once')
      call MPI_Comm_get_attr(dup2, key, val, flag, ierr)
      call check(flag .and. val == 1005, 'copied by my_copy')
      call MPI_Comm_get_attr(dup2, key2, val, flag, ierr)
      call check(flag .and. val == -123456789012_MPI_ADDRESS_KIND, 'copied by MPI_COMM_DUP_FN')
      call MPI_Comm_get_attr(dup2, key3, val, flag, ierr)
      call check(.not. flag, 'not copied by MPI_COMM_NULL_COPY_FN')
      call MPI_Comm_free(dup2, ierr)
      call check_int(deletes, 1, 'delete procedure ran for the copy')
      call check_int(last_deleted, 1005, 'delete got the value')
   end block
   call MPI_Comm_delete_attr(dup, key, ierr)
   call check_int(deletes, 2, 'MPI_Comm_delete_attr ran the delete procedure')
   call MPI_Comm_free_keyval(key, ierr)
   call check_int(key, MPI_KEYVAL_INVALID, 'MPI_Comm_free_keyval')
   ! A predefined attribute, read as a value.
   call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
   call check(flag .and. val >= 32767, 'MPI_TAG_UB')
   ! Datatype keys with MPI_TYPE_DUP_FN.
   call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
   call MPI_Type_contiguous(3, MPI_INTEGER, pair, ierr)
   call MPI_Type_set_attr(pair, tkey, 42_MPI_ADDRESS_KIND, ierr)
   block
      integer :: t2
      call MPI_Type_dup(pair, t2, ierr)
      call MPI_Type_get_attr(t2, tkey, val, flag, ierr)
      call check(flag .and. val == 42, 'MPI_TYPE_DUP_FN')
      call MPI_Type_free(t2, ierr)
   end block
   call MPI_Type_free(pair, ierr)
   call MPI_Type_free_keyval(tkey, ierr)
   ! MPI-1: INTEGER attribute values, MPI_DUP_FN.
   call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, oldkey, 0, ierr)
   call MPI_Attr_put(dup, oldkey, 31415, ierr)
   block
      integer :: dup3
      call MPI_Comm_dup(dup, dup3, ierr)
      call MPI_Attr_get(dup3, oldkey, ival, flag, ierr)
      call check(flag .and. ival == 31415, 'MPI_Attr_get after MPI_DUP_FN')
      call MPI_Comm_free(dup3, ierr)
   end block
   call MPI_Keyval_free(oldkey, ierr)
   call MPI_Comm_free(dup, ierr)
   call MPI_Comm_free_keyval(key2, ierr)
   call MPI_Comm_free_keyval(key3, ierr)

   ! --- a procedure the C library may not have yet: either it works or it
   ! says MPI_ERR_UNSUPPORTED_OPERATION through the handler of
   ! MPI_COMM_SELF (it has no object of its own), which here returns.
   call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
   call MPI_Register_datarep('uzura_f_test', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                             extent_fn, 0_MPI_ADDRESS_KIND, ierr)
   call MPI_Error_class(ierr, eclass, ival)
   call check(eclass == MPI_SUCCESS .or. eclass == MPI_ERR_UNSUPPORTED_OPERATION, &
              'MPI_Register_datarep: success or unsupported')
   if (rank == 0 .and. eclass == MPI_ERR_UNSUPPORTED_OPERATION) &
      print '(a)', 'note: MPI_Register_datarep is not implemented in C yet (as expected)'

   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.callbacks')
end program callbacks
