/*
 * pt2pt_modes.c — every send mode, blocking and nonblocking, at sizes on
 * both sides of every protocol threshold (one cache-line slot, one ring
 * record, the eager limit, bulk chunks), around a ring of ranks and to
 * self.  Every byte, the status source/tag/count and the error field are
 * checked.
 */
#include "uztest.h"

static const size_t sizes[] = {
    0, 1, 7, 39, 40, 41, 56, 64, 100, 1000, 4095, 4096, 16 * 1024 - 40, 16 * 1024 - 16, 16 * 1024,
    16 * 1024 + 1, 40000, 65535, 65536, 65537, 131072 + 3, 1 << 20, (4 << 20) + 5,
};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

enum mode { STANDARD, SYNC, READY, BUFFERED, ISEND, ISSEND, IRSEND, IBSEND, NMODES };
static const char *mode_names[] = { "Send", "Ssend", "Rsend", "Bsend", "Isend", "Issend", "Irsend", "Ibsend" };

static int rank, size;

static void do_send(enum mode m, const void *buf, size_t n, int dest, int tag)
{
    MPI_Request req = MPI_REQUEST_NULL;
    switch (m) {
    case STANDARD: CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case SYNC: CHECK_MPI(MPI_Ssend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case READY: CHECK_MPI(MPI_Rsend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case BUFFERED: CHECK_MPI(MPI_Bsend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    case ISEND: CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case ISSEND: CHECK_MPI(MPI_Issend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case IRSEND: CHECK_MPI(MPI_Irsend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    case IBSEND: CHECK_MPI(MPI_Ibsend(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req)); break;
    default: break;
    }
    if (req != MPI_REQUEST_NULL) {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
    }
}

static void check_received(const unsigned char *buf, size_t n, const MPI_Status *st, int src, int tag, int seq,
                           const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src, "%s: status source %d, expected %d", what, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s: status tag %d, expected %d", what, st->MPI_TAG, tag);
    CHECK(count == (int)n, "%s: count %d, expected %zu", what, count, n);
    long bad = uzt_verify(buf, n, src, seq);
    CHECK(bad < 0, "%s: %zu bytes from %d: byte %ld wrong", what, n, src, bad);
}

/* One round: every rank sends to (rank+1) and receives from (rank-1).
 * Ready sends need the receive posted first: a zero-byte handshake says so. */
static void ring_round(enum mode m, size_t n, unsigned char *sbuf, unsigned char *rbuf, int seq)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int tag = (int)(m * 100 + seq % 100);
    MPI_Request rreq;
    MPI_Status st;
    uzt_fill(sbuf, n, rank, seq);
    memset(rbuf, 0, n + 1);
    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rreq));
    if (m == READY || m == IRSEND) {
        /* Tell the sender our receive is posted, then wait to be told. */
        CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, from, 9999, NULL, 0, MPI_BYTE, to, 9999, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
    }
    do_send(m, sbuf, n, to, tag);
    CHECK_MPI(MPI_Wait(&rreq, &st));
    char what[64];
    snprintf(what, sizeof(what), "%s %zu bytes", mode_names[m], n);
    check_received(rbuf, n, &st, from, tag, seq, what);
    CHECK(rbuf[n] == 0, "%s: wrote past the end of the receive buffer", what);
}

/* Messages to self: posted first, and unexpected (sent first). */
static void self_round(size_t n, unsigned char *sbuf, unsigned char *rbuf, int seq)
{
    MPI_Request rreq, sreq;
    MPI_Status st;
    uzt_fill(sbuf, n, rank, seq);
    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    check_received(rbuf, n, &st, rank, 5, seq, "self, posted");
    CHECK_MPI(MPI_Issend(sbuf, (int)n, MPI_BYTE, rank, 6, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, 6, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    check_received(rbuf, n, &st, rank, 6, seq, "self, unexpected synchronous");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t max = sizes[NSIZES - 1];
    unsigned char *sbuf = malloc(max + 1), *rbuf = malloc(max + 1);
    size_t bsize = 2 * (max + MPI_BSEND_OVERHEAD);
    void *battach = malloc(bsize);
    CHECK_MPI(MPI_Buffer_attach(battach, (int)bsize));

    int seq = 0;
    for (int m = 0; m < NMODES; m++)
        for (int s = 0; s < NSIZES; s++)
            ring_round((enum mode)m, sizes[s], sbuf, rbuf, seq++);
    for (int s = 0; s < NSIZES; s++)
        self_round(sizes[s], sbuf, rbuf, seq++);

    /* Unexpected messages: everyone sends before anyone receives. */
    for (int s = 0; s < NSIZES; s++) {
        int to = (rank + 1) % size, from = (rank - 1 + size) % size;
        MPI_Request sreq;
        MPI_Status st;
        uzt_fill(sbuf, sizes[s], rank, seq);
        CHECK_MPI(MPI_Isend(sbuf, (int)sizes[s], MPI_BYTE, to, 77, MPI_COMM_WORLD, &sreq));
        /* Give the message time to arrive before the receive is posted
         * (generous: over a lossy transport on a loaded machine a message
         * may need several backed-off retransmissions). */
        double t0 = MPI_Wtime();
        int flag = 0;
        while (!flag && MPI_Wtime() - t0 < 60)
            MPI_Iprobe(from, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "message of %zu bytes never showed up to MPI_Iprobe", sizes[s]);
        CHECK_MPI(MPI_Recv(rbuf, (int)sizes[s], MPI_BYTE, from, 77, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        check_received(rbuf, sizes[s], &st, from, 77, seq, "unexpected");
        seq++;
    }

    /* MPI_Buffer_iflush: a request that completes once the buffered sends
     * have left the buffer (here, once they are received). */
    {
        int to = (rank + 1) % size, from = (rank - 1 + size) % size;
        MPI_Request flush;
        uzt_fill(sbuf, 1000, rank, seq);
        CHECK_MPI(MPI_Bsend(sbuf, 1000, MPI_BYTE, to, 78, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Buffer_iflush(&flush));
        CHECK(flush != MPI_REQUEST_NULL, "MPI_Buffer_iflush gave no request");
        CHECK_MPI(MPI_Recv(rbuf, 1000, MPI_BYTE, from, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&flush, MPI_STATUS_IGNORE));
        CHECK(flush == MPI_REQUEST_NULL, "MPI_Wait did not free the flush request");
        /* A communicator without a buffer of its own flushes at once. */
        MPI_Comm dup;
        int done = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK_MPI(MPI_Comm_iflush_buffer(dup, &flush));
        CHECK_MPI(MPI_Test(&flush, &done, MPI_STATUS_IGNORE));
        CHECK(done, "MPI_Comm_iflush_buffer with no buffer is not complete");
        MPI_Comm_free(&dup);
        seq++;
    }

    void *back;
    int bback;
    CHECK_MPI(MPI_Buffer_detach(&back, &bback));
    CHECK(back == battach && bback == (int)bsize, "MPI_Buffer_detach returned a different buffer");
    free(battach);
    free(sbuf);
    free(rbuf);
    return uzt_finish("pt2pt_modes");
}
