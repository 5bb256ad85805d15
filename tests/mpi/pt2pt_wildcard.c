/*
 * pt2pt_wildcard.c — many senders, one receiver with MPI_ANY_SOURCE and
 * MPI_ANY_TAG: every message arrives once, with the right data, and the
 * messages of each sender arrive in the order it sent them (MPI's
 * non-overtaking rule), whether the receives were posted before the
 * messages arrived or after, and for sizes from one cache line to
 * rendezvous.
 */
#include "uztest.h"

enum { PER_SENDER = 200 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t lens[] = { 4, 100, 3000, 20000, 100000 };
    enum { NLENS = sizeof(lens) / sizeof(lens[0]) };
    unsigned char *buf = malloc(100000 + sizeof(int));

    for (int phase = 0; phase < 2; phase++) {       /* 0: receives first; 1: messages first */
        if (rank != 0) {
            if (phase == 1) {
                /* Wait until rank 0 says its receives are not posted yet. */
                MPI_Recv(NULL, 0, MPI_BYTE, 0, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            for (int i = 0; i < PER_SENDER; i++) {
                size_t n = lens[i % NLENS];
                int tag = i % 7;
                uzt_fill(buf, n, rank, i);
                memcpy(buf, &i, sizeof(int));       /* sequence number up front */
                CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
            }
        } else {
            int total = PER_SENDER * (size - 1);
            int *next = calloc(size, sizeof(int));
            if (phase == 1) {
                for (int r = 1; r < size; r++)
                    MPI_Send(NULL, 0, MPI_BYTE, r, 900, MPI_COMM_WORLD);
                /* Let the messages pile up unexpected. */
                double t0 = MPI_Wtime();
                while (MPI_Wtime() - t0 < 0.2) {
                    int f;
                    MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
                }
            }
            for (int k = 0; k < total; k++) {
                MPI_Status st;
                CHECK_MPI(MPI_Recv(buf, 100000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                int src = st.MPI_SOURCE, seq, count;
                CHECK(src > 0 && src < size, "bad source %d", src);
                if (src <= 0 || src >= size)
                    continue;
                memcpy(&seq, buf, sizeof(int));
                CHECK(seq == next[src], "from %d: message %d arrived when %d was due (overtaking)", src, seq,
                      next[src]);
                next[src] = seq + 1;
                size_t n = lens[seq % NLENS];
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)n, "from %d message %d: count %d, expected %zu", src, seq, count, n);
                CHECK(st.MPI_TAG == seq % 7, "from %d message %d: tag %d", src, seq, st.MPI_TAG);
                if (n > sizeof(int)) {
                    long bad = uzt_verify(buf + sizeof(int), n - sizeof(int), src, seq);
                    /* uzt_verify indexes from 0: compare against the shifted pattern. */
                    unsigned char *ref = malloc(n);
                    uzt_fill(ref, n, src, seq);
                    CHECK(memcmp(ref + sizeof(int), buf + sizeof(int), n - sizeof(int)) == 0,
                          "from %d message %d: data differs", src, seq);
                    (void)bad;
                    free(ref);
                }
            }
            for (int r = 1; r < size; r++)
                CHECK(next[r] == PER_SENDER, "from %d: %d messages, expected %d", r, next[r], PER_SENDER);
            free(next);
        }
    }

    /* Specific-source receives interleaved with wildcard ones: a message
     * goes to the receive posted first. */
    if (size >= 2) {
        if (rank == 0) {
            MPI_Request r[3];
            int a = -1, b = -1, c = -1;
            MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[1]);
            MPI_Irecv(&c, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &r[2]);
            MPI_Send(NULL, 0, MPI_BYTE, 1, 901, MPI_COMM_WORLD);
            MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
            CHECK(a == 10 && b == 11 && c == 12, "posting order not respected: %d %d %d", a, b, c);
        } else if (rank == 1) {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, 901, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int v = 10; v <= 12; v++)
                MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    }
    free(buf);
    return uzt_finish("pt2pt_wildcard");
}
