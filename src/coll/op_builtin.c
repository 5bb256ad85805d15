/*
 * op_builtin.c — the predefined reduction operations and the table their
 * handles index.  The arithmetic itself lives with the reduction kernels.
 */
#include "coll/op.h"

uz_op *uz_op_builtin[UZ_OP_TABLE_SIZE];
static uz_op builtin_storage[UZ_OP_TABLE_SIZE];

static const struct { MPI_Op handle; const char *name; } builtin_ops[] = {
    { MPI_SUM, "MPI_SUM" },   { MPI_MIN, "MPI_MIN" },       { MPI_MAX, "MPI_MAX" },
    { MPI_PROD, "MPI_PROD" }, { MPI_BAND, "MPI_BAND" },     { MPI_BOR, "MPI_BOR" },
    { MPI_BXOR, "MPI_BXOR" }, { MPI_LAND, "MPI_LAND" },     { MPI_LOR, "MPI_LOR" },
    { MPI_LXOR, "MPI_LXOR" }, { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
    { MPI_REPLACE, "MPI_REPLACE" }, { MPI_NO_OP, "MPI_NO_OP" },
};

void uz_op_init_builtins(void)
{
    for (size_t i = 0; i < sizeof(builtin_ops) / sizeof(builtin_ops[0]); i++) {
        uintptr_t slot = (uintptr_t)builtin_ops[i].handle - (uintptr_t)MPI_OP_NULL;
        uz_op *op = &builtin_storage[slot];
        uz_object_init_builtin(&op->obj, UZ_MAGIC_OP);
        op->commutative = 1;
        op->predefined = 1;
        op->name = builtin_ops[i].name;
        uz_op_builtin[slot] = op;
    }
}

MPI_Op uz_op_handle(const uz_op *op)
{
    if (op >= builtin_storage && op < builtin_storage + UZ_OP_TABLE_SIZE)
        return (MPI_Op)((uintptr_t)MPI_OP_NULL + (uintptr_t)(op - builtin_storage));
    return (MPI_Op)op;
}
