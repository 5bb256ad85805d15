/*
 * comm_attr.c — keyvals and attributes on communicators, through the
 * shared attribute engine (base/attr.h), plus the predefined attributes
 * and the deprecated MPI-1 names (MPI_Keyval_create, MPI_Attr_put, ...),
 * which have the same C semantics.
 *
 * Predefined attributes (MPI_TAG_UB, MPI_HOST, ...) are not keyvals of the
 * engine: MPI_Comm_get_attr answers them itself, on every communicator,
 * with a pointer to an int as the standard's C binding asks.  They cannot
 * be set, deleted or freed (MPI_ERR_KEYVAL).
 */
#include <limits.h>

#include "base/attr.h"
#include "base/errors.h"
#include "base/runtime.h"
#include "core/comm_impl.h"

/* ----------------------------------------------------- predefined keys */

static int is_predefined_comm_key(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE;
}

static int is_predefined_key(int keyval)
{
    return is_predefined_comm_key(keyval) || (keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL);
}

/* The values live here for the life of the process: the user gets
 * pointers to them. */
static int tag_ub_value = INT_MAX;
static int host_value = MPI_PROC_NULL;          /* no process is "the host" */
static int io_value = MPI_ANY_SOURCE;           /* every process can do I/O */
static int wtime_is_global_value = 0;           /* MPI_Wtime counts from each process's start */
static int appnum_value, universe_size_value, lastusedcode_value;

static int get_predefined(int keyval, void *attribute_val, int *flag)
{
    int *value = NULL;
    switch (keyval) {
    case MPI_TAG_UB: value = &tag_ub_value; break;
    case MPI_HOST: value = &host_value; break;
    case MPI_IO: value = &io_value; break;
    case MPI_WTIME_IS_GLOBAL: value = &wtime_is_global_value; break;
    case MPI_APPNUM:
        if (uz_rt.appnum >= 0) {
            appnum_value = uz_rt.appnum;
            value = &appnum_value;
        }
        break;
    case MPI_UNIVERSE_SIZE:
        universe_size_value = uz_rt.universe_size > 0 ? uz_rt.universe_size : uz_rt.world_size;
        value = &universe_size_value;
        break;
    case MPI_LASTUSEDCODE:
        lastusedcode_value = uz_err_last_used_code();
        value = &lastusedcode_value;
        break;
    }
    *flag = value != NULL;
    if (value)
        *(int **)attribute_val = value;
    return MPI_SUCCESS;
}

static int predefined_error(int keyval, const char *what)
{
    if (!is_predefined_comm_key(keyval))
        return uz_err_make(MPI_ERR_KEYVAL, "keyval %d is a window attribute, not a communicator's",
                           keyval);
    return uz_err_make(MPI_ERR_KEYVAL, "the predefined attribute keyval %d cannot be %s", keyval,
                       what);
}

/* ------------------------------------------------------------- keyvals */

int uz_mpi_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                              MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                              void *extra_state)
{
    return uz_keyval_create(UZ_ATTR_COMM, (uz_attr_fn)comm_copy_attr_fn,
                            (uz_attr_fn)comm_delete_attr_fn, extra_state, comm_keyval);
}

int uz_mpi_Comm_free_keyval(int *comm_keyval)
{
    if (is_predefined_key(*comm_keyval))
        return predefined_error(*comm_keyval, "freed");
    return uz_keyval_free(UZ_ATTR_COMM, comm_keyval);
}

int uz_mpi_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                         void *extra_state)
{
    return uz_keyval_create(UZ_ATTR_COMM, (uz_attr_fn)copy_fn, (uz_attr_fn)delete_fn, extra_state,
                            keyval);
}

int uz_mpi_Keyval_free(int *keyval)
{
    return uz_mpi_Comm_free_keyval(keyval);
}

/* ---------------------------------------------------------- attributes */

int uz_mpi_Comm_set_attr(uz_comm *comm, int comm_keyval, void *attribute_val)
{
    if (is_predefined_key(comm_keyval))
        return predefined_error(comm_keyval, "set");
    return uz_attr_set(UZ_ATTR_COMM, uz_comm_handle(comm), &comm->attrs, comm_keyval, attribute_val);
}

int uz_mpi_Comm_get_attr(uz_comm *comm, int comm_keyval, void *attribute_val, int *flag)
{
    if (is_predefined_comm_key(comm_keyval))
        return get_predefined(comm_keyval, attribute_val, flag);
    if (is_predefined_key(comm_keyval))
        return predefined_error(comm_keyval, "read");
    return uz_attr_get(UZ_ATTR_COMM, comm->attrs, comm_keyval, (void **)attribute_val, flag);
}

int uz_mpi_Comm_delete_attr(uz_comm *comm, int comm_keyval)
{
    if (is_predefined_key(comm_keyval))
        return predefined_error(comm_keyval, "deleted");
    return uz_attr_delete(UZ_ATTR_COMM, uz_comm_handle(comm), &comm->attrs, comm_keyval);
}

int uz_mpi_Attr_put(uz_comm *comm, int keyval, void *attribute_val)
{
    return uz_mpi_Comm_set_attr(comm, keyval, attribute_val);
}

int uz_mpi_Attr_get(uz_comm *comm, int keyval, void *attribute_val, int *flag)
{
    return uz_mpi_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int uz_mpi_Attr_delete(uz_comm *comm, int keyval)
{
    return uz_mpi_Comm_delete_attr(comm, keyval);
}

/* ------------------------------------------------------------ finalize */

int uz_comm_finalize_attrs(void)
{
    int err = uz_comm_delete_attrs(&uz_comm_self);
    return err ? err : uz_comm_delete_attrs(&uz_comm_world);
}
