/*
 * udp_send_done.c — a large send over udp completes once the receive has,
 * without the receiver calling MPI again, and the sender may then reuse its
 * buffer at once.
 *
 * The udp transport sends rendezvous data straight from the user's buffer
 * and keeps the buffer until the receiver's ACK.  A receiver that goes off
 * computing after its receive sends nothing more, so the sender must get
 * that ACK without it (the receiver ACKs a record the sender waits on as
 * soon as it is in) or, if the ACK is slow, copy what is unacknowledged
 * and let the send complete anyway (UZURA_UDP_HOLD_US).  Rank 1 receives,
 * then sleeps outside MPI for PAUSE seconds; rank 0 times its MPI_Send and
 * fails if it took more than half of that (it took the whole pause before
 * either mechanism existed).  Rank 0 then scribbles over its buffer: with
 * UZURA_UDP_FAULTS, data still unacknowledged at that moment is resent
 * after it, and must be resent from the transport's copy — rank 1 checks
 * every byte of every message.
 *
 * Some rounds use MPI_Isend + MPI_Wait from a buffer of their own, freed
 * right after the wait: a nonblocking eager send lends its buffer to udp
 * until the ACK or until the sender, idle in MPI_Wait, copies it, so a
 * byte read from it after the wait (a retransmission, under faults) would
 * be a use after free (caught by ASan) or garbage (caught by rank 1).
 *
 *   udp_send_done [PAUSE_SECONDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 8 };

/* Eager (up to 512 KiB between hosts) and rendezvous, blocking and not. */
static const size_t sizes[ROUNDS] = { 200000, 1 << 20, 3 << 20, 777777, 65536, 300000, 1 << 20, 20000 };
static const int nonblocking[ROUNDS] = { 0, 0, 0, 0, 1, 1, 1, 1 };

static unsigned char pattern(size_t i, int round)
{
    return (unsigned char)(i * 131 + (i >> 9) + (size_t)round * 17 + 1);
}

static void pause_outside_mpi(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    double pause = argc > 1 ? atof(argv[1]) : 2.0;
    int rank, size, failures = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "udp_send_done: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = malloc(3 << 20);
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = sizes[round];
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            unsigned char *from = nonblocking[round] ? malloc(n) : buf;
            for (size_t i = 0; i < n; i++)
                from[i] = pattern(i, round);
            double t0 = MPI_Wtime();
            if (nonblocking[round]) {
                MPI_Request req;
                MPI_Isend(from, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(from, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD);
            }
            double took = MPI_Wtime() - t0;
            memset(from, 0xEE, n);      /* the buffer is ours again */
            if (from != buf)
                free(from);
            if (took > pause / 2) {
                fprintf(stderr, "udp_send_done: round %d: %s of %zu bytes took %.3f s while the receiver "
                        "paused %.1f s outside MPI\n", round, nonblocking[round] ? "MPI_Isend + MPI_Wait" : "MPI_Send",
                        n, took, pause);
                failures++;
            }
        } else {
            MPI_Status st;
            memset(buf, 0, n);
            MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, &st);
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            if ((size_t)count != n || st.MPI_SOURCE != 0 || st.MPI_TAG != round) {
                fprintf(stderr, "udp_send_done: round %d: count %d source %d tag %d\n", round, count,
                        st.MPI_SOURCE, st.MPI_TAG);
                failures++;
            }
            for (size_t i = 0; i < n; i++) {
                if (buf[i] != pattern(i, round)) {
                    fprintf(stderr, "udp_send_done: round %d: byte %zu is %#x, expected %#x\n", round, i,
                            buf[i], pattern(i, round));
                    failures++;
                    break;
                }
            }
            pause_outside_mpi(pause);
        }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("udp_send_done: %s\n", total ? "FAILED" : "every send completed while the receiver was away, data intact");
    free(buf);
    MPI_Finalize();
    return total != 0;
}
