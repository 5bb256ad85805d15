/*
 * pt2pt_threads_mprobe.c — matched probes under MPI_THREAD_MULTIPLE: several
 * threads per rank probe and receive at once, and each message must reach
 * exactly one thread, whole and unmixed.
 *
 * Every rank sends to the next rank of a ring and receives from the
 * previous one.  Two phases:
 *   - per-thread tags: thread t receives only tag t, cycling through
 *     Mprobe+Mrecv, Improbe+Imrecv, Mprobe+Imrecv, Improbe+Mrecv,
 *     Probe+Recv and Iprobe+Irecv;
 *   - wildcards: every thread takes whatever message comes first
 *     (MPI_ANY_SOURCE, MPI_ANY_TAG) with the matched probes; the tag says
 *     which message it is, and each must be taken exactly once.
 * Sizes run from one slot through eager-in-pieces to rendezvous.  Every
 * byte, the probe's and the receive's source, tag and count are checked,
 * and that neither touched the MPI_ERROR field preset in their statuses
 * (MPICH's threaded probe tests count each overwrite as an error).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "uztest.h"

enum { THREADS = 4, ROUNDS = 30, WILD_TAG0 = 1000, PROBE_SENTINEL = 0x77, RECV_SENTINEL = 0x99 };

static const size_t lens[] = { 8, 1000, 12000, 70000, 300000 };
enum { NLENS = sizeof(lens) / sizeof(lens[0]), MAX_LEN = 300000 };

static int rank, size, to, from;
/* The test's traffic has a communicator of its own: a wildcard receive
 * still waiting when a faster rank reaches uzt_finish() must not take
 * the verdict's messages on MPI_COMM_WORLD. */
static MPI_Comm comm;
static atomic_int taken[THREADS * ROUNDS];     /* wildcard phase: times each message was received */
/* A wildcard must not take a message of the first phase from a thread
 * still waiting for it: the phases are separated on each rank (the
 * first phase's messages to a rank have all arrived once its own
 * threads have received them). */
static pthread_barrier_t phase_barrier;

static size_t len_of(int t, int round)
{
    return lens[(round + t) % NLENS];
}

static int seq_of(int t, int round)
{
    return t * 1000 + round;
}

static void check_status(const char *what, const MPI_Status *st, int src, int tag, size_t n, int t, int round,
                         int sentinel)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == (int)n,
          "thread %d round %d %s: source %d tag %d count %d, expected %d %d %zu", t, round, what,
          st->MPI_SOURCE, st->MPI_TAG, count, src, tag, n);
    CHECK(st->MPI_ERROR == sentinel, "thread %d round %d %s: MPI_ERROR overwritten (%d)", t, round, what,
          st->MPI_ERROR);
}

/* Receive one message with thread t's own tag, by the method for this round. */
static void receive_own(int t, int round, unsigned char *in)
{
    size_t n = len_of(t, round);
    MPI_Status pst = { .MPI_ERROR = PROBE_SENTINEL }, rst = { .MPI_ERROR = RECV_SENTINEL };
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0, method = round % 6;
    switch (method) {
    case 0: case 2:
        CHECK_MPI(MPI_Mprobe(from, t, comm, &msg, &pst));
        break;
    case 1: case 3:
        while (!flag)
            CHECK_MPI(MPI_Improbe(from, t, comm, &flag, &msg, &pst));
        break;
    case 4:
        CHECK_MPI(MPI_Probe(from, t, comm, &pst));
        break;
    default:
        while (!flag)
            CHECK_MPI(MPI_Iprobe(from, t, comm, &flag, &pst));
        break;
    }
    check_status("probe", &pst, from, t, n, t, round, PROBE_SENTINEL);
    switch (method) {
    case 0: case 3:
        CHECK_MPI(MPI_Mrecv(in, (int)n, MPI_BYTE, &msg, &rst));
        break;
    case 1: case 2:
        CHECK_MPI(MPI_Imrecv(in, (int)n, MPI_BYTE, &msg, &req));
        CHECK_MPI(MPI_Wait(&req, &rst));
        break;
    case 4:
        CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, from, t, comm, &rst));
        break;
    default:
        CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, from, t, comm, &req));
        CHECK_MPI(MPI_Wait(&req, &rst));
        break;
    }
    CHECK(msg == MPI_MESSAGE_NULL, "thread %d round %d: message handle not consumed", t, round);
    check_status("receive", &rst, from, t, n, t, round, RECV_SENTINEL);
    long bad = uzt_verify(in, n, from, seq_of(t, round));
    CHECK(bad < 0, "thread %d round %d (%zu bytes, method %d): byte %ld wrong", t, round, n, method, bad);
}

/* Receive whichever message comes first; its tag names it. */
static void receive_any(int t, int round, unsigned char *in)
{
    MPI_Status pst = { .MPI_ERROR = PROBE_SENTINEL }, rst = { .MPI_ERROR = RECV_SENTINEL };
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0, method = round % 4;
    if (method % 2 == 0) {
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg, &pst));
    } else {
        while (!flag)
            CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg, &pst));
    }
    int id = pst.MPI_TAG - WILD_TAG0;
    if (id < 0 || id >= THREADS * ROUNDS) {
        CHECK(0, "thread %d round %d: probed tag %d", t, round, pst.MPI_TAG);
        MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        return;
    }
    int st = id / ROUNDS, sr = id % ROUNDS;
    size_t n = len_of(st, sr);
    check_status("wildcard probe", &pst, from, pst.MPI_TAG, n, t, round, PROBE_SENTINEL);
    if (method < 2) {
        CHECK_MPI(MPI_Mrecv(in, (int)n, MPI_BYTE, &msg, &rst));
    } else {
        CHECK_MPI(MPI_Imrecv(in, (int)n, MPI_BYTE, &msg, &req));
        CHECK_MPI(MPI_Wait(&req, &rst));
    }
    check_status("wildcard receive", &rst, from, pst.MPI_TAG, n, t, round, RECV_SENTINEL);
    long bad = uzt_verify(in, n, from, seq_of(st, sr));
    CHECK(bad < 0, "thread %d round %d: message %d (%zu bytes): byte %ld wrong", t, round, id, n, bad);
    atomic_fetch_add(&taken[id], 1);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *out = malloc(MAX_LEN), *in = malloc(MAX_LEN);
    for (int wild = 0; wild < 2; wild++) {
        if (wild)
            pthread_barrier_wait(&phase_barrier);
        for (int round = 0; round < ROUNDS; round++) {
            size_t n = len_of(t, round);
            uzt_fill(out, n, rank, seq_of(t, round));
            memset(in, 0, n);
            MPI_Request sreq;
            int tag = wild ? WILD_TAG0 + t * ROUNDS + round : t;
            CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, to, tag, comm, &sreq));
            if (wild)
                receive_any(t, round, in);
            else
                receive_own(t, round, in);
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
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
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(0, "provided thread level %d", provided);
        return uzt_finish("pt2pt_threads_mprobe");
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    to = (rank + 1) % size;
    from = (rank - 1 + size) % size;
    pthread_t th[THREADS];
    pthread_barrier_init(&phase_barrier, NULL, THREADS);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&phase_barrier);
    MPI_Comm_free(&comm);
    for (int id = 0; id < THREADS * ROUNDS; id++)
        CHECK(atomic_load(&taken[id]) == 1, "wildcard message %d received %d times", id, atomic_load(&taken[id]));
    return uzt_finish("pt2pt_threads_mprobe");
}
