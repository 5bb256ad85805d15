/*
 * peer_mpi_program.c — an MPI program built at test time with another
 * implementation's mpicc (MPICH from tools/peers/install.sh), to check that
 * Uzura's mpiexec serves other implementations' PMI clients too.
 *
 * Every rank takes part in an allreduce of the ranks; rank 0 prints the sum.
 * With "abort R", rank R calls MPI_Abort(MPI_COMM_WORLD, 7) first (for trying
 * by hand: an aborted MPICH job leaves /dev/shm/mpich_shm_* behind).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "abort") == 0 && rank == atoi(argv[2]))
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("peer_mpi_program: %d ranks, sum of ranks %d\n", size, sum);
    MPI_Finalize();
    return 0;
}
