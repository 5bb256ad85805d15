/*
 * rma_bench.c — one-sided (RMA) latency, bandwidth and atomic rate between
 * ranks 0 (the origin) and 1 (the target).  Plain MPI, so the same source
 * builds with any implementation's mpicc (bench/compare.py runs it with
 * Uzura, MPICH and Open MPI side by side).  Run it with 2 ranks.
 *
 *   rma_bench put_lat|get_lat|acc_lat|put_bw|get_bw|acc_bw|fop_rate
 *             fence|lock [min_bytes max_bytes]
 *
 *   bench/compare.py rma_bench put_lat lock --unit lat
 *   bench/compare.py rma_bench get_bw fence 8 4194304
 *
 * (compare.py takes lower as better when the unit, by default the test's
 * name, contains "lat": so for the *_lat tests, and higher for the rest.)
 *
 * Prints "bytes value" lines, sizes from min to max by factors of 4 (and
 * max itself); by default 8 to 65536 for the latency tests and 8 to
 * 4194304 for the bandwidth tests.
 *
 *   put_lat, get_lat  microseconds per MPI_Put (MPI_Get) of `bytes` bytes
 *                     plus its completion;
 *   acc_lat           the same for MPI_Accumulate of bytes/8 doubles,
 *                     MPI_SUM;
 *   put_bw, get_bw,   MB/s (10^6 bytes per second) of bursts of 32
 *   acc_bw            operations of `bytes` bytes each, completed
 *                     together;
 *   fop_rate          millions of MPI_Fetch_and_op (one long, MPI_SUM) per
 *                     second, in bursts of 32; one row, "8".
 *   memcpy_bw         the machine's ceiling for put_bw and get_bw: MB/s of
 *                     bursts of 32 memcpy calls of `bytes` between two
 *                     buffers of the origin, timed the same way.
 *
 * The completion is the synchronisation:
 *
 *   fence  an iteration is the operation(s) then MPI_Win_fence, which both
 *          ranks call (active target);
 *   lock   the origin takes MPI_Win_lock(MPI_LOCK_SHARED) on the target once
 *          before the timed loop, and an iteration is the operation(s) then
 *          MPI_Win_flush; the target does nothing meanwhile but wait in a
 *          broadcast for the origin's time (passive target).
 *
 * The window comes from MPI_Win_allocate (max_bytes on every rank), which
 * lets an implementation put it in shared memory.  As in the OSU
 * benchmarks, the operations of a burst all use the same origin buffer and
 * target displacement 0, and the data are not checked.  A point is rank
 * 0's time per iteration, best of several repetitions, each long enough
 * (about 0.1 s) to swamp the clock; every repetition starts from a barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5, BURST = 32 };

static int rank, size, use_lock, burst;
static const char *test;
static char *obuf;          /* origin buffer (put/acc source, get destination) */
static char *cbuf;          /* memcpy_bw's destination */
static long *fop_res;       /* fetch_and_op results, one per operation of a burst */
static MPI_Win win;

/* The operation(s) of one iteration, issued by the origin. */
static void ops(size_t bytes)
{
    int b = (int)bytes, n = (int)(bytes / 8);
    static const long one = 1;
    for (int i = 0; i < burst; i++) {
        if (!strncmp(test, "put", 3))
            MPI_Put(obuf, b, MPI_BYTE, 1, 0, b, MPI_BYTE, win);
        else if (!strncmp(test, "get", 3))
            MPI_Get(obuf, b, MPI_BYTE, 1, 0, b, MPI_BYTE, win);
        else if (!strncmp(test, "acc", 3))
            MPI_Accumulate(obuf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, win);
        else if (!strncmp(test, "memcpy", 6)) {
            memcpy(cbuf, obuf, bytes);
            __asm__ __volatile__("" ::: "memory");      /* keep every copy */
        }
        else
            MPI_Fetch_and_op(&one, &fop_res[i], MPI_LONG, 1, 0, MPI_SUM, win);
    }
}

/* Rank 0's seconds per iteration over `iters` iterations, on every rank. */
static double timed(size_t bytes, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (use_lock) {
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            /* One untimed round, so that a lock taken lazily is held. */
            ops(bytes);
            MPI_Win_flush(1, win);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                ops(bytes);
                MPI_Win_flush(1, win);
            }
            t = (MPI_Wtime() - t0) / iters;
            MPI_Win_unlock(1, win);
        }
    } else {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0)
                ops(bytes);
            MPI_Win_fence(0, win);
        }
        t = (MPI_Wtime() - t0) / iters;
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double measure(size_t bytes)
{
    int iters = 1;
    double t = timed(bytes, 1);
    while (t * iters < 0.02 && iters < (1 << 20)) {
        iters *= 4;
        t = timed(bytes, iters);
    }
    int n = t > 0 ? (int)(0.1 / t) : 1000;
    if (n < 1)
        n = 1;
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        t = timed(bytes, n);
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test = argc > 1 ? argv[1] : "put_lat";
    const char *sync = argc > 2 ? argv[2] : "fence";
    static const char *const tests[] = {"put_lat", "get_lat", "acc_lat", "put_bw",
                                        "get_bw",  "acc_bw",  "fop_rate", "memcpy_bw"};
    int known = 0;
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        known |= !strcmp(test, tests[i]);
    if (!known || (strcmp(sync, "fence") && strcmp(sync, "lock")) || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: rma_bench put_lat|get_lat|acc_lat|put_bw|get_bw|acc_bw|fop_rate|memcpy_bw "
                            "fence|lock [min_bytes max_bytes]  (2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    use_lock = !strcmp(sync, "lock");
    int lat = strstr(test, "_lat") != NULL, fop = !strcmp(test, "fop_rate");
    burst = lat ? 1 : BURST;
    size_t lo = argc > 3 ? strtoul(argv[3], NULL, 0) : 8;
    size_t hi = argc > 4 ? strtoul(argv[4], NULL, 0) : lat ? 65536 : 4 << 20;
    if (fop)
        lo = hi = 8;
    if (hi < lo)
        hi = lo;
    void *base;
    MPI_Win_allocate((MPI_Aint)(hi < 8 ? 8 : hi), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, hi < 8 ? 8 : hi);
    obuf = malloc(hi + 8);
    cbuf = malloc(hi + 8);
    /* Written, so that every page is real memory: an untouched calloc'd
     * buffer reads as the kernel's one zero page, which stays in cache and
     * made copies out of it (put_bw, memcpy_bw) look twice as fast. */
    for (size_t i = 0; i + 8 <= hi + 8; i += 8)
        ((double *)obuf)[i / 8] = 1.0;
    memset(cbuf, 2, hi + 8);
    fop_res = calloc(BURST, sizeof(long));
    if (rank == 0) {
        const char *what = lat ? "microseconds per operation" : fop ? "million operations per second"
                                                                   : "MB/s";
        printf("# %s, %s, %d ranks: bytes, %s (%d per %s)\n", test, sync, size, what, burst,
               use_lock ? "MPI_Win_flush" : "MPI_Win_fence");
    }
    for (size_t b = lo;; b = b ? b * 4 : 8) {
        if (b > hi)
            b = hi;
        double t = measure(b);
        if (rank == 0) {
            if (lat)
                printf("%zu %.3f\n", b, t * 1e6);
            else if (fop)
                printf("%zu %.3f\n", b, burst / t / 1e6);
            else
                printf("%zu %.3f\n", b, (double)b * burst / t / 1e6);
        }
        fflush(stdout);
        if (b >= hi)
            break;
    }
    MPI_Win_free(&win);
    free(obuf);
    free(cbuf);
    free(fop_res);
    MPI_Finalize();
    return 0;
}
