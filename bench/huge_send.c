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
 * end, seen at the receiver) and checks every byte received.  Before each
 * row a comment line gives each of the two ranks' CPU seconds and page
 * faults during the transfer: counts that do not depend on how busy the
 * machine is, and that show who faulted in the receive buffer (the kernel
 * counts a fault taken inside process_vm_writev against the writer).
 *
 * Fresh pages are fresh to the process, not to the machine: before a cold
 * transfer (and the touch ceiling) the receiver writes and releases as
 * much memory as it is about to receive into, so that its buffer is made
 * of pages the kernel recycles.  In a virtual machine a page the guest
 * has never used before also costs the hypervisor a fault: 5-9 us instead
 * of 1.3-1.5 us per 4 KiB page on the reference VM (docs/performance.md,
 * issue 22).  Without this, whichever implementation ran first on new
 * memory paid several times the others' cost for the same receive.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

/* Write one byte in each page of n bytes of new memory and give it back:
 * the pages the kernel hands out next are these (see the top). */
static void recycle_pages(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    for (size_t i = 0; i < n; i += (size_t)page)
        ((volatile unsigned char *)p)[i] = 1;
    munmap(p, n);
}

struct usage {
    double cpu;     /* seconds on a CPU, user and system, all threads */
    long faults;
};

/* The CPU clock rather than getrusage's times, which count in ticks. */
static struct usage usage_now(void)
{
    struct rusage ru;
    struct timespec ts;
    getrusage(RUSAGE_SELF, &ru);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (struct usage){ ts.tv_sec + 1e-9 * ts.tv_nsec, ru.ru_minflt + ru.ru_majflt };
}

/* Rank 1 prints both ranks' CPU time and page faults of one transfer. */
static void print_usage(struct usage used)
{
    double mine[2] = { used.cpu, (double)used.faults }, both[4] = { 0 };
    if (rank == 0)
        MPI_Send(mine, 2, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
    else if (rank == 1) {
        MPI_Recv(both, 2, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        both[2] = mine[0];
        both[3] = mine[1];
        printf("# cpu s, page faults: sender %.3f %.0f, receiver %.3f %.0f\n", both[0], both[1], both[2],
               both[3]);
    }
}

/* One transfer of n bytes in chunks of at most INT_MAX elements of a
 * contiguous type, so that sizes past 2 GiB also work with the int API. */
static double transfer(unsigned char *buf, size_t n, struct usage *used)
{
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    int count = (int)(n >> 20);
    MPI_Barrier(MPI_COMM_WORLD);
    struct usage before = usage_now();
    double t = MPI_Wtime();
    if (rank == 0)
        MPI_Send(buf, count, mib, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(buf, count, mib, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t;
    struct usage after = usage_now();
    *used = (struct usage){ after.cpu - before.cpu, after.faults - before.faults };
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
    if (!copy)
        recycle_pages(n);
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
        /* The sender takes its pages first, so that the receiver's
         * recycled ones stay for its buffer. */
        unsigned char *buf = rank == 0 ? malloc(n) : NULL;
        if (rank == 0 && buf)
            fill(buf, n);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0) {
            if (rank == 1)
                recycle_pages(n);
            buf = malloc(n);
        }
        if (!buf) {
            fprintf(stderr, "huge_send: cannot allocate %zu bytes\n", n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        struct usage used;
        double t = transfer(buf, n, &used);
        if (warm)
            t = transfer(buf, n, &used);
        print_usage(used);
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
