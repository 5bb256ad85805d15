/*
 * keyvals.c — attribute keys with Fortran copy and delete procedures, and
 * the predefined ones (MPI_COMM_DUP_FN, MPI_NULL_COPY_FN, ...).
 *
 * C's copy and delete callbacks receive an extra_state pointer, so a key
 * made from Fortran is created with the C trampolines below and an
 * extra_state that records the two Fortran procedures and the user's own
 * INTEGER(KIND=MPI_ADDRESS_KIND) extra state.  In C the attribute value is
 * a void *: for a value set from Fortran, the address of the cell that
 * holds it (attr_values.c).  The trampolines hand the Fortran procedures
 * the integer (a value C set goes as its address), keep a copy's result in
 * a new cell, and free a cell once its delete procedure succeeded.  Keys
 * made by the MPI-1 MPI_KEYVAL_CREATE use default INTEGERs for the values
 * and extra state.
 *
 * The predefined procedures are real Fortran-callable procedures (the
 * names mpif.h declares EXTERNAL): they may be called like any other, and
 * through the trampolines they do what C's predefined callbacks do.  The
 * record of a key lives as long as the program (attributes may outlive
 * MPI_Comm_free_keyval, and C does not say when the last one goes), so the
 * records are kept on one list, where they stay reachable.
 */
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void copy_fn(MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                     MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state,
                       MPI_Fint *ierror);
typedef void copy_fn_legacy(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                            MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void delete_fn_legacy(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                              MPI_Fint *extra_state, MPI_Fint *ierror);

struct keyval {
    uzf_proc copy, del;
    MPI_Aint extra_state;
    int legacy;
    struct keyval *next;
};

static struct keyval *all_keyvals;

static struct keyval *keyval_new(uzf_proc copy, uzf_proc del, MPI_Aint extra, int legacy)
{
    struct keyval *k = malloc(sizeof(*k));
    if (k) {
        k->copy = copy;
        k->del = del;
        k->extra_state = extra;
        k->legacy = legacy;
        k->next = __atomic_load_n(&all_keyvals, __ATOMIC_ACQUIRE);
        while (!__atomic_compare_exchange_n(&all_keyvals, &k->next, k, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            ;
    }
    return k;
}

static int copy(struct keyval *k, MPI_Fint old, int keyval, void *in, void *out, int *flag)
{
    MPI_Fint fkey = keyval, fflag = UZF_FALSE, ierror = MPI_SUCCESS;
    MPI_Aint value = uzf_attr_fortran_value(in), result = 0;
    if (k->legacy) {
        MPI_Fint extra = (MPI_Fint)k->extra_state, fin = (MPI_Fint)value, fout = 0;
        ((copy_fn_legacy *)k->copy)(&old, &fkey, &extra, &fin, &fout, &fflag, &ierror);
        result = fout;
    } else {
        MPI_Aint extra = k->extra_state;
        ((copy_fn *)k->copy)(&old, &fkey, &extra, &value, &result, &fflag, &ierror);
    }
    *flag = 0;
    if (ierror != MPI_SUCCESS || !uzf_logical(fflag))
        return ierror;
    /* The copy is a value Fortran set: it gets a cell of its own. */
    void *cell = uzf_attr_cell_new(result);
    if (cell == NULL)
        return MPI_ERR_NO_MEM;
    *(void **)out = cell;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete(struct keyval *k, MPI_Fint obj, int keyval, void *value)
{
    MPI_Fint fkey = keyval, ierror = MPI_SUCCESS;
    MPI_Aint fvalue = uzf_attr_fortran_value(value);
    if (k->legacy) {
        MPI_Fint extra = (MPI_Fint)k->extra_state, fvalue1 = (MPI_Fint)fvalue;
        ((delete_fn_legacy *)k->del)(&obj, &fkey, &fvalue1, &extra, &ierror);
    } else {
        MPI_Aint extra = k->extra_state;
        ((delete_fn *)k->del)(&obj, &fkey, &fvalue, &extra, &ierror);
    }
    /* A failed delete leaves the attribute, and so its cell. */
    if (ierror == MPI_SUCCESS)
        uzf_attr_cell_free(value);
    return ierror;
}

static int comm_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy(extra, PMPI_Comm_c2f(old), keyval, in, out, flag);
}

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    return delete(extra, PMPI_Comm_c2f(comm), keyval, value);
}

static int type_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy(extra, PMPI_Type_c2f(old), keyval, in, out, flag);
}

static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    return delete(extra, PMPI_Type_c2f(type), keyval, value);
}

static int win_copy(MPI_Win old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy(extra, PMPI_Win_c2f(old), keyval, in, out, flag);
}

static int win_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    return delete(extra, PMPI_Win_c2f(win), keyval, value);
}

static int made(int rc, struct keyval *k, int key, MPI_Fint *keyval)
{
    if (rc == MPI_SUCCESS)
        *keyval = key;
    else
        free(k);
    return rc;
}

int uzf_Comm_create_keyval(uzf_proc copy_fn, uzf_proc delete_fn, MPI_Fint *keyval,
                           const MPI_Aint *extra_state)
{
    struct keyval *k = keyval_new(copy_fn, delete_fn, *extra_state, 0);
    int key = MPI_KEYVAL_INVALID;
    if (!k)
        return uzf_nomem();
    int rc = PMPI_Comm_create_keyval(comm_copy, comm_delete, &key, k);
    return made(rc, k, key, keyval);
}

int uzf_Keyval_create(uzf_proc copy_fn, uzf_proc delete_fn, MPI_Fint *keyval,
                      const MPI_Fint *extra_state)
{
    struct keyval *k = keyval_new(copy_fn, delete_fn, *extra_state, 1);
    int key = MPI_KEYVAL_INVALID;
    if (!k)
        return uzf_nomem();
    int rc = PMPI_Comm_create_keyval(comm_copy, comm_delete, &key, k);
    return made(rc, k, key, keyval);
}

int uzf_Type_create_keyval(uzf_proc copy_fn, uzf_proc delete_fn, MPI_Fint *keyval,
                           const MPI_Aint *extra_state)
{
    struct keyval *k = keyval_new(copy_fn, delete_fn, *extra_state, 0);
    int key = MPI_KEYVAL_INVALID;
    if (!k)
        return uzf_nomem();
    int rc = PMPI_Type_create_keyval(type_copy, type_delete, &key, k);
    return made(rc, k, key, keyval);
}

int uzf_Win_create_keyval(uzf_proc copy_fn, uzf_proc delete_fn, MPI_Fint *keyval,
                          const MPI_Aint *extra_state)
{
    struct keyval *k = keyval_new(copy_fn, delete_fn, *extra_state, 0);
    int key = MPI_KEYVAL_INVALID;
    if (!k)
        return uzf_nomem();
    int rc = PMPI_Win_create_keyval(win_copy, win_delete, &key, k);
    return made(rc, k, key, keyval);
}

/* ------------------------------------------- the predefined procedures */

#define COPY_ARGS MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in, \
                  MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror
#define DELETE_ARGS MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state, \
                    MPI_Fint *ierror

static void null_copy(MPI_Fint *flag, MPI_Fint *ierror)
{
    *flag = UZF_FALSE;
    *ierror = MPI_SUCCESS;
}

UZF_EXPORT void mpi_comm_null_copy_fn_(COPY_ARGS) { null_copy(flag, ierror); }
UZF_EXPORT void mpi_type_null_copy_fn_(COPY_ARGS) { null_copy(flag, ierror); }
UZF_EXPORT void mpi_win_null_copy_fn_(COPY_ARGS) { null_copy(flag, ierror); }

UZF_EXPORT void mpi_comm_dup_fn_(COPY_ARGS)
{
    *out = *in;
    *flag = UZF_TRUE;
    *ierror = MPI_SUCCESS;
}
UZF_EXPORT void mpi_type_dup_fn_(COPY_ARGS) __attribute__((alias("mpi_comm_dup_fn_")));
UZF_EXPORT void mpi_win_dup_fn_(COPY_ARGS) __attribute__((alias("mpi_comm_dup_fn_")));

UZF_EXPORT void mpi_comm_null_delete_fn_(DELETE_ARGS) { *ierror = MPI_SUCCESS; }
UZF_EXPORT void mpi_type_null_delete_fn_(DELETE_ARGS) __attribute__((alias("mpi_comm_null_delete_fn_")));
UZF_EXPORT void mpi_win_null_delete_fn_(DELETE_ARGS) __attribute__((alias("mpi_comm_null_delete_fn_")));

/* MPI-1's, with default INTEGER values. */
UZF_EXPORT void mpi_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                                  MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    null_copy(flag, ierror);
}

UZF_EXPORT void mpi_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                            MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    *out = *in;
    *flag = UZF_TRUE;
    *ierror = MPI_SUCCESS;
}

UZF_EXPORT void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                                    MPI_Fint *extra_state, MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}
