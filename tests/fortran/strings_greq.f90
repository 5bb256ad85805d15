! strings_greq.f90 -- `use mpi` (the entry points mpif.h shares): info keys
! and values with blanks around them, MPI_INFO_GET/GET_STRING/GET_VALUELEN
! lengths and padding, MPI_INFO_CREATE_ENV before and after MPI_INIT,
! generalized requests whose procedures see the program's EXTRA_STATE
! variable, MPI_BSEND with a buffer sized from MPI_BSEND_OVERHEAD, and the
! names of the predefined datatypes (issue 22).
module greq_calls
   use mpi
   implicit none
   integer, save :: nquery = 0, nfree = 0, ncancel = 0
   logical, save :: cancel_saw_complete = .true.
   ! The EXTRA_STATE variable: the procedures change it while the program
   ! is inside other MPI calls, so the compiler must not keep it in a
   ! register (a module variable, as for a nonblocking call's buffer).
   integer(kind=MPI_ADDRESS_KIND), save :: state
contains
   subroutine query_fn(extra_state, status, ierr)
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: status(MPI_STATUS_SIZE), ierr
      nquery = nquery + 1
      extra_state = extra_state + 100
      call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierr)
      call MPI_Status_set_cancelled(status, .false., ierr)
      status(MPI_SOURCE) = 3
      status(MPI_TAG) = 9
      ierr = MPI_SUCCESS
   end subroutine

   subroutine free_fn(extra_state, ierr)
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierr
      nfree = nfree + 1
      extra_state = extra_state - 1
      ierr = MPI_SUCCESS
   end subroutine

   subroutine cancel_fn(extra_state, complete, ierr)
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierr
      ncancel = ncancel + 1
      cancel_saw_complete = complete
      extra_state = extra_state + 1000
      ierr = MPI_SUCCESS
   end subroutine
end module greq_calls

program strings_greq
   use mpi
   use uzftest
   use greq_calls
   implicit none
   integer :: ierr, rank, np, total, before, after
   character(len=MPI_MAX_INFO_KEY) :: keys_before(16), keys_after(16)
   character(len=MPI_MAX_INFO_VAL) :: vals_before(16), vals_after(16)

   ! MPI_INFO_CREATE_ENV is one of the procedures allowed before MPI_INIT.
   call env_keys(before, keys_before, vals_before)
   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
   call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
   call env_keys(after, keys_after, vals_after)
   call check_env(before, keys_before, vals_before, after, keys_after, vals_after, np)

   call test_info()
   call test_greq()
   call test_bsend(rank, np)
   call test_type_names()

   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.strings_greq')
contains
   subroutine env_keys(n, keys, vals)
      integer, intent(out) :: n
      character(len=*), intent(out) :: keys(:), vals(:)
      integer :: info, i, buflen, ierr
      logical :: flag
      call MPI_Info_create_env(info, ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Info_create_env')
      call MPI_Info_get_nkeys(info, n, ierr)
      do i = 1, min(n, size(keys))
         call MPI_Info_get_nthkey(info, i - 1, keys(i), ierr)
         buflen = len(vals(i))
         call MPI_Info_get_string(info, keys(i), buflen, vals(i), flag, ierr)
         call check(flag .and. buflen == len_trim(vals(i)), 'env value of '//trim(keys(i)))
      end do
      call MPI_Info_free(info, ierr)
   end subroutine

   subroutine check_env(nb, kb, vb, na, ka, va, np)
      integer, intent(in) :: nb, na, np
      character(len=*), intent(in) :: kb(:), vb(:), ka(:), va(:)
      character(len=MPI_MAX_INFO_VAL) :: arg0, want
      integer :: i, nenv, buflen, ierr
      logical :: flag
      call check_int(nb, 7, 'keys of MPI_Info_create_env before MPI_Init')
      call check_int(na, nb, 'keys of MPI_Info_create_env after MPI_Init')
      do i = 1, min(na, nb, size(kb))
         call check(kb(i) == ka(i), 'key '//trim(kb(i))//' before, '//trim(ka(i))//' after')
         call check(vb(i) == va(i), trim(kb(i))//' = '//trim(vb(i))//' before, '//trim(va(i)))
      end do
      call get_command_argument(0, arg0)
      call check(kb(1) == 'command' .and. vb(1) == arg0, 'command = '//trim(vb(1)))
      write (want, '(i0)') np
      call check(kb(2) == 'maxprocs' .and. vb(2) == want, 'maxprocs = '//trim(vb(2)))
      call check(kb(7) == 'thread_level' .and. vb(7) == 'MPI_THREAD_SINGLE', &
                 'thread_level = '//trim(vb(7)))
      call MPI_Info_get_nkeys(MPI_INFO_ENV, nenv, ierr)
      call check_int(nenv, na, 'keys of MPI_INFO_ENV')
      buflen = len(want)
      call MPI_Info_get_string(MPI_INFO_ENV, 'command', buflen, want, flag, ierr)
      call check(flag .and. want == arg0, 'MPI_INFO_ENV command = '//trim(want))
   end subroutine

   subroutine test_info()
      integer :: info, ierr, n, vlen, buflen, cls
      logical :: flag
      character(len=MPI_MAX_INFO_KEY) :: key
      character(len=MPI_MAX_INFO_VAL) :: val
      character(len=12) :: short

      call MPI_Info_create(info, ierr)
      ! Blanks around keys and values are not part of them.
      call MPI_Info_set(info, '  first key  ', '  a  value  ', ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Info_set with blanks')
      call MPI_Info_set(info, 'second', 'abcdef', ierr)
      call MPI_Info_get_nkeys(info, n, ierr)
      call check_int(n, 2, 'nkeys')
      key = 'junk'
      call MPI_Info_get_nthkey(info, 0, key, ierr)
      call check(key == 'first key' .and. key(1:1) == 'f', 'nthkey 0 = "'//trim(key)//'"')
      call MPI_Info_get_valuelen(info, 'first key', vlen, flag, ierr)
      call check(flag, 'valuelen flag')
      call check_int(vlen, 8, 'valuelen of "a  value"')
      call MPI_Info_get_valuelen(info, ' second ', vlen, flag, ierr)
      call check(flag .and. vlen == 6, 'valuelen of a key given with blanks')
      val = 'canary'
      call MPI_Info_get_valuelen(info, 'nosuch', vlen, flag, ierr)
      call check(.not. flag, 'valuelen of a missing key')

      ! MPI_INFO_GET: up to valuelen characters, blanks after them.
      val = repeat('#', len(val))
      call MPI_Info_get(info, '   first key', MPI_MAX_INFO_VAL, val, flag, ierr)
      call check(flag .and. val == 'a  value' .and. val(9:) == ' ', 'get "'//trim(val)//'"')
      val = repeat('#', len(val))
      call MPI_Info_get(info, 'second', 3, val, flag, ierr)
      call check(flag .and. val == 'abc' .and. val(4:) == ' ', 'get valuelen 3 "'//trim(val)//'"')
      short = repeat('#', len(short))
      call MPI_Info_get(info, 'first key', MPI_MAX_INFO_VAL, short, flag, ierr)
      call check(flag .and. short == 'a  value', 'get into a short variable "'//short//'"')
      val = 'canary'
      call MPI_Info_get(info, 'nosuch', MPI_MAX_INFO_VAL, val, flag, ierr)
      call check(.not. flag .and. val == 'canary', 'get of a missing key changed the value')

      ! MPI_INFO_GET_STRING: buflen in, the value's length out.
      val = 'canary'
      buflen = 0
      call MPI_Info_get_string(info, 'second', buflen, val, flag, ierr)
      call check(flag .and. buflen == 6 .and. val == 'canary', 'get_string buflen 0')
      val = 'canary'
      buflen = 4
      call MPI_Info_get_string(info, 'second', buflen, val, flag, ierr)
      call check(flag .and. buflen == 6 .and. val == 'abcd' .and. val(5:) == ' ', &
                 'get_string buflen 4 "'//trim(val)//'"')
      val = 'canary'
      buflen = len(val)
      call MPI_Info_get_string(info, '  second', buflen, val, flag, ierr)
      call check(flag .and. buflen == 6 .and. val == 'abcdef', 'get_string "'//trim(val)//'"')
      val = 'canary'
      buflen = 10
      call MPI_Info_get_string(info, 'nosuch', buflen, val, flag, ierr)
      call check(.not. flag .and. buflen == 10 .and. val == 'canary', 'get_string of a missing key')

      call MPI_Info_delete(info, ' first key ', ierr)
      call check_int(ierr, MPI_SUCCESS, 'delete a key given with blanks')
      call MPI_Info_get_nkeys(info, n, ierr)
      call check_int(n, 1, 'nkeys after delete')
      call MPI_Info_set(info, '    ', 'x', ierr)
      call MPI_Error_class(ierr, cls, n)
      call check_int(cls, MPI_ERR_INFO_KEY, 'a blank key')
      call MPI_Info_free(info, ierr)
   end subroutine

   subroutine test_greq()
      integer :: req, saved, ierr, status(MPI_STATUS_SIZE), count
      logical :: flag

      state = 10
      call MPI_Grequest_start(query_fn, free_fn, cancel_fn, state, req, ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Grequest_start')
      call MPI_Test(req, flag, status, ierr)
      call check(.not. flag, 'an incomplete generalized request tested complete')
      call MPI_Grequest_complete(req, ierr)
      call MPI_Wait(req, status, ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Wait')
      call check(req == MPI_REQUEST_NULL, 'request not freed by MPI_Wait')
      call check_int(nquery, 1, 'query calls')
      call check_int(nfree, 1, 'free calls')
      call check_int(int(state), 109, 'extra_state after query (+100) and free (-1)')
      call check_int(status(MPI_SOURCE), 3, 'status source from query')
      call check_int(status(MPI_TAG), 9, 'status tag from query')
      call MPI_Get_count(status, MPI_INTEGER, count, ierr)
      call check_int(count, 5, 'count set by query')

      ! Cancelled while incomplete: cancel_fn gets .FALSE. and the variable.
      state = 0
      call MPI_Grequest_start(query_fn, free_fn, cancel_fn, state, req, ierr)
      call MPI_Cancel(req, ierr)
      call check_int(ncancel, 1, 'cancel calls')
      call check(.not. cancel_saw_complete, 'cancel_fn told the request was complete')
      call check_int(int(state), 1000, 'extra_state after cancel')
      call MPI_Grequest_complete(req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call check_int(nfree, 2, 'free calls after the cancelled one')
      call check_int(int(state), 1099, 'extra_state after cancel, query and free')

      ! Freed before it completes: free_fn runs when it does.
      state = 5
      call MPI_Grequest_start(query_fn, free_fn, cancel_fn, state, req, ierr)
      saved = req
      call MPI_Request_free(req, ierr)
      call check(req == MPI_REQUEST_NULL, 'MPI_Request_free left the handle')
      call check_int(nfree, 2, 'free_fn ran before the request completed')
      call MPI_Grequest_complete(saved, ierr)
      call check_int(nfree, 3, 'free_fn did not run when the freed request completed')
      call check_int(int(state), 4, 'extra_state after free')
   end subroutine

   ! Each rank buffers NMSG messages to the next one before receiving from
   ! the previous: the buffer holds exactly NMSG messages and their
   ! MPI_BSEND_OVERHEAD, so the Fortran constant must be the one C charges.
   subroutine test_bsend(rank, np)
      integer, intent(in) :: rank, np
      integer, parameter :: n = 25, nmsg = 3
      character :: buf(nmsg * (4 * n + MPI_BSEND_OVERHEAD))
      character :: small(4 * n + MPI_BSEND_OVERHEAD - 1)
      integer :: msg(n), got(n), i, k, ierr, bsize, psize, cls, status(MPI_STATUS_SIZE)
      call MPI_Pack_size(n, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
      call check_int(psize, 4 * n, 'MPI_Pack_size of the message')
      call MPI_Buffer_attach(small, size(small), ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Buffer_attach (one byte short)')
      msg = 7
      call MPI_Bsend(msg, n, MPI_INTEGER, mod(rank + 1, np), 1, MPI_COMM_WORLD, ierr)
      call MPI_Error_class(ierr, cls, i)
      call check_int(cls, MPI_ERR_BUFFER, 'MPI_Bsend into a buffer one byte short')
      call MPI_Buffer_detach(small, bsize, ierr)
      call check_int(bsize, size(small), 'detached size (short buffer)')

      call MPI_Buffer_attach(buf, size(buf), ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Buffer_attach')
      do k = 1, nmsg
         msg = [(rank * 1000 + k * 100 + i, i = 1, n)]
         call MPI_Bsend(msg, n, MPI_INTEGER, mod(rank + 1, np), k, MPI_COMM_WORLD, ierr)
         call check_int(ierr, MPI_SUCCESS, 'MPI_Bsend')
      end do
      do k = 1, nmsg
         got = -1
         call MPI_Recv(got, n, MPI_INTEGER, mod(rank + np - 1, np), k, MPI_COMM_WORLD, status, ierr)
         call check(all(got == [(mod(rank + np - 1, np) * 1000 + k * 100 + i, i = 1, n)]), &
                    'buffered message contents')
      end do
      call MPI_Buffer_detach(buf, bsize, ierr)
      call check_int(ierr, MPI_SUCCESS, 'MPI_Buffer_detach')
      call check_int(bsize, size(buf), 'detached size')
   end subroutine

   subroutine name_is(t, want)
      integer, intent(in) :: t
      character(len=*), intent(in) :: want
      character(len=MPI_MAX_OBJECT_NAME) :: name
      integer :: rlen, ierr
      name = repeat('#', len(name))
      rlen = -1
      call MPI_Type_get_name(t, name, rlen, ierr)
      call check(ierr == MPI_SUCCESS .and. name == want .and. rlen == len(want), &
                 'MPI_Type_get_name: "'//trim(name)//'", expected '//want)
   end subroutine

   subroutine test_type_names()
      character(len=8) :: short
      integer :: rlen, ierr
      call name_is(MPI_INTEGER, 'MPI_INTEGER')
      call name_is(MPI_REAL, 'MPI_REAL')
      call name_is(MPI_DOUBLE_PRECISION, 'MPI_DOUBLE_PRECISION')
      call name_is(MPI_COMPLEX, 'MPI_COMPLEX')
      call name_is(MPI_DOUBLE_COMPLEX, 'MPI_DOUBLE_COMPLEX')
      call name_is(MPI_LOGICAL, 'MPI_LOGICAL')
      call name_is(MPI_CHARACTER, 'MPI_CHARACTER')
      call name_is(MPI_2REAL, 'MPI_2REAL')
      call name_is(MPI_2DOUBLE_PRECISION, 'MPI_2DOUBLE_PRECISION')
      call name_is(MPI_2INTEGER, 'MPI_2INTEGER')
      call name_is(MPI_INTEGER1, 'MPI_INTEGER1')
      call name_is(MPI_INTEGER2, 'MPI_INTEGER2')
      call name_is(MPI_INTEGER4, 'MPI_INTEGER4')
      call name_is(MPI_INTEGER8, 'MPI_INTEGER8')
      call name_is(MPI_INTEGER16, 'MPI_INTEGER16')
      call name_is(MPI_REAL2, 'MPI_REAL2')
      call name_is(MPI_REAL4, 'MPI_REAL4')
      call name_is(MPI_REAL8, 'MPI_REAL8')
      call name_is(MPI_REAL16, 'MPI_REAL16')
      call name_is(MPI_COMPLEX4, 'MPI_COMPLEX4')
      call name_is(MPI_COMPLEX8, 'MPI_COMPLEX8')
      call name_is(MPI_COMPLEX16, 'MPI_COMPLEX16')
      call name_is(MPI_COMPLEX32, 'MPI_COMPLEX32')
      call name_is(MPI_LOGICAL1, 'MPI_LOGICAL1')
      call name_is(MPI_LOGICAL2, 'MPI_LOGICAL2')
      call name_is(MPI_LOGICAL4, 'MPI_LOGICAL4')
      call name_is(MPI_LOGICAL8, 'MPI_LOGICAL8')
      call name_is(MPI_LOGICAL16, 'MPI_LOGICAL16')
      call name_is(MPI_BYTE, 'MPI_BYTE')
      call name_is(MPI_PACKED, 'MPI_PACKED')
      call name_is(MPI_AINT, 'MPI_AINT')
      call name_is(MPI_OFFSET, 'MPI_OFFSET')
      call name_is(MPI_COUNT, 'MPI_COUNT')
      call name_is(MPI_LONG_LONG_INT, 'MPI_LONG_LONG_INT')
      call name_is(MPI_C_COMPLEX, 'MPI_C_COMPLEX')
      ! A variable shorter than the name gets its first characters.
      short = '########'
      call MPI_Type_get_name(MPI_DOUBLE_PRECISION, short, rlen, ierr)
      call check(ierr == MPI_SUCCESS .and. short == 'MPI_DOUB', 'a short name variable: '//short)
   end subroutine
end program strings_greq
