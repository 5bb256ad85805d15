/*
 * dtype_pingpong.c — ping-pong bandwidth between ranks 0 and 1 with
 * strided vector datatypes, against contiguous buffers of the same size.
 * Plain MPI: the same source builds with any implementation's mpicc
 * (bench/compare.py dtype_pingpong --np 2).
 *
 *   dtype_pingpong [min_bytes max_bytes] [block_bytes]
 *
 * The vector type is MPI_Type_vector(n, b, 2b, MPI_DOUBLE): blocks of
 * block_bytes (default 8, one double) every 2*block_bytes, so a message of
 * S bytes spans 2*S bytes of memory.  Modes, for each size S:
 *   contig   S contiguous bytes both ways (the yardstick)
 *   vec2vec  the vector type on both sides
 *   vec2con  vector sent, contiguous received (UZURA Figure 1's shape)
 *   con2vec  contiguous sent, vector received
 * Each line is "<mode>.<bytes> <MB/s>" (10^6 bytes per second, one way,
 * from the round-trip time), the best of several repetitions.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5 };

static int iterations(long bytes)
{
    long it = 2000L * 4096 / (bytes + 4096);
    return it < 8 ? 8 : (int)it;
}

static double pingpong(int rank, void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, long bytes)
{
    int iters = iterations(bytes);
    double best = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(sbuf, scount, stype, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(rbuf, rcount, rtype, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(rbuf, rcount, rtype, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, scount, stype, 0, 0, MPI_COMM_WORLD);
            }
        }
        double el = (MPI_Wtime() - t0) / iters / 2;
        if (el < best)
            best = el;
    }
    return (double)bytes / best / 1e6;
}

int main(int argc, char **argv)
{
    int rank, size;
    long min = 4096, max = 16L << 20, block = 8;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 3) {
        min = atol(argv[1]);
        max = atol(argv[2]);
    }
    if (argc >= 4)
        block = atol(argv[3]);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "dtype_pingpong needs 2 processes\n");
        MPI_Finalize();
        return 1;
    }
    char *strided_s = malloc(2 * max), *strided_r = malloc(2 * max);
    char *flat_s = malloc(max), *flat_r = malloc(max);
    memset(strided_s, rank + 1, 2 * max);
    memset(strided_r, 0, 2 * max);
    memset(flat_s, rank + 1, max);
    memset(flat_r, 0, max);
    if (rank == 0)
        printf("# dtype_pingpong: one-way MB/s, blocks of %ld bytes every %ld\n", block, 2 * block);
    for (long bytes = min; bytes <= max; bytes *= 4) {
        MPI_Datatype vec;
        int n = (int)(bytes / block), bd = (int)(block / 8);
        MPI_Type_vector(n, bd, 2 * bd, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        double c = pingpong(rank, flat_s, (int)bytes, MPI_BYTE, flat_r, (int)bytes, MPI_BYTE, bytes);
        double vv = pingpong(rank, strided_s, 1, vec, strided_r, 1, vec, bytes);
        double vc = pingpong(rank, strided_s, 1, vec, flat_r, (int)bytes, MPI_BYTE, bytes);
        double cv = pingpong(rank, flat_s, (int)bytes, MPI_BYTE, strided_r, 1, vec, bytes);
        if (rank == 0) {
            printf("contig.%ld %.1f\n", bytes, c);
            printf("vec2vec.%ld %.1f\n", bytes, vv);
            printf("vec2con.%ld %.1f\n", bytes, vc);
            printf("con2vec.%ld %.1f\n", bytes, cv);
            fflush(stdout);
        }
        MPI_Type_free(&vec);
    }
    free(strided_s);
    free(strided_r);
    free(flat_s);
    free(flat_r);
    MPI_Finalize();
    return 0;
}
