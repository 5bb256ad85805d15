/*
 * part_merge_rounds.c — a merged run must not leave receives behind for
 * the next round (docs/point-to-point.md, "Partitioned communication"):
 * ranks pair up (2k sends to 2k+1) and alternate, for many rounds, a round
 * that sends every partition as one large run (rendezvous: the receives
 * for all but its first partition are withdrawn) with rounds that send
 * runs starting at those partitions.  The sender may finish a run's copy
 * and start the next round before the receiver's progress has reported
 * the copy done; a receive of the old round still posted then would take
 * the new round's run, and the receiver would wait for it forever or see
 * the wrong round's bytes.  Checked: every partition's bytes when
 * MPI_Parrived says it is there, and the whole buffer after MPI_Wait.
 */
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

enum { P = 8, TAG = 5, ROUNDS = 120 };

static int rank, size;

static int value(int r, long e)
{
    return r * 1000003 + (int)e;
}

/* The sender's ways of readying a round: all as one run, then runs that
 * begin at partitions the one-run round withdrew. */
static void ready_round(MPI_Request s, int round)
{
    switch (round % 4) {
    case 0:
    case 2:
        CHECK_MPI(MPI_Pready_range(0, P - 1, s));
        break;
    case 1:                                         /* runs at 2, 5, 0 */
        CHECK_MPI(MPI_Pready_range(2, 4, s));
        CHECK_MPI(MPI_Pready_range(5, P - 1, s));
        CHECK_MPI(MPI_Pready_range(0, 1, s));
        break;
    default:                                        /* one at a time, from the end */
        for (int i = P - 1; i >= 0; i--)
            CHECK_MPI(MPI_Pready(i, s));
        break;
    }
}

/* n ints per partition (on both sides). */
static void run_case(int n)
{
    long elems = (long)n * P;
    int *buf = calloc((size_t)elems, sizeof(int));
    CHECK(buf != NULL, "out of memory");
    int partner = rank ^ 1;
    MPI_Request req;
    if (rank % 2 == 0)
        CHECK_MPI(MPI_Psend_init(buf, P, n, MPI_INT, partner, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else
        CHECK_MPI(MPI_Precv_init(buf, P, n, MPI_INT, partner, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < ROUNDS; round++) {
        if (rank % 2 == 0) {
            for (long e = 0; e < elems; e++)
                buf[e] = value(round, e);
            CHECK_MPI(MPI_Start(&req));
            ready_round(req, round);
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            continue;
        }
        memset(buf, 0xff, sizeof(int) * (size_t)elems);
        CHECK_MPI(MPI_Start(&req));
        int seen[P] = { 0 }, nseen = 0;
        while (nseen < P) {
            for (int j = 0; j < P; j++) {
                int flag = 0;
                if (seen[j])
                    continue;
                CHECK_MPI(MPI_Parrived(req, j, &flag));
                if (!flag)
                    continue;
                seen[j] = 1;
                nseen++;
                long bad = -1;
                for (long e = j * (long)n; e < (j + 1) * (long)n && bad < 0; e++)
                    if (buf[e] != value(round, e))
                        bad = e;
                CHECK(bad < 0, "n %d round %d: partition %d arrived with element %ld wrong", n, round, j, bad);
            }
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        long bad = -1;
        for (long e = 0; e < elems && bad < 0; e++)
            if (buf[e] != value(round, e))
                bad = e;
        CHECK(bad < 0, "n %d round %d: element %ld wrong after MPI_Wait", n, round, bad);
    }
    CHECK_MPI(MPI_Request_free(&req));
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < size - size % 2) {
        run_case(16384);            /* 64 KiB partitions: 512 KiB runs, one-copy pulls */
        run_case(4096);             /* 16 KiB partitions: eager singles, rendezvous runs */
    }
    return uzt_finish("part_merge_rounds");
}
