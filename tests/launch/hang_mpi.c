/*
 * hang_mpi.c — MPI programs that hang on purpose (or are only slow), for
 * mpiexec's hang diagnosis (hang_test.sh checks what it prints).
 *
 *   hang_mpi cycle   rank r receives from rank r+1 (mod size), tag 7:
 *                    every rank waits, the waits form one cycle
 *   hang_mpi ssend   rank r sends to rank r+1 with MPI_Ssend, tag 5: each
 *                    send waits for a receive that is never posted
 *   hang_mpi coll    two MPI_Allreduce calls, then the last rank receives
 *                    from rank 0 while the others enter a third
 *   hang_mpi slow S  rank 0 receives from rank 1, which sends after S
 *                    seconds: slow, not stuck; prints "done" at the end
 *   hang_mpi abort   rank 0 calls MPI_Abort while the others wait
 * Rank 0 first prints "job <UZURA_JOB_ID>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 1, sum;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (rank == 0) {
        /* The test looks for what the job left in /dev/shm by its id. */
        const char *job = getenv("UZURA_JOB_ID");
        printf("job %s\n", job ? job : "-");
        fflush(stdout);
    }
    if (strcmp(mode, "cycle") == 0) {
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "ssend") == 0) {
        MPI_Ssend(&x, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD);
    } else if (strcmp(mode, "coll") == 0) {
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == size - 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(mode, "slow") == 0 && size >= 2) {
        if (rank == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (x != 42) {
                fprintf(stderr, "rank 0 received %d, expected 42\n", x);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else if (rank == 1) {
            sleep((unsigned)atoi(argc > 2 ? argv[2] : "2"));
            x = 42;
            MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("done\n");
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        fprintf(stderr, "usage: hang_mpi cycle | ssend | coll | slow SECONDS | abort\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
