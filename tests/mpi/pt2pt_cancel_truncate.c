/*
 * pt2pt_cancel_truncate.c — MPI_Cancel of receives (always) and of sends
 * not yet matched (rendezvous and synchronous), with MPI_Test_cancelled;
 * and truncation: a message longer than the receive buffer gives
 * MPI_ERR_TRUNCATE while the status still says who sent it, and the bytes
 * that fit are delivered.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = rank ^ 1;
    int active = peer < size;
    MPI_Status st;
    MPI_Request req;

    /* A receive nobody will satisfy is cancelled. */
    int x;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "cancelled receive not reported cancelled");

    if (active) {
        static unsigned char big[1 << 20];
        /* Sends the peer never receives: a rendezvous send and a synchronous
         * eager one, both cancellable while unmatched. */
        const size_t sizes[] = { 1 << 20, 16 };
        for (int i = 0; i < 2; i++) {
            CHECK_MPI(MPI_Issend(big, (int)sizes[i], MPI_BYTE, peer, 500 + i, MPI_COMM_WORLD, &req));
            /* Let the request reach the peer before cancelling. */
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.05)
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK_MPI(MPI_Cancel(&req));
            CHECK_MPI(MPI_Wait(&req, &st));
            MPI_Test_cancelled(&st, &flag);
            CHECK(flag, "unmatched %zu-byte synchronous send was not cancelled", sizes[i]);
        }
        /* Both sides done cancelling before anything else moves. */
        MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 1, NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* Nothing cancelled may still be delivered. */
        for (int t = 500; t <= 501; t++) {
            CHECK_MPI(MPI_Iprobe(peer, t, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "a cancelled message was still delivered (tag %d)", t);
        }

        /* A send that was received cannot be cancelled. */
        int v = 7, w = 0;
        if (rank < peer) {
            CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, peer, 600, MPI_COMM_WORLD, &req));
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 601, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Cancel(&req);
            CHECK_MPI(MPI_Wait(&req, &st));
            MPI_Test_cancelled(&st, &flag);
            CHECK(!flag, "a delivered send was reported cancelled");
        } else {
            MPI_Recv(&w, 1, MPI_INT, peer, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(w == 7, "received %d", w);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 601, MPI_COMM_WORLD);
        }

        /* Truncation, eager and rendezvous, posted first and unexpected. */
        const size_t msg[] = { 100, 20000, 200000 };
        for (int i = 0; i < 3; i++) {
            for (int unexpected = 0; unexpected < 2; unexpected++) {
                size_t n = msg[i], cap = n / 2 + 3;
                unsigned char *out = malloc(n), *in = calloc(1, n);
                uzt_fill(out, n, rank, i);
                MPI_Request rr = MPI_REQUEST_NULL, sr;
                if (!unexpected)
                    MPI_Irecv(in, (int)cap, MPI_BYTE, peer, 700 + i, MPI_COMM_WORLD, &rr);
                MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 2, NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                MPI_Isend(out, (int)n, MPI_BYTE, peer, 700 + i, MPI_COMM_WORLD, &sr);
                int rc;
                if (unexpected) {
                    MPI_Probe(peer, 700 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    rc = MPI_Recv(in, (int)cap, MPI_BYTE, peer, 700 + i, MPI_COMM_WORLD, &st);
                } else {
                    rc = MPI_Wait(&rr, &st);
                }
                CHECK(uzt_class(rc) == MPI_ERR_TRUNCATE, "%zu bytes into %zu: class %d, expected MPI_ERR_TRUNCATE",
                      n, cap, uzt_class(rc));
                char text[MPI_MAX_ERROR_STRING];
                int len;
                MPI_Error_string(rc, text, &len);
                CHECK(strstr(text, "longer than the receive buffer") != NULL, "message: %s", text);
                CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 700 + i, "truncated status source %d tag %d",
                      st.MPI_SOURCE, st.MPI_TAG);
                long bad = uzt_verify(in, cap, peer, i);
                CHECK(bad < 0, "truncated receive: byte %ld of the part that fits is wrong", bad);
                CHECK(in[cap] == 0, "truncated receive wrote past the buffer");
                CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
                free(out);
                free(in);
            }
        }
    }
    return uzt_finish("pt2pt_cancel_truncate");
}
