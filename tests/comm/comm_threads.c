/*
 * comm_threads.c — communicators made concurrently by several threads of
 * each process (MPI_THREAD_MULTIPLE): each thread dups, splits and frees
 * on its own parent communicator (and, with two ranks or more, builds an
 * intercommunicator between the halves of the split and merges it), so
 * the context-id agreements of one process overlap and must neither hand
 * out one id twice nor livelock.
 * Traffic on every new communicator checks that they stay apart.
 */
#include <pthread.h>

#include "uztest.h"

enum { THREADS = 3, ROUNDS = 60 };

static int n, me;
static MPI_Comm parents[THREADS];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm parent = parents[t];
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm d, s;
        CHECK_MPI(MPI_Comm_dup(parent, &d));
        CHECK_MPI(MPI_Comm_split(parent, me % 2, -me, &s));
        /* Same source and tag as every other thread's traffic. */
        int v = t * 100000 + i * 100 + me, got = -1;
        CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, d,
                               MPI_STATUS_IGNORE));
        CHECK(got == t * 100000 + i * 100 + left, "thread %d round %d got %d", t, i, got);
        int sum = 0, ss;
        MPI_Comm_size(s, &ss);
        CHECK_MPI(MPI_Allreduce(&(int){ 1 }, &sum, 1, MPI_INT, MPI_SUM, s));
        CHECK_EQ(sum, ss);
        if (n >= 2) {
            /* Intercommunicator between the two halves of the split, and
             * merged back: the agreements of MPI_Intercomm_create and
             * MPI_Intercomm_merge overlap with the other threads' too. */
            MPI_Comm inter, merged;
            /* The split orders by -rank: each half's leader is its highest rank. */
            int remote_leader = (n - 1) % 2 != me % 2 ? n - 1 : n - 2, rsize, msize, rank_in;
            CHECK_MPI(MPI_Intercomm_create(s, 0, parent, remote_leader, 1000 + i, &inter));
            MPI_Comm_remote_size(inter, &rsize);
            CHECK_EQ(rsize, me % 2 == 0 ? n / 2 : (n + 1) / 2);
            CHECK_MPI(MPI_Intercomm_merge(inter, me % 2, &merged));
            MPI_Comm_size(merged, &msize);
            CHECK_EQ(msize, n);
            MPI_Comm_rank(merged, &rank_in);
            int total = 0;
            CHECK_MPI(MPI_Allreduce(&rank_in, &total, 1, MPI_INT, MPI_SUM, merged));
            CHECK_EQ(total, n * (n - 1) / 2);
            CHECK_MPI(MPI_Comm_free(&merged));
            CHECK_MPI(MPI_Comm_free(&inter));
        }
        CHECK_MPI(MPI_Comm_free(&s));
        CHECK_MPI(MPI_Comm_free(&d));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (provided < MPI_THREAD_MULTIPLE) {
        MPI_Finalize();
        return 77;
    }
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    pthread_t th[THREADS];
    /* Start the threads in a different order on each rank. */
    for (int k = 0; k < THREADS; k++) {
        int t = (k + me) % THREADS;
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&parents[t]);
    return uzt_finish("comm_threads");
}
