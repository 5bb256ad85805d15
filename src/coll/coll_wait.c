/*
 * coll_wait.c — waiting inside blocking collectives.
 *
 * A collective waits for one particular rank at a time, and on this kind
 * of host that rank is often not running: it shares our core with other
 * ranks of the job, or with other work.  Polling then only delays it, so:
 *
 *  - poll only when every rank of the host has a processor, for as long
 *    as point-to-point waits do (UZURA_WAIT_SPIN_US): between the steps of
 *    a collective a running peer does local work (sorting a split's
 *    entries, reducing a block) for some microseconds, and a yield then
 *    would hand the core to other work for a whole time slice;
 *  - then yield the processor between polls: cheap when nothing else wants
 *    it, and when something does, that may be the rank we wait for;
 *  - after a while (200 us; when ranks outnumber processors, as long as
 *    point-to-point waits yield) sleep on the host transport's doorbell
 *    (uz_progress_sleep).  Point-to-point records and the shared-memory
 *    collectives' releases ring it.  Sleeping sooner, after two yields,
 *    cost more in wake-ups than the yields took (below).
 *
 * With other work on the host, a 50 µs poll made some rounds cost those
 * 50 µs; with a 2 µs poll, Comm_dup at np = 2 cost 110 µs instead of 2
 * (a yield per round).  Oversubscribed, nothing polls.
 */
#include <sched.h>
#include <time.h>

#include "base/hwtopo.h"
#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "coll/coll_wait.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/wait_note.h"

/* With a processor per rank, yield this long before sleeping.  With more
 * ranks than processors, as long as point-to-point waits do
 * (uz_progress_yield_ns(), 200 us): the waits here used to sleep after two
 * yields, and a futex wake-up of a rank whose virtual processor had gone
 * idle took tens of microseconds (np 4 on 2 cores: Gather 256 KiB 57 us
 * with the ranks spread over the cores against 18.6 yielding; Bcast
 * 32 KiB 9.5 against 5.3, Exscan 4 MiB 1634 against 1048).  A yield gives
 * the processor to whichever rank sharing it can run, so it does not take
 * a peer's time. */
enum { YIELD_NS = 200000 };

/* How long one sleep lasts: a safety net, as wakers ring the doorbell
 * (UZURA_COLL_SLEEP_MAX_US; 0, for tests: ten minutes, i.e. a hang). */
static long sleep_ns(void)
{
    return uz_config.coll_sleep_max_us > 0 ? uz_config.coll_sleep_max_us * 1000L : 600L * 1000000000L;
}

static int oversubscribed = -1;

/* Not this rank's own mask: a rank mpiexec bound to a core has it alone. */
static int count_cpus(void)
{
    return uz_hwtopo_cpus_for_ranks(uz_config.local_cpus);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Polls between looks at the clock while polling: clock_gettime costs
 * 25-30 ns on a virtual machine, more than a poll, and a tiny
 * collective's wait is usually over within a few polls.  The pause
 * between polls stays: without it the shared-area collectives, whose
 * waiters poll a line the last rank to arrive writes, were 8-14% slower
 * (np 2 Allgather and Allreduce of 8 bytes). */
enum { POLLS_PER_CLOCK = 16 };

/* Tell mpiexec's state page (pt2pt/wait_note.h) that this rank is about
 * to sleep in a collective; out of line, off the fast path. */
static UZ_COLD void publish(int blocked)
{
    if (uz_wait_publish && !uz_rt.thread_multiple)
        uz_wait_publish(blocked);
}

/* A rank that cannot sleep publishes after this many yields instead. */
enum { PUBLISH_AFTER_YIELDS = 1000 };

static void coll_wait_slow(int (*done)(void *arg), void *arg, atomic_uint *sleepers, long start);

void uz_coll_wait(int (*done)(void *arg), void *arg, atomic_uint *sleepers)
{
    if (done(arg))
        return;
    if (oversubscribed < 0)
        oversubscribed = uz_rt.local_size > count_cpus();
    if (oversubscribed) {
        coll_wait_slow(done, arg, sleepers, now_ns());
        return;
    }
    long start = 0;
    for (unsigned polls = 1;; polls++) {
        uz_progress();
        if (done(arg))
            return;
        cpu_relax();
        if (polls % POLLS_PER_CLOCK)
            continue;
        long now = now_ns();
        if (!start)
            start = now;
        else if (now - start >= uz_progress_spin_ns())
            break;
    }
    coll_wait_slow(done, arg, sleepers, start);
}

/* Yield, then sleep, until done; publishes the state page before the
 * first sleep and takes it back when done. */
static void coll_wait_slow(int (*done)(void *arg), void *arg, atomic_uint *sleepers, long start)
{
    int published = 0;
    for (int yields = 0;; yields++) {
        if (uz_progress() && !done(arg))
            continue;
        if (done(arg))
            break;
        int sleep = uz_progress_can_sleep() &&
                    now_ns() - start > (oversubscribed ? uz_progress_yield_ns() : YIELD_NS);
        if (!published && (sleep || yields >= PUBLISH_AFTER_YIELDS)) {
            publish(1);
            published = 1;
        }
        if (!sleep) {
            uz_unlock();
            sched_yield();
            uz_lock();
            continue;
        }
        if (sleepers)
            atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
        /* Through pt2pt's sleep: with peers on other hosts it also wakes
         * on their packets (a futex alone would leave them unread for up
         * to the sleep's length, and the sender's retransmission timer running). */
        uz_progress_sleep(done, arg, sleep_ns());
        if (sleepers)
            atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
    }
    if (published)
        publish(0);
}
