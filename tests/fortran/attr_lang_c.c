/*
 * attr_lang_c.c — the C half of attr_lang.f90: reads attributes that
 * Fortran set, sets attributes that Fortran reads, and makes keys with C
 * callbacks.  Every argument comes by address, as Fortran passes it.
 *
 * MPI-4.1 §19.3.7: C reading a value Fortran set gets a pointer to an
 * integer of MPI's that holds it (an MPI_Aint for MPI_COMM_SET_ATTR, an
 * int for MPI_ATTR_PUT), and so do C copy and delete callbacks.
 */
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* Read through MPI_Comm_get_attr: *ok = the value is an MPI_Aint pointed to. */
void c_read_comm_aint(const MPI_Fint *fcomm, const MPI_Fint *key, const MPI_Aint *want,
                      MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0;
    *ok = MPI_Comm_get_attr(MPI_Comm_f2c(*fcomm), *key, &p, &flag) == MPI_SUCCESS && flag &&
          p != NULL && *p == *want;
}

/* Read through MPI_Attr_get: *ok = the value is an int pointed to. */
void c_read_comm_int(const MPI_Fint *fcomm, const MPI_Fint *key, const MPI_Fint *want,
                     MPI_Fint *ok)
{
    int *p = NULL;
    int flag = 0;
    *ok = MPI_Attr_get(MPI_Comm_f2c(*fcomm), *key, &p, &flag) == MPI_SUCCESS && flag &&
          p != NULL && *p == *want;
}

void c_read_type_aint(const MPI_Fint *ftype, const MPI_Fint *key, const MPI_Aint *want,
                      MPI_Fint *ok)
{
    MPI_Aint *p = NULL;
    int flag = 0;
    *ok = MPI_Type_get_attr(MPI_Type_f2c(*ftype), *key, &p, &flag) == MPI_SUCCESS && flag &&
          p != NULL && *p == *want;
}

/* Set a pointer from C; hand Fortran the address as MPI_COMM_GET_ATTR
 * must return it, and as MPI_ATTR_GET must (its low-order bits). */
static double c_payload = 2.5;

void c_set_comm_pointer(const MPI_Fint *fcomm, const MPI_Fint *key, MPI_Aint *addr,
                        MPI_Fint *addr_int, MPI_Fint *ok)
{
    *ok = MPI_Comm_set_attr(MPI_Comm_f2c(*fcomm), *key, &c_payload) == MPI_SUCCESS;
    *addr = (MPI_Aint)(intptr_t)&c_payload;
    *addr_int = (MPI_Fint)(intptr_t)&c_payload;
}

void c_set_type_pointer(const MPI_Fint *ftype, const MPI_Fint *key, MPI_Aint *addr, MPI_Fint *ok)
{
    *ok = MPI_Type_set_attr(MPI_Type_f2c(*ftype), *key, &c_payload) == MPI_SUCCESS;
    *addr = (MPI_Aint)(intptr_t)&c_payload;
}

/* A key with C callbacks that read the value through the pointer they get:
 * the copy stores value + 10 in a new cell of its own and says what it saw. */
static MPI_Aint copy_saw = -1, delete_saw = -1;
static MPI_Aint copies[16];
static int ncopies;

static int c_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    copy_saw = *(MPI_Aint *)in;
    if (ncopies == 16)
        return MPI_ERR_OTHER;
    copies[ncopies] = copy_saw + 10;
    *(void **)out = &copies[ncopies++];
    *flag = 1;
    return MPI_SUCCESS;
}

static int c_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    delete_saw = *(MPI_Aint *)value;
    return MPI_SUCCESS;
}

void c_make_comm_key(MPI_Fint *key)
{
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(c_copy, c_delete, &k, NULL);
    *key = k;
}

void c_free_comm_key(MPI_Fint *key)
{
    int k = *key;
    MPI_Comm_free_keyval(&k);
    *key = k;
}

/* What the callbacks last read, and where the last copy lives. */
void c_callbacks_saw(MPI_Aint *copied, MPI_Aint *deleted, MPI_Aint *copy_addr)
{
    *copied = copy_saw;
    *deleted = delete_saw;
    *copy_addr = ncopies ? (MPI_Aint)(intptr_t)&copies[ncopies - 1] : 0;
}
