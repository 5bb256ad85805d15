/*
 * op_kernels.h — the arithmetic of the predefined reduction operations.
 */
#ifndef UZ_COLL_OP_KERNELS_H
#define UZ_COLL_OP_KERNELS_H

#include <stddef.h>

#include "coll/op.h"
#include "datatype/datatype.h"

/* inout[i] = in[i] op inout[i] for n packed elements. */
typedef void (*uz_op_kernel)(const void *in, void *inout, size_t n);

/* The kernel of a predefined op for elements of the predefined type
 * `basic`, or NULL when the standard does not define the op for it.
 * MPI_REPLACE and MPI_NO_OP work on any type and count in bytes: for
 * them *bytewise is set and n must be the number of bytes. */
uz_op_kernel uz_op_kernel_find(const uz_op *op, const uz_datatype *basic, int *bytewise);

#endif /* UZ_COLL_OP_KERNELS_H */
