/*
 * pt2pt_unexpected_take.c — receives of messages that are already queued
 * as unexpected when the receive is posted: the plain ones (eager, whole,
 * contiguous, fitting, not synchronous) are copied out without a request
 * (pt2pt/recv.c, take_plainly), the others go through a request.  Each
 * message is first seen by MPI_Iprobe, so it is queued for certain; then
 * the data (every byte), the status (source, tag, count, cancelled, and an
 * MPI_ERROR the receive must leave alone) and the error class are checked.
 * Pairs of ranks (2k sends, 2k + 1 receives); an odd last rank only
 * takes part in the barriers.
 */
#include "uztest.h"

enum { SENTINEL = -77, OFFSET = 16, BUF = 16384 + 8192 };

static int me;          /* this rank: the data of each message is made for its receiver */

/* Also each side of the payload pool's size classes (match.c: 64 bytes
 * inline, then powers of two from 128) and the default eager limit. */
static const int sizes[] = { 0, 1, 8, 63, 64, 65, 128, 129, 1000, 1024, 4096, 16384 };
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

/* Wait until the message (src, tag) is queued here. */
static void await_queued(int src, int tag)
{
    int flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
}

static void check_status(const MPI_Status *st, int src, int tag, int bytes, const char *what)
{
    int count = -1, cancelled = 1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MPI_Test_cancelled(st, &cancelled);
    CHECK(st->MPI_SOURCE == src, "%s: source %d, expected %d", what, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s: tag %d, expected %d", what, st->MPI_TAG, tag);
    CHECK(count == bytes, "%s: count %d, expected %d", what, count, bytes);
    CHECK(!cancelled, "%s: reported cancelled", what);
    CHECK(st->MPI_ERROR == SENTINEL, "%s: MPI_ERROR changed to %d (a receive must leave it)", what,
          st->MPI_ERROR);
}

static void sender(int peer, unsigned char *buf)
{
    int tag = 0;
    /* Plain: contiguous, into a larger buffer, with and without a status. */
    for (int i = 0; i < NSIZES; i++) {
        for (int k = 0; k < 3; k++, tag++) {
            uzt_fill(buf, (size_t)sizes[i], peer, tag);
            CHECK_MPI(MPI_Send(buf, sizes[i], MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        }
    }
    /* Into a contiguous type whose data starts OFFSET bytes in. */
    uzt_fill(buf, 64, peer, tag);
    CHECK_MPI(MPI_Send(buf, 64, MPI_BYTE, peer, tag++, MPI_COMM_WORLD));
    /* Into a strided type: every other 4-byte block. */
    uzt_fill(buf, 64, peer, tag);
    CHECK_MPI(MPI_Send(buf, 64, MPI_BYTE, peer, tag++, MPI_COMM_WORLD));
    /* Longer than the receive buffer. */
    uzt_fill(buf, 64, peer, tag);
    CHECK_MPI(MPI_Send(buf, 64, MPI_BYTE, peer, tag++, MPI_COMM_WORLD));
    /* Synchronous: completes only once received (the receiver acknowledges). */
    MPI_Request req;
    uzt_fill(buf, 32, peer, tag);
    CHECK_MPI(MPI_Issend(buf, 32, MPI_BYTE, peer, tag++, MPI_COMM_WORLD, &req));
    int done = 0;
    CHECK_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    CHECK(!done, "an Issend completed before its receive was posted");
    MPI_Barrier(MPI_COMM_WORLD);        /* the receiver has probed it, not received it */
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void receiver(int peer, unsigned char *buf)
{
    int tag = 0;
    char what[64];
    for (int i = 0; i < NSIZES; i++) {
        for (int k = 0; k < 3; k++, tag++) {
            int bytes = sizes[i];
            snprintf(what, sizeof(what), "%d bytes, case %d", bytes, k);
            await_queued(peer, tag);
            memset(buf, 0xee, BUF);
            MPI_Status st;
            st.MPI_ERROR = SENTINEL;
            if (k == 0) {
                CHECK_MPI(MPI_Recv(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                check_status(&st, peer, tag, bytes, what);
            } else if (k == 1) {
                CHECK_MPI(MPI_Recv(buf, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                /* A buffer of 4096 more: the count is the message's. */
                CHECK_MPI(MPI_Recv(buf, bytes + 4096, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                check_status(&st, peer, tag, bytes, what);
            }
            long bad = uzt_verify(buf, (size_t)bytes, me, tag);
            CHECK(bad < 0, "%s: byte %ld wrong", what, bad);
            CHECK(buf[bytes] == 0xee, "%s: byte %d past the message written", what, bytes);
        }
    }

    /* A contiguous type starting OFFSET bytes into the buffer. */
    MPI_Datatype shifted;
    int len = 64;
    MPI_Aint disp = OFFSET;
    CHECK_MPI(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &shifted));
    CHECK_MPI(MPI_Type_commit(&shifted));
    await_queued(peer, tag);
    memset(buf, 0xee, BUF);
    MPI_Status st;
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Recv(buf, 1, shifted, peer, tag, MPI_COMM_WORLD, &st));
    check_status(&st, peer, tag, 64, "shifted type");
    long bad = uzt_verify(buf + OFFSET, 64, me, tag);
    CHECK(bad < 0, "shifted type: byte %ld wrong", bad);
    for (int i = 0; i < OFFSET; i++)
        CHECK(buf[i] == 0xee, "shifted type: byte %d before the data written", i);
    CHECK(buf[OFFSET + 64] == 0xee, "shifted type: byte after the data written");
    MPI_Type_free(&shifted);
    tag++;

    /* A strided type: 16 blocks of 4 bytes, 8 apart. */
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(16, 4, 8, MPI_BYTE, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    await_queued(peer, tag);
    memset(buf, 0xee, BUF);
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Recv(buf, 1, strided, peer, tag, MPI_COMM_WORLD, &st));
    check_status(&st, peer, tag, 64, "strided type");
    unsigned char expect[64];
    uzt_fill(expect, 64, me, tag);
    for (int b = 0; b < 16; b++) {
        CHECK(!memcmp(buf + 8 * b, expect + 4 * b, 4), "strided type: block %d wrong", b);
        CHECK(buf[8 * b + 4] == 0xee, "strided type: gap after block %d written", b);
    }
    MPI_Type_free(&strided);
    tag++;

    /* Longer than the buffer: MPI_ERR_TRUNCATE, the buffer's bytes filled. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    await_queued(peer, tag);
    memset(buf, 0xee, BUF);
    int rc = MPI_Recv(buf, 32, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(uzt_class(rc) == MPI_ERR_TRUNCATE, "a 64-byte message into 32 bytes: class %d, expected "
          "MPI_ERR_TRUNCATE", uzt_class(rc));
    bad = uzt_verify(buf, 32, me, tag);
    CHECK(bad < 0, "truncated: byte %ld wrong", bad);
    CHECK(buf[32] == 0xee, "truncated: byte past the buffer written");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    tag++;

    /* Synchronous: queued, probed, and only then received. */
    await_queued(peer, tag);
    MPI_Barrier(MPI_COMM_WORLD);
    memset(buf, 0xee, BUF);
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Recv(buf, 32, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    check_status(&st, peer, tag, 32, "synchronous");
    bad = uzt_verify(buf, 32, me, tag);
    CHECK(bad < 0, "synchronous: byte %ld wrong", bad);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    me = rank;
    unsigned char *buf = malloc(BUF);
    if (rank % 2 == 0 && rank + 1 < size)
        sender(rank + 1, buf);
    else if (rank % 2 == 1)
        receiver(rank - 1, buf);
    else
        MPI_Barrier(MPI_COMM_WORLD);    /* the synchronous case's */
    free(buf);
    return uzt_finish("pt2pt_unexpected_take");
}
