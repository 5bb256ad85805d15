/*
 * line_pingpong.c — the machine's floor for tiny messages between two
 * cores: how long one cache line takes to go from one core to the other
 * and back, with no MPI.
 *
 *   line_pingpong [seconds]
 *
 * Two processes, pinned to the first two CPUs they may use, share one
 * cache line (an anonymous shared mapping); each waits for the counter to
 * reach its turn and bumps it.  Prints nanoseconds per one-way handoff
 * (half a round trip), the best of 5 runs of about a fifth of the given
 * time (default 1 s).  Any protocol that tells another core something
 * takes at least one handoff; a tiny MPI call between two ranks that
 * waits for the other (a ping-pong, a Barrier, an Allreduce) takes at
 * least one or two.  The figure moves with the virtual machine's state
 * (docs/performance.md: 0.056 to 0.27 us), so take it beside the runs it
 * explains.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ceiling.h"

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    int c0 = ceiling_cpu(0), c1 = ceiling_cpu(1);
    if (c0 < 0 || c1 < 0 || seconds <= 0) {
        fprintf(stderr, "line_pingpong: needs two CPUs and a positive time\n");
        return 2;
    }
    _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* Handoffs per run: calibrated on a short first run by the parent. */
    long per_run = 200000;
    pid_t child = fork();
    if (child == 0) {
        ceiling_pin(c1);
        /* Odd values are ours to bump; stop at a negative one. */
        for (;;) {
            long v;
            while (((v = atomic_load_explicit(line, memory_order_acquire)) & 1) == 0)
                ;
            if (v < 0)
                _exit(0);
            atomic_store_explicit(line, v + 1, memory_order_release);
        }
    }
    ceiling_pin(c0);
    double best = 1e30;
    long v = 0;
    for (int run = 0; run < 6; run++) {
        double t0 = ceiling_now();
        for (long i = 0; i < per_run; i++) {
            atomic_store_explicit(line, v + 1, memory_order_release);
            while (atomic_load_explicit(line, memory_order_acquire) != v + 2)
                ;
            v += 2;
        }
        double ns = (ceiling_now() - t0) / (double)per_run / 2 * 1e9;
        if (run == 0) {     /* calibration: a fifth of the time per run */
            per_run = (long)(seconds / 5 / (ns * 2e-9));
            per_run = per_run < 1000 ? 1000 : per_run;
            continue;
        }
        best = ns < best ? ns : best;
    }
    atomic_store_explicit(line, -1, memory_order_release);
    waitpid(child, NULL, 0);
    printf("# line_pingpong, CPUs %d and %d: nanoseconds per one-way handoff of a cache line\n%.1f\n", c0, c1,
           best);
    return 0;
}
