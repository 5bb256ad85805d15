/*
 * tcp_finalize_drain.c — a sender that calls MPI_Finalize as soon as its
 * sends completed locally, while the receiver has not read them yet.
 *
 * Over tcp a send completes once its bytes are in the kernel or in the
 * transport's queue.  What is queued must still reach the receiver: the
 * sender's MPI_Finalize may not sit in its job-wide fence while bytes a
 * peer still needs wait in this process.  Rank 0 streams messages to
 * rank 1 and finalizes at once; rank 1 starts reading only after a pause
 * and checks every byte.
 *   tcp_finalize_drain eager   256 eager messages of 60000 bytes
 *   tcp_finalize_drain rndv    one 8 MiB message (rendezvous)
 *   tcp_finalize_drain first   one small message, the first between the two
 *                              ranks: the connection is still being made
 *                              when rank 0 reaches MPI_Finalize
 */
#include <unistd.h>

#include "uztest.h"

enum { EAGER = 60000, NEAGER = 256, BIG = 8 << 20 };

static void check(const unsigned char *buf, size_t len, int seq)
{
    size_t bad = 0;
    for (size_t i = 0; i < len; i++)
        bad += buf[i] != uzt_byte(0, seq, i);
    CHECK(bad == 0, "message %d: %zu of %zu bytes differ", seq, bad, len);
}

static void fill(unsigned char *buf, size_t len, int seq)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = uzt_byte(0, seq, i);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "eager";
    int rndv = strcmp(mode, "rndv") == 0, first = strcmp(mode, "first") == 0;
    size_t len = rndv ? (size_t)BIG : first ? 100 : (size_t)EAGER;
    int count = rndv || first ? 1 : NEAGER;
    unsigned char *buf = malloc(len * (size_t)count);
    MPI_Request *req = malloc(sizeof(*req) * (size_t)count);
    if (rank == 0) {
        for (int m = 0; m < count; m++) {
            fill(buf + (size_t)m * len, len, m);
            CHECK_MPI(MPI_Isend(buf + (size_t)m * len, (int)len, MPI_BYTE, 1, m, MPI_COMM_WORLD, &req[m]));
        }
        CHECK_MPI(MPI_Waitall(count, req, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        if (rndv) {
            CHECK_MPI(MPI_Irecv(buf, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req[0]));
            /* Matched at once, then read slowly: test, sleep, test. */
            int done = 0;
            while (!done) {
                usleep(20000);
                CHECK_MPI(MPI_Test(&req[0], &done, MPI_STATUS_IGNORE));
            }
            check(buf, len, 0);
        } else {
            usleep(1000000);
            for (int m = 0; m < count; m++) {
                CHECK_MPI(MPI_Recv(buf, (int)len, MPI_BYTE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                check(buf, len, m);
            }
        }
    }
    free(buf);
    free(req);
    if (rank <= 1)
        printf("tcp_finalize_drain %s: rank %d %s\n", mode, rank, uzt_failures ? "FAILED" : "passed");
    MPI_Finalize();
    return uzt_failures ? 1 : 0;
}
