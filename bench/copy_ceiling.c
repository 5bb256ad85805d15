/*
 * copy_ceiling.c — what two processes on two cores can move between them
 * with no MPI at all: the ceiling for bidirectional bandwidth (p2p bibw).
 *
 *   copy_ceiling [min_bytes max_bytes]
 *
 * Two processes, one per core, exchange messages of each size both ways at
 * once, 64 at a time like bench/p2p.c bibw, and report MB/s of both
 * directions together, best of 5:
 *   cma      each reads the other's buffer with one process_vm_readv per
 *            message (one copy, in the kernel, pages pinned per call)
 *   shared   each copies out of a shared buffer the other wrote once (one
 *            copy in user space, no system call: what a mapping of the
 *            peer's memory such as XPMEM would give)
 *   staged   each copies its message into a shared slot and the other
 *            copies it out (two copies per byte, as an eager ring does)
 * The synchronisation is one shared counter per window, so the figures are
 * the copies' own cost.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WINDOW = 64, REPS = 5 };

struct shared {
    atomic_int arrived[2];
    atomic_int ready;               /* window number both finished */
    pid_t pid[2];
    void *src_addr[2];              /* each process's private source buffer */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Both processes meet; `gen` counts meetings so the counter never resets. */
static void meet(struct shared *sh, int me, int gen)
{
    atomic_store_explicit(&sh->arrived[me], gen, memory_order_release);
    while (atomic_load_explicit(&sh->arrived[1 - me], memory_order_acquire) < gen)
        ;
}

static int iterations(size_t bytes)
{
    size_t it = ((size_t)256 << 20) / (bytes * WINDOW + 1);
    return it < 4 ? 4 : it > 2000 ? 2000 : (int)it;
}

int main(int argc, char **argv)
{
    size_t lo = argc > 1 ? strtoull(argv[1], NULL, 0) : 16384;
    size_t hi = argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)16 << 20;
    struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* Per process: two shared slots (written by it, read by the other). */
    char *slots = mmap(NULL, 4 * hi, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED || slots == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(sh, 0, sizeof(*sh));
    memset(slots, 'b', 4 * hi);
    pid_t child = fork();
    int me = child == 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(me, &set);
    sched_setaffinity(0, sizeof(set), &set);
    char *src = malloc(hi), *dst = malloc(hi);
    memset(src, 'a', hi);
    memset(dst, 0, hi);
    sh->pid[me] = getpid();
    sh->src_addr[me] = src;
    int gen = 0;
    meet(sh, me, ++gen);
    if (me == 0)
        printf("# copy_ceiling: bytes, MB/s both directions (cma, shared, staged)\n");
    for (size_t bytes = lo; bytes <= hi; bytes *= 2) {
        int it = iterations(bytes);
        double best[3] = { 0, 0, 0 };
        for (int rep = 0; rep < REPS; rep++) {
            for (int mode = 0; mode < 3; mode++) {
                char *mine = slots + (size_t)me * 2 * hi, *theirs = slots + (size_t)(1 - me) * 2 * hi;
                meet(sh, me, ++gen);
                double t0 = now();
                for (int i = 0; i < it; i++) {
                    for (int w = 0; w < WINDOW; w++) {
                        if (mode == 0) {
                            struct iovec l = { dst, bytes }, r = { sh->src_addr[1 - me], bytes };
                            if (process_vm_readv(sh->pid[1 - me], &l, 1, &r, 1, 0) != (ssize_t)bytes) {
                                perror("process_vm_readv");
                                return 1;
                            }
                        } else if (mode == 1) {
                            memcpy(dst, theirs, bytes);
                        } else {
                            memcpy(mine + (w & 1) * hi, src, bytes);
                            memcpy(dst, theirs + (w & 1) * hi, bytes);
                        }
                    }
                    meet(sh, me, ++gen);
                }
                double mbs = 2.0 * bytes * WINDOW * it / (now() - t0) / 1e6;
                best[mode] = mbs > best[mode] ? mbs : best[mode];
            }
        }
        if (me == 0) {
            printf("%zu %.0f %.0f %.0f\n", bytes, best[0], best[1], best[2]);
            fflush(stdout);
        }
    }
    free(src);
    free(dst);
    if (child > 0)
        waitpid(child, NULL, 0);
    return 0;
}
