/*
 * ceiling.h — what the programs that measure the machine's ceilings with no
 * MPI (alltoall_ceiling.c, coll_ceiling.c, line_pingpong.c,
 * wake_fence_cost.c) share: the clock, pinning, and the meeting of their
 * forked processes.
 */
#ifndef UZ_BENCH_CEILING_H
#define UZ_BENCH_CEILING_H

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline double ceiling_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The n-th CPU this process may use, or -1. */
static inline int ceiling_cpu(int n)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set))
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && n-- == 0)
            return c;
    return -1;
}

static inline void ceiling_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

/* Arrive on the counter every process bumps once per meeting, and wait
 * until it reaches `target` (meetings so far times processes; it is never
 * reset).  Waiters yield the processor for up to 200 us, then sleep on a
 * futex that the last to arrive rings (as Uzura's waits do): sleeping at
 * once costs a wake-up per call, and a waiter that only yielded kept taking
 * time slices from processes still copying. */
static inline void ceiling_meet(atomic_uint *arrived, unsigned target)
{
    unsigned v = atomic_fetch_add_explicit(arrived, 1, memory_order_acq_rel) + 1;
    if (v == target) {
        syscall(SYS_futex, (unsigned *)arrived, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        return;
    }
    double until = ceiling_now() + 200e-6;
    while ((v = atomic_load_explicit(arrived, memory_order_acquire)) < target) {
        if (ceiling_now() < until)
            sched_yield();
        else
            syscall(SYS_futex, (unsigned *)arrived, FUTEX_WAIT, v, NULL, NULL, 0);
    }
}

#endif
