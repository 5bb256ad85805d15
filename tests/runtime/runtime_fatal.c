/*
 * runtime_fatal.c — a program that ends badly on purpose, as told by its
 * first argument; runtime_fatal.sh checks how the job ends.
 *   fatal-error   rank 1 makes an invalid call under MPI_ERRORS_ARE_FATAL
 *   abort N       rank 1 calls MPI_Abort(MPI_COMM_WORLD, N) while others wait
 *   kill          rank 1 kills itself with SIGKILL while others wait in MPI_Recv
 *   before-init   rank 0 calls MPI_Comm_rank before MPI_Init
 *   no-finalize   every rank returns from main without MPI_Finalize
 *   orphan        every rank forks a child that would sleep for 20 s, then
 *                 finishes normally: the job must end at once and leave
 *                 neither the sleepers nor their zombies behind
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int rank = -1, size, x = 0;
    if (strcmp(what, "before-init") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(what, "no-finalize") == 0)
        return 0;
    if (strcmp(what, "orphan") == 0) {
        if (fork() == 0) {
            sleep(20);
            _exit(0);
        }
        MPI_Finalize();
        return 0;
    }
    /* Everyone but the failing rank (1, or 0 alone) blocks in a receive that
     * never completes: the job must still end, and quickly. */
    if (rank == (size > 1 ? 1 : 0)) {
        usleep(100000);
        if (strcmp(what, "fatal-error") == 0)
            MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        else if (strcmp(what, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
        else if (strcmp(what, "kill") == 0)
            raise(SIGKILL);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
