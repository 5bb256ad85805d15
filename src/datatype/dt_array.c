/*
 * dt_array.c — subarray and distributed-array (darray) datatypes.
 *
 * Both are built dimension by dimension, fastest-varying first, from the
 * internal constructors, so their layouts come out as a few nested strided
 * items (the builder folds dimensions that happen to be contiguous).
 *
 * darray follows the standard's own definition (MPI-4.1 §5.1.4): in every
 * dimension a process owns the blocks r*darg, (r+psize)*darg, ... of
 * darg elements (the last one cut at the edge), where BLOCK is cyclic with
 * darg = ceil(gsize/psize) and NONE is one block of the whole dimension;
 * each dimension's type is resized to [0, gsize * extent) so that the next
 * dimension can step over it.  Processes are placed on the grid in
 * row-major order whatever the array's order.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

static int arg_error(const char *what, int i, MPI_Count v)
{
    return uz_err_make(MPI_ERR_ARG, "invalid %s[%d] = %lld", what, i, (long long)v);
}

static int bad_order(int order)
{
    return uz_err_make(MPI_ERR_ARG, "invalid order %d (must be MPI_ORDER_C or MPI_ORDER_FORTRAN)",
                       order);
}

/* Dimension index of the k-th fastest dimension. */
static int dim_of(int k, int ndims, int order)
{
    return order == MPI_ORDER_C ? ndims - 1 - k : k;
}

/* Replace *cur by next, releasing *cur unless it is the caller's old type. */
static void step(uz_datatype **cur, uz_datatype *next, const uz_datatype *old)
{
    if (*cur != old)
        uz_dt_release(*cur);
    *cur = next;
}

/* ---------------------------------------------------------------- subarray */

int uz_dt_create_subarray(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                          const MPI_Count starts[], int order, const uz_datatype *old,
                          uz_datatype **out)
{
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return bad_order(order);
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0)
            return arg_error("array_of_sizes", i, sizes[i]);
        if (subsizes[i] < 0 || subsizes[i] > sizes[i])
            return arg_error("array_of_subsizes", i, subsizes[i]);
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
            return arg_error("array_of_starts", i, starts[i]);
    }
    uz_datatype *cur = (uz_datatype *)old, *next;
    int64_t step_elems = 1, offset = 0, bytes = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; k < ndims && !err; k++) {
        int d = dim_of(k, ndims, order);
        int64_t stride;
        if (__builtin_mul_overflow(step_elems, old->extent, &stride))
            return uz_err_make(MPI_ERR_ARG, "the subarray spans more bytes than MPI_Aint holds");
        if (k == 0)
            err = uz_dt_create_hvector(1, subsizes[d], 0, old, &next);
        else
            err = uz_dt_create_hvector(subsizes[d], 1, stride, cur, &next);
        if (!err)
            step(&cur, next, old);
        offset += starts[d] * step_elems;
        if (__builtin_mul_overflow(step_elems, sizes[d], &step_elems))
            err = uz_err_make(MPI_ERR_ARG, "the subarray spans more bytes than MPI_Aint holds");
    }
    if (!err && (__builtin_mul_overflow(offset, old->extent, &offset) ||
                 __builtin_mul_overflow(step_elems, old->extent, &bytes)))
        err = uz_err_make(MPI_ERR_ARG, "the subarray spans more bytes than MPI_Aint holds");
    if (!err) {
        struct uz_dl_piece p = { offset, 0, 1, 1, cur };
        err = uz_dt_create_pieces(&p, 1, &next);
        if (!err)
            step(&cur, next, old);
    }
    if (!err) {
        err = uz_dt_create_resized(cur, 0, bytes, &next);
        if (!err)
            step(&cur, next, old);
    }
    if (err) {
        if (cur != old)
            uz_dt_release(cur);
        return err;
    }
    *out = cur;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ darray */

static int darray_check(int size, int rank, int ndims, const MPI_Count gsizes[],
                        const int distribs[], const int dargs[], const int psizes[], int order)
{
    if (size <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid size %d (must be positive)", size);
    if (rank < 0 || rank >= size)
        return uz_err_make(MPI_ERR_ARG, "invalid rank %d for size %d", rank, size);
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return bad_order(order);
    int64_t procs = 1;
    for (int i = 0; i < ndims; i++) {
        if (gsizes[i] <= 0)
            return arg_error("array_of_gsizes", i, gsizes[i]);
        if (psizes[i] <= 0)
            return arg_error("array_of_psizes", i, psizes[i]);
        switch (distribs[i]) {
        case MPI_DISTRIBUTE_NONE:
            if (psizes[i] != 1)
                return uz_err_make(MPI_ERR_ARG, "array_of_psizes[%d] = %d must be 1 for "
                                   "MPI_DISTRIBUTE_NONE", i, psizes[i]);
            break;
        case MPI_DISTRIBUTE_BLOCK:
            if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
                (dargs[i] <= 0 || (int64_t)dargs[i] * psizes[i] < gsizes[i]))
                return uz_err_make(MPI_ERR_ARG, "array_of_dargs[%d] = %d: %d blocks of it do not "
                                   "cover array_of_gsizes[%d] = %lld", i, dargs[i], psizes[i], i,
                                   (long long)gsizes[i]);
            break;
        case MPI_DISTRIBUTE_CYCLIC:
            if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0)
                return arg_error("array_of_dargs", i, dargs[i]);
            break;
        default:
            return uz_err_make(MPI_ERR_ARG, "invalid array_of_distribs[%d] = %d", i, distribs[i]);
        }
        procs *= psizes[i];
        if (procs > size)
            break;
    }
    if (procs != size)
        return uz_err_make(MPI_ERR_ARG, "the process grid (array_of_psizes) does not have size %d "
                           "processes", size);
    return MPI_SUCCESS;
}

/* The type of one dimension: blocks of blk copies of t owned by grid
 * coordinate r of p, over gsize elements, resized to gsize * extent(t). */
static int darray_dim(const uz_datatype *t, MPI_Count gsize, int64_t blk, int p, int r,
                      uz_datatype **out)
{
    int64_t ext = t->extent, first = (int64_t)r * blk, period = (int64_t)p * blk;
    struct uz_dl_piece pieces[2];
    size_t n = 0;
    if (first < gsize) {
        int64_t nfull = gsize - first >= blk ? (gsize - first - blk) / period + 1 : 0;
        int64_t next = first + nfull * period;
        pieces[n++] = (struct uz_dl_piece){ first * ext, period * ext, (uint64_t)nfull,
                                            (uint64_t)blk, t };
        if (next < gsize)
            pieces[n++] = (struct uz_dl_piece){ next * ext, 0, 1, (uint64_t)(gsize - next), t };
    }
    uz_datatype *blocks;
    int err = uz_dt_create_pieces(pieces, n, &blocks);
    if (err)
        return err;
    err = uz_dt_create_resized(blocks, 0, gsize * ext, out);
    uz_dt_release(blocks);
    return err;
}

int uz_dt_create_darray(int size, int rank, int ndims, const MPI_Count gsizes[],
                        const int distribs[], const int dargs[], const int psizes[], int order,
                        const uz_datatype *old, uz_datatype **out)
{
    int err = darray_check(size, rank, ndims, gsizes, distribs, dargs, psizes, order);
    if (err)
        return err;
    int64_t total = old->extent;
    for (int i = 0; i < ndims; i++)
        if (__builtin_mul_overflow(total, gsizes[i], &total))
            return uz_err_make(MPI_ERR_ARG, "the array spans more bytes than MPI_Aint holds");
    int *coords = malloc((size_t)ndims * sizeof(int));
    if (coords == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    for (int i = 0, procs = size, r = rank; i < ndims; i++) {
        procs /= psizes[i];
        coords[i] = r / procs;
        r %= procs;
    }
    uz_datatype *cur = (uz_datatype *)old, *next;
    for (int k = 0; k < ndims && !err; k++) {
        int d = dim_of(k, ndims, order);
        int64_t blk;
        int p = psizes[d], r = coords[d];
        switch (distribs[d]) {
        case MPI_DISTRIBUTE_BLOCK:
            blk = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (gsizes[d] + p - 1) / p : dargs[d];
            break;
        case MPI_DISTRIBUTE_CYCLIC:
            blk = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
            break;
        default:
            blk = gsizes[d];
            p = 1;
            r = 0;
        }
        err = darray_dim(cur, gsizes[d], blk, p, r, &next);
        if (!err)
            step(&cur, next, old);
    }
    free(coords);
    if (err) {
        if (cur != old)
            uz_dt_release(cur);
        return err;
    }
    *out = cur;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- public entries */

static int publish(uz_datatype *dt, int combiner, MPI_Count ni, const int *ints, MPI_Count nl,
                   const MPI_Count *counts, uz_datatype *old, MPI_Datatype *newtype)
{
    int err = uz_dt_set_contents(dt, combiner, ni, ints, 0, NULL, nl, counts, 1, &old);
    if (err) {
        uz_dt_release(dt);
        return err;
    }
    *newtype = (MPI_Datatype)dt;
    return MPI_SUCCESS;
}

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a datatype");
}

static int null_arrays(int n, const void *a, const void *b, const void *c)
{
    return n > 0 && (!a || !b || !c);
}

int uz_mpi_Type_create_subarray(int ndims, const int array_of_sizes[],
                                const int array_of_subsizes[], const int array_of_starts[],
                                int order, uz_datatype *oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (null_arrays(ndims, array_of_sizes, array_of_subsizes, array_of_starts))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: an array argument is NULL");
    MPI_Count *c = malloc(3 * (size_t)ndims * sizeof(*c));
    int *ints = malloc((3 * (size_t)ndims + 2) * sizeof(int));
    int err = MPI_SUCCESS;
    uz_datatype *dt;
    if (c == NULL || ints == NULL) {
        err = no_mem();
        goto out;
    }
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        c[i] = ints[1 + i] = array_of_sizes[i];
        c[ndims + i] = ints[1 + ndims + i] = array_of_subsizes[i];
        c[2 * ndims + i] = ints[1 + 2 * ndims + i] = array_of_starts[i];
    }
    ints[3 * ndims + 1] = order;
    err = uz_dt_create_subarray(ndims, c, c + ndims, c + 2 * ndims, order, oldtype, &dt);
    if (!err)
        err = publish(dt, MPI_COMBINER_SUBARRAY, 3 * (MPI_Count)ndims + 2, ints, 0, NULL, oldtype,
                      newtype);
out:
    free(c);
    free(ints);
    return err;
}

int uz_mpi_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                  const MPI_Count array_of_subsizes[],
                                  const MPI_Count array_of_starts[], int order,
                                  uz_datatype *oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (null_arrays(ndims, array_of_sizes, array_of_subsizes, array_of_starts))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: an array argument is NULL");
    uz_datatype *dt;
    int err = uz_dt_create_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                    order, oldtype, &dt);
    if (err)
        return err;
    MPI_Count *c = malloc(3 * (size_t)ndims * sizeof(*c));
    if (c == NULL) {
        uz_dt_release(dt);
        return no_mem();
    }
    for (int i = 0; i < ndims; i++) {
        c[i] = array_of_sizes[i];
        c[ndims + i] = array_of_subsizes[i];
        c[2 * ndims + i] = array_of_starts[i];
    }
    int ints[2] = { ndims, order };
    err = publish(dt, MPI_COMBINER_SUBARRAY, 2, ints, 3 * (MPI_Count)ndims, c, oldtype, newtype);
    free(c);
    return err;
}

static int darray_arrays_ok(int ndims, const void *g, const int *di, const int *da, const int *ps)
{
    return ndims <= 0 || (g && di && da && ps);
}

int uz_mpi_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, uz_datatype *oldtype,
                              MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (!darray_arrays_ok(ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: an array argument is NULL");
    MPI_Count *g = malloc((size_t)ndims * sizeof(*g));
    int *ints = malloc((4 * (size_t)ndims + 4) * sizeof(int));
    int err = MPI_SUCCESS;
    uz_datatype *dt;
    if (g == NULL || ints == NULL) {
        err = no_mem();
        goto out;
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        g[i] = ints[3 + i] = array_of_gsizes[i];
        ints[3 + ndims + i] = array_of_distribs[i];
        ints[3 + 2 * ndims + i] = array_of_dargs[i];
        ints[3 + 3 * ndims + i] = array_of_psizes[i];
    }
    ints[4 * ndims + 3] = order;
    err = uz_dt_create_darray(size, rank, ndims, g, array_of_distribs, array_of_dargs,
                              array_of_psizes, order, oldtype, &dt);
    if (!err)
        err = publish(dt, MPI_COMBINER_DARRAY, 4 * (MPI_Count)ndims + 4, ints, 0, NULL, oldtype,
                      newtype);
out:
    free(g);
    free(ints);
    return err;
}

int uz_mpi_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                const int array_of_distribs[], const int array_of_dargs[],
                                const int array_of_psizes[], int order, uz_datatype *oldtype,
                                MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return uz_err_make(MPI_ERR_ARG, "invalid ndims %d (must be positive)", ndims);
    if (!darray_arrays_ok(ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: an array argument is NULL");
    uz_datatype *dt;
    int err = uz_dt_create_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                  array_of_dargs, array_of_psizes, order, oldtype, &dt);
    if (err)
        return err;
    int *ints = malloc((3 * (size_t)ndims + 4) * sizeof(int));
    if (ints == NULL) {
        uz_dt_release(dt);
        return no_mem();
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[3 + i] = array_of_distribs[i];
        ints[3 + ndims + i] = array_of_dargs[i];
        ints[3 + 2 * ndims + i] = array_of_psizes[i];
    }
    ints[3 * ndims + 3] = order;
    err = publish(dt, MPI_COMBINER_DARRAY, 3 * (MPI_Count)ndims + 4, ints, ndims, array_of_gsizes,
                  oldtype, newtype);
    free(ints);
    return err;
}
