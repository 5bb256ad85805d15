! attr_lang.f90 — attributes between Fortran and C (attr_lang_c.c holds the
! C half), MPI-4.1 §19.3.7: a value set from Fortran (MPI_COMM_SET_ATTR,
! MPI_TYPE_SET_ATTR, MPI-1's MPI_ATTR_PUT) reads in C, and in C copy and
! delete callbacks, as a pointer to an integer holding it; a pointer set
! from C reads in Fortran as its address (MPI_ATTR_GET: truncated to an
! INTEGER); values copied by Fortran procedures, by MPI_COMM_DUP_FN with
! MPI_NULL_DELETE_FN, large and negative values, both kinds of read; the
! predefined attributes through both calls; a key freed inside its own
! delete procedure and again while in use; window keys.
module attr_lang_state
   use mpi, only: MPI_ADDRESS_KIND
   implicit none
   integer, save :: copies = 0, deletes = 0, free_errors = 0, last_object = 0
   integer(kind=MPI_ADDRESS_KIND), save :: last_deleted = 0
end module

! The procedures refuse what the glue must never hand them: no key, or
! another extra state than the 17 every key here is made with.
subroutine add_two(oldobj, keyval, extra_state, val_in, val_out, flag, ierror)
   use mpi
   use attr_lang_state
   implicit none
   integer :: oldobj, keyval, ierror
   integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
   logical :: flag
   copies = copies + 1
   last_object = oldobj
   val_out = val_in + 2
   flag = .true.
   ierror = MPI_SUCCESS
   if (keyval == MPI_KEYVAL_INVALID .or. extra_state /= 17) ierror = MPI_ERR_OTHER
end subroutine

subroutine count_delete(obj, keyval, val, extra_state, ierror)
   use mpi
   use attr_lang_state
   implicit none
   integer :: obj, keyval, ierror
   integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
   deletes = deletes + 1
   last_deleted = val
   last_object = obj
   ierror = MPI_SUCCESS
   if (keyval == MPI_KEYVAL_INVALID .or. extra_state /= 17) ierror = MPI_ERR_OTHER
end subroutine

! MPI-1 procedures: default INTEGER values and extra state.
subroutine add_one_mpi1(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
   use mpi
   use attr_lang_state
   implicit none
   integer :: oldcomm, keyval, extra_state, val_in, val_out, ierror
   logical :: flag
   copies = copies + 1
   last_object = oldcomm
   val_out = val_in + 1
   flag = .true.
   ierror = MPI_SUCCESS
   if (keyval == MPI_KEYVAL_INVALID .or. extra_state /= 17) ierror = MPI_ERR_OTHER
end subroutine

! Frees its own key (MPICH's keyval_double_free, from Fortran).
subroutine delete_frees_key(comm, keyval, val, extra_state, ierror)
   use mpi
   use attr_lang_state
   implicit none
   integer :: comm, keyval, ierror, key, ierr
   integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
   deletes = deletes + 1
   last_deleted = val
   last_object = comm
   key = keyval
   call MPI_Comm_free_keyval(key, ierr)
   if (ierr /= MPI_SUCCESS .or. key /= MPI_KEYVAL_INVALID .or. extra_state /= 17) &
      free_errors = free_errors + 1
   ierror = MPI_SUCCESS
end subroutine

program attr_lang
   use mpi
   use uzftest
   use attr_lang_state
   use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t
   implicit none
   interface
      subroutine c_read_comm_aint(comm, key, want, ok) bind(C, name='c_read_comm_aint')
         import :: c_int, c_intptr_t
         integer(c_int) :: comm, key, ok
         integer(c_intptr_t) :: want
      end subroutine
      subroutine c_read_comm_int(comm, key, want, ok) bind(C, name='c_read_comm_int')
         import :: c_int
         integer(c_int) :: comm, key, want, ok
      end subroutine
      subroutine c_read_type_aint(dtype, key, want, ok) bind(C, name='c_read_type_aint')
         import :: c_int, c_intptr_t
         integer(c_int) :: dtype, key, ok
         integer(c_intptr_t) :: want
      end subroutine
      subroutine c_set_comm_pointer(comm, key, addr, addr_int, ok) &
         bind(C, name='c_set_comm_pointer')
         import :: c_int, c_intptr_t
         integer(c_int) :: comm, key, addr_int, ok
         integer(c_intptr_t) :: addr
      end subroutine
      subroutine c_set_type_pointer(dtype, key, addr, ok) bind(C, name='c_set_type_pointer')
         import :: c_int, c_intptr_t
         integer(c_int) :: dtype, key, ok
         integer(c_intptr_t) :: addr
      end subroutine
      subroutine c_make_comm_key(key) bind(C, name='c_make_comm_key')
         import :: c_int
         integer(c_int) :: key
      end subroutine
      subroutine c_free_comm_key(key) bind(C, name='c_free_comm_key')
         import :: c_int
         integer(c_int) :: key
      end subroutine
      subroutine c_callbacks_saw(copied, deleted, copy_addr) bind(C, name='c_callbacks_saw')
         import :: c_int, c_intptr_t
         integer(c_intptr_t) :: copied, deleted, copy_addr
      end subroutine
   end interface
   external :: add_two, count_delete, add_one_mpi1, delete_frees_key
   integer :: ierr, rank, np, total, comm, dup, key, key1, ckey, tkey, dkey, wkey, wkey2, ok
   integer :: tdup, ival, addr_int, saved, again
   integer(kind=MPI_ADDRESS_KIND) :: val, extra, big, addr, copied, deleted, copy_addr
   logical :: flag

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   call uzft_init(rank)
   ! Failures are counted here, not fatal.
   call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
   call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
   call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
   extra = 17

   ! --- Fortran sets (address-sized), Fortran and C read; a Fortran copy
   call MPI_Comm_create_keyval(add_two, count_delete, key, extra, ierr)
   call MPI_Comm_set_attr(comm, key, 5555_MPI_ADDRESS_KIND, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Comm_set_attr')
   call MPI_Comm_get_attr(comm, key, val, flag, ierr)
   call check(flag .and. val == 5555, 'Fortran reads what Fortran set')
   call c_read_comm_aint(comm, key, 5555_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C reads a pointer to the MPI_Aint Fortran set')
   call MPI_Attr_get(comm, key, ival, flag, ierr)
   call check(flag .and. ival == 5555, 'MPI_Attr_get of an address-sized value')
   copies = 0
   deletes = 0
   call MPI_Comm_dup(comm, dup, ierr)
   call check_int(copies, 1, 'the Fortran copy procedure ran')
   call check_int(last_object, comm, 'the copy procedure got the old communicator')
   call MPI_Comm_get_attr(dup, key, val, flag, ierr)
   call check(flag .and. val == 5557, 'Fortran reads the copy')
   call c_read_comm_aint(dup, key, 5557_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C reads a pointer to the copy')
   ival = dup
   call MPI_Comm_free(dup, ierr)
   call check_int(deletes, 1, 'the Fortran delete procedure ran')
   call check(last_deleted == 5557, 'the delete procedure got the copy')
   call check_int(last_object, ival, 'the delete procedure got the communicator')
   ! Replacing: the delete procedure runs, and both languages see the new value.
   big = -huge(big)
   call MPI_Comm_set_attr(comm, key, big, ierr)
   call check_int(deletes, 2, 'replacing ran the delete procedure')
   call check(last_deleted == 5555, 'the delete procedure got the old value')
   call MPI_Comm_get_attr(comm, key, val, flag, ierr)
   call check(flag .and. val == big, 'a large negative value read back')
   call c_read_comm_aint(comm, key, big, ok)
   call check(ok == 1, 'C reads the large negative value')
   call MPI_Comm_delete_attr(comm, key, ierr)
   call check_int(deletes, 3, 'MPI_Comm_delete_attr ran the delete procedure')
   call check(last_deleted == big, 'the delete procedure got the large value')
   call MPI_Comm_get_attr(comm, key, val, flag, ierr)
   call check(.not. flag, 'the attribute is gone')

   ! --- MPI-1: INTEGER values; C reads an int through MPI_Attr_get
   call MPI_Keyval_create(add_one_mpi1, MPI_NULL_DELETE_FN, key1, 17, ierr)
   call MPI_Attr_put(comm, key1, -123456, ierr)
   call MPI_Attr_get(comm, key1, ival, flag, ierr)
   call check(flag .and. ival == -123456, 'MPI_Attr_get of an MPI_Attr_put value')
   call MPI_Comm_get_attr(comm, key1, val, flag, ierr)
   call check(flag .and. val == -123456, 'MPI_Comm_get_attr of an INTEGER value (sign-extended)')
   call c_read_comm_int(comm, key1, -123456, ok)
   call check(ok == 1, 'C MPI_Attr_get reads a pointer to the INTEGER Fortran put')
   call c_read_comm_aint(comm, key1, -123456_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C MPI_Comm_get_attr reads it as an MPI_Aint')
   call MPI_Comm_dup(comm, dup, ierr)
   call MPI_Attr_get(dup, key1, ival, flag, ierr)
   call check(flag .and. ival == -123455, 'the MPI-1 copy procedure ran')
   call c_read_comm_int(dup, key1, -123455, ok)
   call check(ok == 1, 'C reads the MPI-1 copy')
   call MPI_Comm_free(dup, ierr)
   call MPI_Attr_delete(comm, key1, ierr)
   call MPI_Keyval_free(key1, ierr)
   call check_int(key1, MPI_KEYVAL_INVALID, 'MPI_Keyval_free')

   ! --- Fortran sets under a key with C callbacks: they get the pointer too
   call c_make_comm_key(ckey)
   call MPI_Comm_set_attr(comm, ckey, 777_MPI_ADDRESS_KIND, ierr)
   call MPI_Comm_dup(comm, dup, ierr)
   call check_int(ierr, MPI_SUCCESS, 'dup with a C copy callback')
   call c_callbacks_saw(copied, deleted, copy_addr)
   call check(copied == 777, 'the C copy callback read the value through its pointer')
   call MPI_Comm_get_attr(dup, ckey, val, flag, ierr)
   call check(flag .and. val == copy_addr, 'a pointer a C copy callback made reads as its address')
   call MPI_Comm_free(dup, ierr)
   call c_callbacks_saw(copied, deleted, copy_addr)
   call check(deleted == 787, 'the C delete callback read the copy through its pointer')
   call MPI_Comm_delete_attr(comm, ckey, ierr)
   call c_callbacks_saw(copied, deleted, copy_addr)
   call check(deleted == 777, 'the C delete callback read the Fortran value through its pointer')

   ! --- C sets a pointer, Fortran reads its address
   call c_set_comm_pointer(comm, ckey, addr, addr_int, ok)
   call check(ok == 1, 'C set a pointer')
   call MPI_Comm_get_attr(comm, ckey, val, flag, ierr)
   call check(flag .and. val == addr, 'MPI_Comm_get_attr of a C pointer is its address')
   call MPI_Attr_get(comm, ckey, ival, flag, ierr)
   call check(flag .and. ival == addr_int, 'MPI_Attr_get of a C pointer is its low-order bits')
   call MPI_Comm_delete_attr(comm, ckey, ierr)
   call c_free_comm_key(ckey)
   call check_int(ckey, MPI_KEYVAL_INVALID, 'C freed its key')

   ! --- MPI_COMM_DUP_FN with MPI_NULL_DELETE_FN, the largest value
   call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_NULL_DELETE_FN, dkey, extra, ierr)
   big = huge(big)
   call MPI_Comm_set_attr(MPI_COMM_WORLD, dkey, big, ierr)
   call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
   call MPI_Comm_get_attr(dup, dkey, val, flag, ierr)
   call check(flag .and. val == big, 'MPI_COMM_DUP_FN copies huge()')
   call c_read_comm_aint(dup, dkey, big, ok)
   call check(ok == 1, 'C reads the copy of huge()')
   call MPI_Comm_free(dup, ierr)
   call MPI_Comm_delete_attr(MPI_COMM_WORLD, dkey, ierr)
   call MPI_Comm_free_keyval(dkey, ierr)
   ! MPI_COMM_NULL_COPY_FN: nothing copied.
   call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, dkey, extra, ierr)
   call MPI_Comm_set_attr(comm, dkey, 9_MPI_ADDRESS_KIND, ierr)
   call MPI_Comm_dup(comm, dup, ierr)
   call MPI_Comm_get_attr(dup, dkey, val, flag, ierr)
   call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copied')
   call MPI_Comm_free(dup, ierr)
   call MPI_Comm_free_keyval(dkey, ierr)

   ! --- datatypes: Fortran sets on MPI_INTEGER, C reads; a copy; C sets
   call MPI_Type_create_keyval(add_two, count_delete, tkey, extra, ierr)
   call MPI_Type_set_attr(MPI_INTEGER, tkey, 4242_MPI_ADDRESS_KIND, ierr)
   call c_read_type_aint(MPI_INTEGER, tkey, 4242_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C reads a pointer to the datatype value Fortran set')
   copies = 0
   deletes = 0
   call MPI_Type_dup(MPI_INTEGER, tdup, ierr)
   call check_int(copies, 1, 'the Fortran type copy procedure ran')
   call MPI_Type_get_attr(tdup, tkey, val, flag, ierr)
   call check(flag .and. val == 4244, 'Fortran reads the type copy')
   call c_read_type_aint(tdup, tkey, 4244_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C reads the type copy')
   ival = tdup
   call MPI_Type_free(tdup, ierr)
   call check_int(deletes, 1, 'the Fortran type delete procedure ran')
   call check(last_deleted == 4244, 'the type delete procedure got the copy')
   call check_int(last_object, ival, 'the type delete procedure got the datatype')
   call c_set_type_pointer(MPI_INTEGER, tkey, addr, ok)
   call MPI_Type_get_attr(MPI_INTEGER, tkey, val, flag, ierr)
   call check(flag .and. val == addr, 'MPI_Type_get_attr of a C pointer is its address')
   call MPI_Type_delete_attr(MPI_INTEGER, tkey, ierr)
   call MPI_Type_free_keyval(tkey, ierr)
   ! MPI_TYPE_DUP_FN
   call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
   call MPI_Type_set_attr(MPI_INTEGER, tkey, 31_MPI_ADDRESS_KIND, ierr)
   call MPI_Type_dup(MPI_INTEGER, tdup, ierr)
   call MPI_Type_get_attr(tdup, tkey, val, flag, ierr)
   call check(flag .and. val == 31, 'MPI_TYPE_DUP_FN')
   call c_read_type_aint(tdup, tkey, 31_MPI_ADDRESS_KIND, ok)
   call check(ok == 1, 'C reads the MPI_TYPE_DUP_FN copy')
   call MPI_Type_free(tdup, ierr)
   call MPI_Type_delete_attr(MPI_INTEGER, tkey, ierr)
   call MPI_Type_free_keyval(tkey, ierr)

   ! --- a key freed in its own delete procedure, and again while in use
   call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_key, key1, extra, ierr)
   saved = key1
   call MPI_Comm_dup(MPI_COMM_SELF, dup, ierr)
   call MPI_Comm_set_attr(dup, key1, 1_MPI_ADDRESS_KIND, ierr)
   call MPI_Comm_set_attr(comm, key1, 2_MPI_ADDRESS_KIND, ierr)
   deletes = 0
   call MPI_Comm_free(dup, ierr)
   call MPI_Comm_free_keyval(key1, ierr)
   call check_int(ierr, MPI_SUCCESS, 'freeing a key again while it is in use')
   call check_int(key1, MPI_KEYVAL_INVALID, 'the second free')
   call MPI_Comm_get_attr(comm, saved, val, flag, ierr)
   call check(ierr == MPI_SUCCESS .and. flag .and. val == 2, 'the attribute of a freed key')
   call MPI_Comm_delete_attr(comm, saved, ierr)
   call check_int(deletes, 2, 'both delete procedures ran')
   call check(last_deleted == 2, 'the delete procedure of a freed key got the value')
   call check_int(free_errors, 0, 'frees inside the delete procedure')
   again = saved
   call MPI_Comm_free_keyval(again, ierr)
   call MPI_Error_class(ierr, ival, ok)
   call check_int(ival, MPI_ERR_KEYVAL, 'freeing a key that is gone')

   ! --- window keys need no window
   call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, extra, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Win_create_keyval')
   call MPI_Win_create_keyval(add_two, count_delete, wkey2, extra, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Win_create_keyval with Fortran procedures')
   call check(wkey /= wkey2, 'two window keys')
   call MPI_Win_free_keyval(wkey, ierr)
   call check(ierr == MPI_SUCCESS .and. wkey == MPI_KEYVAL_INVALID, 'MPI_Win_free_keyval')
   call MPI_Win_free_keyval(wkey2, ierr)
   call check_int(ierr, MPI_SUCCESS, 'MPI_Win_free_keyval of a Fortran key')

   ! --- the predefined attributes, both ways
   call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
   call check(flag .and. ival >= 32767, 'MPI_Attr_get(MPI_TAG_UB)')
   call MPI_Comm_get_attr(comm, MPI_TAG_UB, val, flag, ierr)
   call check(flag .and. val == ival, 'MPI_Comm_get_attr(MPI_TAG_UB) on a dup')
   call MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, ival, flag, ierr)
   call check(flag .and. (ival == MPI_PROC_NULL .or. (ival >= 0 .and. ival < np)), 'MPI_HOST')
   call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, val, flag, ierr)
   call check(flag .and. (val == MPI_ANY_SOURCE .or. val == MPI_PROC_NULL .or. &
                          (val >= 0 .and. val < np)), 'MPI_IO')
   call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, val, flag, ierr)
   call check(.not. flag .or. val == 0 .or. val == 1, 'MPI_WTIME_IS_GLOBAL')
   call MPI_Attr_get(MPI_COMM_WORLD, MPI_APPNUM, ival, flag, ierr)
   call check(.not. flag .or. ival >= 0, 'MPI_APPNUM')
   call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, val, flag, ierr)
   call check(.not. flag .or. val >= np, 'MPI_UNIVERSE_SIZE')
   call MPI_Attr_get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, ival, flag, ierr)
   call check(flag .and. ival >= MPI_ERR_LASTCODE, 'MPI_LASTUSEDCODE')

   call MPI_Comm_free_keyval(key, ierr)
   call MPI_Comm_free(comm, ierr)
   call MPI_Allreduce(uzft_failures(), total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   call uzft_finish(total, 'fortran.attr_lang')
end program attr_lang
