/*
 * udp_last_words.c — what a peer sent just before it was killed is
 * delivered, even when the news of its death comes first.
 *
 * Rank 1's child (see udp_killed.c for why rank 1 forks) sends a message
 * and dies while rank 0 is outside MPI, so the message waits in rank 0's
 * socket.  Rank 0 then sends to the dead rank: the kernel answers with an
 * ICMP "port unreachable", and reports that error ahead of the datagrams
 * already queued.  Rank 0 must still receive the message, every byte and
 * its status, and only then find the peer dead (MPI_ERR_PROC_ABORTED,
 * from the ICMP answer: UZURA_UDP_PEER_TIMEOUT is left long).
 */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { LEN = 1000, TAG_PIDS = 0, TAG_GO = 1, TAG_WORDS = 2, TAG_AFTER = 3 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char expected(int i)
{
    return (unsigned char)(i * 7 + 3);
}

static void fail(const char *what, int err)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = 0;
    if (err != MPI_SUCCESS) {
        MPI_Error_class(err, &cls);
        MPI_Error_string(err, text, &len);
    }
    printf("udp_last_words: FAIL: %s (class %d) %s\n", what, cls, text);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "udp_last_words: run with 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char buf[LEN];

    if (rank == 1) {
        int pids[2] = { (int)getpid(), 0 };
        pid_t child = fork();
        if (child > 0) {
            for (int fd = 3; fd < 1024; fd++)
                close(fd);
            int st;
            waitpid(child, &st, 0);     /* after this the child's pid is gone */
            pause();                    /* until rank 0 ends the job */
            _exit(0);
        }
        pids[1] = (int)getpid();
        MPI_Send(pids, 2, MPI_INT, 0, TAG_PIDS, MPI_COMM_WORLD);
        int go;
        MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < LEN; i++)
            buf[i] = expected(i);
        MPI_Send(buf, LEN, MPI_BYTE, 0, TAG_WORDS, MPI_COMM_WORLD);
        raise(SIGKILL);
    }

    int pids[2], go = 1, ok = 0, err;
    MPI_Recv(pids, 2, MPI_INT, 1, TAG_PIDS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&go, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD);
    /* Outside MPI until the child is gone and reaped, so its last message
     * sits unread in our socket. */
    for (double until = now() + 30; kill((pid_t)pids[1], 0) == 0 || errno != ESRCH;) {
        if (now() > until) {
            fail("rank 1's child did not die", MPI_SUCCESS);
            goto out;
        }
        usleep(1000);
    }
    usleep(20000);
    /* To the dead port: the ICMP answer now comes before the queued data. */
    int x = 0;
    MPI_Request sreq;
    err = MPI_Isend(&x, 1, MPI_INT, 1, TAG_AFTER, MPI_COMM_WORLD, &sreq);
    if (err != MPI_SUCCESS) {
        fail("MPI_Isend to the dead rank failed at once", err);
        goto out;
    }
    memset(buf, 0, sizeof(buf));
    MPI_Status st;
    err = MPI_Recv(buf, LEN, MPI_BYTE, 1, TAG_WORDS, MPI_COMM_WORLD, &st);
    if (err != MPI_SUCCESS) {
        fail("the message sent before the kill was lost", err);
        goto out;
    }
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != LEN || st.MPI_SOURCE != 1 || st.MPI_TAG != TAG_WORDS) {
        printf("udp_last_words: FAIL: status count %d source %d tag %d\n", count, st.MPI_SOURCE,
               st.MPI_TAG);
        goto out;
    }
    for (int i = 0; i < LEN; i++)
        if (buf[i] != expected(i)) {
            printf("udp_last_words: FAIL: byte %d is %d, not %d\n", i, buf[i], expected(i));
            goto out;
        }
    /* Now the peer must be found dead, by the ICMP answer. */
    double give_up = now() + 20;
    err = MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    while (err == MPI_SUCCESS && now() < give_up)
        err = MPI_Send(&x, 1, MPI_INT, 1, TAG_AFTER, MPI_COMM_WORLD);
    int cls = 0;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (err != MPI_SUCCESS)
        MPI_Error_string(err, text, &len);
    if (cls != MPI_ERR_PROC_ABORTED || !strstr(text, "port is closed")) {
        fail("the dead rank was not reported by its closed port", err);
        goto out;
    }
    ok = 1;
    printf("udp_last_words: PASS: %d bytes received from rank 1 after its death was signalled; "
           "then: %s\n", LEN, text);
out:
    fflush(stdout);
    kill((pid_t)pids[1], SIGKILL);
    kill((pid_t)pids[0], SIGKILL);      /* rank 1's parent: the job is over */
    _exit(ok ? 0 : 1);
}
