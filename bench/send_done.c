/*
 * send_done.c — how long a blocking MPI_Send takes when the receiver, once
 * its receive is done, goes off computing without calling MPI (a master
 * handing out work, a pipeline stage).  With a transport that needs the
 * receiver's answer to complete a send, this is where it shows.
 *
 *   send_done [bytes ...]         (default 65536 262144 1048576 4194304)
 *
 * Rank 1 receives, then busy-computes 5 ms; rank 0 times MPI_Send.  Prints
 * "bytes best_us mean_us" over 20 rounds for each size.  Plain MPI: builds
 * with any implementation's mpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 20 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long defaults[] = { 65536, 262144, 1048576, 4194304 };
    int nsizes = argc > 1 ? argc - 1 : 4;
    long most = 0;
    for (int k = 0; k < nsizes; k++) {
        long n = argc > 1 ? atol(argv[k + 1]) : defaults[k];
        most = n > most ? n : most;
    }
    char *buf = calloc((size_t)most, 1);
    if (rank == 0)
        printf("# send_done: bytes, best and mean MPI_Send time (us) while the receiver computes 5 ms\n");
    for (int k = 0; k < nsizes; k++) {
        long n = argc > 1 ? atol(argv[k + 1]) : defaults[k];
        double best = 1e30, sum = 0;
        for (int r = 0; r < ROUNDS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                double t = MPI_Wtime() - t0;
                sum += t;
                best = t < best ? t : best;
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t0 = MPI_Wtime();
                while (MPI_Wtime() - t0 < 0.005)
                    ;
            }
        }
        if (rank == 0)
            printf("%ld %.1f %.1f\n", n, best * 1e6, sum / ROUNDS * 1e6);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
