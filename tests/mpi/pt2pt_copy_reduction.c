/*
 * pt2pt_copy_reduction.c — YAMPII §2.3.3: an eager message arriving in
 * pieces finds no receive, so its first pieces are buffered; the receive is
 * posted while the rest are still coming, and those land directly in the
 * user's buffer.  Run with a small ring (UZURA_SHM_RING_SIZE=4096) and an eager limit above
 * the message (UZURA_EAGER_LIMIT=64k) so that
 * the sender must wait for room between pieces.  The data is checked
 * byte for byte; the script around this test checks (UZURA_VERBOSE=2) that
 * the receiver counted copy-reduced messages.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t n = 60000;     /* under the eager limit, over many 1 KiB ring records */
    unsigned char *buf = malloc(n);
    for (int round = 0; round < 20 && size >= 2; round++) {
        if (rank == 1) {
            uzt_fill(buf, n, rank, round);
            CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD));
        } else if (rank == 0) {
            /* Wait until the message has begun to arrive, then receive it. */
            int flag = 0;
            MPI_Status st;
            while (!flag)
                CHECK_MPI(MPI_Iprobe(1, round, MPI_COMM_WORLD, &flag, &st));
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == (int)n, "probe reports %d bytes, expected %zu", count, n);
            memset(buf, 0, n);
            CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, &st));
            long bad = uzt_verify(buf, n, 1, round);
            CHECK(bad < 0, "round %d: byte %ld wrong", round, bad);
        }
    }
    free(buf);
    return uzt_finish("pt2pt_copy_reduction");
}
