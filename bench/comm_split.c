/*
 * comm_split.c — the cost of making communicators, which every
 * application pays at start-up: MPI_Comm_split and MPI_Comm_dup, with and
 * without freeing the result.  Plain MPI, so the same source builds with
 * any implementation's mpicc (bench/compare.py runs it side by side).
 *
 *   comm_split [time] [iterations]
 *
 * Prints "name microseconds" lines: the time of one operation, as seen by
 * the slowest rank, best of several repetitions:
 *
 *   split_free      MPI_Comm_split (colour rank % 2, key rank) + MPI_Comm_free
 *   split_reverse   MPI_Comm_split (one colour, key -rank) + MPI_Comm_free
 *   split_undef     MPI_Comm_split, half the ranks MPI_UNDEFINED, + free
 *   split_only      MPI_Comm_split alone (the results freed after timing)
 *   dup_free        MPI_Comm_dup + MPI_Comm_free
 *   dup_only        MPI_Comm_dup alone
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5, MAX_LIVE = 256 };

static int rank, size, iters = 200;

static double slowest(double t)
{
    double max = 0;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

enum kind { SPLIT_FREE, SPLIT_REVERSE, SPLIT_UNDEF, SPLIT_ONLY, DUP_FREE, DUP_ONLY };

static void one(enum kind k, MPI_Comm *out)
{
    switch (k) {
    case SPLIT_FREE:
    case SPLIT_ONLY:
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, out);
        break;
    case SPLIT_REVERSE:
        MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, out);
        break;
    case SPLIT_UNDEF:
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, out);
        break;
    case DUP_FREE:
    case DUP_ONLY:
        MPI_Comm_dup(MPI_COMM_WORLD, out);
        break;
    }
}

/* Microseconds per operation, best of REPS. */
static double measure(enum kind k)
{
    int keep = k == SPLIT_ONLY || k == DUP_ONLY;
    int n = keep && iters > MAX_LIVE ? MAX_LIVE : iters;
    MPI_Comm *live = calloc((size_t)n, sizeof(MPI_Comm));
    double best = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            MPI_Comm c;
            one(k, &c);
            if (keep)
                live[i] = c;
            else if (c != MPI_COMM_NULL)
                MPI_Comm_free(&c);
        }
        double t = slowest(MPI_Wtime() - t0) / n * 1e6;
        if (t < best)
            best = t;
        for (int i = 0; keep && i < n; i++)
            if (live[i] != MPI_COMM_NULL)
                MPI_Comm_free(&live[i]);
    }
    free(live);
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        if (atoi(argv[i]) > 0)
            iters = atoi(argv[i]);
    static const char *names[] = { "split_free", "split_reverse", "split_undef", "split_only",
                                   "dup_free", "dup_only" };
    if (rank == 0)
        printf("# %d ranks, %d iterations, microseconds per operation (slowest rank, best of %d)\n",
               size, iters, REPS);
    for (int k = 0; k < 6; k++) {
        measure((enum kind)k);          /* warm-up */
        double us = measure((enum kind)k);
        if (rank == 0)
            printf("%-14s %10.2f\n", names[k], us);
    }
    MPI_Finalize();
    return 0;
}
