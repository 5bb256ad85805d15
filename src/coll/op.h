/*
 * op.h — reduction operation objects: the predefined ones and user functions
 * made by MPI_Op_create.
 */
#ifndef UZ_COLL_OP_H
#define UZ_COLL_OP_H

#include "base/object.h"

typedef struct MPI_ABI_Op {
    struct uz_object obj;
    int commutative;
    int predefined;
    MPI_User_function *user_fn;         /* for MPI_Op_create */
    MPI_User_function_c *user_fn_c;     /* for MPI_Op_create_c */
    const char *name;
} uz_op;

/* Predefined handles index this table (handle value - MPI_OP_NULL). */
enum { UZ_OP_TABLE_SIZE = 0x20 };
extern uz_op *uz_op_builtin[UZ_OP_TABLE_SIZE];

static inline uz_op *uz_op_get(MPI_Op h)
{
    if (uz_handle_is_predefined(h)) {
        uintptr_t i = (uintptr_t)h - (uintptr_t)MPI_OP_NULL;
        return i < UZ_OP_TABLE_SIZE ? uz_op_builtin[i] : NULL;
    }
    return uz_object_check(h, UZ_MAGIC_OP);
}

MPI_Op uz_op_handle(const uz_op *op);
void uz_op_init_builtins(void);

#endif /* UZ_COLL_OP_H */
