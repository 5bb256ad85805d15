/*
 * rma_shared.c — MPI_Win_allocate_shared on the communicator from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), used with plain loads and
 * stores.
 *
 *  - Contiguous by default (MPI-4.1 §12.2.3): the segments of ranks with a
 *    non-zero size follow one another in rank order, each starting where
 *    the previous non-zero one ends, ranks of size 0 in between
 *    (every third rank, rank 0 included when there are several, asks for
 *    size 0); MPI_Win_shared_query gives each rank's size and
 *    disp_unit (they differ between ranks) and the querying rank's own
 *    base is the pointer MPI_Win_allocate_shared returned.  Where a
 *    size-0 rank's base points is not specified and not checked.
 *  - MPI_Win_shared_query with MPI_PROC_NULL: the segment of the lowest
 *    rank with a non-zero size; with every size 0, size 0 (and size 0 for
 *    every rank).
 *  - Loads and stores: in a lock_all epoch, phase p, every rank stores its
 *    block into the segment of rank (rank+p)%n, then MPI_Win_sync, a
 *    barrier and MPI_Win_sync, and every rank reads every element of every
 *    segment through its own queried pointers.
 *  - The info key alloc_shared_noncontig=true: the queries still give
 *    usable pointers, the asked sizes and disp_units, segments that do not
 *    overlap; contiguity is not required.
 *  - MPI_Win_shared_query_c (MPI 4) gives the same as MPI_Win_shared_query.
 */
#include "uztest.h"

#define K 4 /* ints each rank stores into a segment */

static int me, n;
static MPI_Comm shm;

static MPI_Aint seg_size(int r, int noncontig)
{
    if (n > 1 && r % 3 == 0)
        return 0;
    return (MPI_Aint)(n * K + (noncontig ? r : 0)) * sizeof(int);
}

static int seg_disp_unit(int r)
{
    return r % 2 ? 4 : 8;
}

static int sval(int phase, int writer, int owner, int k)
{
    return phase * 1000000 + writer * 10000 + owner * 100 + k + 1;
}

struct seg {
    MPI_Aint size;
    int du;
    int *base;
};

static void query_all(MPI_Win win, struct seg *s, int noncontig)
{
    for (int r = 0; r < n; r++) {
        CHECK_MPI(MPI_Win_shared_query(win, r, &s[r].size, &s[r].du, &s[r].base));
        CHECK(s[r].size == seg_size(r, noncontig), "shared_query(%d): size %ld, expected %ld", r, (long)s[r].size,
              (long)seg_size(r, noncontig));
        CHECK(s[r].du == seg_disp_unit(r), "shared_query(%d): disp_unit %d, expected %d", r, s[r].du,
              seg_disp_unit(r));
        if (s[r].size > 0)
            CHECK(s[r].base != NULL, "shared_query(%d): NULL base for %ld bytes", r, (long)s[r].size);
    }
    /* MPI_PROC_NULL: the lowest rank with a non-zero size. */
    int first = -1;
    for (int r = 0; r < n && first < 0; r++)
        if (seg_size(r, noncontig) > 0)
            first = r;
    MPI_Aint sz;
    int du;
    int *base;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &base));
    CHECK(first >= 0, "no rank with a non-zero size");
    if (first >= 0) {
        CHECK(sz == s[first].size && du == s[first].du && base == s[first].base,
              "shared_query(MPI_PROC_NULL): size %ld disp_unit %d base %p, expected rank %d's %ld %d %p", (long)sz,
              du, (void *)base, first, (long)s[first].size, s[first].du, (void *)s[first].base);
    }
#if MPI_VERSION >= 4
    for (int r = 0; r < n; r++) {
        MPI_Aint sz_c, du_c;
        int *base_c;
        CHECK_MPI(MPI_Win_shared_query_c(win, r, &sz_c, &du_c, &base_c));
        CHECK(sz_c == s[r].size && du_c == s[r].du && base_c == s[r].base,
              "shared_query_c(%d) differs from shared_query", r);
    }
#endif
    /* Segments never overlap. */
    for (int r = 0; r < n; r++)
        for (int q = r + 1; q < n; q++)
            if (s[r].size > 0 && s[q].size > 0) {
                char *a = (char *)s[r].base, *b = (char *)s[q].base;
                CHECK(a + s[r].size <= b || b + s[q].size <= a, "segments of %d and %d overlap", r, q);
            }
}

/* Every rank stores into every non-empty segment, one segment per phase,
 * and reads all of them after each phase. */
static void loads_and_stores(MPI_Win win, struct seg *s)
{
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    if (s[me].size > 0)
        for (int i = 0; i < n * K; i++)
            s[me].base[i] = -1 - i;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(shm));
    CHECK_MPI(MPI_Win_sync(win));
    for (int p = 0; p < n; p++) {
        int t = (me + p) % n;
        if (s[t].size > 0)
            for (int k = 0; k < K; k++)
                s[t].base[me * K + k] = sval(p, me, t, k);
        CHECK_MPI(MPI_Win_sync(win));
        CHECK_MPI(MPI_Barrier(shm));
        CHECK_MPI(MPI_Win_sync(win));
        int bad = 0;
        for (int o = 0; o < n; o++) {
            if (s[o].size == 0)
                continue;
            for (int w = 0; w < n; w++) {
                /* w wrote into o in phase (o - w) mod n, if that is done. */
                int pw = ((o - w) % n + n) % n;
                for (int k = 0; k < K; k++) {
                    int exp = pw <= p ? sval(pw, w, o, k) : -1 - (w * K + k);
                    int got = s[o].base[w * K + k];
                    if (got != exp && bad++ < 5)
                        CHECK(0, "phase %d: segment %d element %d (rank %d's block) is %d, expected %d", p, o,
                              w * K + k, w, got, exp);
                }
            }
        }
        /* Everyone has read before the next phase stores. */
        CHECK_MPI(MPI_Barrier(shm));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
}

static void contiguous(void)
{
    int *mine = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(seg_size(me, 0), seg_disp_unit(me), MPI_INFO_NULL, shm, &mine, &win));
    struct seg *s = calloc(n, sizeof(*s));
    query_all(win, s, 0);
    if (s[me].size > 0)
        CHECK(s[me].base == mine, "own queried base %p, MPI_Win_allocate_shared gave %p", (void *)s[me].base,
              (void *)mine);
    /* Rank r's segment directly follows the previous non-empty one. */
    int prev = -1;
    for (int r = 0; r < n; r++) {
        if (s[r].size == 0)
            continue;
        if (prev >= 0)
            CHECK((char *)s[r].base == (char *)s[prev].base + s[prev].size,
                  "segment of %d at %p does not follow %d's (%p + %ld)", r, (void *)s[r].base, prev,
                  (void *)s[prev].base, (long)s[prev].size);
        prev = r;
    }
    loads_and_stores(win, s);
    CHECK_MPI(MPI_Win_free(&win));
    free(s);
}

static void noncontiguous(void)
{
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    int *mine = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(seg_size(me, 1), seg_disp_unit(me), info, shm, &mine, &win));
    CHECK_MPI(MPI_Info_free(&info));
    struct seg *s = calloc(n, sizeof(*s));
    query_all(win, s, 1);
    if (s[me].size > 0)
        CHECK(s[me].base == mine, "noncontig: own queried base %p, MPI_Win_allocate_shared gave %p",
              (void *)s[me].base, (void *)mine);
    loads_and_stores(win, s);
    CHECK_MPI(MPI_Win_free(&win));
    free(s);
}

/* Every rank asks for 0 bytes: MPI_PROC_NULL gives size 0. */
static void all_empty(void)
{
    int *mine = NULL, *base = NULL;
    MPI_Win win;
    MPI_Aint sz = -1;
    int du = -1;
    CHECK_MPI(MPI_Win_allocate_shared(0, 4, MPI_INFO_NULL, shm, &mine, &win));
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &base));
    CHECK(sz == 0, "every size 0: shared_query(MPI_PROC_NULL) size %ld", (long)sz);
    /* The disp_unit is checked for this rank only: MPICH 5.0.2 answers 0
     * (not a valid disp_unit) for the other ranks of an all-empty window,
     * and the window has nothing to address with it anyway. */
    for (int r = 0; r < n; r++) {
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &base));
        CHECK(sz == 0, "every size 0: shared_query(%d) size %ld", r, (long)sz);
        if (r == me)
            CHECK(du == 4, "every size 0: shared_query(own rank %d) disp_unit %d", r, du);
    }
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    MPI_Comm_rank(shm, &me);
    MPI_Comm_size(shm, &n);

    contiguous();
    noncontiguous();
    all_empty();

    CHECK_MPI(MPI_Comm_free(&shm));
    return uzt_finish("rma_shared");
}
