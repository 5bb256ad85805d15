/*
 * op_apply.c — applying a reduction operation to buffers described by a
 * datatype: the predefined kernels on packed elements, user functions in
 * the user's layout, and the check that an operation is defined for a type.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "coll/coll.h"
#include "coll/reducer.h"
#include "datatype/dt_engine.h"

static const char *op_name(const uz_op *op)
{
    return op->name ? op->name : "the operation";
}

int uz_reducer_init(struct uz_reducer *r, uz_op *op, uz_datatype *dt, int allow_rma_ops)
{
    memset(r, 0, sizeof(*r));
    r->op = op;
    r->dt = dt;
    r->commutative = op->commutative;
    if (!op->predefined) {
        r->packed = 0;
        r->xtype = dt;
        r->mult = 1;
        r->stride = dt->extent;
        r->lb = dt->true_lb;
        r->span1 = dt->true_extent;
        return MPI_SUCCESS;
    }
    MPI_Op h = uz_op_handle(op);
    if (!allow_rma_ops && (h == MPI_REPLACE || h == MPI_NO_OP))
        return uz_err_make(MPI_ERR_OP, "%s is only for one-sided accumulate operations", op_name(op));
    const uz_datatype *basic = uz_dt_homogeneous_basic(dt);
    int bytewise;
    r->kern = uz_op_kernel_find(op, basic, &bytewise);
    if (!r->kern) {
        if (!basic)
            return uz_err_make(MPI_ERR_OP, "%s is not defined for datatype %s, whose elements are of "
                               "different basic types", op_name(op), dt->name[0] ? dt->name : "(derived)");
        return uz_err_make(MPI_ERR_OP, "%s is not defined for elements of type %s", op_name(op),
                           basic->name);
    }
    r->packed = 1;
    r->xtype = uz_datatype_get(MPI_BYTE);
    r->stride = bytewise ? 1 : (MPI_Aint)basic->size;
    r->mult = r->stride;
    r->span1 = r->stride;
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- applying */

static void apply_user(uz_op *op, const void *in, void *inout, MPI_Count n, uz_datatype *dt)
{
    MPI_Datatype h = uz_datatype_handle(dt);
    if (op->user_fn_c) {
        MPI_Count len = n;
        op->user_fn_c((void *)in, inout, &len, &h);
        return;
    }
    /* An int-count function takes at most INT_MAX elements at a time. */
    while (n > 0) {
        int len = n > INT_MAX ? INT_MAX : (int)n;
        op->user_fn((void *)in, inout, &len, &h);
        in = (const char *)in + (MPI_Aint)len * dt->extent;
        inout = (char *)inout + (MPI_Aint)len * dt->extent;
        n -= len;
    }
}

void uz_reducer_apply(const struct uz_reducer *r, const void *in, void *inout, MPI_Count n)
{
    if (n <= 0)
        return;
    if (r->packed)
        r->kern(in, inout, (size_t)n);
    else
        apply_user(r->op, in, inout, n, r->dt);
}

/* A predefined op on a non-contiguous layout: both operands are packed a
 * chunk at a time on the stack, combined, and the result scattered back. */
static void apply_strided(const struct uz_reducer *r, const void *in, void *inout, MPI_Count count,
                          uz_datatype *dt)
{
    enum { CHUNK = 4096 };
    _Alignas(64) unsigned char a[CHUNK], b[CHUNK];
    size_t chunk = CHUNK / (size_t)r->stride * (size_t)r->stride;
    struct uz_dt_cursor ci, cio, cout;
    uz_dt_cursor_init(&ci, in, count, dt);
    uz_dt_cursor_init(&cio, inout, count, dt);
    uz_dt_cursor_init(&cout, inout, count, dt);
    for (;;) {
        size_t n = uz_dt_cursor_pack(&ci, a, chunk);
        if (n == 0)
            break;
        uz_dt_cursor_pack(&cio, b, n);
        r->kern(a, b, n / (size_t)r->stride);
        uz_dt_cursor_unpack(&cout, b, n);
    }
}

int uz_op_apply(uz_op *op, const void *in, void *inout, MPI_Count count, uz_datatype *dt)
{
    struct uz_reducer r;
    int err = uz_reducer_init(&r, op, dt, 1);
    if (err)
        return err;
    if (count <= 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (!r.packed) {
        apply_user(op, in, inout, count, dt);
    } else if (uz_dt_is_contig(dt, count)) {
        r.kern((const char *)in + dt->true_lb, (char *)inout + dt->true_lb,
               (size_t)(count * dt->size / r.stride));
    } else {
        apply_strided(&r, in, inout, count, dt);
    }
    return MPI_SUCCESS;
}
