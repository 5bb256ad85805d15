/*
 * coll_nb.c — several nonblocking collectives outstanding at once, on
 * several communicators and several on one, completed in an order that
 * differs between ranks; progress that comes from MPI_Test alone; a
 * blocking collective on one communicator while nonblocking ones are
 * pending on others; persistent collectives restarted many times; and
 * freeing a request (and the datatype and op it uses) while it runs.
 */
#include "uztest.h"

static int rank, size;

/* Sums elements of a contiguous type of two ints. */
static void sum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int i = 0; i < 2 * *len; i++)
        b[i] += a[i];
}

static void test_outstanding(void)
{
    MPI_Comm c1, c2;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
    enum { N = 5000, K = 8 };
    int *a = malloc(sizeof(int) * N * size), *b = malloc(sizeof(int) * N * size);
    int *c = malloc(sizeof(int) * N), *d = malloc(sizeof(int) * N), *e = malloc(sizeof(int) * N * size);
    int *f = malloc(sizeof(int) * N * size), *g = malloc(sizeof(int) * N);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N * size; i++)
            a[i] = rank * 100000 + i + round;
        for (int i = 0; i < N; i++) {
            c[i] = rank + i + round;
            d[i] = rank == size - 1 ? i * 3 + round : -1;
            g[i] = rank;
        }
        MPI_Request req[K];
        CHECK_MPI(MPI_Iallreduce(c, b, N, MPI_INT, MPI_SUM, c1, &req[0]));
        CHECK_MPI(MPI_Ibcast(d, N, MPI_INT, size - 1, c2, &req[1]));
        CHECK_MPI(MPI_Ialltoall(a, N, MPI_INT, e, N, MPI_INT, MPI_COMM_WORLD, &req[2]));
        CHECK_MPI(MPI_Ibarrier(c1, &req[3]));
        CHECK_MPI(MPI_Iallgather(c, N, MPI_INT, f, N, MPI_INT, c2, &req[4]));
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, g, N, MPI_INT, MPI_MAX, c1, &req[5]));
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[6]));
        CHECK_MPI(MPI_Ibarrier(c2, &req[7]));
        /* A blocking collective while the others are pending. */
        int x = rank, y = -1;
        CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
        CHECK_EQ(y, rank);
        /* Complete in a rank-dependent order, partly by Test alone. */
        for (int k = 0; k < K; k++) {
            int i = (k * (rank + 3) + round) % K;
            while (req[i] == MPI_REQUEST_NULL)
                i = (i + 1) % K;
            if ((k + rank) % 2) {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
            }
        }
        for (int i = 0; i < N; i++) {
            int want = size * (size - 1) / 2 + size * (i + round);
            if (b[i] != want) { CHECK(0, "Iallreduce element %d: %d, expected %d", i, b[i], want); break; }
            if (d[i] != i * 3 + round) { CHECK(0, "Ibcast element %d: %d", i, d[i]); break; }
            if (g[i] != size - 1) { CHECK(0, "Iallreduce MAX element %d: %d", i, g[i]); break; }
        }
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++) {
                int want = r * 100000 + rank * N + i + round;
                if (e[r * N + i] != want) { CHECK(0, "Ialltoall block %d element %d", r, i); r = size; break; }
                if (f[r * N + i] != r + i + round) { CHECK(0, "Iallgather block %d element %d", r, i); r = size; break; }
            }
    }
    free(a); free(b); free(c); free(d); free(e); free(f); free(g);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
}

/* Many Ibarriers in flight at once, and a long Test-only chain. */
static void test_many(void)
{
    enum { M = 64 };
    MPI_Request req[M];
    for (int i = 0; i < M; i++)
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[i]));
    CHECK_MPI(MPI_Waitall(M, req, MPI_STATUSES_IGNORE));
    int v[M];
    for (int i = 0; i < M; i++) {
        v[i] = rank + i;
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &v[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[i]));
    }
    int done = 0;
    while (!done)
        CHECK_MPI(MPI_Testall(M, req, &done, MPI_STATUSES_IGNORE));
    for (int i = 0; i < M; i++)
        CHECK_EQ(v[i], size * (size - 1) / 2 + size * i);
}

/* The user frees the datatype, op and request while the operation runs. */
static void test_free_while_pending(void)
{
    enum { N = 20000 };
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(sum_op, 1, &op);
    int *in = malloc(sizeof(int) * 2 * N), *out = malloc(sizeof(int) * 2 * N);
    for (int i = 0; i < 2 * N; i++)
        in[i] = rank + i;
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(in, out, N, t, op, MPI_COMM_WORLD, &req));
    MPI_Type_free(&t);
    MPI_Op_free(&op);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2 * N; i++)
        if (out[i] != size * (size - 1) / 2 + size * i) {
            CHECK(0, "element %d: %d", i, out[i]);
            break;
        }
    /* A freed request finishes on its own; a barrier after it must still
     * match across ranks. */
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(in);
    free(out);
}

static void test_persistent_many(void)
{
    MPI_Request req[3];
    int x = 0, sum = 0, all[64];
    CHECK_MPI(MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    CHECK_MPI(MPI_Allgather_init(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
    for (int it = 0; it < 200; it++) {
        x = rank * it;
        CHECK_MPI(MPI_Startall(3, req));
        CHECK_MPI(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
        CHECK_EQ(sum, it * size * (size - 1) / 2);
        for (int r = 0; r < size && r < 64; r++)
            CHECK_EQ(all[r], r * it);
    }
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Request_free(&req[i]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_outstanding();
    test_many();
    test_free_while_pending();
    test_persistent_many();
    return uzt_finish("coll_nb");
}
