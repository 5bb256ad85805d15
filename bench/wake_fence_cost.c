/*
 * wake_fence_cost.c — what the two halves of the wake-up fence cost here
 * (src/base/wake_fence.h), with no MPI.
 *
 *   wake_fence_cost [seconds]
 *
 * Publishing: one process on the first CPU writes 16-byte records into a
 * ring of 64-byte slots that a process on the second CPU polls, as shm's
 * rings do, and after each record reads a "sleeping" word; the sequence
 * word is stored either with a full fence (seq_cst, the symmetric form) or
 * with a release store and a compiler barrier (the one-sided form).
 * Prints nanoseconds per record for each, the best of 5 runs.
 *
 * Sleeping: membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), what a rank going
 * to sleep issues in the one-sided form, with a registered process
 * spinning on the other CPU; nanoseconds per call.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ceiling.h"

enum { SLOTS = 1024, CREDIT_EVERY = 32 };

struct slot {
    _Alignas(64) atomic_uint seq;
    uint32_t len;
    uint64_t payload[2];
};

struct shared {
    struct slot ring[SLOTS];
    _Alignas(64) atomic_ulong consumed;
    _Alignas(64) atomic_int sleeping;
    _Alignas(64) atomic_long stop;
};

static long membarrier_call(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

/* The consumer: follow the ring until told to stop. */
static void consume(struct shared *sh)
{
    for (unsigned long pos = 0;; pos++) {
        struct slot *s = &sh->ring[pos % SLOTS];
        while (atomic_load_explicit(&s->seq, memory_order_acquire) != (unsigned)(pos + 1))
            if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
                _exit(0);
        if ((pos + 1) % CREDIT_EVERY == 0)
            atomic_store_explicit(&sh->consumed, pos + 1, memory_order_release);
    }
}

/* Nanoseconds per record for `n` records from position *pos. */
static double produce(struct shared *sh, unsigned long *pos, long n, int full_fence)
{
    double t0 = ceiling_now();
    unsigned long wakes = 0;
    for (long i = 0; i < n; i++, (*pos)++) {
        while (*pos - atomic_load_explicit(&sh->consumed, memory_order_acquire) >= SLOTS - CREDIT_EVERY)
            ;
        struct slot *s = &sh->ring[*pos % SLOTS];
        s->len = 16;
        s->payload[0] = *pos;
        s->payload[1] = ~*pos;
        if (full_fence) {
            atomic_store_explicit(&s->seq, (unsigned)(*pos + 1), memory_order_seq_cst);
        } else {
            atomic_store_explicit(&s->seq, (unsigned)(*pos + 1), memory_order_release);
            atomic_signal_fence(memory_order_seq_cst);
        }
        wakes += atomic_load_explicit(&sh->sleeping, memory_order_relaxed);
    }
    if (wakes)
        fprintf(stderr, "wake_fence_cost: the consumer never sleeps\n");
    return (ceiling_now() - t0) / (double)n * 1e9;
}

static double time_membarrier(int c1, double seconds)
{
    atomic_long *stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t spinner = fork();
    if (spinner == 0) {
        ceiling_pin(c1);
        membarrier_call(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
        while (!atomic_load_explicit(stop, memory_order_relaxed))
            ;
        _exit(0);
    }
    double best = 1e30;
    long n = 1000;
    for (int run = 0; run < 6; run++) {
        double t0 = ceiling_now();
        for (long i = 0; i < n; i++)
            membarrier_call(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
        double ns = (ceiling_now() - t0) / (double)n * 1e9;
        if (run == 0) {
            n = (long)(seconds / 5 / (ns * 1e-9));
            n = n < 100 ? 100 : n;
            continue;
        }
        best = ns < best ? ns : best;
    }
    atomic_store_explicit(stop, 1, memory_order_relaxed);
    waitpid(spinner, NULL, 0);
    return best;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    int c0 = ceiling_cpu(0), c1 = ceiling_cpu(1);
    if (c0 < 0 || c1 < 0 || seconds <= 0) {
        fprintf(stderr, "wake_fence_cost: needs two CPUs and a positive time\n");
        return 2;
    }
    long cmds = membarrier_call(MEMBARRIER_CMD_QUERY);
    int have_membarrier = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                          membarrier_call(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
    struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        ceiling_pin(c1);
        consume(sh);
    }
    ceiling_pin(c0);
    unsigned long pos = 0;
    long per_run = (long)(seconds / 10 / 50e-9);
    double best[2] = { 1e30, 1e30 };
    produce(sh, &pos, per_run / 4, 1);      /* warm-up */
    for (int run = 0; run < 10; run++) {
        double ns = produce(sh, &pos, per_run, run & 1);
        best[run & 1] = ns < best[run & 1] ? ns : best[run & 1];
    }
    atomic_store_explicit(&sh->stop, 1, memory_order_relaxed);
    waitpid(child, NULL, 0);
    printf("# wake_fence_cost, CPUs %d and %d: nanoseconds\n", c0, c1);
    printf("record, one-sided (release store, compiler barrier) %.1f\n", best[0]);
    printf("record, full fence (seq_cst store) %.1f\n", best[1]);
    if (have_membarrier)
        printf("membarrier(GLOBAL_EXPEDITED), a registered process spinning on the other CPU %.0f\n",
               time_membarrier(c1, seconds));
    else
        printf("membarrier(GLOBAL_EXPEDITED): not available here\n");
    return 0;
}
