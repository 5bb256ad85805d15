/*
 * pt2pt_stream_stays.c — a sender running ahead of its receiver (as a
 * broadcast's root): once a receive has completed in a progress call, the
 * shared-memory ring keeps the messages behind it that no receive wants
 * yet, so that each is copied once, into the receive posted next, instead
 * of into an unexpected buffer and out again.  And the rule's other half:
 * a receiver waiting for someone else still drains a sender's ring, so
 * that sender is not held.
 *
 * Rank 1 tells rank 0 it is ready and stops calling MPI for a while; rank
 * 0 sends K eager messages, some synchronous; rank 1 then receives them
 * one by one (by tag and by MPI_ANY_TAG) and must see each in order, every
 * byte right, with the counter of unexpected messages unchanged.  With
 * three ranks or more, rank 2 sends rank 1 more than a ring holds while
 * rank 1 waits only for rank 0, which answers only after rank 2 is done.
 */
#include <unistd.h>

#include "uztest.h"

enum { K = 24, LEN = 4096, FLOOD = 256, TAG_READY = 1000, TAG_DONE = 1001, TAG_ANSWER = 1002, TAG_GO = 1003 };

static MPI_T_pvar_session session;
static MPI_T_pvar_handle unexpected;

static unsigned long long unexpected_now(void)
{
    unsigned long long v = ~0ull;
    CHECK_MPI(MPI_T_pvar_read(session, unexpected, &v));
    return v;
}

static void open_counter(void)
{
    int idx = -1, count = 0;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    CHECK_MPI(MPI_T_pvar_get_index("unexpected_messages", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &unexpected, &count));
    CHECK_MPI(MPI_T_pvar_start(session, unexpected));
}

static void run_ahead(int rank, unsigned char *buf)
{
    if (rank == 0) {
        MPI_Request sync[K];
        int nsync = 0;
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < K; i++) {
            unsigned char *b = buf + (size_t)i * LEN;
            uzt_fill(b, LEN, rank, i);
            if (i % 5 == 4)
                CHECK_MPI(MPI_Issend(b, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, &sync[nsync++]));
            else
                CHECK_MPI(MPI_Send(b, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Waitall(nsync, sync, MPI_STATUSES_IGNORE));
        return;
    }
    unsigned long long before = unexpected_now();
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD));
    usleep(100 * 1000);     /* no MPI call: the messages pile up in the ring */
    for (int i = 0; i < K; i++) {
        MPI_Status st;
        memset(buf, 0xee, LEN);
        CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, 0, i % 3 == 2 ? MPI_ANY_TAG : i, MPI_COMM_WORLD, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == i && count == LEN, "message %d: source %d tag %d count %d", i,
              st.MPI_SOURCE, st.MPI_TAG, count);
        long bad = uzt_verify(buf, LEN, 0, i);
        CHECK(bad < 0, "message %d: byte %ld wrong", i, bad);
    }
    unsigned long long after = unexpected_now();
    CHECK(after == before, "%llu of %d messages went through the unexpected queue", after - before, K);
}

/* No other rank sends rank 1 anything (not even the messages with which
 * a first collective sets itself up, which the counter would count) until
 * it has read the counter: rank 0 is done sending long before then. */
static void hold_others(int rank, int size)
{
    if (size < 2)
        return;
    if (rank == 1) {
        for (int r = 0; r < size; r++)
            if (r != 1)
                CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_GO, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

/* Rank 1 waits for rank 0 alone; rank 0 answers once rank 2 has sent all. */
static void not_held(int rank, unsigned char *buf)
{
    if (rank == 2) {
        for (int i = 0; i < FLOOD; i++) {
            uzt_fill(buf, LEN, rank, i);
            CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD));
    } else if (rank == 0) {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 2, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_ANSWER, MPI_COMM_WORLD));
    } else if (rank == 1) {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < FLOOD; i++) {
            memset(buf, 0xee, LEN);
            CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, 2, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = uzt_verify(buf, LEN, 2, i);
            CHECK(bad < 0, "flood message %d: byte %ld wrong", i, bad);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc((size_t)K * LEN);
    open_counter();
    if (size >= 2 && rank < 2)
        run_ahead(rank, buf);
    hold_others(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (size >= 3)
        not_held(rank, buf);
    free(buf);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    return uzt_finish("pt2pt_stream_stays");
}
