/*
 * coll_truncate.c — a Scatterv or Gatherv in which one rank's block is
 * larger on the sending side than on the receiving one (an erroneous
 * program) reports MPI_ERR_TRUNCATE where the block is received, at each
 * size the v forms treat differently (a Scatterv block that follows its
 * head in one message, one in a second message, blocks through the shared
 * area, blocks copied once), and leaves nothing behind: the correct calls
 * after it deliver every element, which a message left unreceived on the
 * collective's tag would break.  Both sides stay on the same side of every
 * size limit (across one, the v forms may hang: docs/collectives.md).
 * CMake runs it with the automatic choice, with cross-memory attach off
 * and with the area named, where a Gatherv goes by the root's plan and
 * the root hears who sent too much only at the call's end (before, it
 * truncated silently and only the sending rank was told).
 */
#include "uztest.h"

static int rank, size;

/* Blocks in ints: (what the sender has, what the receiver takes).  The
 * last pair is above 256 KiB on both sides: between two ranks with a core
 * each, a Scatterv block there goes by message again (coll_policy.c). */
static const int pairs[][2] = { { 20, 10 }, { 1200, 1100 }, { 8000, 7000 }, { 40000, 30000 }, { 90000, 70000 } };
enum { NPAIRS = sizeof(pairs) / sizeof(pairs[0]), MOST = 90000 };

static int value(int owner, int i, int seq)
{
    return owner * 100003 + i * 3 + seq;
}

/* One Scatterv (gather == 0) or Gatherv with every block `n` ints, except
 * that rank `bad` has `small` on the receiving side (bad < 0: none).
 * Returns this rank's error class. */
static int one(int gather, int root, int n, int bad, int small, int seq, int check)
{
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * MOST;
    }
    int *all = malloc(sizeof(int) * (size_t)MOST * size), *mine = malloc(sizeof(int) * MOST);
    for (int i = 0; i < size; i++)
        for (int e = 0; e < MOST; e++)
            all[(size_t)i * MOST + e] = gather ? -1 : value(i, e, seq);
    for (int e = 0; e < MOST; e++)
        mine[e] = gather ? value(rank, e, seq) : -1;
    int rc;
    if (gather) {
        /* The root takes fewer from `bad` than it sends. */
        if (rank == root && bad >= 0)
            counts[bad] = small;
        rc = MPI_Gatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    } else {
        rc = MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank == bad ? small : n, MPI_INT, root,
                          MPI_COMM_WORLD);
    }
    if (check && rc == MPI_SUCCESS) {
        if (gather && rank == root) {
            for (int i = 0; i < size; i++)
                for (int e = 0; e < n; e++)
                    if (all[(size_t)i * MOST + e] != value(i, e, seq)) {
                        CHECK(0, "Gatherv of %d ints: rank %d's element %d is %d", n, i, e,
                              all[(size_t)i * MOST + e]);
                        break;
                    }
        } else if (!gather) {
            for (int e = 0; e < n; e++)
                if (mine[e] != value(rank, e, seq)) {
                    CHECK(0, "Scatterv of %d ints: element %d is %d", n, e, mine[e]);
                    break;
                }
        }
    }
    free(counts);
    free(displs);
    free(all);
    free(mine);
    return uzt_class(rc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int seq = 0;
    for (int round = 0; round < 2 && size > 1; round++)
        for (int k = 0; k < NPAIRS; k++)
            for (int gather = 0; gather < 2; gather++) {
                int root = (round + k) % size, bad = (root + 1) % size;
                int n = pairs[k][0], small = pairs[k][1];
                int cls = one(gather, root, n, bad, small, ++seq, 0);
                int receiver = gather ? root : bad;
                if (rank == receiver)
                    CHECK(cls == MPI_ERR_TRUNCATE, "%s of %d ints into %d: error class %d, not MPI_ERR_TRUNCATE",
                          gather ? "Gatherv" : "Scatterv", n, small, cls);
                else
                    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE,
                          "%s of %d ints into %d: rank %d got error class %d", gather ? "Gatherv" : "Scatterv", n,
                          small, receiver, cls);
                /* Nothing left behind: the same sizes again, correct,
                 * back to back, then every size. */
                for (int again = 0; again < 3; again++)
                    CHECK_EQ(one(gather, root, n, -1, 0, ++seq, 1), MPI_SUCCESS);
                for (int j = 0; j < NPAIRS; j++)
                    CHECK_EQ(one(!gather, bad, pairs[j][0], -1, 0, ++seq, 1), MPI_SUCCESS);
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            }
    return uzt_finish("coll_truncate");
}
