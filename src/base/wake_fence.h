/*
 * wake_fence.h — the fence between publishing work for a peer on this host
 * and reading whether that peer sleeps, made one-sided with membarrier(2).
 *
 * A sender stores its record, then reads the receiver's "sleeping" flag; a
 * receiver about to sleep stores the flag, then looks for records once more.
 * Each side needs a store-load fence between its store and its load, or both
 * may read the old value and the wake-up is lost (Dekker).  Senders publish
 * at every message and receivers sleep rarely, so where the kernel has
 * MEMBARRIER_CMD_GLOBAL_EXPEDITED the sender's fence is only a compiler
 * barrier and the sleeper pays for both: its membarrier() makes every
 * running registered process pass a full fence before it looks again, so a
 * record whose sender read "awake" is visible to that last look.  On this
 * machine (bench/wake_fence_cost) a record published with the full fence
 * took 40 ns against 8 without (the locked store waits for the record's
 * lines to leave the store buffer), 4-14 % of a small message; a
 * membarrier 0.6-11 us, paid while going to sleep, where a sleep and
 * wake-up cost 23 us a handoff either way.
 *
 * Where membarrier is missing or refused (old kernel, seccomp) every side
 * keeps the full fence (UZURA_SHM_FENCE=full forces it).
 */
#ifndef UZ_BASE_WAKE_FENCE_H
#define UZ_BASE_WAKE_FENCE_H

#include <stdatomic.h>

/* 1 once this process and every rank it publishes to sleep with
 * membarrier (set by the shm transport at start-up, never cleared while
 * a peer may rely on it). */
extern int uz_wake_fence_one_sided;

/* The publisher's side: after storing what a sleeper must see, before
 * reading whether it sleeps. */
static inline void uz_wake_fence_publish(void)
{
    if (uz_wake_fence_one_sided)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* The sleeper's side: after announcing that it sleeps, before its last
 * look for work.  `peers_may_skip`: some publisher to this process may be
 * using the one-sided form (this job's ranks, or a linked job's). */
void uz_wake_fence_sleep(int peers_may_skip);

/* At start-up: can this process take part in the one-sided form (the
 * kernel has the call and registered us as a target)?  Returns 1 if so. */
int uz_wake_fence_register(void);

/* What the host's ranks settled on, and why (for UZURA_VERBOSE's
 * "waiting" line): sets uz_wake_fence_one_sided. */
void uz_wake_fence_decided(int one_sided, const char *why);
const char *uz_wake_fence_describe(void);

#endif /* UZ_BASE_WAKE_FENCE_H */
