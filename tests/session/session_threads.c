/*
 * session_threads.c — a session that asks for MPI_THREAD_MULTIPLE in a
 * program that never calls MPI_Init: the runtime gives that level
 * (MPI_Query_thread), and four threads exchange messages at once, each on
 * its own communicator derived from the session, with every byte checked
 * (MPI_Is_thread_main true only on the thread whose MPI_Session_init
 * started the runtime); then a session asking for MPI_THREAD_SINGLE after
 * a restart gets SINGLE again.
 */
#include <pthread.h>

#include "session_util.h"

enum { THREADS = 4 };

static MPI_Comm thread_comm[THREADS];

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    int is_main = -1;
    MPI_Is_thread_main(&is_main);
    CHECK(is_main == 0, "thread %d is taken for the main thread", t);
    for (int round = 0; round < 3; round++)
        uzs_ring(thread_comm[t], t * 100 + round);
    return NULL;
}

static MPI_Session session_at(const char *level)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", level);
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&info);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Session s = session_at("MPI_THREAD_MULTIPLE");
    int provided = -1;
    MPI_Query_thread(&provided);
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm world = uzs_comm_from_pset(s, "mpi://WORLD", "threads.world");
    MPI_Comm_rank(world, &uzs_rank);
    for (int t = 0; t < THREADS; t++)
        CHECK_MPI(MPI_Comm_dup(world, &thread_comm[t]));
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
    int is_main = 0;
    MPI_Is_thread_main(&is_main);
    CHECK_EQ(is_main, 1);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    int rc = uzs_verdict(world, "session_threads (MPI_THREAD_MULTIPLE)");
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&thread_comm[t]);
    MPI_Comm_free(&world);
    CHECK_MPI(MPI_Session_finalize(&s));

    /* Started again, the runtime forgets the level of the last run. */
    s = session_at("MPI_THREAD_SINGLE");
    MPI_Query_thread(&provided);
    CHECK_EQ(provided, MPI_THREAD_SINGLE);
    world = uzs_comm_from_pset(s, "mpi://WORLD", "threads.single");
    uzs_ring(world, 9);
    rc |= uzs_verdict(world, "session_threads (restarted, MPI_THREAD_SINGLE)");
    MPI_Comm_free(&world);
    CHECK_MPI(MPI_Session_finalize(&s));
    return rc || uzs_failures;
}
