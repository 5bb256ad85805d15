/*
 * binding.h — what the generated entry points (src/binding/gen/) use: handle
 * conversion, argument checks and error raising.  No logic beyond checking
 * and converting lives here; each check returns MPI_SUCCESS or a code whose
 * message names the argument, and the entry point raises it through the
 * right error handler with the function's name.
 */
#ifndef UZ_BINDING_BINDING_H
#define UZ_BINDING_BINDING_H

#include <limits.h>
#include <stddef.h>

#include <mpi.h>

#include "base/object.h"
#include "base/profile.h"
#include "base/runtime.h"
#include "coll/op.h"
#include "core/comm.h"
#include "core/errhandler.h"
#include "core/error_raise.h"
#include "core/group.h"
#include "core/info.h"
#include "datatype/datatype.h"
#include "io/io.h"
#include "rma/rma.h"

/* Object kinds whose layers are not written yet still need a name. */
typedef struct MPI_ABI_Request uz_request;
typedef struct MPI_ABI_Message uz_message;

uz_session *uz_session_get(MPI_Session h);
uz_request *uz_request_get(MPI_Request h);

/* The largest tag; MPI_TAG_UB reports it. */
enum { UZ_TAG_UB = INT_MAX };

/* ---------------------------------------------------------- handle errors */

static inline int uz_check_handle(const void *obj, int errclass, const char *arg, const char *what)
{
    if (UZ_LIKELY(obj != NULL))
        return MPI_SUCCESS;
    return uz_err_make(errclass, "invalid %s (argument %s)", what, arg);
}

static inline int uz_check_committed(const uz_datatype *dt, const char *arg)
{
    if (UZ_LIKELY(dt->committed))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_TYPE, "datatype %s has not been committed", arg);
}

int uz_transfer_type_error(uz_datatype **dt, MPI_Count count, const char *arg) UZ_COLD;

/* The datatype of a point-to-point transfer (buffer_rules.py): a valid,
 * committed type costs what the plain checks cost; anything else is
 * decided out of line, where a transfer of count <= 0 is let through as
 * MPICH lets it (with MPI_BYTE for an invalid type, as nothing is moved). */
static inline int uz_check_transfer_type(uz_datatype **dt, MPI_Count count, const char *arg)
{
    if (UZ_LIKELY(*dt != NULL && (*dt)->committed))
        return MPI_SUCCESS;
    return uz_transfer_type_error(dt, count, arg);
}

/* ------------------------------------------------------------ value checks */

static inline int uz_check_count(MPI_Count count, const char *arg)
{
    if (UZ_LIKELY(count >= 0))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_COUNT, "invalid count %lld (argument %s)", (long long)count, arg);
}

static inline int uz_check_nonnegative(MPI_Count value, const char *arg)
{
    if (UZ_LIKELY(value >= 0))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_ARG, "invalid argument %s = %lld (must not be negative)",
                       arg, (long long)value);
}

static inline int uz_check_positive(MPI_Count value, const char *arg)
{
    if (UZ_LIKELY(value > 0))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_ARG, "invalid argument %s = %lld (must be positive)",
                       arg, (long long)value);
}

static inline int uz_check_pointer(const void *p, const char *arg)
{
    if (UZ_LIKELY(p != NULL))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_ARG, "invalid argument: %s is NULL", arg);
}

static inline int uz_check_tag(int tag, const char *arg, int any_tag_allowed)
{
    if (UZ_LIKELY(tag >= 0) || (any_tag_allowed && tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_TAG, "invalid tag %d (argument %s)", tag, arg);
}

/* A destination or source rank: a rank of the remote group (the group
 * itself for intracommunicators), or MPI_PROC_NULL, or MPI_ANY_SOURCE where
 * the call receives. */
static inline int uz_check_peer_rank(const uz_comm *comm, int rank, const char *arg,
                                     int any_source_allowed)
{
    if (UZ_LIKELY(rank >= 0 && rank < comm->remote_size) || rank == MPI_PROC_NULL ||
        (any_source_allowed && rank == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_RANK, "invalid rank %d (argument %s) for a communicator of size %d",
                       rank, arg, comm->remote_size);
}

/* The root of a rooted collective: a rank of the group for
 * intracommunicators; MPI_ROOT, MPI_PROC_NULL or a remote rank for
 * intercommunicators. */
static inline int uz_check_root(const uz_comm *comm, int root, const char *arg)
{
    if (!comm->is_inter) {
        if (UZ_LIKELY(root >= 0 && root < comm->size))
            return MPI_SUCCESS;
    } else if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size)) {
        return MPI_SUCCESS;
    }
    return uz_err_make(MPI_ERR_ROOT, "invalid root %d (argument %s) for a communicator of size %d",
                       root, arg, comm->is_inter ? comm->remote_size : comm->size);
}

/* Is this process the root of a rooted collective (MPI_ROOT on the root
 * side of an intercommunicator)? */
static inline int uz_at_root(const uz_comm *comm, int root)
{
    return comm->is_inter ? root == MPI_ROOT : comm->rank == root;
}

/* ---------------------------------------------------------- buffer checks */

/* What the buffer checks generated from tools/gen/buffer_rules.py call.
 * The common case (a real address) costs one compare; the rest, in
 * buffer_checks.c, runs only for NULL and MPI_IN_PLACE. */

int uz_buffer_error(const void *buf, MPI_Count count, const uz_datatype *dt, const char *arg,
                    const char *in_place_note) UZ_COLD;

/* A typed buffer with `count` elements of `dt` to move: NULL (unless the
 * datatype holds absolute addresses, as with MPI_BOTTOM) or MPI_IN_PLACE is
 * MPI_ERR_BUFFER.  `in_place_note` ends the message when MPI_IN_PLACE is
 * allowed elsewhere (" on an intercommunicator"), or is NULL. */
static inline int uz_check_buffer(const void *buf, MPI_Count count, const uz_datatype *dt, const char *arg,
                                  const char *in_place_note)
{
    if (UZ_LIKELY((uintptr_t)buf > (uintptr_t)MPI_IN_PLACE) || count <= 0)
        return MPI_SUCCESS;
    return uz_buffer_error(buf, count, dt, arg, in_place_note);
}

/* The largest of a per-process count array (0 for none). */
static inline MPI_Count uz_counts_max(const int *counts, int n)
{
    MPI_Count max = 0;
    for (int i = 0; counts && i < n; i++)
        max = counts[i] > max ? counts[i] : max;
    return max;
}

static inline MPI_Count uz_counts_max_c(const MPI_Count *counts, int n)
{
    MPI_Count max = 0;
    for (int i = 0; counts && i < n; i++)
        max = counts[i] > max ? counts[i] : max;
    return max;
}

/* The v and w collectives: a count, a displacement (or none: NULL) and,
 * for w, a datatype handle per process; arrays of int or of 8-byte
 * integers (MPI_Count, MPI_Aint) as their sizes say.  A NULL buffer is an
 * error only where a process's data would start at address 0: with
 * MPI_BOTTOM the displacements may be absolute addresses. */
int uz_buffer_vw_error(const void *buf, int n, const void *counts, size_t count_size, const void *displs,
                       size_t displ_size, const uz_datatype *dt, const MPI_Datatype *types, const char *arg,
                       const char *in_place_note) UZ_COLD;

static inline int uz_check_buffer_vw(const void *buf, int n, const void *counts, size_t count_size,
                                     const void *displs, size_t displ_size, const uz_datatype *dt,
                                     const MPI_Datatype *types, const char *arg, const char *in_place_note)
{
    if (UZ_LIKELY((uintptr_t)buf > (uintptr_t)MPI_IN_PLACE))
        return MPI_SUCCESS;
    return uz_buffer_vw_error(buf, n, counts, count_size, displs, displ_size, dt, types, arg, in_place_note);
}

int uz_alias_error(const char *a_name, const char *b_name) UZ_COLD;

/* Two buffer arguments that are the same memory where the standard forbids
 * aliasing (a reduction's sendbuf and recvbuf: MPI_IN_PLACE is the way). */
static inline int uz_check_alias(const void *a, const void *b, MPI_Count count, const char *a_name,
                                 const char *b_name)
{
    if (UZ_LIKELY(a != b) || count <= 0 || (uintptr_t)a <= (uintptr_t)MPI_IN_PLACE)
        return MPI_SUCCESS;
    return uz_alias_error(a_name, b_name);
}

/* `part` starts at this process's block of `whole` (block `disp` elements
 * of `wtype` in), which MPI_IN_PLACE would express. */
int uz_check_block_alias(const void *whole, MPI_Aint disp, const uz_datatype *wtype, const void *part,
                         int nonempty, const char *whole_name, const char *part_name);

/* Entries of a collective's per-process arrays: the remote group's size
 * for intercommunicators. */
static inline int uz_coll_peers(const uz_comm *comm)
{
    return comm->is_inter ? comm->remote_size : comm->size;
}

/* Entries of a neighborhood collective's arrays: in-degree (out = 0) or
 * out-degree (out = 1); 0 without a topology. */
int uz_neighbor_degree(const uz_comm *comm, int out);

/* Narrowing of a large-count result for the int-count variant: values that
 * do not fit become MPI_UNDEFINED, as the standard asks of counts. */
static inline int uz_count_to_int(MPI_Count value)
{
    return value > INT_MAX || value < INT_MIN ? MPI_UNDEFINED : (int)value;
}

#endif /* UZ_BINDING_BINDING_H */
