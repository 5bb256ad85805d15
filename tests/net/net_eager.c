/*
 * net_eager.c — messages around the eager limit between two ranks over a
 * network transport: every byte and every status checked, with the
 * receive posted first (placed straight into the user's buffer) and posted
 * late (the message waits as unexpected), and with the send buffer
 * overwritten the moment the send completes (a transport that reads an
 * eager message from the user's buffer must not complete it before it no
 * longer needs those bytes, retransmissions included).
 *
 *   net_eager SIZE...        (np 2; sizes in bytes)
 *
 * net_eager.sh runs it under several UZURA_NET_EAGER_LIMIT and record
 * sizes and checks from the counters which protocol each size took.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ROUNDS = 3 };

static unsigned char pattern(size_t i, int salt)
{
    return (unsigned char)((i * 131u + (size_t)salt * 29u + (i >> 9)) & 0xff);
}

static void fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(i, salt);
}

static int check(const unsigned char *b, size_t n, int salt, const char *what, MPI_Status *st, int tag)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if ((size_t)count != n || st->MPI_SOURCE != 0 || st->MPI_TAG != tag) {
        fprintf(stderr, "%s, %zu bytes: status count %d source %d tag %d\n", what, n, count, st->MPI_SOURCE,
                st->MPI_TAG);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(i, salt)) {
            fprintf(stderr, "%s, %zu bytes: byte %zu is %u, expected %u\n", what, n, i, b[i], pattern(i, salt));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 net_eager SIZE...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int errors = 0;
    for (int a = 1; a < argc; a++) {
        size_t n = strtoull(argv[a], NULL, 0);
        unsigned char *buf = malloc(n ? n : 1);
        if (!buf)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (int round = 0; round < ROUNDS; round++) {
            int salt = a * 16 + round, tag = a * 100 + round;
            MPI_Status st;
            if (rank == 0) {
                /* Posted first: the receiver is waiting. */
                fill(buf, n, salt);
                MPI_Send(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
                memset(buf, 0xEE, n);           /* the send is complete: the buffer is ours */
                /* Posted late: the receiver sleeps before receiving. */
                fill(buf, n, salt + 7);
                MPI_Request rq;
                MPI_Isend(buf, (int)n, MPI_BYTE, 1, tag + 50, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                memset(buf, 0xDD, n);
            } else {
                MPI_Request rq;
                memset(buf, 0, n);
                MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, &st);
                errors += check(buf, n, salt, "posted first", &st, tag);
                usleep(20000);
                memset(buf, 0, n);
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag + 50, MPI_COMM_WORLD, &st);
                errors += check(buf, n, salt + 7, "posted late", &st, tag + 50);
            }
        }
        free(buf);
    }
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d sizes, %d errors\n", all ? "FAIL" : "PASS", argc - 1, all);
    MPI_Finalize();
    return all ? 1 : 0;
}
