/*
 * p2p.c — point-to-point benchmarks between ranks 0 and 1: ping-pong
 * latency, ping-pong bandwidth (with MPI_Send, or MPI_Isend + MPI_Wait:
 * ibw), bidirectional bandwidth and message rate.
 * Plain MPI, so the same source builds with any implementation's mpicc.
 *
 *   p2p latency|bw|ibw|bibw|rate [min_bytes max_bytes] [--dtype vector] [--seconds S]
 *
 * Prints "bytes value" lines: one-way latency in microseconds, bandwidth
 * in MB/s (10^6 bytes per second), or messages per second.  Each point is
 * the best of several repetitions, the usual way to factor out noise from
 * a shared machine.  With --dtype vector the send side uses a strided
 * vector type (blocks of 8 bytes, stride 16) and the receive side
 * contiguous bytes of the same signature.  With --seconds the repetitions
 * of each size go on for S seconds, and a third column gives their mean:
 * on a noisy machine a long sample of one size says more than the best
 * of five.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, REPS = 5 };

static int rank, use_vector;
static double seconds;
static char *sbuf, *rbuf;

static int iterations(size_t bytes, int base)
{
    if (bytes <= 4096)
        return base;
    long it = (long)base * 4096 / (long)bytes;
    return it < 10 ? 10 : (int)it;
}

/* The send-side datatype for `bytes` of data. */
static MPI_Datatype send_type(size_t bytes, int *count)
{
    if (!use_vector || bytes % 8) {
        *count = (int)bytes;
        return MPI_BYTE;
    }
    MPI_Datatype v;
    MPI_Type_vector((int)(bytes / 8), 8, 16, MPI_BYTE, &v);
    MPI_Type_commit(&v);
    *count = 1;
    return v;
}

static void free_type(MPI_Datatype t)
{
    if (t != MPI_BYTE)
        MPI_Type_free(&t);
}

/* A ping-pong's send: MPI_Send, or MPI_Isend + MPI_Wait (ibw), which an
 * implementation may complete differently. */
static void pingpong_send(int count, MPI_Datatype type, int to, int nonblocking)
{
    if (!nonblocking) {
        MPI_Send(sbuf, count, type, to, 1, MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    MPI_Isend(sbuf, count, type, to, 1, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static double pingpong(size_t bytes, int iters, int nonblocking)
{
    int scount;
    MPI_Datatype st = send_type(bytes, &scount);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            pingpong_send(scount, st, 1, nonblocking);
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pingpong_send(scount, st, 0, nonblocking);
        }
    }
    double t = (MPI_Wtime() - t0) / (2.0 * iters);
    free_type(st);
    return t;
}

static double stream(size_t bytes, int iters, int both)
{
    MPI_Request req[2 * WINDOW];
    int scount;
    MPI_Datatype st = send_type(bytes, &scount);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        int n = 0;
        if (rank == 0 || both) {
            int peer = 1 - rank;
            if (both)
                for (int w = 0; w < WINDOW; w++)
                    MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[n++]);
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, scount, st, peer, 2, MPI_COMM_WORLD, &req[n++]);
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            if (!both)
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[n++]);
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    free_type(st);
    return t;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "latency";
    size_t lo = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
    size_t hi = argc > 3 ? strtoull(argv[3], NULL, 0) : (size_t)16 << 20;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc && strcmp(argv[i + 1], "vector") == 0)
            use_vector = 1;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[i + 1]);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "p2p: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    /* The receives of a window share one buffer, as in the OSU benchmarks:
     * the data is not checked, and the memory stays small. */
    size_t rsize = hi;
    sbuf = malloc((use_vector ? 2 * hi : hi) + 1);
    rbuf = malloc(rsize + 1);
    memset(sbuf, 'a', (use_vector ? 2 * hi : hi) + 1);
    memset(rbuf, 0, rsize + 1);
    if (rank == 0)
        printf("# %s%s: bytes, %s\n", mode, use_vector ? " (vector send type)" : "",
               !strcmp(mode, "latency") ? "microseconds one way" : !strcmp(mode, "rate") ? "messages per second"
                                                                                          : "MB/s");
    for (size_t bytes = lo; bytes <= hi; bytes = bytes ? bytes * 2 : 1) {
        double best = 0, sum = 0;
        int pp = strcmp(mode, "latency") == 0 || strcmp(mode, "bw") == 0 || strcmp(mode, "ibw") == 0;
        int it = pp ? iterations(bytes, 10000) : iterations(bytes * WINDOW, 200);
        double until = MPI_Wtime() + seconds;
        int rep, more = 1;
        for (rep = 0; rep < REPS || more; rep++) {
            double v = 0;
            if (strcmp(mode, "latency") == 0) {
                v = pingpong(bytes, it, 0) * 1e6;
                best = rep == 0 || v < best ? v : best;
            } else if (strcmp(mode, "bw") == 0 || strcmp(mode, "ibw") == 0) {
                v = bytes / pingpong(bytes, it, mode[0] == 'i') / 1e6;
                best = v > best ? v : best;
            } else if (strcmp(mode, "bibw") == 0) {
                v = 2.0 * bytes * WINDOW * it / stream(bytes, it, 1) / 1e6;
                best = v > best ? v : best;
            } else if (strcmp(mode, "rate") == 0) {
                v = (double)WINDOW * it / stream(bytes, it, 0);
                best = v > best ? v : best;
            } else {
                if (rank == 0)
                    fprintf(stderr, "p2p: unknown mode %s (latency, bw, ibw, bibw, rate)\n", mode);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            sum += v;
            /* Rank 0's clock decides, so that both ranks stop together. */
            more = seconds > 0 && MPI_Wtime() < until;
            if (seconds > 0)
                MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
        if (rank == 0) {
            if (seconds > 0)
                printf("%zu %.3f %.3f\n", bytes, best, sum / rep);
            else
                printf("%zu %.3f\n", bytes, best);
            fflush(stdout);
        }
        if (bytes == 0 && hi == 0)
            break;
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
