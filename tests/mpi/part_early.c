/*
 * part_early.c — partitions travel as they become ready, not at the last
 * MPI_Pready: each sender readies all partitions but the last, then waits
 * in an ordinary MPI_Recv for its receiver, which must first see every
 * readied partition arrive (MPI_Parrived) while the last one has not.  The
 * receiver gives up after a bounded number of polls and sends the ordinary
 * message anyway, so that a failure is reported, never a hang.
 */
#include <sched.h>

#include "uztest.h"

enum { P = 6, TAG = 3, GO_TAG = 4, MAX_POLLS = 5000000 };

/* Poll partition i until it arrives; 0 if it never did. */
static int wait_arrived(MPI_Request r, int i)
{
    for (long n = 0; n < MAX_POLLS; n++) {
        int flag = 0;
        CHECK_MPI(MPI_Parrived(r, i, &flag));
        if (flag)
            return 1;
        if (n > 1000)
            sched_yield();      /* more ranks than cores: let the sender run */
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    const size_t sizes[] = { 8, 4096, 1 << 20 };       /* per partition: eager to rendezvous */
    for (int k = 0; k < 3; k++) {
        size_t n = sizes[k];
        unsigned char *sb = malloc(n * P), *rb = malloc(n * P);
        MPI_Request s, r;
        CHECK_MPI(MPI_Psend_init(sb, P, (MPI_Count)n, MPI_BYTE, to, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
        CHECK_MPI(MPI_Precv_init(rb, P, (MPI_Count)n, MPI_BYTE, from, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        for (int round = 0; round < 2; round++) {
            uzt_fill(sb, n * P, rank, k * 10 + round);
            memset(rb, 0, n * P);
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Start(&s));
            CHECK_MPI(MPI_Pready_range(0, P - 2, s));
            /* Even ranks wait for their receiver first and odd ones receive
             * first, so that two ranks never wait for each other. */
            for (int phase = 0; phase < 2; phase++) {
                if ((phase == 0) == (rank % 2 == 0) && size > 1) {
                    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, to, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Pready(P - 1, s));
                } else {
                    for (int i = 0; i < P - 1; i++)
                        CHECK(wait_arrived(r, i), "size %zu round %d: partition %d never arrived before the "
                              "last MPI_Pready", n, round, i);
                    int flag = 1;
                    CHECK_MPI(MPI_Parrived(r, P - 1, &flag));
                    CHECK(!flag || size == 1, "size %zu: the last partition arrived before it was ready", n);
                    long bad = uzt_verify(rb, n * (P - 1), from, k * 10 + round);
                    CHECK(bad < 0, "size %zu round %d: early byte %ld wrong", n, round, bad);
                    if (size > 1)
                        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, from, GO_TAG, MPI_COMM_WORLD));
                    else
                        CHECK_MPI(MPI_Pready(P - 1, s));
                }
                if (size == 1)
                    break;
            }
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
            long bad = uzt_verify(rb, n * P, from, k * 10 + round);
            CHECK(bad < 0, "size %zu round %d: byte %ld wrong", n, round, bad);
        }
        MPI_Request_free(&s);
        MPI_Request_free(&r);
        free(sb);
        free(rb);
    }
    return uzt_finish("part_early");
}
