/*
 * buffer_checks.c — the slow halves of the buffer checks in binding.h:
 * messages for NULL and MPI_IN_PLACE buffers and aliased arguments, the
 * per-process entries of the v and w collectives, and the datatype of a
 * point-to-point transfer that is not valid and committed.
 * Which call checks which buffer is decided in tools/gen/buffer_rules.py.
 */
#include "binding/binding.h"
#include "core/topo.h"

/* A buffer with `count` elements of `dt` whose data starts `offset` bytes
 * (plus the true lower bound) from `buf`. */
static int buffer_error_at(const void *buf, MPI_Aint offset, MPI_Count count, const uz_datatype *dt,
                           const char *arg, const char *in_place_note)
{
    /* Nothing is read or written through a buffer of zero-size data. */
    if (count <= 0 || dt == NULL || dt->size == 0)
        return MPI_SUCCESS;
    if (buf == MPI_IN_PLACE)
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s cannot be MPI_IN_PLACE%s", arg,
                           in_place_note ? in_place_note : "");
    /* MPI_BOTTOM is NULL in the standard ABI: with absolute addresses (a
     * datatype's true lower bound, a displacement) the data is not at NULL. */
    if (buf == NULL && offset + dt->true_lb == 0)
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s is NULL with count %lld of a datatype of "
                           "%lld bytes", arg, (long long)count, (long long)dt->size);
    return MPI_SUCCESS;
}

int uz_buffer_error(const void *buf, MPI_Count count, const uz_datatype *dt, const char *arg,
                    const char *in_place_note)
{
    return buffer_error_at(buf, 0, count, dt, arg, in_place_note);
}

/* Entry i of an array of int or of 8-byte integers. */
static int64_t entry(const void *array, size_t size, int i)
{
    return size == sizeof(int) ? ((const int *)array)[i] : ((const int64_t *)array)[i];
}

int uz_buffer_vw_error(const void *buf, int n, const void *counts, size_t count_size, const void *displs,
                       size_t displ_size, const uz_datatype *dt, const MPI_Datatype *types, const char *arg,
                       const char *in_place_note)
{
    if (counts == NULL || (types == NULL && dt == NULL))
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        MPI_Count count = entry(counts, count_size, i);
        /* An invalid type in a w array is the implementation's to report,
         * with its index. */
        const uz_datatype *t = types ? uz_datatype_get(types[i]) : dt;
        if (count <= 0 || t == NULL)
            continue;
        MPI_Aint offset = 0;
        if (displs != NULL)
            offset = (MPI_Aint)entry(displs, displ_size, i) * (types ? 1 : dt->extent);
        int err = buffer_error_at(buf, offset, count, t, arg, in_place_note);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

int uz_alias_error(const char *a_name, const char *b_name)
{
    return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s and %s are the same buffer (aliased arguments; "
                       "MPI_IN_PLACE is the way to reuse a buffer where it is allowed)", a_name, b_name);
}

int uz_check_block_alias(const void *whole, MPI_Aint disp, const uz_datatype *wtype, const void *part,
                         int nonempty, const char *whole_name, const char *part_name)
{
    if (!nonempty || wtype == NULL || (uintptr_t)part <= (uintptr_t)MPI_IN_PLACE)
        return MPI_SUCCESS;
    if ((const char *)part != (const char *)whole + disp * wtype->extent)
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s is this process's own block of %s (aliased "
                       "arguments; pass MPI_IN_PLACE as %s instead)", part_name, whole_name, part_name);
}

int uz_transfer_type_error(uz_datatype **dt, MPI_Count count, const char *arg)
{
    if (count <= 0) {
        if (*dt == NULL)
            *dt = uz_datatype_get(MPI_BYTE);
        return MPI_SUCCESS;
    }
    int err = uz_check_handle(*dt, MPI_ERR_TYPE, arg, "datatype");
    return err ? err : uz_check_committed(*dt, arg);
}

int uz_neighbor_degree(const uz_comm *comm, int out)
{
    if (comm->topo == NULL)
        return 0;
    return out ? comm->topo->outdegree : comm->topo->indegree;
}
