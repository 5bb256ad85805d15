/*
 * udp_killed.c — a peer killed with SIGKILL in the middle of an exchange
 * must turn into an error at the survivor within UZURA_UDP_PEER_TIMEOUT
 * (plus one backed-off retransmission), never a hang.
 *
 * mpiexec ends the whole job as soon as one of its ranks dies, which would
 * hide what the survivor sees.  So rank 1 forks: the child carries on as
 * rank 1 (same socket, same everything) and is the one killed; the parent,
 * which mpiexec watches, closes its copies of the descriptors and waits.
 * Rank 0, with MPI_ERRORS_RETURN, keeps sending until a call fails, and
 * prints the error class and how long after the kill it came.
 *
 * With "stop" the child stops (SIGSTOP) instead of dying: its port stays
 * open, so no ICMP error tells rank 0 anything, as when a host vanishes,
 * and only UZURA_UDP_PEER_TIMEOUT can find it out.
 *
 * With "midway" the child stops in the middle of receiving a 64 MiB
 * message: rank 0's send is then sending straight from its buffer with
 * data unacknowledged (the transport holds the buffer until the ACK), and
 * that send must fail, not hang or complete.
 *
 *   udp_killed TIMEOUT_SECONDS [stop|midway]   (the value given to UZURA_UDP_PEER_TIMEOUT)
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { LEN = 65536, ROUNDS_BEFORE_KILL = 50, BIG = 64 << 20 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double timeout = argc > 1 ? atof(argv[1]) : 2.0;
    int midway = argc > 2 && strcmp(argv[2], "midway") == 0;
    int stop = midway || (argc > 2 && strcmp(argv[2], "stop") == 0);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "udp_killed: run with 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *buf = calloc(1, midway ? BIG : LEN);
    double kill_time = 0;

    if (rank == 1) {
        int parent_pid = (int)getpid();
        pid_t child = fork();
        if (child > 0) {
            /* The parent: let go of the socket, so it dies with the child. */
            for (int fd = 3; fd < 1024; fd++)
                close(fd);
            int st;
            waitpid(child, &st, 0);
            pause();            /* until rank 0 ends the job */
            _exit(0);
        }
        /* The child is rank 1 now: receive a while, tell rank 0 when, die. */
        for (int i = 0; i < ROUNDS_BEFORE_KILL; i++)
            MPI_Recv(buf, LEN, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request big = MPI_REQUEST_NULL;
        if (midway)
            MPI_Irecv(buf, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &big);
        double t = now();
        double msg[3] = { t, (double)parent_pid, (double)getpid() };
        MPI_Send(msg, 3, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        /* Midway: take part of the big message (answer its RTS, read and
         * acknowledge some data), then stop. */
        for (double until = now() + 0.005; midway && now() < until;) {
            int done = 0;
            MPI_Test(&big, &done, MPI_STATUS_IGNORE);
        }
        raise(stop ? SIGSTOP : SIGKILL);
    }

    /* Rank 0: send until the transport gives up on rank 1. */
    double msg[3];
    MPI_Request r;
    MPI_Irecv(msg, 3, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
    int err = MPI_SUCCESS, flag = 0;
    long sent = 0;
    if (midway) {
        for (; sent < ROUNDS_BEFORE_KILL && err == MPI_SUCCESS; sent++)
            err = MPI_Send(buf, LEN, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&r, MPI_STATUS_IGNORE);
        flag = err == MPI_SUCCESS;
        kill_time = flag ? msg[0] : 0;
        if (err == MPI_SUCCESS)
            err = MPI_Send(buf, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        if (err == MPI_SUCCESS) {
            printf("udp_killed: FAIL: the %d-byte send to a stopped peer completed\n", BIG);
            fflush(stdout);
        }
    }
    double give_up = now() + 10 * timeout + 30;
    while (!midway && now() < give_up) {
        err = MPI_Send(buf, LEN, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        if (err != MPI_SUCCESS)
            break;
        sent++;
        if (!flag)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (flag && !kill_time)
            kill_time = msg[0];
    }
    if (!flag)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (flag && !kill_time)
        kill_time = msg[0];
    double t = now();
    int cls = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    if (err != MPI_SUCCESS) {
        MPI_Error_class(err, &cls);
        MPI_Error_string(err, text, &len);
    }
    double after = kill_time ? t - kill_time : -1;
    int ok = err != MPI_SUCCESS && kill_time && after <= timeout + 2.0;
    printf("udp_killed: %s: MPI_Send failed %.2f s after the kill (timeout %.1f s), class %d, "
           "after %ld sends: %s\n", ok ? "PASS" : "FAIL", after, timeout, cls, sent, text);
    fflush(stdout);
    if (flag) {
        kill((pid_t)msg[2], SIGKILL);   /* rank 1, if only stopped */
        kill((pid_t)msg[1], SIGKILL);   /* rank 1's parent: the job is over */
    }
    _exit(ok ? 0 : 1);
}
