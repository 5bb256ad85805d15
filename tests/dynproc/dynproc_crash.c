/*
 * dynproc_crash.c — failures that must end in an error, never a hang:
 *   - a spawned child killed after it connected: a large send to it and
 *     the parents' receive from it fail (MPI_ERR_PROC_ABORTED) while the
 *     others go on, and MPI_Finalize has nothing left to wait for;
 *   - children that die before they connect: MPI_Comm_spawn fails with
 *     MPI_ERR_SPAWN once UZURA_PORT_TIMEOUT passes (the test sets it low);
 *   - a connect to a port whose process is gone: MPI_ERR_PORT at once.
 * The shared-memory segments of the dead jobs are gone afterwards (their
 * mpiexec removes them; the test's driver checks /dev/shm).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

static int rank, size;

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

static int child(const char *role)
{
    if (strcmp(role, "die-early") == 0)
        raise(SIGKILL);                 /* before MPI_Init: never connects */
    MPI_Init(NULL, NULL);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0)
        raise(SIGKILL);                 /* connected, then gone */
    /* Rank 1 answers, if its mpiexec has not ended it yet for rank 0's death. */
    int v = 42;
    MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
    MPI_Comm_free(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return child(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* A child that is killed after it connected. */
    MPI_Comm inter;
    char *args[] = { "die-late", NULL };
    CHECK_MPI(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    if (rank == 0) {
        /* A large message to child 0, which dies: the send fails (offered
         * for a one-copy pull, it must not stay pending for MPI_Finalize). */
        static char big[1 << 20];
        MPI_Request req;
        int src = MPI_Isend(big, sizeof big, MPI_BYTE, 0, 2, inter, &req);
        if (src == MPI_SUCCESS)
            src = MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_EQ(error_class(src), MPI_ERR_PROC_ABORTED);
        /* Child 1 may have answered before its mpiexec ended it with child 0,
         * or not; child 0 never does. */
        int v = 0;
        int rc = MPI_Recv(&v, 1, MPI_INT, 1, 1, inter, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS ? v == 42 : error_class(rc) == MPI_ERR_PROC_ABORTED,
              "receive from child 1: rc %d, value %d", rc, v);
        rc = MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
        CHECK_EQ(error_class(rc), MPI_ERR_PROC_ABORTED);
    }
    MPI_Comm_free(&inter);

    /* Children that die before they connect. */
    int errcodes[2];
    char *early[] = { "die-early", NULL };
    inter = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn(argv[0], early, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
    CHECK_EQ(error_class(errcodes[0]), MPI_ERR_SPAWN);

    /* A port whose process is gone (closed here: the listener goes with it). */
    char port[MPI_MAX_PORT_NAME];
    if (rank == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Close_port(port));
        MPI_Comm c;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
        CHECK_EQ(error_class(rc), MPI_ERR_PORT);
    }
    return uzt_finish("dynproc_crash");
}
