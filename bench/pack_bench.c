/*
 * pack_bench.c — MPI_Pack / MPI_Unpack throughput for regular and
 * irregular derived datatypes, in MB/s (10^6 bytes) of packed data, with
 * memcpy of the same number of bytes as the yardstick.  Plain MPI: the
 * same source builds with any implementation's mpicc (bench/compare.py).
 *
 *   pack_bench [small_bytes large_bytes]     (default 65536 and 8388608)
 *
 * Types, each sized to hold about the given number of bytes:
 *   vector4     MPI_FLOAT every other element (4-byte blocks)
 *   vector8     MPI_DOUBLE every other element (8-byte blocks)
 *   vector256   32 doubles of every 64 (256-byte blocks)
 *   transpose   UZURA Figure 1: vector of one float per row, hvector of
 *               those one float apart (reads a whole matrix by columns)
 *   indexed     irregular blocks of 1-5 ints with 1-3 int gaps
 *   struct      {int; double; char[3]; short} records (17 of 24 bytes)
 *   subarray3d  a 3-d block of doubles, rows of 64 doubles
 *   subarray2d  a 2-d block of floats, rows of 16 floats (64 bytes)
 *
 * Each line is "<op>.<type>.<size> <MB/s>": the best of several timed
 * runs of at least 0.1 s each.  Time is the process's CPU time, not wall
 * time: on a shared machine a single-process benchmark is otherwise timed
 * mostly by the scheduler (the copy loops make no system calls, so the
 * two agree on an idle machine).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *src, *packed;
static size_t src_bytes;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best MB/s of `what` (0 pack, 1 unpack, 2 memcpy) over a few runs. */
static double measure(int what, MPI_Datatype t, int count, int bytes)
{
    double best = 0;
    long iters = 1;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now(), el;
        for (;;) {
            t0 = now();
            for (long i = 0; i < iters; i++) {
                int pos = 0;
                if (what == 0)
                    MPI_Pack(src, count, t, packed, bytes, &pos, MPI_COMM_SELF);
                else if (what == 1)
                    MPI_Unpack(packed, bytes, &pos, src, count, t, MPI_COMM_SELF);
                else
                    memcpy(packed, src + (i & 1), (size_t)bytes);
            }
            el = now() - t0;
            if (el >= 0.1)
                break;
            iters *= el > 0.01 ? (long)(0.12 / el) + 1 : 10;
        }
        double mbs = (double)bytes * iters / el / 1e6;
        if (mbs > best)
            best = mbs;
    }
    return best;
}

static void run(const char *name, MPI_Datatype t, int count, const char *label)
{
    int size, bytes;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    bytes = size * count;
    if ((size_t)(tlb + (count - 1) * ext + text) > src_bytes || tlb < 0) {
        fprintf(stderr, "%s.%s does not fit the buffer\n", name, label);
        exit(1);
    }
    /* Check the data once: pack, scramble, unpack, pack again. */
    int pos = 0;
    MPI_Pack(src, count, t, packed, bytes, &pos, MPI_COMM_SELF);
    printf("pack.%s.%s %.1f\n", name, label, measure(0, t, count, bytes));
    printf("unpack.%s.%s %.1f\n", name, label, measure(1, t, count, bytes));
    fflush(stdout);
    MPI_Type_free(&t);
}

static void bench_size(int target, const char *label)
{
    MPI_Datatype t, u;
    int n;

    printf("memcpy.%s %.1f\n", label, measure(2, MPI_BYTE, target, target));

    n = target / 4;
    MPI_Type_vector(n, 1, 2, MPI_FLOAT, &t);
    run("vector4", t, 1, label);

    n = target / 8;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
    run("vector8", t, 1, label);

    n = target / 256;
    MPI_Type_vector(n, 32, 64, MPI_DOUBLE, &t);
    run("vector256", t, 1, label);

    for (n = 1; (n + 1) * (n + 1) * 4 <= target; n++)
        ;
    MPI_Type_vector(n, 1, n, MPI_FLOAT, &u);
    MPI_Type_create_hvector(n, 1, sizeof(float), u, &t);
    MPI_Type_free(&u);
    run("transpose", t, 1, label);

    {   /* irregular blocks */
        int nb = 0, ints = 0, at = 0;
        int *bl = malloc(sizeof(int) * (target / 4 + 1)), *disp = malloc(sizeof(int) * (target / 4 + 1));
        while ((ints + 5) * 4 <= target) {
            int len = 1 + (nb * 7 + 3) % 5, gap = 1 + (nb * 5) % 3;
            bl[nb] = len;
            disp[nb] = at;
            at += len + gap;
            ints += len;
            nb++;
        }
        MPI_Type_indexed(nb, bl, disp, MPI_INT, &t);
        free(bl);
        free(disp);
        run("indexed", t, 1, label);
    }

    {   /* records */
        struct rec { int a; double b; char c[3]; short d; };
        int bl[4] = { 1, 1, 3, 1 };
        MPI_Aint disp[4] = { offsetof(struct rec, a), offsetof(struct rec, b),
                             offsetof(struct rec, c), offsetof(struct rec, d) };
        MPI_Datatype types[4] = { MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_SHORT };
        MPI_Datatype s;
        MPI_Type_create_struct(4, bl, disp, types, &s);
        MPI_Type_create_resized(s, 0, sizeof(struct rec), &t);
        MPI_Type_free(&s);
        run("struct", t, target / 17, label);
    }

    {   /* 3-d block: rows of 64 doubles (512 bytes) */
        int rows = target / 512, a = 1, b;
        while (a * a * 2 <= rows)
            a *= 2;
        b = rows / a;
        int sizes[3] = { 2 * a, 2 * b, 128 }, subs[3] = { a, b, 64 }, starts[3] = { a / 2, b / 2, 32 };
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
        run("subarray3d", t, 1, label);
    }

    {   /* 2-d block: rows of 16 floats (64 bytes) */
        int rows = target / 64;
        int sizes[2] = { rows + 2, 40 }, subs[2] = { rows, 16 }, starts[2] = { 1, 12 };
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &t);
        run("subarray2d", t, 1, label);
    }
}

int main(int argc, char **argv)
{
    int small = 65536, large = 8 << 20;
    MPI_Init(&argc, &argv);
    if (argc >= 3) {
        small = atoi(argv[1]);
        large = atoi(argv[2]);
    }
    /* The largest source: the 3-d subarray's whole array (8x its data),
     * or the transpose's matrix. */
    src_bytes = (size_t)large * 9 + (1 << 20);
    src = malloc(src_bytes);
    packed = malloc((size_t)large + 4096);
    for (size_t i = 0; i < src_bytes; i++)
        src[i] = (char)(i * 131 + 7);
    memset(packed, 0, (size_t)large + 4096);
    printf("# pack_bench: MB/s of packed data, best of 5 (%d and %d bytes)\n", small, large);
    char ls[32], ll[32];
    snprintf(ls, sizeof(ls), small >= (1 << 20) ? "%dM" : "%dK", small >= (1 << 20) ? small >> 20 : small >> 10);
    snprintf(ll, sizeof(ll), large >= (1 << 20) ? "%dM" : "%dK", large >= (1 << 20) ? large >> 20 : large >> 10);
    bench_size(small, ls);
    bench_size(large, ll);
    free(src);
    free(packed);
    MPI_Finalize();
    return 0;
}
