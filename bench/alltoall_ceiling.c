/*
 * alltoall_ceiling.c — what n processes on this host can do for an
 * alltoall with no MPI at all: the ceiling for coll_bench alltoall rows,
 * oversubscribed or not.
 *
 *   alltoall_ceiling [nprocs [min_bytes max_bytes]]
 *
 * n processes (default 4, so two per core on a 2-core machine; unbound,
 * as mpiexec starts ranks) each read its block of every other process's
 * send buffer, b bytes each, into its receive buffer, then all meet: one
 * alltoall.  Prints microseconds per alltoall (best of 5 repetitions of
 * enough calls to last about 0.1 s), as coll_bench does, for:
 *   cma      process_vm_readv per block (one copy in the kernel, pages
 *            pinned per call): what Uzura's pulled blocks do
 *   shared   memcpy from a buffer the others can map (one copy in user
 *            space, no system call: what XPMEM or KNEM would give; not
 *            available to an MPI here, since a send buffer is private)
 * Waiting for the others sleeps on a futex, so a descheduled process gets
 * the core (MPI ranks sharing cores must do the same).
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

enum { REPS = 5, MAXP = 64 };

struct shared {
    atomic_uint arrived;            /* meetings times processes, never reset */
    pid_t pid[MAXP];
    void *src_addr[MAXP];           /* each process's private send buffer */
};

/* All n meet for the gen-th time. */
static void meet(struct shared *sh, int n, long gen)
{
    ceiling_meet(&sh->arrived, (unsigned)(gen * n));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    size_t lo = argc > 2 ? strtoull(argv[2], NULL, 0) : 32768;
    size_t hi = argc > 3 ? strtoull(argv[3], NULL, 0) : (size_t)4 << 20;
    if (n < 2 || n > MAXP || lo == 0 || hi < lo) {
        fprintf(stderr, "usage: alltoall_ceiling [nprocs (2-%d) [min_bytes max_bytes]]\n", MAXP);
        return 2;
    }
    struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* The shared mode's send buffers: every process's, mapped by all. */
    char *shared_src = mmap(NULL, (size_t)n * n * hi, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED || shared_src == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(sh, 0, sizeof(*sh));
    int me = 0;
    for (int i = 1; i < n; i++)
        if (fork() == 0) {
            me = i;
            break;
        }
    char *src = malloc((size_t)n * hi), *dst = malloc((size_t)n * hi);
    memset(src, 'a' + me, (size_t)n * hi);
    memset(dst, 0, (size_t)n * hi);
    memset(shared_src + (size_t)me * n * hi, 'a' + me, (size_t)n * hi);
    sh->pid[me] = getpid();
    sh->src_addr[me] = src;
    long gen = 0;
    meet(sh, n, ++gen);
    if (me == 0)
        printf("# alltoall_ceiling, %d processes: bytes per block, microseconds per alltoall (cma, shared)\n", n);
    for (size_t b = lo; b <= hi; b *= 8) {
        double best[2] = { 1e30, 1e30 };
        for (int rep = 0; rep < REPS; rep++) {
            for (int mode = 0; mode < 2; mode++) {
                /* Enough calls for about 0.1 s at 10 GB/s. */
                long it = (long)(1e9 / ((double)b * n * n));
                it = it < 4 ? 4 : it > 20000 ? 20000 : it;
                meet(sh, n, ++gen);
                double t0 = ceiling_now();
                for (long k = 0; k < it; k++) {
                    for (int j = 1; j < n; j++) {
                        int r = (me + j) % n;   /* each starts at a different sender */
                        char *to = dst + (size_t)r * b;
                        if (mode == 0) {
                            struct iovec l = { to, b };
                            struct iovec rem = { (char *)sh->src_addr[r] + (size_t)me * b, b };
                            if (process_vm_readv(sh->pid[r], &l, 1, &rem, 1, 0) != (ssize_t)b) {
                                perror("process_vm_readv");
                                return 1;
                            }
                        } else {
                            memcpy(to, shared_src + ((size_t)r * n + (size_t)me) * hi, b);
                        }
                    }
                    memcpy(dst + (size_t)me * b, src + (size_t)me * b, b);
                    meet(sh, n, ++gen);
                }
                double us = (ceiling_now() - t0) / (double)it * 1e6;
                best[mode] = us < best[mode] ? us : best[mode];
            }
        }
        if (me == 0) {
            printf("%zu %.3f %.3f\n", b, best[0], best[1]);
            fflush(stdout);
        }
        if (b == hi)
            break;
        if (b * 8 > hi)
            b = hi / 8;
    }
    free(src);
    free(dst);
    if (me == 0)
        while (wait(NULL) > 0)
            ;
    return 0;
}
