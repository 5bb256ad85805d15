/*
 * profile_pattern.c — traffic of a known shape for the profile tests
 * (profile_test.py): ITERS rounds of a ring (each rank MPI_Sendrecv's
 * RING_BYTES to rank + 1) and ITERS rounds of MPI_Alltoall with blocks of
 * A2A_BYTES, and no other communication between MPI_Init and MPI_Finalize
 * that the profile counts, so that its byte matrix is known exactly.  One
 * more round of the ring runs between MPI_Pcontrol(0) and MPI_Pcontrol(1),
 * which pause the profile: it must not be counted.
 *
 * usage: profile_pattern RING_BYTES A2A_BYTES ITERS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(int rank, const char *what)
{
    fprintf(stderr, "profile_pattern rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4)
        fail(rank, "usage: profile_pattern RING_BYTES A2A_BYTES ITERS");
    int ring = atoi(argv[1]), block = atoi(argv[2]), iters = atoi(argv[3]);
    unsigned char *out = malloc((size_t)ring + 1), *in = malloc((size_t)ring + 1);
    unsigned char *a2a_out = malloc((size_t)block * size + 1), *a2a_in = malloc((size_t)block * size + 1);
    if (!out || !in || !a2a_out || !a2a_in)
        fail(rank, "out of memory");
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    for (int it = 0; it < iters; it++) {
        memset(out, rank + it, (size_t)ring);
        MPI_Sendrecv(out, ring, MPI_BYTE, next, 7, in, ring, MPI_BYTE, prev, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < ring; i++)
            if (in[i] != (unsigned char)(prev + it))
                fail(rank, "ring data wrong");
    }
    MPI_Pcontrol(0);
    MPI_Sendrecv(out, ring, MPI_BYTE, next, 8, in, ring, MPI_BYTE, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pcontrol(1);
    for (int it = 0; it < iters; it++) {
        for (int j = 0; j < size; j++)
            memset(a2a_out + (size_t)j * block, rank * 16 + j + it, (size_t)block);
        MPI_Alltoall(a2a_out, block, MPI_BYTE, a2a_in, block, MPI_BYTE, MPI_COMM_WORLD);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < block; i++)
                if (a2a_in[(size_t)j * block + i] != (unsigned char)(j * 16 + rank + it))
                    fail(rank, "alltoall data wrong");
    }
    free(out);
    free(in);
    free(a2a_out);
    free(a2a_in);
    MPI_Finalize();
    if (rank == 0)
        printf("profile_pattern: passed\n");
    return 0;
}
