/*
 * reducer.h — how a reduction's data is laid out while collectives move
 * and combine it.
 *
 * Two forms:
 *  - packed (predefined operations): buffers hold the packed basic
 *    elements (dt_engine.h), `esz` bytes each, and travel as MPI_BYTE.  A
 *    contiguous user buffer already is in this form; any other is packed
 *    into scratch once.  Vectors can be cut at any element, so algorithms
 *    that split the data (ring, Rabenseifner) work for every type.
 *  - typed (user operations): buffers keep the user's datatype layout,
 *    because the user function is called with that datatype, and travel as
 *    that datatype; a unit is one element of it.
 *
 * Either way an algorithm sees "units": unit i of a buffer is at
 * base + i * stride, and k units travel as (k * mult) elements of xtype.
 */
#ifndef UZ_COLL_REDUCER_H
#define UZ_COLL_REDUCER_H

#include <stddef.h>

#include "coll/op_kernels.h"
#include "datatype/datatype.h"

struct uz_reducer {
    uz_op *op;
    uz_datatype *dt;            /* the user's datatype */
    uz_op_kernel kern;          /* predefined op */
    int packed;                 /* packed form (else typed) */
    int commutative;
    uz_datatype *xtype;         /* what units travel as */
    MPI_Count mult;             /* xtype elements per unit */
    MPI_Aint stride;            /* bytes from one unit to the next */
    MPI_Aint lb;                /* typed: dt->true_lb (scratch is shifted by it) */
    MPI_Aint span1;             /* bytes one unit touches */
};

/* Check that `op` is defined for `dt` and describe the layout.  `fn` names
 * the caller for messages; MPI_REPLACE/MPI_NO_OP are refused unless
 * `allow_rma_ops`. */
int uz_reducer_init(struct uz_reducer *r, uz_op *op, uz_datatype *dt, int allow_rma_ops);

/* Units of (count, dt) in this form. */
static inline MPI_Count uz_reducer_units(const struct uz_reducer *r, MPI_Count count)
{
    return r->packed ? count * r->dt->size / (MPI_Count)r->stride : count;
}

/* Bytes of scratch to hold n units, and where unit 0 starts in it. */
static inline size_t uz_reducer_span(const struct uz_reducer *r, MPI_Count n)
{
    return n > 0 ? (size_t)(r->span1 + (n - 1) * r->stride) : 0;
}
static inline void *uz_reducer_base(const struct uz_reducer *r, void *scratch)
{
    return (char *)scratch - r->lb;
}
static inline void *uz_reducer_at(const struct uz_reducer *r, const void *base, MPI_Count unit)
{
    return (char *)base + unit * r->stride;
}

/* inout = in op inout over n units. */
void uz_reducer_apply(const struct uz_reducer *r, const void *in, void *inout, MPI_Count n);

/* Operation objects made by MPI_Op_create live while pending operations
 * use them. */
void uz_op_retain(uz_op *op);
void uz_op_release(uz_op *op);

#endif /* UZ_COLL_REDUCER_H */
