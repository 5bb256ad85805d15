/*
 * pt2pt_wake.c — a receiver that sleeps on its doorbell is woken by every
 * message sent to it, whichever wake-up fence the host chose
 * (base/wake_fence.h).  CMake runs it with UZURA_WAIT_SPIN_US=0,
 * UZURA_WAIT_YIELD_US=0 (every wait sleeps at once) and
 * UZURA_WAIT_SLEEP_MAX_US=0 (sleep until rung), so a lost wake-up hangs
 * the test instead of costing the sleep's 2 ms safety net; once with the
 * one-sided fence (auto) and once with UZURA_SHM_FENCE=full.
 *
 * Patterns: ping-pong between rank pairs at 8 bytes, 4 KiB and 128 KiB
 * (rendezvous), where each side sleeps right after its send while the
 * peer's reply is on its way; a ring of Sendrecv; bursts of Isends to a
 * receiver that sleeps between them.  Every byte received is checked, and
 * the MPI_T counter wait_sleeps proves the ranks slept.
 */
#include "uztest.h"

static int rank, size;

static void pingpong(size_t bytes, int rounds)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    unsigned char *buf = malloc(bytes);
    for (int i = 0; i < rounds; i++) {
        int seq = (int)bytes + i;
        if (rank & 1) {
            CHECK_MPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = uzt_verify(buf, bytes, peer, seq);
            CHECK(bad < 0, "ping %zu bytes round %d: byte %ld wrong", bytes, i, bad);
            uzt_fill(buf, bytes, rank, seq);
            CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
        } else {
            uzt_fill(buf, bytes, rank, seq);
            CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = uzt_verify(buf, bytes, peer, seq);
            CHECK(bad < 0, "pong %zu bytes round %d: byte %ld wrong", bytes, i, bad);
        }
    }
    free(buf);
}

/* The odd rank polls with MPI_Test and answers at once; the even one
 * sleeps in MPI_Recv right after its send: the answer, delayed by a
 * varying few microseconds, is published about when the sleeper announces
 * its sleep. */
static void polled_pingpong(int rounds)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    for (int i = 0; i < rounds; i++) {
        int v = -1;
        if (rank & 1) {
            MPI_Request req;
            int flag = 0;
            CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req));
            while (!flag)
                CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK(v == i, "polled ping %d: %d", i, v);
            /* Answer after 0 to a few microseconds, sweeping the moment
             * the peer stops polling and announces its sleep. */
            for (volatile int spin = (i * 37) % 4000; spin > 0; spin--)
                ;
            v = -i;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Send(&i, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == -i, "polled pong %d: %d", i, v);
        }
    }
}

/* One way, back to back: the receiver empties its ring about as fast as
 * the sender fills it, so it announces its sleep just as records are
 * published (the race the fence is for). */
static void stream(int messages)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    for (int i = 0; i < messages; i++) {
        int v[2] = { rank, i }, w[2] = { -1, -1 };
        if (rank & 1) {
            CHECK_MPI(MPI_Recv(w, 2, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(w[0] == peer && w[1] == i, "stream message %d: %d %d", i, w[0], w[1]);
        } else {
            CHECK_MPI(MPI_Send(v, 2, MPI_INT, peer, 6, MPI_COMM_WORLD));
        }
    }
}

static void ring(int rounds)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < rounds; i++) {
        unsigned char out[24], in[24];
        uzt_fill(out, sizeof(out), rank, i);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, sizeof(out), MPI_BYTE, right, 3, in, sizeof(in), MPI_BYTE, left, 3,
                               MPI_COMM_WORLD, &st));
        CHECK_EQ(st.MPI_SOURCE, left);
        long bad = uzt_verify(in, sizeof(in), left, i);
        CHECK(bad < 0, "ring round %d: byte %ld wrong", i, bad);
    }
}

/* Rank 0 receives bursts from everyone; between bursts everyone waits
 * for its go (so rank 0 sleeps, then the others do). */
static void bursts(int count, int burst)
{
    enum { WORDS = 4 };
    for (int b = 0; b < count; b++) {
        if (rank == 0) {
            for (int src = 1; src < size; src++)
                for (int j = 0; j < burst; j++) {
                    int in[WORDS];
                    CHECK_MPI(MPI_Recv(in, WORDS, MPI_INT, src, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    for (int w = 0; w < WORDS; w++)
                        CHECK(in[w] == src * 1000000 + b * 1000 + j * 10 + w, "burst %d from %d message %d "
                              "word %d: %d", b, src, j, w, in[w]);
                }
            for (int dst = 1; dst < size; dst++)
                CHECK_MPI(MPI_Send(&b, 1, MPI_INT, dst, 5, MPI_COMM_WORLD));
        } else {
            MPI_Request req[16];
            int out[16][WORDS];
            for (int j = 0; j < burst; j++) {
                for (int w = 0; w < WORDS; w++)
                    out[j][w] = rank * 1000000 + b * 1000 + j * 10 + w;
                CHECK_MPI(MPI_Isend(out[j], WORDS, MPI_INT, 0, 4, MPI_COMM_WORLD, &req[j]));
            }
            CHECK_MPI(MPI_Waitall(burst, req, MPI_STATUSES_IGNORE));
            int go = -1;
            CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_EQ(go, b);
        }
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    MPI_T_pvar_session session;
    MPI_T_pvar_handle sleeps = uzt_pvar_counter("wait_sleeps", &session);

    pingpong(8, 3000);
    pingpong(4096, 1000);
    pingpong(128 << 10, 100);
    polled_pingpong(20000);
    stream(200000);
    ring(2000);
    bursts(300, 16);

    /* Each pair's ranks wait for one another at every round: most of
     * those waits must have slept (at least a tenth, to stay clear of
     * waits that found their message already there). */
    unsigned long long slept = uzt_pvar(session, sleeps);
    if (size > 1)
        CHECK(slept >= 600, "rank %d slept only %llu times: the waits did not sleep", rank, slept);
    uzt_pvar_close(&session, &sleeps);
    MPI_T_finalize();
    return uzt_finish("pt2pt_wake");
}
