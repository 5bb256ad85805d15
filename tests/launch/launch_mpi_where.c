/*
 * launch_mpi_where.c — an MPI program for the multi-host launch tests.
 *
 *   launch_mpi_where             every rank prints where it runs:
 *                                  "rank R of N: node X, local rank L of S"
 *                                then a token goes round a ring of all ranks
 *                                (so messages cross hosts) and an allreduce
 *                                sums the ranks; rank 0 prints "ring ok, sum S"
 *   launch_mpi_where abort R C   rank R calls MPI_Abort(MPI_COMM_WORLD, C); the
 *                                others wait in MPI_Barrier until they are killed
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_or(const char *name, const char *fallback)
{
    const char *value = getenv(name);
    return value ? value : fallback;
}

static int ring(int rank, int size)
{
    int token = rank == 0 ? 1 : 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (size == 1)
        return 1;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return token == size;
    }
    MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token++;
    MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 3 && strcmp(argv[1], "abort") == 0) {
        if (rank == atoi(argv[2]))
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[3]));
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "launch_mpi_where %d: barrier completed unexpectedly\n", rank);
        return 98;
    }
    printf("rank %d of %d: node %s, local rank %s of %s\n", rank, size,
           env_or("UZURA_NODE_ID", "?"), env_or("UZURA_LOCAL_RANK", "?"),
           env_or("UZURA_LOCAL_SIZE", "?"));
    fflush(stdout);
    int ok = ring(rank, size), sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring %s, sum %d\n", ok ? "ok" : "BROKEN", sum);
    MPI_Finalize();
    return ok ? 0 : 1;
}
