/*
 * dt_arrays.c — subarray (C and Fortran order) and darray (block, cyclic,
 * cyclic(k), none, with sizes that do not divide) against layouts computed
 * here independently: a few written out by hand, then many enumerated from
 * the definitions (which global element does each process own, in what
 * order are they stored).
 */
#include "dt_check.h"

/* ---------------------------------------------------- reference layouts */

/* Linear offset (in elements) of index tuple x in an array of sizes g. */
static long linear(int n, const int *g, const int *x, int order)
{
    long off = 0;
    if (order == MPI_ORDER_C)
        for (int d = 0; d < n; d++)
            off = off * g[d] + x[d];
    else
        for (int d = n - 1; d >= 0; d--)
            off = off * g[d] + x[d];
    return off;
}

/* Visit the cartesian product of per-dimension index lists in storage
 * order (last dimension fastest in C order, first in Fortran order). */
static int product(int n, const int *g, int *const *lists, const int *lens, int order, int *out)
{
    int k = 0, pos[8] = { 0 }, x[8];
    for (int d = 0; d < n; d++)
        if (lens[d] == 0)
            return 0;
    for (;;) {
        for (int d = 0; d < n; d++)
            x[d] = lists[d][pos[d]];
        out[k++] = (int)linear(n, g, x, order);
        int d = order == MPI_ORDER_C ? n - 1 : 0, step = order == MPI_ORDER_C ? -1 : 1;
        for (; d >= 0 && d < n; d += step) {
            if (++pos[d] < lens[d])
                break;
            pos[d] = 0;
        }
        if (d < 0 || d >= n)
            return k;
    }
}

static int ref_subarray(int n, const int *sizes, const int *subs, const int *starts, int order,
                        int *out)
{
    int *lists[8], lens[8];
    for (int d = 0; d < n; d++) {
        lists[d] = malloc((subs[d] + 1) * sizeof(int));
        for (int i = 0; i < subs[d]; i++)
            lists[d][i] = starts[d] + i;
        lens[d] = subs[d];
    }
    int k = product(n, sizes, lists, lens, order, out);
    for (int d = 0; d < n; d++)
        free(lists[d]);
    return k;
}

static int ref_darray(int size, int rank, int n, const int *g, const int *dist, const int *darg,
                      const int *ps, int order, int *out)
{
    int *lists[8], lens[8], coords[8];
    for (int d = 0, procs = size, r = rank; d < n; d++) {
        procs /= ps[d];
        coords[d] = r / procs;
        r %= procs;
    }
    for (int d = 0; d < n; d++) {
        lists[d] = malloc((g[d] + 1) * sizeof(int));
        lens[d] = 0;
        for (int i = 0; i < g[d]; i++) {
            int mine;
            if (dist[d] == MPI_DISTRIBUTE_NONE) {
                mine = 1;
            } else if (dist[d] == MPI_DISTRIBUTE_BLOCK) {
                int blk = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g[d] + ps[d] - 1) / ps[d] : darg[d];
                mine = i / blk == coords[d];
            } else {
                int blk = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg[d];
                mine = (i / blk) % ps[d] == coords[d];
            }
            if (mine)
                lists[d][lens[d]++] = i;
        }
    }
    int k = product(n, g, lists, lens, order, out);
    for (int d = 0; d < n; d++)
        free(lists[d]);
    return k;
}

/* ------------------------------------------------------------ by hand */

static void test_by_hand(void)
{
    MPI_Datatype t;
    /* 4x5 array, rows 1-2, columns 2-4. */
    CHECK_MPI(MPI_Type_create_subarray(2, (int[]){ 4, 5 }, (int[]){ 2, 3 }, (int[]){ 1, 2 },
                                       MPI_ORDER_C, MPI_INT, &t));
    int c[] = { 7, 8, 9, 12, 13, 14 };
    CHECK_MAP(t, 1, c, 6);
    CHECK_BOUNDS(t, 24, 0, 80, 28, 32);
    MPI_Type_free(&t);
    /* The same in Fortran order: dimension 0 (4 long) varies fastest. */
    CHECK_MPI(MPI_Type_create_subarray(2, (int[]){ 4, 5 }, (int[]){ 2, 3 }, (int[]){ 1, 2 },
                                       MPI_ORDER_FORTRAN, MPI_INT, &t));
    int f[] = { 9, 10, 13, 14, 17, 18 };
    CHECK_MAP(t, 1, f, 6);
    CHECK_BOUNDS(t, 24, 0, 80, 36, 40);
    /* Two of them: the second starts one whole array (20 ints) later. */
    int f2[] = { 9, 10, 13, 14, 17, 18, 29, 30, 33, 34, 37, 38 };
    CHECK_MAP(t, 2, f2, 12);
    MPI_Type_free(&t);

    int gs[1] = { 10 }, block[1] = { MPI_DISTRIBUTE_BLOCK }, cyc[1] = { MPI_DISTRIBUTE_CYCLIC },
        dflt[1] = { MPI_DISTRIBUTE_DFLT_DARG }, three[1] = { 3 };
    /* BLOCK of 10 over 3: blocks of 4, the last one short. */
    int b0[] = { 0, 1, 2, 3 }, b2[] = { 8, 9 };
    CHECK_MPI(MPI_Type_create_darray(3, 0, 1, gs, block, dflt, three, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MAP(t, 1, b0, 4);
    CHECK_BOUNDS(t, 16, 0, 40, 0, 16);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_darray(3, 2, 1, gs, block, dflt, three, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MAP(t, 1, b2, 2);
    CHECK_BOUNDS(t, 8, 0, 40, 32, 8);
    MPI_Type_free(&t);
    /* CYCLIC(3) of 10 over 2. */
    int two[1] = { 2 };
    int c0[] = { 0, 1, 2, 6, 7, 8 }, c1[] = { 3, 4, 5, 9 };
    CHECK_MPI(MPI_Type_create_darray(2, 0, 1, gs, cyc, three, two, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MAP(t, 1, c0, 6);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_darray(2, 1, 1, gs, cyc, three, two, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MAP(t, 1, c1, 4);
    CHECK_BOUNDS(t, 16, 0, 40, 12, 28);
    MPI_Type_free(&t);
    /* CYCLIC (of 1) of 10 over 3, rank 1. */
    int cc1[] = { 1, 4, 7 };
    CHECK_MPI(MPI_Type_create_darray(3, 1, 1, gs, cyc, dflt, three, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MAP(t, 1, cc1, 3);
    MPI_Type_free(&t);
    /* 5x7, C order: rows CYCLIC(2) over 2, columns BLOCK over 3 (blocks of
     * 3); rank 4 is grid position (1, 1): rows 2-3, columns 3-5. */
    CHECK_MPI(MPI_Type_create_darray(6, 4, 2, (int[]){ 5, 7 },
                                     (int[]){ MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
                                     (int[]){ 2, MPI_DISTRIBUTE_DFLT_DARG }, (int[]){ 2, 3 },
                                     MPI_ORDER_C, MPI_INT, &t));
    int g4[] = { 17, 18, 19, 24, 25, 26 };
    CHECK_MAP(t, 1, g4, 6);
    CHECK_BOUNDS(t, 24, 0, 140, 68, 40);
    MPI_Type_free(&t);
    /* NONE in one dimension: that dimension is whole everywhere. */
    CHECK_MPI(MPI_Type_create_darray(2, 1, 2, (int[]){ 3, 4 },
                                     (int[]){ MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK },
                                     (int[]){ MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG },
                                     (int[]){ 1, 2 }, MPI_ORDER_C, MPI_INT, &t));
    int n1[] = { 2, 3, 6, 7, 10, 11 };
    CHECK_MAP(t, 1, n1, 6);
    MPI_Type_free(&t);
}

/* ------------------------------------------------------------ enumerated */

static int want[4096];

static void check_subarray(int n, const int *sizes, const int *subs, const int *starts, int order)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_subarray(n, sizes, subs, starts, order, MPI_INT, &t));
    int k = ref_subarray(n, sizes, subs, starts, order, want);
    long total = 1;
    for (int d = 0; d < n; d++)
        total *= sizes[d];
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(lb == 0 && ext == total * 4, "subarray extent %ld, expected %ld", (long)ext, total * 4);
    CHECK_MAP(t, 1, want, k);
    for (int i = 0; i < k; i++)     /* a second element follows one whole array later */
        want[k + i] = want[i] + (int)total;
    CHECK_MAP(t, 2, want, 2 * k);
    MPI_Type_free(&t);
}

static void test_subarrays(void)
{
    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        check_subarray(1, (int[]){ 9 }, (int[]){ 4 }, (int[]){ 3 }, o);
        check_subarray(2, (int[]){ 6, 7 }, (int[]){ 6, 2 }, (int[]){ 0, 5 }, o);
        check_subarray(2, (int[]){ 6, 7 }, (int[]){ 3, 7 }, (int[]){ 2, 0 }, o);
        check_subarray(3, (int[]){ 4, 5, 6 }, (int[]){ 2, 3, 2 }, (int[]){ 1, 1, 3 }, o);
        check_subarray(3, (int[]){ 3, 4, 5 }, (int[]){ 3, 4, 5 }, (int[]){ 0, 0, 0 }, o);
        check_subarray(4, (int[]){ 3, 4, 2, 5 }, (int[]){ 2, 1, 2, 3 }, (int[]){ 1, 2, 0, 2 }, o);
        check_subarray(2, (int[]){ 5, 5 }, (int[]){ 0, 3 }, (int[]){ 0, 0 }, o);
    }
}

static void check_darray(int size, int n, const int *g, const int *dist, const int *darg,
                         const int *ps, int order)
{
    long total = 1;
    for (int d = 0; d < n; d++)
        total *= g[d];
    long seen = 0;
    for (int rank = 0; rank < size; rank++) {
        MPI_Datatype t;
        int rc = MPI_Type_create_darray(size, rank, n, g, dist, darg, ps, order, MPI_INT, &t);
        CHECK(rc == MPI_SUCCESS, "darray rank %d of %d failed", rank, size);
        if (rc != MPI_SUCCESS)
            return;
        int k = ref_darray(size, rank, n, g, dist, darg, ps, order, want);
        CHECK_MAP(t, 1, want, k);
        MPI_Aint lb, ext;
        MPI_Count sz;
        MPI_Type_get_extent(t, &lb, &ext);
        MPI_Type_size_x(t, &sz);
        CHECK(lb == 0 && ext == total * 4 && sz == 4 * k, "darray bounds");
        seen += k;
        MPI_Type_free(&t);
    }
    CHECK(seen == total, "the processes own %ld elements of %ld", seen, total);
}

static void test_darrays(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        check_darray(3, 1, (int[]){ 10 }, (int[]){ B }, (int[]){ D }, (int[]){ 3 }, o);
        check_darray(3, 1, (int[]){ 10 }, (int[]){ B }, (int[]){ 5 }, (int[]){ 3 }, o);
        check_darray(4, 1, (int[]){ 11 }, (int[]){ C }, (int[]){ D }, (int[]){ 4 }, o);
        check_darray(4, 1, (int[]){ 11 }, (int[]){ C }, (int[]){ 3 }, (int[]){ 4 }, o);
        check_darray(6, 2, (int[]){ 10, 7 }, (int[]){ B, C }, (int[]){ D, 2 }, (int[]){ 3, 2 }, o);
        check_darray(6, 2, (int[]){ 11, 13 }, (int[]){ C, B }, (int[]){ 3, 5 }, (int[]){ 2, 3 }, o);
        check_darray(6, 3, (int[]){ 5, 9, 4 }, (int[]){ C, N, B }, (int[]){ 2, D, D },
                     (int[]){ 2, 1, 3 }, o);
        check_darray(4, 3, (int[]){ 7, 3, 6 }, (int[]){ B, C, C }, (int[]){ D, D, 4 },
                     (int[]){ 2, 1, 2 }, o);
        check_darray(2, 2, (int[]){ 3, 4 }, (int[]){ N, B }, (int[]){ D, D }, (int[]){ 1, 2 }, o);
        check_darray(8, 3, (int[]){ 3, 5, 2 }, (int[]){ C, C, B }, (int[]){ 1, 2, D },
                     (int[]){ 2, 2, 2 }, o);    /* some processes own nothing */
    }
}

/* A darray of a derived old type: each element is itself two ints. */
static void test_darray_of_derived(void)
{
    MPI_Datatype pair, t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_create_darray(2, 1, 1, (int[]){ 5 }, (int[]){ MPI_DISTRIBUTE_CYCLIC },
                                     (int[]){ MPI_DISTRIBUTE_DFLT_DARG }, (int[]){ 2 },
                                     MPI_ORDER_C, pair, &t));
    int m[] = { 2, 3, 6, 7 };
    CHECK_MAP(t, 1, m, 4);
    CHECK_BOUNDS(t, 16, 0, 40, 8, 24);
    MPI_Type_free(&t);
    MPI_Type_free(&pair);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_by_hand();
    test_subarrays();
    test_darrays();
    test_darray_of_derived();
    return uzt_finish("dt_arrays");
}
