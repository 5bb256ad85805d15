/*
 * win_keyval.c — MPI_Win_create_keyval and MPI_Win_free_keyval, through the
 * shared attribute engine (base/attr.h).
 *
 * A keyval needs no window, so these work before one-sided communication
 * does: a library can make its window keys at start-up, and a key freed
 * while attributes use it behaves as for communicators and datatypes.
 * Setting, reading and deleting window attributes come with the windows
 * themselves (src/rma/), as do the predefined ones (MPI_WIN_BASE, ...),
 * which can never be freed.
 */
#include "base/attr.h"
#include "base/errors.h"

int uz_mpi_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                             void *extra_state)
{
    return uz_keyval_create(UZ_ATTR_WIN, (uz_attr_fn)win_copy_attr_fn,
                            (uz_attr_fn)win_delete_attr_fn, extra_state, win_keyval);
}

int uz_mpi_Win_free_keyval(int *win_keyval)
{
    if (*win_keyval >= MPI_WIN_BASE && *win_keyval <= MPI_WIN_MODEL)
        return uz_err_make(MPI_ERR_KEYVAL, "the predefined attribute keyval %d cannot be freed",
                           *win_keyval);
    return uz_keyval_free(UZ_ATTR_WIN, win_keyval);
}
