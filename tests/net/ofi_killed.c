/*
 * ofi_killed.c — a peer killed with SIGKILL in the middle of an exchange
 * over the ofi transport.
 *
 *   ofi_killed die       rank 1 kills itself after some eager and
 *                        rendezvous messages while rank 0 (and, at 2x2, its
 *                        host mate) waits for more: mpiexec must end the job
 *                        at once, naming the rank.
 *   ofi_killed survivor  rank 1 forks; the child carries on as rank 1 (same
 *                        endpoint) and is the one killed, so that mpiexec
 *                        does not end the job and rank 0 sees what the
 *                        transport reports: with MPI_ERRORS_RETURN it keeps
 *                        sending until a call fails, and passes when that
 *                        call fails with MPI_ERR_PROC_ABORTED.
 *
 * Rank 0 prints "job <UZURA_JOB_ID>" so that ofi_killed.sh can look for
 * shared-memory segments left behind.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { SMALL = 4096, LARGE = 4 << 20, ROUNDS = 20 };

static void fill(unsigned char *b, size_t n, int round)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + round);
}

static int check(const unsigned char *b, size_t n, int round)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + round))
            return 0;
    return 1;
}

/* Rank 1 receives ROUNDS of each size and checks them. */
static void take_some(unsigned char *buf)
{
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = r % 2 ? LARGE : SMALL;
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!check(buf, n, r)) {
            printf("ofi_killed: FAIL: round %d's data differs\n", r);
            fflush(stdout);
        }
    }
    int ready = 1;
    MPI_Send(&ready, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
}

static void give_some(unsigned char *buf)
{
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = r % 2 ? LARGE : SMALL;
        fill(buf, n, r);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    }
    int ready;
    MPI_Recv(&ready, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int survivor = argc > 1 && strcmp(argv[1], "survivor") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(LARGE);
    if (rank == 0) {
        printf("job %s\n", getenv("UZURA_JOB_ID") ? getenv("UZURA_JOB_ID") : "?");
        fflush(stdout);
    }
    if (rank == 1 && survivor) {
        pid_t child = fork();
        if (child > 0) {
            /* The parent lets go of every descriptor (the provider's
             * sockets die with the child) and waits for the job's end. */
            for (int fd = 3; fd < 1024; fd++)
                close(fd);
            int st;
            waitpid(child, &st, 0);
            pause();
            _exit(0);
        }
        take_some(buf);
        raise(SIGKILL);
    }
    if (rank == 1) {
        take_some(buf);
        raise(SIGKILL);
    }
    if (rank != 0) {
        /* Other ranks wait for a message that never comes. */
        MPI_Recv(buf, 1, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 0;
    }
    give_some(buf);
    if (!survivor) {
        MPI_Recv(buf, 1, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("ofi_killed: FAIL: a message came from a killed rank\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_SUCCESS;
    long sent = 0;
    for (int r = 0; err == MPI_SUCCESS; r++, sent++) {
        size_t n = r % 2 ? LARGE : SMALL;
        err = MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    }
    int cls = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, text, &len);
    int ok = cls == MPI_ERR_PROC_ABORTED;
    printf("ofi_killed: %s: MPI_Send failed after %ld sends, class %d%s: %s\n", ok ? "PASS" : "FAIL", sent, cls,
           ok ? " (MPI_ERR_PROC_ABORTED)" : "", text);
    fflush(stdout);
    _exit(ok ? 0 : 1);                  /* rank 1 is gone: no MPI_Finalize */
}
