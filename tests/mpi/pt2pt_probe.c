/*
 * pt2pt_probe.c — MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv: sizes and envelopes reported before receiving; a matched
 * message cannot be taken by another receive; MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t lens[] = { 0, 8, 1000, 70000, 300000 };
    unsigned char *buf = malloc(300000);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;

    for (int i = 0; i < 5; i++) {
        size_t n = lens[i];
        unsigned char *out = malloc(n + 1);
        uzt_fill(out, n, rank, i);
        MPI_Request sreq;
        MPI_Isend(out, (int)n, MPI_BYTE, to, 10 + i, MPI_COMM_WORLD, &sreq);

        MPI_Status st;
        int count;
        /* Probe, then receive with the size it reported. */
        CHECK_MPI(MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 10 + i && count == (int)n,
              "probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        /* A matched probe takes the message off the queues... */
        MPI_Message msg;
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Improbe(from, 10 + i, MPI_COMM_WORLD, &flag, &msg, &st));
        /* ...so an Iprobe no longer sees it. */
        int again = 1;
        MPI_Iprobe(from, 10 + i, MPI_COMM_WORLD, &again, MPI_STATUS_IGNORE);
        CHECK(!again, "message still visible after MPI_Improbe");
        if (i % 2 == 0) {
            CHECK_MPI(MPI_Mrecv(buf, (int)n, MPI_BYTE, &msg, &st));
        } else {
            MPI_Request rreq;
            CHECK_MPI(MPI_Imrecv(buf, (int)n, MPI_BYTE, &msg, &rreq));
            CHECK_MPI(MPI_Wait(&rreq, &st));
        }
        CHECK(msg == MPI_MESSAGE_NULL, "message handle not reset");
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n && st.MPI_SOURCE == from, "mrecv: count %d source %d", count, st.MPI_SOURCE);
        long bad = uzt_verify(buf, n, from, i);
        CHECK(bad < 0, "mrecv %zu bytes: byte %ld wrong", n, bad);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        free(out);
    }

    /* MPI_PROC_NULL */
    MPI_Message msg;
    MPI_Status st;
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status");
    CHECK_MPI(MPI_Mrecv(buf, 10, MPI_BYTE, &msg, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv of MPI_MESSAGE_NO_PROC");
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not consume MPI_MESSAGE_NO_PROC");
    MPI_Request req;
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK_MPI(MPI_Imrecv(buf, 10, MPI_BYTE, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not consume MPI_MESSAGE_NO_PROC");
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv of MPI_MESSAGE_NO_PROC");
    int flag = 0;
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe(MPI_PROC_NULL)");
    free(buf);
    return uzt_finish("pt2pt_probe");
}
