/*
 * mpit_threads.c — MPI_T under MPI_THREAD_MULTIPLE (run under
 * ThreadSanitizer too): two threads of rank 0 send K messages each that
 * rank 1 has not asked for; on rank 1 a callback registered as thread
 * safe counts the unexpected_message_arrived events while another thread
 * keeps registering and freeing registrations, reading a performance
 * variable and a control variable.  Then two threads of rank 1 receive
 * the messages.  Every event is counted once.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "uztest.h"

enum { K = 50, TAG_DONE = 9999 };

static atomic_int events;
static atomic_int stop_churn;
static MPI_T_cb_safety last_safety;

static void on_unexpected(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *u)
{
    (void)r, (void)u;
    int64_t bytes = -1;
    MPI_T_event_read(e, 2, &bytes);
    if (bytes == sizeof(int))
        atomic_fetch_add(&events, 1);
    last_safety = s;
}

static void on_other(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *u)
{
    (void)e, (void)r, (void)s;
    atomic_fetch_add((atomic_int *)u, 1);
}

static void *sender(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < K; i++) {
        int v = t * K + i;
        MPI_Send(&v, 1, MPI_INT, 1, t * K + i, MPI_COMM_WORLD);
    }
    return NULL;
}

static void *receiver(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < K; i++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, 0, t * K + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(v, t * K + i);
    }
    return NULL;
}

/* Registrations come and go while events are announced. */
static void *churn(void *arg)
{
    (void)arg;
    atomic_int other = 0;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    MPI_T_cvar_handle c;
    int idx, count, loops = 0;
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_get_index("unexpected_messages", MPI_T_PVAR_CLASS_COUNTER, &idx);
    MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count);
    MPI_T_pvar_start(s, h);
    MPI_T_cvar_get_index("UZURA_COLL_BCAST", &idx);
    MPI_T_cvar_handle_alloc(idx, NULL, &c, &count);
    while (!atomic_load(&stop_churn) || loops < 20) {
        MPI_T_event_registration r;
        unsigned long long n;
        int alg;
        CHECK_EQ(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &r), MPI_SUCCESS);
        CHECK_EQ(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &other, on_other),
                 MPI_SUCCESS);
        CHECK_EQ(MPI_T_pvar_read(s, h, &n), MPI_SUCCESS);
        CHECK_EQ(MPI_T_cvar_read(c, &alg), MPI_SUCCESS);
        CHECK_EQ(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
        loops++;
    }
    MPI_T_cvar_handle_free(&c);
    MPI_T_pvar_session_free(&s);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, tprovided;
    MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprovided);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("SKIPPED: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 77;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t th[3];
    if (rank == 0 && size > 1) {
        for (int t = 0; t < 2; t++)
            pthread_create(&th[t], NULL, sender, (void *)(intptr_t)t);
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_T_event_registration r;
        MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &r);
        /* Two threads may announce at once: only a thread-safe callback runs. */
        MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL, on_other);
        MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, on_unexpected);
        pthread_create(&th[2], NULL, churn, NULL);
        /* Everything rank 0 sent is queued unexpected before this arrives. */
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        atomic_store(&stop_churn, 1);
        pthread_join(th[2], NULL);
        for (int t = 0; t < 2; t++)
            pthread_create(&th[t], NULL, receiver, (void *)(intptr_t)t);
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        CHECK_EQ(atomic_load(&events), 2 * K);
        CHECK_EQ(last_safety, MPI_T_CB_REQUIRE_THREAD_SAFE);
        MPI_T_event_handle_free(r, NULL, NULL);
    }
    int rc = uzt_finish("mpit_threads");
    MPI_T_finalize();
    return rc;
}
