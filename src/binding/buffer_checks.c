/*
 * buffer_checks.c — the slow halves of the buffer checks in binding.h:
 * messages for NULL and MPI_IN_PLACE buffers and aliased arguments, and
 * the checks of the w collectives, whose datatypes arrive as handles, and
 * the datatype of a point-to-point transfer that is not valid and committed.
 * Which call checks which buffer is decided in tools/gen/buffer_rules.py.
 */
#include "binding/binding.h"
#include "core/topo.h"

int uz_buffer_error(const void *buf, MPI_Count count, const uz_datatype *dt, const char *arg,
                    const char *in_place_note)
{
    /* Nothing is read or written through a buffer of zero-size data. */
    if (dt == NULL || dt->size == 0)
        return MPI_SUCCESS;
    if (buf == MPI_IN_PLACE)
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s cannot be MPI_IN_PLACE%s", arg,
                           in_place_note ? in_place_note : "");
    /* MPI_BOTTOM is NULL in the standard ABI: with a datatype of absolute
     * addresses (a nonzero true lower bound) the data is not at NULL. */
    if (buf == NULL && dt->true_lb == 0)
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %s is NULL with count %lld of a datatype of "
                           "%lld bytes", arg, (long long)count, (long long)dt->size);
    return MPI_SUCCESS;
}

static int check_w(const void *buf, MPI_Count count, MPI_Datatype type, const char *arg, const char *note)
{
    if (count <= 0)
        return MPI_SUCCESS;
    /* An invalid type is the implementation's to report, with its index. */
    return uz_buffer_error(buf, count, uz_datatype_get(type), arg, note);
}

int uz_check_buffer_w(const void *buf, const int *counts, const MPI_Datatype *types, int n, const char *arg,
                      const char *in_place_note)
{
    if ((uintptr_t)buf > (uintptr_t)MPI_IN_PLACE || counts == NULL || types == NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int err = check_w(buf, counts[i], types[i], arg, in_place_note);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

int uz_check_buffer_wc(const void *buf, const MPI_Count *counts, const MPI_Datatype *types, int n,
                       const char *arg, const char *in_place_note)
{
    if ((uintptr_t)buf > (uintptr_t)MPI_IN_PLACE || counts == NULL || types == NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int err = check_w(buf, counts[i], types[i], arg, in_place_note);
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
