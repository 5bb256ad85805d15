/*
 * topo_dims.c — MPI_Dims_create: a balanced grid.
 *
 * The free dimensions (dims[i] == 0) share m = nnodes / (product of the
 * fixed ones).  "As close to each other as possible" is taken to mean
 * what MPICH means: the smallest range (largest extent minus smallest)
 * over all factorizations of m; among those, the one whose extents,
 * largest first, are smallest in lexicographic order.  That rules out the
 * classic greedy answer 12 x 6 for 72 (9 x 8), and picks 9 x 8 x 5 over
 * 10 x 6 x 6 for 360 (same range; MPICH's search happens to give the
 * latter).  The search enumerates non-increasing factorizations, pruning
 * those whose range is already worse than the best found.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

struct dims_search {
    int k;
    long *divs;         /* divisors of the whole m, ascending */
    int ndivs;
    long cur[32], best[32];
    long best_range;
    int found;
};

/* Is cur (complete, non-increasing) better than the best so far: smaller
 * range, then smaller extents from the largest down? */
static int better(const struct dims_search *s)
{
    long range = s->cur[0] - s->cur[s->k - 1];
    if (!s->found || range < s->best_range)
        return 1;
    if (range > s->best_range)
        return 0;
    for (int i = 0; i < s->k; i++)
        if (s->cur[i] != s->best[i])
            return s->cur[i] < s->best[i];
    return 0;
}

/* Choose extent i (at most cap) of the m still to split over k - i. */
static void search(struct dims_search *s, int i, long m, long cap)
{
    int left = s->k - i;
    if (left == 1) {
        if (m > cap)
            return;
        s->cur[i] = m;
        if (better(s)) {
            memcpy(s->best, s->cur, sizeof(long) * (size_t)s->k);
            s->best_range = s->cur[0] - m;
            s->found = 1;
        }
        return;
    }
    /* The largest remaining extent is at least the left-th root of m. */
    long lo = (long)ceil(pow((double)m, 1.0 / left) - 1e-9);
    for (int j = 0; j < s->ndivs && s->divs[j] <= cap && s->divs[j] <= m; j++) {
        long d = s->divs[j];
        if (d < lo || m % d)
            continue;
        /* Extents only shrink from here: prune what cannot beat the best. */
        if (s->found && i > 0 && s->cur[0] - 1 > s->best_range && d < s->cur[0] - s->best_range)
            continue;
        s->cur[i] = d;
        search(s, i + 1, m / d, d);
    }
}

static int by_value(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The non-increasing extents of the best split of m into k factors.
 * Returns 0 when out of memory. */
static int balance(long m, int k, long *ext)
{
    struct dims_search s = { .k = k };
    if (k > 32)
        return 0;
    /* An int has at most 1600 divisors. */
    s.divs = malloc(sizeof(long) * 2048);
    if (!s.divs)
        return 0;
    for (long d = 1; d * d <= m; d++) {
        if (m % d == 0) {
            s.divs[s.ndivs++] = d;
            if (d * d != m)
                s.divs[s.ndivs++] = m / d;
        }
    }
    qsort(s.divs, (size_t)s.ndivs, sizeof(long), by_value);
    search(&s, 0, m, m);
    free(s.divs);
    if (s.found)
        memcpy(ext, s.best, sizeof(long) * (size_t)k);
    return s.found;
}

int uz_mpi_Dims_create(int nnodes, int ndims, int dims[])
{
    if (nnodes < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid nnodes %d", nnodes);
    if (ndims < 0)
        return uz_err_make(MPI_ERR_DIMS, "invalid ndims %d", ndims);
    if (ndims > 0 && !dims)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: dims is NULL");
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return uz_err_make(MPI_ERR_DIMS, "invalid dims[%d] = %d (must not be negative)", i,
                               dims[i]);
        if (dims[i] > 0 && (fixed *= dims[i]) > nnodes)
            return uz_err_make(MPI_ERR_DIMS, "the fixed dims multiply to more than nnodes = %d",
                               nnodes);
        if (dims[i] == 0)
            free_dims++;
    }
    if (nnodes == 0 || fixed == 0 || nnodes % fixed)
        return uz_err_make(MPI_ERR_DIMS, "nnodes = %d is not a multiple of the fixed dims' product "
                           "%ld", nnodes, fixed);
    long m = nnodes / fixed;
    if (free_dims == 0) {
        if (m != 1)
            return uz_err_make(MPI_ERR_DIMS, "dims are all fixed and their product %ld is not "
                               "nnodes = %d", fixed, nnodes);
        return MPI_SUCCESS;
    }
    if (free_dims > 32)
        return uz_err_make(MPI_ERR_DIMS, "more than 32 dimensions to fill (%d)", free_dims);
    long ext[32];
    if (!balance(m, free_dims, ext))
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Dims_create");
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = (int)ext[k++];
    return MPI_SUCCESS;
}
