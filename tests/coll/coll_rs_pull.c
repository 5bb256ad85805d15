/*
 * coll_rs_pull.c — Reduce_scatter and Reduce_scatter_block within one
 * host, where large blocks are read by one copy from the other ranks' send
 * buffers and combined in the receiver (coll_shm.c reduce_scatter_pull)
 * and everything else goes through the shared area: every element of
 * every block is checked bit for bit against the rank-order combination
 * a0 + (a1 + (... + a_{p-1})) of doubles whose sums round differently in
 * another order, and the MPI_T counter coll_bytes_pulled shows which way
 * each call went: exactly (p - 1) × the block's bytes read when pulled
 * (one rank's part with two ranks), none when not.
 *
 *   coll_rs_pull pull     cross-memory attach works: large blocks pulled
 *   coll_rs_pull none     it is off (UZURA_SHM_CMA=off): nothing pulled
 *
 * Cases: equal blocks below the pull size, at it, and over several pieces
 * of the pull (256 KiB); irregular blocks with an empty one; MPI_MAX on
 * ints; MPI_IN_PLACE and a strided datatype (never pulled: the others
 * would read what this rank overwrites, and the pull wants contiguous
 * buffers).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

static int rank, size, expect_pull;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle pulled;

static unsigned long long pulled_now(void)
{
    return uzt_pvar(session, pulled);
}

/* Rank r's element i of call `seq`: fractions whose sums round. */
static double dval(int r, long i, int seq)
{
    return (double)((r * 7919 + i * 31 + seq * 17) % 1000) / 7.0 + (double)r * 1e-9 + 0.1;
}

static int ival(int r, long i, int seq)
{
    return (int)((r * 104729 + i * 13 + seq * 5) % 20011) - 10000;
}

/* The combination in rank order, as every Uzura algorithm on one host does. */
static double dsum(long i, int seq)
{
    double acc = dval(size - 1, i, seq);
    for (int r = size - 2; r >= 0; r--)
        acc = dval(r, i, seq) + acc;
    return acc;
}

static int imax(long i, int seq)
{
    int m = ival(0, i, seq);
    for (int r = 1; r < size; r++)
        m = ival(r, i, seq) > m ? ival(r, i, seq) : m;
    return m;
}

/* One call with rank i's block counts[i] elements; `block` uses
 * Reduce_scatter_block (counts all equal).  `pull` says whether this call
 * should have been pulled when cross-memory attach works. */
static void one(const char *what, const long *counts, int block, int ints, int in_place, int strided, int pull,
                int seq)
{
    long total = 0, before = 0;
    for (int i = 0; i < size; i++) {
        if (i < rank)
            before += counts[i];
        total += counts[i];
    }
    long mine = counts[rank];
    int stride = strided ? 2 : 1;
    size_t esz = ints ? sizeof(int) : sizeof(double);
    /* Strided: every other element of the buffers is used. */
    unsigned char *send = malloc((size_t)(total * stride + 1) * esz);
    unsigned char *recv = malloc((size_t)((in_place ? total : mine) * stride + 1) * esz);
    unsigned char *in = in_place ? recv : send;
    for (long i = 0; i < total * stride; i++) {
        long e = i / stride;
        int used = i % stride == 0;
        if (ints)
            ((int *)in)[i] = used ? ival(rank, e, seq) : -7;
        else
            ((double *)in)[i] = used ? dval(rank, e, seq) : -7.0;
    }
    if (!in_place)
        memset(recv, 0xa5, (size_t)(mine * stride + 1) * esz);
    MPI_Datatype t = ints ? MPI_INT : MPI_DOUBLE, vt = t;
    if (strided) {
        MPI_Datatype v;
        CHECK_MPI(MPI_Type_vector(1, 1, 2, t, &v));
        CHECK_MPI(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * esz), &vt));
        CHECK_MPI(MPI_Type_commit(&vt));
        MPI_Type_free(&v);
    }
    MPI_Op op = ints ? MPI_MAX : MPI_SUM;
    int *icounts = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        icounts[i] = (int)counts[i];
    unsigned long long was = pulled_now();
    const void *sb = in_place ? MPI_IN_PLACE : send;
    if (block)
        CHECK_MPI(MPI_Reduce_scatter_block(sb, recv, icounts[0], vt, op, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Reduce_scatter(sb, recv, icounts, vt, op, MPI_COMM_WORLD));
    unsigned long long got = pulled_now() - was;
    unsigned long long want = 0;
    if (expect_pull && pull && mine > 0)
        want = (unsigned long long)mine * esz * (unsigned long long)(size == 2 ? 1 : size - 1);
    CHECK(got == want, "%s (seq %d): coll_bytes_pulled grew by %llu, expected %llu", what, seq, got, want);
    long bad = 0;
    for (long e = 0; e < mine; e++) {
        long at = e * stride;
        if (ints) {
            int w = imax(before + e, seq), g = ((int *)recv)[at];
            if (g != w && bad++ < 3)
                CHECK(0, "%s (seq %d): element %ld is %d, expected %d", what, seq, e, g, w);
        } else {
            double w = dsum(before + e, seq), g = ((double *)recv)[at];
            if (memcmp(&g, &w, sizeof(g)) && bad++ < 3)
                CHECK(0, "%s (seq %d): element %ld is %.17g, expected %.17g", what, seq, e, g, w);
        }
    }
    CHECK(bad == 0, "%s (seq %d): %ld of %ld elements wrong", what, seq, bad, mine);
    /* The gaps of a strided receive buffer and the byte past the block
     * stay as they were. */
    if (!in_place) {
        unsigned char pad[sizeof(double)];
        memset(pad, 0xa5, sizeof(pad));
        for (long i = 0; i < mine * stride + 1; i++)
            if ((i % stride || i == mine * stride) && memcmp(recv + (size_t)i * esz, pad, esz)) {
                CHECK(0, "%s (seq %d): byte run %ld outside the block was written", what, seq, i);
                break;
            }
    }
    if (strided)
        MPI_Type_free(&vt);
    free(icounts);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    int provided;
    expect_pull = argc > 1 && !strcmp(argv[1], "pull");
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pulled = uzt_pvar_counter("coll_bytes_pulled", &session);

    long *counts = malloc(sizeof(long) * (size_t)size);
    /* Equal blocks in doubles: 8 KiB (area), 24 KiB (one piece), 400 KiB
     * (two pieces: 256 KiB and the rest). */
    static const long equal[] = { 1024, 3000, 51200 };
    int seq = 0;
    for (int k = 0; k < 3; k++) {
        /* Pulled from 16 KiB blocks (UZURA_COLL_PULL_MIN). */
        int pull = equal[k] * 8 >= 16384, ipull = equal[k] * 4 >= 16384;
        for (int i = 0; i < size; i++)
            counts[i] = equal[k];
        for (int block = 0; block < 2; block++) {
            const char *what = block ? "Reduce_scatter_block" : "Reduce_scatter";
            one(what, counts, block, 0, 0, 0, pull, seq++);
            one(what, counts, block, 1, 0, 0, ipull, seq++);
            one(what, counts, block, 0, 1, 0, 0, seq++);
            one(what, counts, block, 0, 0, 1, 0, seq++);
        }
    }
    /* Irregular, the last rank's block empty: rank i gets 5000 + 9000 i
     * doubles, so the mean is at least 16 KiB. */
    for (int i = 0; i < size; i++)
        counts[i] = i == size - 1 ? 0 : 5000 + 9000L * i;
    one("Reduce_scatter, irregular", counts, 0, 0, 0, 0, 1, seq++);
    one("Reduce_scatter, irregular, in place", counts, 0, 0, 1, 0, 0, seq++);
    free(counts);

    uzt_pvar_close(&session, &pulled);
    int rc = uzt_finish("coll_rs_pull");
    MPI_T_finalize();
    return rc;
}
