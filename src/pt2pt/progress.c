/*
 * progress.c — the progress engine and how a rank waits.
 *
 * Progress polls every open transport that has something to poll and
 * retries queued records.  Waiting follows DESIGN.md: poll first (cheapest
 * and fastest when every rank has its own core), then yield the core, then
 * sleep on the host transport's doorbell (a futex in shared memory) until
 * a peer rings it.  With more ranks than cores, polling only burns the
 * time slice the peer needs, so the polling phase is skipped there and
 * yielding starts at once.  With network peers the rank sleeps in poll()
 * on their descriptors too, and local peers ring a socket instead.
 *
 * Which transports take part is read once from the open paths (path.h)
 * into small arrays of their members, so a progress call is a loop over
 * one or two function pointers.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "base/wake_fence.h"
#include "pt2pt/path.h"
#include "pt2pt/progress.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/send.h"
#include "pt2pt/stats.h"
#include "pt2pt/wait_note.h"

static long spin_ns, yield_ns;
static int waits_oversubscribed;        /* for uz_progress_describe */

/* How long one sleep lasts: a safety net only, peers wake us
 * (UZURA_WAIT_SLEEP_MAX_US; 0, for tests: ten minutes, i.e. a hang). */
static long sleep_timeout_ns(void)
{
    return uz_config.wait_sleep_max_us > 0 ? uz_config.wait_sleep_max_us * 1000L : 600L * 1000000000L;
}

/* The open transports' members that progress and waiting use. */
static int (*progress_fns[UZ_MAX_PATHS])(void);
static int nprogress;
static int (*pollfds_fns[UZ_MAX_PATHS])(struct pollfd *fds, int max, int *timeout_ms);
static int npollfds;
static int (*pending_fns[UZ_MAX_PATHS])(void);
static int npending;
/* The doorbell: the first open transport that can put a rank to sleep. */
static int (*doorbell_sleep)(long timeout_ns, struct pollfd *fds, int nfds, int (*ready)(void));

static void collect_members(void)
{
    nprogress = npollfds = npending = 0;
    doorbell_sleep = NULL;
    for (int i = 0; i < uz_npaths; i++) {
        const struct uz_transport_ops *t = uz_paths[i].ops;
        if (t->progress)
            progress_fns[nprogress++] = t->progress;
        if (t->pollfds)
            pollfds_fns[npollfds++] = t->pollfds;
        if (t->work_pending)
            pending_fns[npending++] = t->work_pending;
        if (t->sleep && !doorbell_sleep)
            doorbell_sleep = t->sleep;
    }
}

void uz_progress_paths_changed(void)
{
    collect_members();
}

void uz_progress_configure(int oversubscribed)
{
    collect_members();
    waits_oversubscribed = oversubscribed;
    int spin_us = uz_config.wait_spin_us >= 0 ? uz_config.wait_spin_us : oversubscribed ? 0 : 50;
    int yield_us = uz_config.wait_yield_us >= 0 ? uz_config.wait_yield_us : oversubscribed ? 200 : 2000;
    spin_ns = 1000L * spin_us;
    yield_ns = 1000L * yield_us;
}

long uz_progress_spin_ns(void)
{
    return spin_ns;
}

long uz_progress_yield_ns(void)
{
    return yield_ns;
}

/* How a waiting rank spends its time, and why, for UZURA_VERBOSE.  Mirrors
 * uz_progress_wait and can_sleep below. */
void uz_progress_describe(char *buf, size_t len)
{
    const char *then = uz_rt.thread_multiple ? "then short sleeps (MPI_THREAD_MULTIPLE: another thread "
                                               "may complete the request without waking this one)"
                     : !doorbell_sleep ? "then keep yielding (no other rank to be woken by)"
                     : npollfds ? "then sleep in poll() on its sockets until a peer or a message "
                                       "wakes it"
                     : "then sleep on a futex in shared memory until a peer rings it";
    const char *why = uz_config.wait_spin_us >= 0 || uz_config.wait_yield_us >= 0
                    ? "as UZURA_WAIT_SPIN_US / UZURA_WAIT_YIELD_US say"
                    : waits_oversubscribed ? "no polling, because this host has more ranks than processors "
                                             "they may use (polling would take a peer's time slice)"
                    : "polling first, because every rank on this host has a processor of its own";
    char fence[300] = "";
    if (doorbell_sleep && !uz_rt.thread_multiple)
        snprintf(fence, sizeof(fence), " (wake-ups: %s)", uz_wake_fence_describe());
    snprintf(buf, len, "poll %ld us, then yield the processor for %ld us, %s%s; %s", spin_ns / 1000,
             yield_ns / 1000, then, fence, why);
}

/* --------------------------------------------------------- pollable requests */

static uz_request **pollables;
static int npollables, pollables_cap;

void uz_progress_register(uz_request *req)
{
    if (npollables == pollables_cap) {
        int cap = pollables_cap ? 2 * pollables_cap : 16;
        uz_request **n = realloc(pollables, sizeof(*n) * cap);
        if (!n)
            abort();
        pollables = n;
        pollables_cap = cap;
    }
    pollables[npollables++] = req;
}

void uz_progress_unregister(uz_request *req)
{
    for (int i = 0; i < npollables; i++) {
        if (pollables[i] == req) {
            pollables[i] = pollables[--npollables];
            return;
        }
    }
}

static int poll_requests(void)
{
    int work = 0;
    /* A poll may complete and unregister its request, so walk backwards. */
    for (int i = npollables - 1; i >= 0; i--) {
        if (i >= npollables)
            continue;
        uz_request *r = pollables[i];
        work += r->ops->poll(r);
    }
    return work;
}

/* ---------------------------------------------------------------- progress */

int uz_progress(void)
{
    int work = 0;
    for (int i = 0; i < nprogress; i++)
        work += progress_fns[i]();
    if (UZ_UNLIKELY(uz_send_pending()))
        work += uz_send_flush();
    if (UZ_UNLIKELY(npollables))
        work += poll_requests();
    return work;
}

/* ----------------------------------------------------------------- waiting */

static inline long now_ns(void)
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

static int (*sleep_done)(void *);
static void *sleep_arg;

/* The sleeper's last look: is there work after all? */
static int ready_to_run(void)
{
    for (int i = 0; i < npending; i++)
        if (pending_fns[i]())
            return 1;
    return sleep_done(sleep_arg);
}

/* With network peers we sleep in poll() on their descriptors and the
 * doorbell's wake socket (local peers ring that instead of the futex);
 * their timers may shorten the sleep. */
void uz_progress_sleep(int (*done)(void *arg), void *arg, long timeout_ns)
{
    enum { MAX_FDS = 256 };
    static struct pollfd fds[MAX_FDS + 1];
    sleep_done = done;
    sleep_arg = arg;
    if (!doorbell_sleep)
        return;
    int nfds = 0;
    if (npollfds) {
        int timeout_ms = (int)(timeout_ns / 1000000);
        for (int i = 0; i < npollfds; i++)
            nfds += pollfds_fns[i](fds + nfds, MAX_FDS - nfds, &timeout_ms);
        timeout_ns = timeout_ms * 1000000L;
    }
    if (doorbell_sleep(timeout_ns, fds, nfds, ready_to_run))
        uz_wait_stats.sleep_timeouts++;
}

/* Sleeping is safe only when whatever we wait for will ring our doorbell:
 * a peer's record or bulk step.  Records queued because a ring was full
 * get no wake-up, and under MPI_THREAD_MULTIPLE another thread of ours may
 * finish our request without ringing; both keep to yielding. */
static atomic_int awake_holds;

void uz_progress_hold_awake(int delta)
{
    atomic_fetch_add_explicit(&awake_holds, delta, memory_order_relaxed);
}

int uz_progress_can_sleep(void)
{
    return doorbell_sleep && !uz_send_pending() && !uz_rt.thread_multiple &&
           !atomic_load_explicit(&awake_holds, memory_order_relaxed);
}

/* Polls between looks at the clock while idle: reading it costs about as
 * much as a poll, and a few dozen polls take well under a microsecond. */
enum { POLLS_PER_CLOCK = 64 };

struct uz_wait_stats uz_wait_stats;

/* An idle stretch that began at `since` (0: none) ended about `now`. */
static inline void count_idle(long since, long now)
{
    if (since)
        uz_wait_stats.idle_ns += now - since;
}

/* The hang diagnosis (wait_note.h): what the running blocking procedure
 * waits for, and the core's writer of the state page. */
_Thread_local struct uz_wait_note *uz_wait_note __attribute__((tls_model("initial-exec")));
_Thread_local const char *uz_wait_call __attribute__((tls_model("initial-exec")));
void (*uz_wait_publish)(int blocked);

/* A rank that stays blocked rewrites its page this often (ns of idle time),
 * so that requests completed meanwhile leave the list. */
enum { REPUBLISH_NS = 100000000 };

/* Tell mpiexec's state page that this wait is about to sleep; once idle
 * for as long as a wait polls and yields, never on the fast path.
 * Returns the idle time it was published at. */
static UZ_COLD long publish_blocked(long idle)
{
    if (uz_wait_publish && !uz_rt.thread_multiple)
        uz_wait_publish(1);
    return idle;
}

void uz_progress_wait(int (*done)(void *arg), void *arg)
{
    long idle_since = 0, idle_seen = 0;
    long published = -1;                /* idle time of the last publication, -1: none */
    unsigned idle_polls = 0;
    while (!done(arg)) {
        if (uz_progress() || done(arg)) {
            count_idle(idle_since, idle_seen);
            idle_since = 0;
            idle_polls = 0;
            continue;
        }
        if (UZ_UNLIKELY(uz_rt.thread_multiple)) {
            uz_unlock();
            cpu_relax();
            uz_lock();
        }
        if (++idle_polls % POLLS_PER_CLOCK)
            continue;
        long now = now_ns();
        if (!idle_since)
            idle_since = now;
        idle_seen = now;
        long idle = now - idle_since;
        if (UZ_UNLIKELY(idle >= spin_ns + yield_ns) &&
            (published < 0 || idle - published >= REPUBLISH_NS))
            published = publish_blocked(idle);
        if (idle < spin_ns) {
            /* Keep polling: on a core of our own this is the fastest way to
             * see the next message (no pause: it only delays the look). */
        } else if (idle < spin_ns + yield_ns || !uz_progress_can_sleep()) {
            uz_unlock();
            if (idle < spin_ns + yield_ns || !uz_rt.thread_multiple)
                sched_yield();
            else
                nanosleep(&(struct timespec){ 0, 50000 }, NULL);
            uz_lock();
            idle_polls = POLLS_PER_CLOCK - 1;   /* look at the clock after each yield */
        } else {
            uz_wait_stats.sleeps++;
            uz_progress_sleep(done, arg, sleep_timeout_ns());
            idle_polls = POLLS_PER_CLOCK - 1;
        }
    }
    count_idle(idle_since, idle_seen);
    if (UZ_UNLIKELY(published >= 0) && uz_wait_publish)
        uz_wait_publish(0);
}

static int request_done(void *arg)
{
    return uz_request_is_complete(arg);
}

/* A blocking send or receive named only in uz_wait_call (wait_note.h)
 * that has to wait: its note, now. */
static UZ_COLD void wait_named(uz_request *req)
{
    struct uz_wait_note note = { .call = uz_wait_call, .one = req, .reqs = &note.one, .nreqs = 1 };
    struct uz_wait_note *prev = uz_wait_note_enter(&note);
    uz_progress_wait(request_done, req);
    uz_wait_note_leave(prev);
}

void uz_request_wait(uz_request *req)
{
    if (!uz_wait_note && uz_wait_call && !uz_request_is_complete(req)) {
        wait_named(req);
        return;
    }
    uz_wait_note_request(req);
    uz_progress_wait(request_done, req);
}
