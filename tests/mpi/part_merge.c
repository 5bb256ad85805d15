/*
 * part_merge.c — a run of partitions readied together travels as one
 * message (docs/point-to-point.md, "Partitioned communication"): ranks pair
 * up (2k sends to 2k+1), and every round readies the partitions in another
 * way — all with one MPI_Pready_range, two ranges and a list in reverse
 * order, a list that makes one run of two halves, one MPI_Pready at a time
 * (no merging), every other one and then the rest.  The sender counts its
 * data messages with the MPI_T pvar partitioned_messages and checks each
 * round's count; the receiver, with half as many partitions of twice the
 * size, checks each partition's bytes as soon as MPI_Parrived says it is
 * there, and the whole buffer after MPI_Wait.  Small partitions (eager),
 * large ones (rendezvous, runs of up to 2 MiB) and a non-contiguous
 * datatype (staging copies).
 */
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

enum { P = 16, TAG = 9, ROUNDS = 6 };

static int rank, size;
static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_msgs;

static unsigned long long messages_sent(void)
{
    return uzt_pvar(pv_session, pv_msgs);
}

/* The value element e of the whole message has in round r. */
static int value(int r, long e)
{
    return r * 1000003 + (int)e;
}

/* Ready the partitions of round `round` in its way; the messages it must take. */
static int ready_round(MPI_Request s, int round)
{
    int list[P];
    switch (round % ROUNDS) {
    case 0:                                         /* all at once: one run */
        CHECK_MPI(MPI_Pready_range(0, P - 1, s));
        return 1;
    case 1:                                         /* [4,9], [0,3], then a list of [10,15] reversed */
        CHECK_MPI(MPI_Pready_range(4, 9, s));
        CHECK_MPI(MPI_Pready_range(0, 3, s));
        for (int i = 0; i < 6; i++)
            list[i] = 15 - i;
        CHECK_MPI(MPI_Pready_list(6, list, s));
        return 3;
    case 2:                                         /* one list, its two halves swapped: one run */
        for (int i = 0; i < P; i++)
            list[i] = (i + P / 2) % P;
        CHECK_MPI(MPI_Pready_list(P, list, s));
        return 1;
    case 3:                                         /* one at a time: nothing to merge */
        for (int i = 0; i < P; i++)
            CHECK_MPI(MPI_Pready(i, s));
        return P;
    case 4:                                         /* evens, then the odds: no neighbours either time */
        for (int i = 0; i < P / 2; i++)
            list[i] = 2 * i;
        CHECK_MPI(MPI_Pready_list(P / 2, list, s));
        for (int i = 0; i < P / 2; i++)
            list[i] = 2 * i + 1;
        CHECK_MPI(MPI_Pready_list(P / 2, list, s));
        return P;
    default:                                        /* a list of [0,7] backwards, then [8,15] */
        for (int i = 0; i < P / 2; i++)
            list[i] = P / 2 - 1 - i;
        CHECK_MPI(MPI_Pready_list(P / 2, list, s));
        CHECK_MPI(MPI_Pready_range(P / 2, P - 1, s));
        return 2;
    }
}

/* n ints per send partition, as `dt` (MPI_INT, or a strided vector of
 * 2 ints: stride elements of that type, half of each skipped). */
static void run_case(int n, int strided)
{
    MPI_Datatype dt = MPI_INT;
    int per = 1, span = 1;          /* ints of data per element, ints of memory per element */
    if (strided) {
        CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &dt));
        CHECK_MPI(MPI_Type_commit(&dt));
        per = 2;
        span = 3;                   /* extent: 3 ints, the middle one a hole */
    }
    long elems = (long)n * P;       /* elements of dt in the whole message */
    int *buf = calloc((size_t)(elems * span + 1), sizeof(int));
    CHECK(buf != NULL, "out of memory");
    int partner = rank ^ 1;
    MPI_Request req;
    if (rank % 2 == 0) {
        CHECK_MPI(MPI_Psend_init(buf, P, n, dt, partner, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    } else {
        CHECK_MPI(MPI_Precv_init(buf, P / 2, 2 * n, dt, partner, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    }
    /* A first round binds the pair; counting starts after it. */
    for (int round = -1; round < 2 * ROUNDS; round++) {
        int r = round < 0 ? 0 : round;
        if (rank % 2 == 0) {
            for (long e = 0; e < elems; e++)
                for (int k = 0; k < per; k++)
                    buf[e * span + 2 * k] = value(round + 1, e * per + k);
            unsigned long long before = messages_sent();
            CHECK_MPI(MPI_Start(&req));
            int expect = ready_round(req, r);
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (round >= 0)
                CHECK(messages_sent() - before == (unsigned long long)expect,
                      "n %d%s round %d: %llu messages, expected %d", n, strided ? " strided" : "", round,
                      messages_sent() - before, expect);
        } else {
            memset(buf, 0xff, sizeof(int) * (size_t)(elems * span));
            CHECK_MPI(MPI_Start(&req));
            int seen[P / 2] = { 0 }, nseen = 0;
            long per_part = 2L * n;  /* elements of one receive partition */
            while (nseen < P / 2) {
                for (int j = 0; j < P / 2; j++) {
                    int flag = 0;
                    if (seen[j])
                        continue;
                    CHECK_MPI(MPI_Parrived(req, j, &flag));
                    if (!flag)
                        continue;
                    seen[j] = 1;
                    nseen++;
                    int bad = 0;
                    for (long e = j * per_part; e < (j + 1) * per_part && !bad; e++)
                        for (int k = 0; k < per; k++)
                            bad |= buf[e * span + 2 * k] != value(round + 1, e * per + k);
                    CHECK(!bad, "n %d%s round %d: receive partition %d arrived with wrong data", n,
                          strided ? " strided" : "", round, j);
                }
            }
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&req, &st));
            long bad = -1;
            for (long e = 0; e < elems && bad < 0; e++)
                for (int k = 0; k < per; k++)
                    if (buf[e * span + 2 * k] != value(round + 1, e * per + k))
                        bad = e;
            CHECK(bad < 0, "n %d%s round %d: element %ld wrong after MPI_Wait", n, strided ? " strided" : "",
                  round, bad);
            if (strided)
                CHECK(buf[1] == -1, "the datatype's hole was written");
        }
    }
    CHECK_MPI(MPI_Request_free(&req));
    if (strided)
        MPI_Type_free(&dt);
    free(buf);
}

int main(int argc, char **argv)
{
    int provided, idx, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_session_create(&pv_session), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_get_index("partitioned_messages", MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_handle_alloc(pv_session, idx, NULL, &pv_msgs, &count), MPI_SUCCESS);
    MPI_T_pvar_start(pv_session, pv_msgs);
    if (rank < size - size % 2) {
        run_case(4, 0);             /* 16-byte partitions: eager, runs too */
        run_case(32768, 0);         /* 128 KiB partitions: rendezvous runs up to 2 MiB */
        run_case(3, 1);             /* a non-contiguous datatype: staging, unpacked runs */
    }
    MPI_T_pvar_session_free(&pv_session);
    MPI_T_finalize();
    return uzt_finish("part_merge");
}
