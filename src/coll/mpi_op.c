/*
 * mpi_op.c — user-defined reduction operations (MPI_Op_create, _c,
 * MPI_Op_free, MPI_Op_commutative) and MPI_Reduce_local.
 *
 * An operation made by MPI_Op_create is reference counted: a nonblocking
 * or persistent reduction that uses it keeps it alive after MPI_Op_free.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "coll/reducer.h"

void uz_op_retain(uz_op *op)
{
    uz_object_retain(&op->obj);
}

void uz_op_release(uz_op *op)
{
    if (!uz_object_release(&op->obj))
        return;
    uz_object_free(op, sizeof(*op));
}

static int op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *handle)
{
    if (!fn && !fn_c)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: user_fn is NULL");
    uz_op *op = uz_object_alloc(sizeof(*op));
    if (!op)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an operation");
    uz_object_init(&op->obj, UZ_MAGIC_OP);
    op->commutative = commute != 0;
    op->predefined = 0;
    op->user_fn = fn;
    op->user_fn_c = fn_c;
    op->name = "user-defined operation";
    *handle = (MPI_Op)op;
    return MPI_SUCCESS;
}

int uz_mpi_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create(user_fn, NULL, commute, op);
}

int uz_mpi_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create(NULL, user_fn, commute, op);
}

int uz_mpi_Op_free(MPI_Op *handle)
{
    uz_op *op = *handle == MPI_OP_NULL ? NULL : uz_op_get(*handle);
    if (!op)
        return uz_err_make(MPI_ERR_OP, "invalid operation (argument op)");
    if (op->predefined)
        return uz_err_make(MPI_ERR_OP, "%s is predefined and cannot be freed", op->name);
    uz_lock();
    uz_op_release(op);
    uz_unlock();
    *handle = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int uz_mpi_Op_commutative(uz_op *op, int *commute)
{
    *commute = op->commutative;
    return MPI_SUCCESS;
}

int uz_mpi_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, uz_datatype *datatype,
                          uz_op *op)
{
    struct uz_reducer r;
    int err = uz_reducer_init(&r, op, datatype, 0);
    if (err)
        return err;
    return uz_op_apply(op, inbuf, inoutbuf, count, datatype);
}
