/*
 * pt2pt_threads.c — MPI_THREAD_MULTIPLE: four threads per rank exchange
 * messages with the same thread of the partner rank at once (one tag per
 * thread), with blocking, nonblocking and probe-then-receive calls and
 * sizes from one slot to rendezvous.  Every byte is checked.
 */
#include <pthread.h>

#include "uztest.h"

enum { THREADS = 4, ROUNDS = 60 };

static int rank, size, peer;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    const size_t lens[] = { 8, 500, 9000, 70000, 200000 };
    unsigned char *out = malloc(200000), *in = malloc(200000);
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = lens[(round + t) % 5];
        int seq = t * 1000 + round;
        uzt_fill(out, n, rank, seq);
        memset(in, 0, n);
        MPI_Status st;
        switch (round % 3) {
        case 0:
            CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, t, in, (int)n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &st));
            break;
        case 1: {
            MPI_Request r[2];
            CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r[0]));
            CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r[1]));
            MPI_Status sts[2];
            CHECK_MPI(MPI_Waitall(2, r, sts));
            st = sts[0];
            break;
        }
        default: {
            MPI_Request r;
            MPI_Message m;
            CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Mprobe(peer, t, MPI_COMM_WORLD, &m, &st));
            CHECK_MPI(MPI_Mrecv(in, (int)n, MPI_BYTE, &m, &st));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        }
        }
        CHECK(st.MPI_TAG == t && st.MPI_SOURCE == peer, "thread %d round %d: tag %d source %d", t, round,
              st.MPI_TAG, st.MPI_SOURCE);
        long bad = uzt_verify(in, n, peer, seq);
        CHECK(bad < 0, "thread %d round %d (%zu bytes): byte %ld wrong", t, round, n, bad);
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d", provided);
    peer = rank ^ 1;
    if (peer < size) {
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
    }
    int flag;
    MPI_Is_thread_main(&flag);
    CHECK(flag, "MPI_Is_thread_main is false in the main thread");
    return uzt_finish("pt2pt_threads");
}
