/*
 * pt2pt_persistent.c — persistent requests of every send mode, started
 * many times with MPI_Start and MPI_Startall, their data checked each
 * round; inactive requests in MPI_Wait/Test; MPI_Request_free.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    const size_t n = 70000;         /* rendezvous size; 64 below is eager */
    unsigned char *sb[4], *rb[4];
    MPI_Request sreq[4], rreq[4];
    char *bbuf = malloc(4 * (n + MPI_BSEND_OVERHEAD));
    MPI_Buffer_attach(bbuf, (int)(4 * (n + MPI_BSEND_OVERHEAD)));
    for (int k = 0; k < 4; k++) {
        size_t len = k % 2 ? 64 : n;
        sb[k] = malloc(len);
        rb[k] = malloc(len);
        CHECK_MPI(MPI_Recv_init(rb[k], (int)len, MPI_BYTE, from, k, MPI_COMM_WORLD, &rreq[k]));
    }
    CHECK_MPI(MPI_Send_init(sb[0], (int)n, MPI_BYTE, to, 0, MPI_COMM_WORLD, &sreq[0]));
    CHECK_MPI(MPI_Ssend_init(sb[1], 64, MPI_BYTE, to, 1, MPI_COMM_WORLD, &sreq[1]));
    CHECK_MPI(MPI_Bsend_init(sb[2], (int)n, MPI_BYTE, to, 2, MPI_COMM_WORLD, &sreq[2]));
    CHECK_MPI(MPI_Rsend_init(sb[3], 64, MPI_BYTE, to, 3, MPI_COMM_WORLD, &sreq[3]));

    /* An inactive request completes at once with an empty status. */
    MPI_Status st;
    int flag = 0;
    CHECK_MPI(MPI_Test(&rreq[0], &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive request status");
    CHECK(rreq[0] != MPI_REQUEST_NULL, "persistent request freed by MPI_Test");

    for (int round = 0; round < 25; round++) {
        for (int k = 0; k < 4; k++)
            uzt_fill(sb[k], k % 2 ? 64 : n, rank, round * 4 + k);
        CHECK_MPI(MPI_Startall(4, rreq));
        /* Ready sends need the receive posted: make sure it is. */
        MPI_Sendrecv(NULL, 0, MPI_BYTE, from, 99, NULL, 0, MPI_BYTE, to, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < 4; k++)
            CHECK_MPI(MPI_Start(&sreq[k]));
        MPI_Status sts[4];
        CHECK_MPI(MPI_Waitall(4, rreq, sts));
        CHECK_MPI(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 4; k++) {
            size_t len = k % 2 ? 64 : n;
            int count;
            MPI_Get_count(&sts[k], MPI_BYTE, &count);
            CHECK(count == (int)len && sts[k].MPI_SOURCE == from && sts[k].MPI_TAG == k,
                  "round %d request %d: count %d source %d tag %d", round, k, count, sts[k].MPI_SOURCE,
                  sts[k].MPI_TAG);
            long bad = uzt_verify(rb[k], len, from, round * 4 + k);
            CHECK(bad < 0, "round %d request %d: byte %ld wrong", round, k, bad);
            CHECK(rreq[k] != MPI_REQUEST_NULL && sreq[k] != MPI_REQUEST_NULL, "persistent handle cleared");
        }
    }
    for (int k = 0; k < 4; k++) {
        CHECK_MPI(MPI_Request_free(&rreq[k]));
        CHECK_MPI(MPI_Request_free(&sreq[k]));
        CHECK(rreq[k] == MPI_REQUEST_NULL, "MPI_Request_free did not reset the handle");
        free(sb[k]);
        free(rb[k]);
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    free(bbuf);
    return uzt_finish("pt2pt_persistent");
}
