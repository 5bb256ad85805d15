/*
 * huge_send.c — the time of one very large MPI_Send/MPI_Recv between ranks
 * 0 and 1, as a program that moves a whole array at once sees it.
 * Plain MPI, so the same source builds with any implementation's mpicc.
 *
 *   huge_send cold|warm|touch|memcpy [min_bytes max_bytes]   (default 64 MiB .. 1 GiB)
 *
 * cold: each size gets freshly allocated buffers; the sender fills its own,
 *       the receiver's pages are untouched until the message lands in them
 *       (what a program that mallocs and receives does: the page faults of
 *       the receive buffer are part of the cost).
 * warm: the same transfer again into buffers that have been used once.
 * touch, memcpy: the machine's ceilings beside them, no message: writing n
 *       bytes of fresh memory once (its page faults) and one memcpy
 *       between warm buffers, timed at rank 1.
 * Prints "bytes seconds" lines (the time from a barrier to the receive's
 * end, seen at the receiver) and checks every byte received.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static void fill(unsigned char *p, size_t n)
{
    uint64_t *w = (uint64_t *)p;
    for (size_t i = 0; i < n / 8; i++)
        w[i] = i * 0x9e3779b97f4a7c15ull;
}

static int check(const unsigned char *p, size_t n)
{
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < n / 8; i++)
        if (w[i] != i * 0x9e3779b97f4a7c15ull)
            return 0;
    return 1;
}

/* One transfer of n bytes in chunks of at most INT_MAX elements of a
 * contiguous type, so that sizes past 2 GiB also work with the int API. */
static double transfer(unsigned char *buf, size_t n)
{
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    int count = (int)(n >> 20);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (rank == 0)
        MPI_Send(buf, count, mib, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(buf, count, mib, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t;
    MPI_Type_free(&mib);
    return t;
}

static double now(void)
{
    return MPI_Wtime();
}

/* The ceilings: first touch of fresh memory, and one memcpy of warm. */
static double ceiling(size_t n, int copy)
{
    unsigned char *a = malloc(n), *b = copy ? malloc(n) : NULL;
    if (!a || (copy && !b)) {
        fprintf(stderr, "huge_send: cannot allocate %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (copy) {
        memset(a, 1, n);
        memset(b, 2, n);
    }
    double t = now();
    if (copy)
        memcpy(b, a, n);
    else
        memset(a, 1, n);
    t = now() - t;
    /* Read the result back, or the compiler drops the stores to memory
     * that is freed next. */
    if (((volatile unsigned char *)(copy ? b : a))[n - 1] != 1)
        MPI_Abort(MPI_COMM_WORLD, 1);
    free(a);
    free(b);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "cold";
    size_t lo = argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)64 << 20;
    size_t hi = argc > 3 ? strtoull(argv[3], NULL, 0) : (size_t)1 << 30;
    int warm = strcmp(mode, "warm") == 0;
    int touch = strcmp(mode, "touch") == 0, copy = strcmp(mode, "memcpy") == 0;
    if (rank == 1)
        printf("# %s: seconds for %s of n bytes\n", mode,
               touch ? "the first write" : copy ? "one memcpy" : "one MPI_Send");
    for (size_t n = lo; n <= hi; n *= 2) {
        if (touch || copy) {
            if (rank == 1)
                printf("%zu %.4f\n", n, ceiling(n, copy));
            continue;
        }
        unsigned char *buf = malloc(n);
        if (!buf) {
            fprintf(stderr, "huge_send: cannot allocate %zu bytes\n", n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            fill(buf, n);
        double t = transfer(buf, n);
        if (warm)
            t = transfer(buf, n);
        if (rank == 1) {
            if (!check(buf, n)) {
                fprintf(stderr, "huge_send: wrong data at %zu bytes\n", n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            printf("%zu %.4f\n", n, t);
            fflush(stdout);
        }
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
