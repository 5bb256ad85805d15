/*
 * tcp_peer_gone.c — a peer whose connections go away while the job runs
 * (tcp_peer_gone.sh drives it).
 *
 * Rank 1 talks to rank 0 for a while, then closes every tcp socket it has
 * — what rank 0 sees when a host crashes or a process is killed — and
 * stays alive but silent, so that only the transport can notice.  Rank 0
 * has a receive from rank 1, a rendezvous send to it and an eager send to
 * it outstanding; all must fail with MPI_ERR_PROC_ABORTED instead of
 * hanging.
 *   tcp_peer_gone return   rank 0 uses MPI_ERRORS_RETURN, checks the
 *                          errors, prints them and calls MPI_Abort(.., 3)
 *   tcp_peer_gone fatal    rank 0 keeps MPI_ERRORS_ARE_FATAL: the job ends
 *                          with the transport's message
 */
#include <sys/socket.h>
#include <unistd.h>

#include "uztest.h"

enum { BIG = 4 << 20 };

static void close_tcp_sockets(void)
{
    for (int fd = 3; fd < 4096; fd++) {
        int domain = 0, type = 0;
        socklen_t len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
            continue;
        len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
            continue;
        if (domain == AF_INET && type == SOCK_STREAM)
            close(fd);
    }
}

static void report(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls = uzt_class(rc);
    MPI_Error_string(rc, msg, &len);
    printf("rank 0: %s: class %d%s: %s\n", what, cls, cls == MPI_ERR_PROC_ABORTED ? " (MPI_ERR_PROC_ABORTED)" : "",
           msg);
    CHECK(cls == MPI_ERR_PROC_ABORTED, "%s: error class %d, expected MPI_ERR_PROC_ABORTED", what, cls);
}

int main(int argc, char **argv)
{
    int rank, size, fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *big = calloc(BIG, 1);
    int token = 0;
    for (int i = 0; i < 100 && rank <= 1; i++) {         /* a connection that works first */
        if (rank == 0) {
            MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 1) {
        close_tcp_sockets();
        fflush(stdout);
        sleep(60);                      /* silent until the job ends */
        _exit(0);
    }
    if (rank == 0) {
        if (!fatal)
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        /* Each call fails either at once (the transport already knows) or
         * when its request completes. */
        static const char *what[3] = { "receive from rank 1", "rendezvous send to rank 1",
                                       "eager send to rank 1" };
        MPI_Request req[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        MPI_Status st[3];
        int rc[3];
        rc[0] = MPI_Irecv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req[0]);
        rc[1] = MPI_Isend(big, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[1]);
        rc[2] = MPI_Isend(big, 1000, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[2]);
        for (int i = 0; i < 3; i++) {
            if (rc[i] == MPI_SUCCESS)
                rc[i] = MPI_Wait(&req[i], &st[i]);
            /* An eager send may have left before the connection went. */
            if (rc[i] != MPI_SUCCESS || i != 2)
                report(what[i], rc[i]);
        }
        int rc_later = MPI_Send(&token, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        report("a later send to rank 1", rc_later);
        printf("tcp_peer_gone: rank 0 %s\n", uzt_failures ? "FAILED" : "passed");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, uzt_failures ? 1 : 3);
    }
    sleep(60);                          /* other ranks: wait to be ended */
    MPI_Finalize();
    return 0;
}
