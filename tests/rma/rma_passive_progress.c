/*
 * rma_passive_progress.c — a passive-target epoch completes while the
 * target computes without calling MPI.  Rank 0 locks every other rank in
 * turn, puts and unlocks while those ranks spin for a few seconds outside
 * MPI; each target then checks the data and that rank 0's unlock returned
 * before its computation ended (the clocks of one machine: network
 * namespaces share it).  On one host the origin does the work itself;
 * across hosts the target's progress thread (UZURA_ASYNC_PROGRESS=1) must.
 */
#include <time.h>

#include "uztest.h"

enum { N = 1024 };
static const double COMPUTE_S = 3.0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < N; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    double unlocked[64] = { 0 };
    if (rank == 0) {
        long src[N];
        for (int t = 1; t < size && t < 64; t++) {
            for (int i = 0; i < N; i++)
                src[i] = t * 100000L + i;
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            CHECK_MPI(MPI_Put(src, N, MPI_LONG, t, 0, N, MPI_LONG, win));
            CHECK_MPI(MPI_Win_unlock(t, win));
            unlocked[t] = now();
        }
    } else {
        /* Compute without calling MPI. */
        double end = now() + COMPUTE_S;
        volatile unsigned long x = 0;
        while (now() < end)
            x++;
    }
    double computed = now();
    MPI_Bcast(unlocked, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank > 0 && rank < 64) {
        CHECK(unlocked[rank] > 0 && unlocked[rank] < computed,
              "rank 0's unlock to rank %d returned %.3f s after the target's computation ended", rank,
              unlocked[rank] - computed);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        for (int i = 0; i < N; i++)
            CHECK(mem[i] == rank * 100000L + i, "mem[%d] = %ld", i, mem[i]);
        MPI_Win_unlock(rank, win);
    }
    MPI_Win_free(&win);
    return uzt_finish("rma_passive_progress");
}
