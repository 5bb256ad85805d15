/*
 * mpit_pvars.c — performance variables counted exactly over a known
 * pattern: rank 0 sends U small messages nobody has asked for yet, N small
 * ones and M large ones (rendezvous) to rank 1, whose receives for the
 * N + M are posted first; then the
 * handles' own semantics (stop, start, reset, readreset, write, a session
 * of their own).  At one process rank 0 sends to itself (the self
 * transport, always eager).  Every variable is also listed, found by its
 * name and read once.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

enum { U = 16, N = 7, M = 3, SMALL = 100, LARGE = 256 * 1024 };  /* LARGE: above any eager limit */
enum { TAG_UNEXP = 99, TAG_SMALL = 1, TAG_LARGE = 2, TAG_GO = 5, TAG_DONE = 6, TAG_MORE = 7 };

static MPI_T_pvar_session session;

static MPI_T_pvar_handle handle(const char *name, int var_class, void *obj)
{
    int idx = -1, count = 0;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_EQ(MPI_T_pvar_get_index(name, var_class, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_handle_alloc(session, idx, obj, &h, &count), MPI_SUCCESS);
    CHECK_EQ(count, 1);
    return h;
}

static unsigned long long value(MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;
    CHECK_EQ(MPI_T_pvar_read(session, h, &v), MPI_SUCCESS);
    return v;
}

static void every_variable(void)
{
    int n = 0;
    CHECK_EQ(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    CHECK(n > 20, "only %d performance variables", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, var_class, bind, ro, cont, atomic, idx;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_EQ(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dt, &en, desc, &desc_len, &bind,
                                     &ro, &cont, &atomic), MPI_SUCCESS);
        CHECK_EQ(name_len, (int)strlen(name) + 1);
        CHECK(desc_len > 1, "%s has no description", name);
        CHECK_EQ(MPI_T_pvar_get_index(name, var_class, &idx), MPI_SUCCESS);
        CHECK_EQ(idx, i);
        CHECK(dt == (var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE
                     : var_class == MPI_T_PVAR_CLASS_STATE ? MPI_INT : MPI_UNSIGNED_LONG_LONG), "%s type", name);
        CHECK((en != MPI_T_ENUM_NULL) == (var_class == MPI_T_PVAR_CLASS_STATE), "%s enum", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT || bind == MPI_T_BIND_MPI_COMM, "%s bind %d", name, bind);
        MPI_Comm world = MPI_COMM_WORLD;
        MPI_T_pvar_handle h;
        int count;
        CHECK_EQ(MPI_T_pvar_handle_alloc(session, i, &world, &h, &count), MPI_SUCCESS);
        double buf[2];
        CHECK_EQ(MPI_T_pvar_read(session, h, buf), MPI_SUCCESS);
        CHECK_EQ(MPI_T_pvar_handle_free(session, &h), MPI_SUCCESS);
    }
    /* The truncation rule of every MPI_T string: room for 4 gives 3 and a NUL. */
    char small[4];
    int len = sizeof(small);
    CHECK_EQ(MPI_T_pvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK_EQ(len, 4);
    CHECK_EQ(strcmp(small, "eag"), 0);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* No communicator is made: making one may send messages between other
     * ranks' agreements (comm_agree.c) that rank 0 would count. */
    MPI_Comm comm = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    CHECK_EQ(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
    every_variable();

    const int sender = rank == 0, receiver = size == 1 ? rank == 0 : rank == 1;
    const int peer = size == 1 ? 0 : 1 - rank;
    const char *t = size == 1 ? "self" : "shm";
    char name[64];
    const int C = MPI_T_PVAR_CLASS_COUNTER, L = MPI_T_PVAR_CLASS_LEVEL;
    MPI_T_pvar_handle eager = handle("eager_sent", C, NULL), rndv = handle("rendezvous_sent", C, NULL);
    MPI_T_pvar_handle pulled = handle("rendezvous_pulled", C, NULL), cts = handle("rendezvous_cts", C, NULL);
    MPI_T_pvar_handle unexp = handle("unexpected_messages", C, NULL);
    snprintf(name, sizeof(name), "%s_messages_sent", t);
    MPI_T_pvar_handle msent = handle(name, C, NULL);
    snprintf(name, sizeof(name), "%s_bytes_sent", t);
    MPI_T_pvar_handle bsent = handle(name, C, NULL);
    snprintf(name, sizeof(name), "%s_messages_received", t);
    MPI_T_pvar_handle mrecv = handle(name, C, NULL);
    snprintf(name, sizeof(name), "%s_bytes_received", t);
    MPI_T_pvar_handle brecv = handle(name, C, NULL);
    MPI_T_pvar_handle uq = handle("unexpected_queue_length", L, NULL);
    MPI_T_pvar_handle uq_high = handle("unexpected_queue_high_water", MPI_T_PVAR_CLASS_HIGHWATERMARK, NULL);
    MPI_T_pvar_handle pq = handle("posted_queue_length", L, NULL);
    MPI_T_pvar_handle uq_comm = handle("comm_unexpected_queue_length", L, &comm);
    MPI_T_pvar_handle pq_comm = handle("comm_posted_queue_length", L, &comm);
    MPI_T_pvar_handle pq_self = handle("comm_posted_queue_length", L, &self);
    /* Counters read 0 until started; levels are continuous. */
    CHECK_EQ(value(eager), 0);
    CHECK_EQ(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);

    unsigned char *small = malloc(SMALL * (U + N + 2)), *large = malloc((size_t)LARGE * M);
    unsigned char *out = malloc(LARGE);
    MPI_Request reqs[N + M];
    if (receiver) {
        for (int i = 0; i < N; i++)
            MPI_Irecv(small + i * SMALL, SMALL, MPI_BYTE, 0, TAG_SMALL, comm, &reqs[i]);
        for (int i = 0; i < M; i++)
            MPI_Irecv(large + (size_t)i * LARGE, LARGE, MPI_BYTE, 0, TAG_LARGE, comm, &reqs[N + i]);
        CHECK_EQ(value(pq), N + M);
        CHECK_EQ(value(pq_comm), N + M);
        CHECK_EQ(value(pq_self), 0);
        if (size > 1)
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, comm);
    }
    if (sender) {
        if (size > 1)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < U; i++) {
            uzt_fill(out, SMALL, rank, i);
            MPI_Send(out, SMALL, MPI_BYTE, peer, TAG_UNEXP, comm);
        }
        for (int i = 0; i < N; i++) {
            uzt_fill(out, SMALL, rank, 100 + i);
            MPI_Send(out, SMALL, MPI_BYTE, peer, TAG_SMALL, comm);
        }
        for (int i = 0; i < M; i++) {
            uzt_fill(out, LARGE, rank, 200 + i);
            MPI_Send(out, LARGE, MPI_BYTE, peer, TAG_LARGE, comm);
        }
    }
    const unsigned long long pattern_bytes = (unsigned long long)(U + N) * SMALL + (unsigned long long)M * LARGE;
    if (receiver) {
        MPI_Waitall(N + M, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            CHECK_EQ(uzt_verify(small + i * SMALL, SMALL, 0, 100 + i), -1);
        for (int i = 0; i < M; i++)
            CHECK_EQ(uzt_verify(large + (size_t)i * LARGE, LARGE, 0, 200 + i), -1);
        /* The U messages came first on the pair, so they wait in the queue now. */
        CHECK_EQ(value(uq), U);
        CHECK_EQ(value(uq_comm), U);
        CHECK_EQ(value(pq), 0);
        for (int i = 0; i < U; i++) {
            MPI_Recv(small, SMALL, MPI_BYTE, 0, TAG_UNEXP, comm, MPI_STATUS_IGNORE);
            CHECK_EQ(uzt_verify(small, SMALL, 0, i), -1);
        }
        CHECK_EQ(value(uq), 0);
        CHECK_EQ(value(uq_comm), 0);
        CHECK_EQ(value(uq_high), U);
        CHECK_EQ(value(unexp), U);
        CHECK_EQ(value(mrecv), U + N + M);
        CHECK_EQ(value(brecv), pattern_bytes);
        if (size > 1) {
            CHECK_EQ(value(pulled) + value(cts), M);
            CHECK_EQ(value(msent), 1);          /* the go-ahead */
            CHECK_EQ(value(bsent), 0);
            CHECK_EQ(value(eager), 1);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, comm);
        }
    }
    if (sender) {
        /* Rank 1's go-ahead and its word that it has counted (which may
         * arrive while the last rendezvous completes) are all it received. */
        if (size > 1) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_DONE, comm, MPI_STATUS_IGNORE);
            CHECK_EQ(value(mrecv), 2);
            CHECK_EQ(value(brecv), 0);
        }
        /* To itself a message of any size is eager. */
        CHECK_EQ(value(eager), size == 1 ? U + N + M : U + N);
        CHECK_EQ(value(rndv), size == 1 ? 0 : M);
        CHECK_EQ(value(msent), U + N + M);
        CHECK_EQ(value(bsent), pattern_bytes);
        /* A stopped handle keeps its value while messages go on. */
        unsigned long long before = value(msent), v;
        CHECK_EQ(MPI_T_pvar_stop(session, msent), MPI_SUCCESS);
        MPI_Send(out, SMALL, MPI_BYTE, peer, TAG_MORE, comm);
        CHECK_EQ(value(msent), before);
        CHECK_EQ(MPI_T_pvar_start(session, msent), MPI_SUCCESS);
        MPI_Send(out, SMALL, MPI_BYTE, peer, TAG_MORE, comm);
        CHECK_EQ(value(msent), before + 1);
        /* readreset: the value, then 0; write: a value to count on from. */
        CHECK_EQ(MPI_T_pvar_readreset(session, msent, &v), MPI_SUCCESS);
        CHECK_EQ(v, before + 1);
        CHECK_EQ(value(msent), 0);
        v = 1000;
        CHECK_EQ(MPI_T_pvar_write(session, msent, &v), MPI_SUCCESS);
        CHECK_EQ(value(msent), 1000);
        CHECK_EQ(MPI_T_pvar_reset(session, msent), MPI_SUCCESS);
        CHECK_EQ(value(msent), 0);
        /* Another session's handle on the same variable is its own. */
        MPI_T_pvar_session other;
        MPI_T_pvar_handle h;
        int idx, count;
        CHECK_EQ(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
        snprintf(name, sizeof(name), "%s_messages_sent", t);
        MPI_T_pvar_get_index(name, C, &idx);
        CHECK_EQ(MPI_T_pvar_handle_alloc(other, idx, NULL, &h, &count), MPI_SUCCESS);
        CHECK_EQ(MPI_T_pvar_start(other, h), MPI_SUCCESS);
        MPI_Send(out, SMALL, MPI_BYTE, peer, TAG_MORE, comm);
        CHECK_EQ(MPI_T_pvar_read(other, h, &v), MPI_SUCCESS);
        CHECK_EQ(v, 1);
        CHECK_EQ(value(msent), 1);
        /* Stopping every handle at once, then freeing the session with its handle. */
        CHECK_EQ(MPI_T_pvar_stop(other, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
        CHECK_EQ(MPI_T_pvar_session_free(&other), MPI_SUCCESS);
    }
    if (receiver)
        for (int i = 0; i < 3; i++)
            MPI_Recv(small, SMALL, MPI_BYTE, 0, TAG_MORE, comm, MPI_STATUS_IGNORE);

    /* The timer is in seconds and only grows. */
    MPI_T_pvar_handle wait = handle("wait_time", MPI_T_PVAR_CLASS_TIMER, NULL);
    double seconds = -1;
    CHECK_EQ(MPI_T_pvar_start(session, wait), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_read(session, wait, &seconds), MPI_SUCCESS);
    CHECK(seconds >= 0, "wait_time %g", seconds);

    CHECK_EQ(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
    free(small);
    free(large);
    free(out);
    int rc = uzt_finish("mpit_pvars");
    MPI_T_finalize();
    return rc;
}
