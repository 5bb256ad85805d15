/*
 * coll_wake.c — every wait in the shared collective area is ended by a
 * doorbell, not by the sleep's safety net.  CMake runs it with
 * UZURA_COLL_SLEEP_MAX_US=0 (sleep until rung), so a waker that forgets to
 * ring hangs the test instead of costing 2 ms.
 *
 * The patterns are those where some ranks run far ahead of others:
 * loops of tiny Gatherv/Scatterv calls (whose blocks go as eager messages
 * while the ranks skip the area's operations, so senders run a whole phase
 * ring ahead), followed by operations through the area (barrier, bcast,
 * allreduce, scan); and the same with one rank made late on purpose.
 * Every received element is checked.
 */
#include <time.h>

#include "uztest.h"

static int rank, size;

/* Make this rank late: sleep, so that the others reach the next
 * operation long before it and go to sleep themselves. */
static void be_late(int who)
{
    if (rank == who) {
        struct timespec ts = { 0, 3 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

static void tiny_gathervs(int calls, int root, int seq)
{
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *all = malloc(size * 2 * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + (i & 1);
        displs[i] = 2 * i;
    }
    for (int c = 0; c < calls; c++) {
        int mine[2] = { rank * 1000 + seq + c, -(rank * 1000 + seq + c) };
        for (int i = 0; i < 2 * size; i++)
            all[i] = -7;
        CHECK_MPI(MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < size; i++) {
                CHECK_EQ(all[2 * i], i * 1000 + seq + c);
                CHECK_EQ(all[2 * i + 1], counts[i] == 2 ? -(i * 1000 + seq + c) : -7);
            }
    }
    free(counts);
    free(displs);
    free(all);
}

static void tiny_scattervs(int calls, int root, int seq)
{
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *all = malloc(size * 2 * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 2 - (i & 1);
        displs[i] = 2 * i;
    }
    for (int c = 0; c < calls; c++) {
        for (int i = 0; i < 2 * size; i++)
            all[i] = i * 7 + seq + c;
        int mine[2] = { -1, -1 };
        CHECK_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT, root, MPI_COMM_WORLD));
        CHECK_EQ(mine[0], 2 * rank * 7 + seq + c);
        CHECK_EQ(mine[1], counts[rank] == 2 ? (2 * rank + 1) * 7 + seq + c : -1);
    }
    free(counts);
    free(displs);
    free(all);
}

/* Operations through the area after the run-ahead, each checked. */
static void area_ops(int seq)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    enum { N = 512 };
    int buf[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank == 0 ? seq * 31 + i : -1;
    CHECK_MPI(MPI_Bcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK_EQ(buf[i], seq * 31 + i);
    int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = rank + i + seq;
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK_EQ(out[i], size * (size - 1) / 2 + size * (i + seq));
    CHECK_MPI(MPI_Scan(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK_EQ(out[i], rank * (rank + 1) / 2 + (rank + 1) * (i + seq));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int seq = 0;
    for (int round = 0; round < 20; round++) {
        int root = round % size;
        /* More calls than the area has phases (16 on the small lane). */
        tiny_gathervs(40 + round, root, seq);
        seq += 100;
        area_ops(seq++);
        tiny_scattervs(40 + round, root, seq);
        seq += 100;
        area_ops(seq++);
        /* The root late: the others wait for it in op_begin(). */
        tiny_gathervs(40, root, seq);
        be_late(root);
        seq += 100;
        area_ops(seq++);
        /* Another rank late while the root races on. */
        tiny_scattervs(40, root, seq);
        be_late((root + 1) % size);
        seq += 100;
        area_ops(seq++);
    }
    return uzt_finish("coll_wake");
}
