/*
 * coll_persistent_order.c — persistent collectives are matched in the
 * order of their MPI_*_init calls, not of MPI_Start (MPI 4.1 §6.13), so
 * ranks may start them in any order (issue 22).  Every rank initializes
 * the same operations in the same order (two of them twice, with the same
 * signature, so that a mix-up shows in the data rather than as a
 * truncation), then each round starts them in an order of its own (single
 * starts and MPI_Startall), with a nonblocking collective issued among
 * them at the same point everywhere, completes them in yet another order,
 * and checks every element; a blocking collective separates the rounds.
 * The same on an intercommunicator (both groups, local phases included).
 */
#include "uztest.h"

enum { OPS = 12, ROUNDS = 4, SMALL = 5, LARGE = 20000 };

static int rank, size;

struct bufs {
    int *bc[2];         /* bcast, root 0 (LARGE) and root size-1 (SMALL) */
    int *ar_in[2], *ar_out[2];   /* allreduce, LARGE and SMALL */
    int *ag_in, *ag_out;
    int *a2a_in, *a2a_out;
    int *red_in, *red_out;
    int *ga_in, *ga_out;
    int *sc_in, *sc_out;
    int *scan_in, *scan_out;
    int *rsb_in, *rsb_out;
};

static int *ints(size_t n)
{
    int *p = malloc(sizeof(int) * (n ? n : 1));
    if (!p)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

static int val(int src, int op, int round, int i)
{
    return src * 7919 + op * 104729 + round * 1299709 + i;
}

static void fill(struct bufs *b, int r)
{
    for (int i = 0; i < LARGE; i++) {
        b->bc[0][i] = rank == 0 ? val(0, 0, r, i) : -1;
        b->ar_in[0][i] = val(rank, 2, r, i);
        b->ar_out[0][i] = -1;
    }
    for (int i = 0; i < SMALL; i++) {
        b->bc[1][i] = rank == size - 1 ? val(size - 1, 1, r, i) : -1;
        b->ar_in[1][i] = val(rank, 3, r, i);
        b->ar_out[1][i] = -1;
        b->red_in[i] = val(rank, 6, r, i);
        b->red_out[i] = -1;
        b->ga_in[i] = val(rank, 7, r, i);
        b->scan_in[i] = val(rank, 9, r, i);
        b->scan_out[i] = -1;
        b->sc_out[i] = -1;
    }
    for (int i = 0; i < SMALL * size; i++) {
        b->ag_out[i] = -1;
        b->a2a_in[i] = val(rank, 5, r, i);
        b->a2a_out[i] = -1;
        b->ga_out[i] = -1;
        b->sc_in[i] = rank == 0 ? val(0, 8, r, i) : -1;
        b->rsb_in[i] = val(rank, 10, r, i);
    }
    for (int i = 0; i < SMALL; i++)
        b->ag_in[i] = val(rank, 4, r, i);
    for (int i = 0; i < SMALL; i++)
        b->rsb_out[i] = -1;
}

static long sum_over(int upto, int op, int r, int i)
{
    long s = 0;
    for (int q = 0; q < upto; q++)
        s += val(q, op, r, i);
    return s;
}

static void verify(const struct bufs *b, int r)
{
    for (int i = 0; i < LARGE; i++) {
        if (b->bc[0][i] != val(0, 0, r, i)) {
            CHECK(0, "round %d: bcast (root 0) element %d is %d", r, i, b->bc[0][i]);
            break;
        }
        if (b->ar_out[0][i] != (int)sum_over(size, 2, r, i)) {
            CHECK(0, "round %d: allreduce (large) element %d is %d", r, i, b->ar_out[0][i]);
            break;
        }
    }
    for (int i = 0; i < SMALL; i++) {
        CHECK(b->bc[1][i] == val(size - 1, 1, r, i), "round %d: bcast (root %d) element %d is %d", r,
              size - 1, i, b->bc[1][i]);
        CHECK(b->ar_out[1][i] == (int)sum_over(size, 3, r, i), "round %d: allreduce (small) %d is %d",
              r, i, b->ar_out[1][i]);
        if (rank == size - 1)
            CHECK(b->red_out[i] == (int)sum_over(size, 6, r, i), "round %d: reduce %d is %d", r, i,
                  b->red_out[i]);
        else
            CHECK(b->red_out[i] == -1, "round %d: reduce touched a non-root's buffer", r);
        CHECK(b->scan_out[i] == (int)sum_over(rank + 1, 9, r, i), "round %d: scan %d is %d", r, i,
              b->scan_out[i]);
        CHECK(b->sc_out[i] == val(0, 8, r, rank * SMALL + i), "round %d: scatter %d is %d", r, i,
              b->sc_out[i]);
        long rs = 0;
        for (int q = 0; q < size; q++)
            rs += val(q, 10, r, rank * SMALL + i);
        CHECK(b->rsb_out[i] == (int)rs, "round %d: reduce_scatter_block %d is %d", r, i, b->rsb_out[i]);
    }
    for (int q = 0; q < size; q++)
        for (int i = 0; i < SMALL; i++) {
            CHECK(b->ag_out[q * SMALL + i] == val(q, 4, r, i), "round %d: allgather [%d][%d] is %d", r,
                  q, i, b->ag_out[q * SMALL + i]);
            CHECK(b->a2a_out[q * SMALL + i] == val(q, 5, r, rank * SMALL + i),
                  "round %d: alltoall [%d][%d] is %d", r, q, i, b->a2a_out[q * SMALL + i]);
            int root = 1 % size;
            int want = rank == root ? val(q, 7, r, i) : -1;
            CHECK(b->ga_out[q * SMALL + i] == want, "round %d: gather [%d][%d] is %d", r, q, i,
                  b->ga_out[q * SMALL + i]);
        }
}

static void init_all(struct bufs *b, MPI_Comm c, MPI_Request *req)
{
    MPI_Info ni = MPI_INFO_NULL;
    int k = 0;
    CHECK_MPI(MPI_Bcast_init(b->bc[0], LARGE, MPI_INT, 0, c, ni, &req[k++]));
    CHECK_MPI(MPI_Bcast_init(b->bc[1], SMALL, MPI_INT, size - 1, c, ni, &req[k++]));
    CHECK_MPI(MPI_Allreduce_init(b->ar_in[0], b->ar_out[0], LARGE, MPI_INT, MPI_SUM, c, ni, &req[k++]));
    CHECK_MPI(MPI_Allreduce_init(b->ar_in[1], b->ar_out[1], SMALL, MPI_INT, MPI_SUM, c, ni, &req[k++]));
    CHECK_MPI(MPI_Allgather_init(b->ag_in, SMALL, MPI_INT, b->ag_out, SMALL, MPI_INT, c, ni, &req[k++]));
    CHECK_MPI(MPI_Alltoall_init(b->a2a_in, SMALL, MPI_INT, b->a2a_out, SMALL, MPI_INT, c, ni, &req[k++]));
    CHECK_MPI(MPI_Reduce_init(b->red_in, rank == size - 1 ? b->red_out : NULL, SMALL, MPI_INT, MPI_SUM,
                              size - 1, c, ni, &req[k++]));
    CHECK_MPI(MPI_Gather_init(b->ga_in, SMALL, MPI_INT, b->ga_out, SMALL, MPI_INT, 1 % size, c, ni,
                              &req[k++]));
    CHECK_MPI(MPI_Scatter_init(b->sc_in, SMALL, MPI_INT, b->sc_out, SMALL, MPI_INT, 0, c, ni, &req[k++]));
    CHECK_MPI(MPI_Scan_init(b->scan_in, b->scan_out, SMALL, MPI_INT, MPI_SUM, c, ni, &req[k++]));
    CHECK_MPI(MPI_Reduce_scatter_block_init(b->rsb_in, b->rsb_out, SMALL, MPI_INT, MPI_SUM, c, ni,
                                            &req[k++]));
    CHECK_MPI(MPI_Barrier_init(c, ni, &req[k++]));
    CHECK_EQ(k, OPS);
}

/* A permutation of 0..OPS-1 that differs between ranks and rounds. */
static void order_of(int salt, int *order)
{
    for (int i = 0; i < OPS; i++)
        order[i] = i;
    unsigned x = 2654435761u * (unsigned)(salt + 1);
    for (int i = OPS - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        int j = (int)((x >> 8) % (unsigned)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void test_intra(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    struct bufs b;
    b.bc[0] = ints(LARGE);
    b.bc[1] = ints(SMALL);
    b.ar_in[0] = ints(LARGE);
    b.ar_out[0] = ints(LARGE);
    b.ar_in[1] = ints(SMALL);
    b.ar_out[1] = ints(SMALL);
    b.ag_in = ints(SMALL);
    b.ag_out = ints((size_t)SMALL * size);
    b.a2a_in = ints((size_t)SMALL * size);
    b.a2a_out = ints((size_t)SMALL * size);
    b.red_in = ints(SMALL);
    b.red_out = ints(SMALL);
    b.ga_in = ints(SMALL);
    b.ga_out = ints((size_t)SMALL * size);
    b.sc_in = ints((size_t)SMALL * size);
    b.sc_out = ints(SMALL);
    b.scan_in = ints(SMALL);
    b.scan_out = ints(SMALL);
    b.rsb_in = ints((size_t)SMALL * size);
    b.rsb_out = ints(SMALL);

    MPI_Request req[OPS];
    init_all(&b, c, req);
    for (int r = 0; r < ROUNDS; r++) {
        fill(&b, r);
        int order[OPS], done[OPS];
        order_of(rank * ROUNDS + r, order);
        order_of(rank * ROUNDS + r + 1000, done);
        /* A nonblocking collective issued at the same point on every rank
         * (after the same number of starts) keeps its issue order. */
        int nb_in = rank + r, nb_out = -1;
        MPI_Request nb;
        int half = OPS / 2;
        if (r % 2) {
            MPI_Request some[OPS];
            for (int i = 0; i < half; i++)
                some[i] = req[order[i]];
            CHECK_MPI(MPI_Startall(half, some));
        } else {
            for (int i = 0; i < half; i++)
                CHECK_MPI(MPI_Start(&req[order[i]]));
        }
        CHECK_MPI(MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_INT, MPI_SUM, c, &nb));
        for (int i = half; i < OPS; i++)
            CHECK_MPI(MPI_Start(&req[order[i]]));
        for (int i = 0; i < OPS; i++) {
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&req[done[i]], &st));
            CHECK(req[done[i]] != MPI_REQUEST_NULL, "persistent request %d freed by MPI_Wait", done[i]);
        }
        CHECK_MPI(MPI_Wait(&nb, MPI_STATUS_IGNORE));
        CHECK_EQ(nb_out, size * (size - 1) / 2 + size * r);
        verify(&b, r);
        int one = 1, all = 0;
        CHECK_MPI(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, c));
        CHECK_EQ(all, size);
    }
    for (int i = 0; i < OPS; i++)
        CHECK_MPI(MPI_Request_free(&req[i]));
    free(b.bc[0]);
    free(b.bc[1]);
    free(b.ar_in[0]);
    free(b.ar_out[0]);
    free(b.ar_in[1]);
    free(b.ar_out[1]);
    free(b.ag_in);
    free(b.ag_out);
    free(b.a2a_in);
    free(b.a2a_out);
    free(b.red_in);
    free(b.red_out);
    free(b.ga_in);
    free(b.ga_out);
    free(b.sc_in);
    free(b.sc_out);
    free(b.scan_in);
    free(b.scan_out);
    free(b.rsb_in);
    free(b.rsb_out);
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Two allreduces and two broadcasts (one from each group) on an
 * intercommunicator between the even and odd ranks, started in opposite
 * orders by the two groups and within each group by rank. */
static void test_inter(void)
{
    if (size < 2)
        return;
    enum { N = 3000 };
    MPI_Comm local, inter;
    int even = rank % 2 == 0;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, even, rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &inter));
    int lrank;
    MPI_Comm_rank(local, &lrank);
    int *in[2], *out[2], *bc[2];
    for (int k = 0; k < 2; k++) {
        in[k] = ints(N);
        out[k] = ints(N);
        bc[k] = ints(N);
    }
    MPI_Request req[4];
    MPI_Info ni = MPI_INFO_NULL;
    CHECK_MPI(MPI_Allreduce_init(in[0], out[0], N, MPI_INT, MPI_SUM, inter, ni, &req[0]));
    CHECK_MPI(MPI_Allreduce_init(in[1], out[1], N, MPI_INT, MPI_SUM, inter, ni, &req[1]));
    /* Broadcast k goes from group k's rank 0 (group 0: the even ranks). */
    for (int k = 0; k < 2; k++) {
        int mine = even == (k == 0);
        int root = mine ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        CHECK_MPI(MPI_Bcast_init(bc[k], N, MPI_INT, root, inter, ni, &req[2 + k]));
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < N; i++) {
                in[k][i] = val(rank, 20 + k, r, i);
                out[k][i] = -1;
                bc[k][i] = even == (k == 0) && lrank == 0 ? val(k, 30, r, i) : -1;
            }
        int order[4] = { 0, 1, 2, 3 };
        if (even != (lrank % 2 == 0)) {
            order[0] = 3, order[1] = 2, order[2] = 1, order[3] = 0;
        }
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Start(&req[order[i]]));
        CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        /* An intercommunicator allreduce gives each group the remote group's sum. */
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < N; i++) {
                long want = 0;
                for (int q = even ? 1 : 0; q < size; q += 2)
                    want += val(q, 20 + k, r, i);
                if (out[k][i] != (int)want) {
                    CHECK(0, "round %d: inter allreduce %d element %d is %d, expected %ld", r, k, i,
                          out[k][i], want);
                    break;
                }
            }
            int receiver = even != (k == 0);
            for (int i = 0; receiver && i < N; i++) {
                if (bc[k][i] != val(k, 30, r, i)) {
                    CHECK(0, "round %d: inter bcast %d element %d is %d", r, k, i, bc[k][i]);
                    break;
                }
            }
        }
    }
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Request_free(&req[i]));
    for (int k = 0; k < 2; k++) {
        free(in[k]);
        free(out[k]);
        free(bc[k]);
    }
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_intra();
    test_inter();
    return uzt_finish("coll_persistent_order");
}
