/*
 * coll_ceiling.c — what n processes on this host can do for one collective
 * with no MPI at all: the ceiling a coll_bench row is measured against.
 *
 *   coll_ceiling OP [nprocs [min_bytes max_bytes]]
 *
 * OP is one of bcast, reduce, allreduce, allgather, gather, scatter,
 * alltoall, reduce_scatter, scan, exscan, with coll_bench's meaning of
 * "bytes" (the vector of a reduction, in doubles summed; the block one rank
 * contributes or receives).  n processes (default 2; unbound, as mpiexec
 * starts ranks) move exactly the bytes the operation must move between
 * processes, each byte once, with the kernel's cross-memory attach
 * (process_vm_readv/writev: one copy, what Uzura and Open MPI use for large
 * messages), and combine what a reduction combines, in 256 KiB chunks
 * pulled into a cache-resident scratch.  Every call ends with all n
 * meeting, as a blocking collective's last rank does.
 *
 * Each operation has more than one plan; the ceiling is the best:
 *   pull    every process reads what it needs (the receiver's core copies)
 *   push    the holder writes it into the receiver (the sender's core)
 *   halves  (bcast, gather, scatter) the receiver reads one half while the
 *           holder writes the other: both cores copy one message
 *   slices  (reductions) process w combines slice w of the vector from
 *           every contributor and hands the result on: all cores combine
 * Prints "bytes best plan1 plan2 ..." in microseconds per call (best of 5
 * repetitions of about 0.1 s each), as coll_bench does.  Waiting for the
 * others yields, then sleeps on a futex, so processes sharing a core get it.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ceiling.h"

enum { REPS = 5, MAXP = 64, MAXPLANS = 3 };
enum { CHUNK = 256 << 10 };

struct shared {
    atomic_uint arrived;            /* meetings times processes, never reset */
    pid_t pid[MAXP];
    char *sbuf[MAXP];               /* each process's private buffers */
    char *rbuf[MAXP];
};

static struct shared *sh;
static int me, n;
static char *sbuf, *rbuf;
static double *scratch;             /* one chunk of pulled doubles */
static long gen;

/* All n meet (waits yield, then sleep: ceiling.h). */
static void meet(void)
{
    ceiling_meet(&sh->arrived, (unsigned)(++gen * n));
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* Copy len bytes from process r's address into ours. */
static void pull(int r, const char *remote, char *local, size_t len)
{
    struct iovec l = { local, len }, rem = { (void *)remote, len };
    if (len && process_vm_readv(sh->pid[r], &l, 1, &rem, 1, 0) != (ssize_t)len)
        die("process_vm_readv");
}

/* Copy len bytes of ours to process r's address. */
static void push(int r, const char *local, char *remote, size_t len)
{
    struct iovec l = { (void *)local, len }, rem = { remote, len };
    if (len && process_vm_writev(sh->pid[r], &l, 1, &rem, 1, 0) != (ssize_t)len)
        die("process_vm_writev");
}

/* The part [lo, hi) of b bytes that slice w of n covers (8-byte aligned). */
static void slice_of(size_t b, int w, size_t *lo, size_t *hi)
{
    size_t words = b / 8;
    *lo = words * (size_t)w / (size_t)n * 8;
    *hi = words * (size_t)(w + 1) / (size_t)n * 8;
}

/* Built with -O3 (bench/CMakeLists.txt) and, like Uzura's reduction
 * kernels, for the widest vectors the machine has: a scalar loop here
 * would make the "ceiling" slower than the MPIs measured against it. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void add_into(double *restrict d, const double *restrict a, size_t words)
{
    for (size_t i = 0; i < words; i++)
        d[i] += a[i];
}

/* dst[0, hi - lo) = sum over ranks first..last of their sbuf at byte
 * offset base + [lo,hi), combined by this process a chunk at a time, so
 * that the chunk stays in the cache between its copy and its additions:
 * the first remote contribution is read straight into dst, further ones
 * into the scratch, and our own (if we are one of them) is added from
 * where it lies; with no remote one, our own is copied. */
static void combine_range(int first, int last, size_t base, size_t lo, size_t hi, char *dst)
{
    int mine = me >= first && me <= last, remote = last - first + 1 - mine;
    for (size_t off = lo; off < hi; off += CHUNK) {
        size_t c = hi - off < CHUNK ? hi - off : CHUNK;
        char *d = dst + (off - lo);
        int have = 0;
        for (int r = first; r <= last; r++) {
            if (r == me)
                continue;
            if (!have) {
                pull(r, sh->sbuf[r] + base + off, d, c);
                have = 1;
            } else {
                pull(r, sh->sbuf[r] + base + off, (char *)scratch, c);
                add_into((double *)d, scratch, c / 8);
            }
        }
        if (mine && remote)
            add_into((double *)d, (const double *)(sbuf + base + off), c / 8);
        else if (mine)
            memcpy(d, sbuf + base + off, c);
    }
}

/* ---- the plans: one call of the operation each ---- */

static void bcast_pull(size_t b)
{
    if (me != 0)
        pull(0, sh->sbuf[0], sbuf, b);
}

static void bcast_halves(size_t b)
{
    size_t half = b / 2;
    if (me != 0)
        pull(0, sh->sbuf[0], sbuf, half);
    else
        for (int r = 1; r < n; r++)
            push(r, sbuf + half, sh->sbuf[r] + half, b - half);
}

static void gather_pull(size_t b)
{
    if (me != 0)
        return;
    memcpy(rbuf, sbuf, b);
    for (int r = 1; r < n; r++)
        pull(r, sh->sbuf[r], rbuf + (size_t)r * b, b);
}

static void gather_push(size_t b)
{
    if (me == 0)
        memcpy(rbuf, sbuf, b);
    else
        push(0, sbuf, sh->rbuf[0] + (size_t)me * b, b);
}

/* The root reads the first half of each block, its owner writes the
 * second: with two processes both cores copy the one message. */
static void gather_halves(size_t b)
{
    size_t half = b / 2;
    if (me == 0) {
        memcpy(rbuf, sbuf, b);
        for (int r = 1; r < n; r++)
            pull(r, sh->sbuf[r], rbuf + (size_t)r * b, half);
    } else {
        push(0, sbuf + half, sh->rbuf[0] + (size_t)me * b + half, b - half);
    }
}

static void scatter_pull(size_t b)
{
    if (me == 0)
        memcpy(rbuf, sbuf, b);
    else
        pull(0, sh->sbuf[0] + (size_t)me * b, rbuf, b);
}

static void scatter_push(size_t b)
{
    if (me != 0)
        return;
    memcpy(rbuf, sbuf, b);
    for (int r = 1; r < n; r++)
        push(r, sbuf + (size_t)r * b, sh->rbuf[r], b);
}

static void scatter_halves(size_t b)
{
    size_t half = b / 2;
    if (me == 0) {
        memcpy(rbuf, sbuf, b);
        for (int r = 1; r < n; r++)
            push(r, sbuf + (size_t)r * b + half, sh->rbuf[r] + half, b - half);
    } else {
        pull(0, sh->sbuf[0] + (size_t)me * b, rbuf, half);
    }
}

static void allgather_pull(size_t b)
{
    memcpy(rbuf + (size_t)me * b, sbuf, b);
    for (int j = 1; j < n; j++) {
        int r = (me + j) % n;
        pull(r, sh->sbuf[r], rbuf + (size_t)r * b, b);
    }
}

static void alltoall_pull(size_t b)
{
    memcpy(rbuf + (size_t)me * b, sbuf + (size_t)me * b, b);
    for (int j = 1; j < n; j++) {
        int r = (me + j) % n;
        pull(r, sh->sbuf[r] + (size_t)me * b, rbuf + (size_t)r * b, b);
    }
}

static void reduce_root(size_t b)
{
    if (me == 0)
        combine_range(0, n - 1, 0, 0, b, rbuf);
}

/* Slice w of the sum is combined by process w and written to the root. */
static void reduce_slices(size_t b)
{
    size_t lo, hi;
    slice_of(b, me, &lo, &hi);
    if (me == 0) {
        combine_range(0, n - 1, 0, lo, hi, rbuf + lo);
    } else {
        char *part = rbuf + lo;          /* our rbuf as scratch */
        combine_range(0, n - 1, 0, lo, hi, part);
        push(0, part, sh->rbuf[0] + lo, hi - lo);
    }
}

static void allreduce_all(size_t b)
{
    combine_range(0, n - 1, 0, 0, b, rbuf);
}

/* Reduce-scatter by slices, then every process reads the others' slices. */
static void allreduce_slices(size_t b)
{
    size_t lo, hi;
    slice_of(b, me, &lo, &hi);
    combine_range(0, n - 1, 0, lo, hi, rbuf + lo);
    meet();
    for (int j = 1; j < n; j++) {
        int r = (me + j) % n;
        slice_of(b, r, &lo, &hi);
        pull(r, sh->rbuf[r] + lo, rbuf + lo, hi - lo);
    }
}

static void reduce_scatter_pull(size_t b)
{
    combine_range(0, n - 1, (size_t)me * b, 0, b, rbuf);
}

static void scan_pull(size_t b)
{
    combine_range(0, me, 0, 0, b, rbuf);
}

/* Rank d's prefix over slice w is combined by process w, for every d. */
static void prefix_slices(size_t b, int exclusive)
{
    size_t lo, hi;
    slice_of(b, me, &lo, &hi);
    for (int d = exclusive ? 1 : 0; d < n; d++) {
        int last = exclusive ? d - 1 : d;
        if (d == me) {
            combine_range(0, last, 0, lo, hi, rbuf + lo);
        } else if (last == 0 && me == 0) {
            push(d, sbuf + lo, sh->rbuf[d] + lo, hi - lo);     /* ours alone */
        } else {
            char *part = (char *)scratch + CHUNK;   /* past the pull chunk */
            for (size_t off = lo; off < hi; off += CHUNK) {
                size_t e = hi - off < CHUNK ? hi : off + CHUNK;
                combine_range(0, last, 0, off, e, part);
                push(d, part, sh->rbuf[d] + off, e - off);
            }
        }
    }
}

static void scan_slices(size_t b)
{
    prefix_slices(b, 0);
}

static void exscan_pull(size_t b)
{
    if (me > 0)
        combine_range(0, me - 1, 0, 0, b, rbuf);
}

static void exscan_slices(size_t b)
{
    prefix_slices(b, 1);
}

/* After a plan's calls: is our part of the result what the operation
 * gives?  (Process r's send buffer holds the double r + 1 throughout.) */
static int result_right(const char *op, size_t b)
{
    const double *rd = (const double *)rbuf;
    const double *sd = (const double *)sbuf;
    size_t words = b / 8;
    double tri = (double)n * (n + 1) / 2;
    for (size_t i = 0; i < words; i++) {
        if (!strcmp(op, "bcast")) {
            if (sd[i] != 1.0)
                return 0;
        } else if (!strcmp(op, "scatter")) {
            if (rd[i] != 1.0)
                return 0;
        } else if (!strcmp(op, "reduce")) {
            if (me == 0 && rd[i] != tri)
                return 0;
        } else if (!strcmp(op, "allreduce") || !strcmp(op, "reduce_scatter")) {
            if (rd[i] != tri)
                return 0;
        } else if (!strcmp(op, "scan")) {
            if (rd[i] != (double)(me + 1) * (me + 2) / 2)
                return 0;
        } else if (!strcmp(op, "exscan")) {
            if (me > 0 && rd[i] != (double)me * (me + 1) / 2)
                return 0;
        } else {                    /* gather (at the root), allgather, alltoall */
            if (!strcmp(op, "gather") && me != 0)
                return 1;
            for (int r = 0; r < n; r++)
                if (rd[(size_t)r * words + i] != (double)(r + 1))
                    return 0;
        }
    }
    return 1;
}

struct plan {
    const char *name;
    void (*run)(size_t b);
};

struct op {
    const char *name;
    int reduces;                    /* bytes must be a multiple of 8 */
    struct plan plans[MAXPLANS];
};

static const struct op ops[] = {
    { "bcast", 0, { { "pull", bcast_pull }, { "halves", bcast_halves } } },
    { "gather", 0, { { "pull", gather_pull }, { "push", gather_push }, { "halves", gather_halves } } },
    { "scatter", 0, { { "pull", scatter_pull }, { "push", scatter_push }, { "halves", scatter_halves } } },
    { "allgather", 0, { { "pull", allgather_pull } } },
    { "alltoall", 0, { { "pull", alltoall_pull } } },
    { "reduce", 1, { { "pull", reduce_root }, { "slices", reduce_slices } } },
    { "allreduce", 1, { { "pull", allreduce_all }, { "slices", allreduce_slices } } },
    { "reduce_scatter", 1, { { "pull", reduce_scatter_pull } } },
    { "scan", 1, { { "pull", scan_pull }, { "slices", scan_slices } } },
    { "exscan", 1, { { "pull", exscan_pull }, { "slices", exscan_slices } } },
};

int main(int argc, char **argv)
{
    const struct op *op = NULL;
    for (size_t i = 0; argc > 1 && i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!strcmp(argv[1], ops[i].name))
            op = &ops[i];
    n = argc > 2 ? atoi(argv[2]) : 2;
    size_t lo = argc > 3 ? strtoull(argv[3], NULL, 0) : 32768;
    size_t hi = argc > 4 ? strtoull(argv[4], NULL, 0) : (size_t)4 << 20;
    if (!op || n < 2 || n > MAXP || lo < 8 || hi < lo) {
        fprintf(stderr, "usage: coll_ceiling bcast|reduce|allreduce|allgather|gather|scatter|"
                        "alltoall|reduce_scatter|scan|exscan [nprocs (2-%d) [min_bytes max_bytes]]\n",
                MAXP);
        return 2;
    }
    int nplans = 0;
    while (nplans < MAXPLANS && op->plans[nplans].name)
        nplans++;
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        die("mmap");
    memset(sh, 0, sizeof(*sh));
    for (int i = 1; i < n; i++)
        if (fork() == 0) {
            me = i;
            break;
        }
    /* Send and receive buffers hold a block for every rank (alltoall,
     * scatter, reduce_scatter); written once, so no first-touch in the
     * timed loop. */
    size_t cap = (size_t)n * hi;
    sbuf = malloc(cap);
    rbuf = malloc(cap);
    scratch = malloc(2 * CHUNK);
    if (!sbuf || !rbuf || !scratch)
        die("malloc");
    for (size_t i = 0; i < cap / 8; i++)
        ((double *)sbuf)[i] = (double)(me + 1);
    memset(rbuf, 0, cap);
    memset(scratch, 0, 2 * CHUNK);
    sh->pid[me] = getpid();
    sh->sbuf[me] = sbuf;
    sh->rbuf[me] = rbuf;
    meet();
    if (me == 0) {
        printf("# coll_ceiling %s, %d processes: bytes, microseconds per call: best", op->name, n);
        for (int p = 0; p < nplans; p++)
            printf(" %s", op->plans[p].name);
        printf("\n");
    }
    for (size_t b = lo; b <= hi; b *= 8) {
        size_t bb = op->reduces ? b / 8 * 8 : b;
        double best[MAXPLANS];
        for (int p = 0; p < nplans; p++)
            best[p] = 1e30;
        for (int rep = 0; rep < REPS; rep++) {
            for (int p = 0; p < nplans; p++) {
                /* Enough calls for about 0.1 s at 10 GB/s. */
                long it = (long)(1e9 / ((double)bb * n));
                it = it < 4 ? 4 : it > 20000 ? 20000 : it;
                memset(rbuf, 0, (size_t)n * bb);
                if (!strcmp(op->name, "bcast") && me != 0)
                    memset(sbuf, 0, bb);
                meet();
                double t0 = ceiling_now();
                for (long k = 0; k < it; k++) {
                    op->plans[p].run(bb);
                    meet();
                }
                double us = (ceiling_now() - t0) / (double)it * 1e6;
                best[p] = us < best[p] ? us : best[p];
                if (!result_right(op->name, bb)) {
                    fprintf(stderr, "coll_ceiling: %s plan %s left a wrong result at process %d\n",
                            op->name, op->plans[p].name, me);
                    exit(1);
                }
            }
        }
        if (me == 0) {
            double top = best[0];
            for (int p = 1; p < nplans; p++)
                top = best[p] < top ? best[p] : top;
            printf("%zu %.3f", bb, top);
            for (int p = 0; p < nplans; p++)
                printf(" %.3f", best[p]);
            printf("\n");
            fflush(stdout);
        }
        if (b == hi)
            break;
        if (b * 8 > hi)
            b = hi / 8;
    }
    if (me == 0)
        while (wait(NULL) > 0)
            ;
    return 0;
}
