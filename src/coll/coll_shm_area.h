/*
 * coll_shm_area.h — the inside of a communicator's shared collective area
 * (coll_shm.c explains it: lanes, phases, slots, and the steps of an
 * operation), for the files that implement operations on it (coll_shm.c,
 * coll_shm_scan.c).  Not for anyone else: the layout and the steps'
 * protocol are private to those files.
 */
#ifndef UZ_COLL_COLL_SHM_AREA_H
#define UZ_COLL_COLL_SHM_AREA_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/wake_fence.h"
#include "coll/coll_shm.h"
#include "coll/coll_wait.h"
#include "datatype/dt_engine.h"
#include "pt2pt/host_offload.h"

enum { LINE = 64, MIN_SLOT = 8192, MAX_SLOT = 1 << 20 };
enum { SMALL_PHASES = 16, SMALL_SLOT = 4096 };

/* Two rendezvous per phase: the second is for the parallel reduction
 * (everyone has reduced its share). */
struct phase_ctl {
    _Alignas(LINE) atomic_uint arrived;
    _Alignas(LINE) atomic_ulong gen;            /* k of the last release in this phase */
    _Alignas(LINE) atomic_uint arrived2;
    _Alignas(LINE) atomic_ulong gen2;
};

struct area_hdr {
    _Alignas(LINE) atomic_uint sleepers;        /* ranks that may be asleep waiting here */
    /* Those asleep in op_begin() for another rank's done line: counted
     * apart so that skip_ops(), which only moves done lines, rings only
     * for them. */
    _Alignas(LINE) atomic_uint begin_sleepers;
};

struct done_line {
    _Alignas(LINE) atomic_ulong k;              /* last operation this rank finished */
    /* Last operation in which this rank's slot was complete, for
     * operations whose ranks each wait for some others only (Scan). */
    atomic_ulong posted;
    /* While this rank waits in op_begin() for another's done line: which
     * rank and what value (want_word()), so that a rank whose line moves
     * without a release (skip_ops) rings only a waiter it satisfies. */
    atomic_ulong want;
};

/* A waiter's want: done line of `rank` at least `k`; 0: waiting for none. */
enum { WANT_RANK_BITS = 20 };
static inline uint64_t want_word(int rank, uint64_t k)
{
    return k << WANT_RANK_BITS | (uint64_t)rank;
}

struct lane {
    int nphase;                 /* a power of two */
    size_t slot;
    struct phase_ctl *ctl;      /* [nphase] */
    struct done_line *done;     /* [p] */
    unsigned char *data;        /* nphase phases of p+1 slots */
    uint64_t k;                 /* operations started */
    uint64_t known_done;        /* every rank has finished operations <= this */
};

struct uz_coll_shm {
    const struct uz_coll_offload *off;  /* the host transport's */
    unsigned char *base;
    size_t bytes;
    int p, me;
    struct area_hdr *hdr;
    struct lane lanes[2];       /* small, large */
    int *locals;                /* local index (on this host) of each rank */
    /* The last alltoallv pulled its blocks: the next one first swaps its
     * block addresses and pulls everything (the same on every rank, as
     * every rank saw the same cards). */
    int pullv_last;
};

/* The communicator's area, set up by its first call that wants it (a
 * collective call); NULL when it cannot be. */
struct uz_coll_shm *uz_coll_shm_of(uz_comm *comm);

static inline struct uz_coll_shm *shm_of(uz_comm *comm)
{
    return uz_coll_shm_of(comm);
}

/* ----------------------------------------------------------------- waiting */

struct until {
    atomic_ulong *word;
    uint64_t target;
};

static inline int reached(void *arg)
{
    struct until *u = arg;
    return atomic_load_explicit(u->word, memory_order_acquire) >= u->target;
}

/* Wait until *w >= target (coll_wait.c says how). */
static inline void wait_for(struct uz_coll_shm *sh, atomic_ulong *w, uint64_t target)
{
    struct until u = { w, target };
    uz_coll_wait(reached, &u, &sh->hdr->sleepers);
}

/* -------------------------------------------------------- operation steps */

/* Store a word a sleeping rank may wait for, then pass the publisher's
 * half of the wake-up fence (base/wake_fence.h) before the caller reads
 * the sleeper counts. */
static inline void publish_word(atomic_ulong *w, uint64_t v)
{
    atomic_store_explicit(w, v, memory_order_release);
    uz_wake_fence_publish();
}

static inline void ring_all(struct uz_coll_shm *sh)
{
    for (int r = 0; r < sh->p; r++)
        if (r != sh->me)
            sh->off->wake_if_sleeping(sh->locals[r]);
}

static inline void wake_sleepers(struct uz_coll_shm *sh)
{
    if (atomic_load_explicit(&sh->hdr->sleepers, memory_order_seq_cst) != 0)
        ring_all(sh);
}

/* After this rank's done line on lane L moved to `now`: wake whoever
 * sleeps in op_begin() waiting for it to get there.  Only those: a rank
 * lagging far behind (the root of tiny Gathervs whose senders went on to
 * the next operation) would otherwise ring every sleeper at every step
 * (np 8 tiny Gatherv 0.84 us -> 2.2).  A waiter stores its want before it
 * counts itself and checks the line again; we store the line before we
 * read the count and the wants, so one of us sees the other. */
static inline void wake_begin_sleepers(struct uz_coll_shm *sh, struct lane *L, uint64_t now)
{
    if (atomic_load_explicit(&sh->hdr->begin_sleepers, memory_order_seq_cst) == 0)
        return;
    for (int r = 0; r < sh->p; r++) {
        uint64_t w = atomic_load_explicit(&L->done[r].want, memory_order_seq_cst);
        if (r != sh->me && w != 0 && (int)(w & ((1u << WANT_RANK_BITS) - 1)) == sh->me &&
            w >> WANT_RANK_BITS <= now)
            sh->off->wake_if_sleeping(sh->locals[r]);
    }
}

/* The lane for an operation whose slots hold `per_slot` bytes at most. */
static inline struct lane *lane_for(struct uz_coll_shm *sh, size_t per_slot)
{
    return per_slot <= sh->lanes[0].slot ? &sh->lanes[0] : &sh->lanes[1];
}

static inline uint64_t op_begin(struct uz_coll_shm *sh, struct lane *L)
{
    uint64_t k = ++L->k, n = (uint64_t)L->nphase;
    if (k > n && L->known_done < k - n) {
        for (int r = 0; r < sh->p; r++) {
            struct until u = { &L->done[r].k, k - n };
            if (reached(&u))
                continue;
            atomic_store_explicit(&L->done[sh->me].want, want_word(r, k - n), memory_order_seq_cst);
            uz_coll_wait(reached, &u, &sh->hdr->begin_sleepers);
            atomic_store_explicit(&L->done[sh->me].want, 0, memory_order_relaxed);
        }
        L->known_done = k - n;
    }
    return k;
}

/* A rank may sleep in op_begin waiting for this: wake it. */
static inline void op_end(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    publish_word(&L->done[sh->me].k, k);
    if (atomic_load_explicit(&sh->hdr->sleepers, memory_order_seq_cst) != 0)
        ring_all(sh);
    else
        wake_begin_sleepers(sh, L, k);
}

/* Every rank arrived at k, so every rank finished k-1. */
static inline void all_arrived(struct lane *L, uint64_t k)
{
    if (L->known_done < k - 1)
        L->known_done = k - 1;
}

static inline struct phase_ctl *ctl_of(struct lane *L, uint64_t k)
{
    return &L->ctl[k & (uint64_t)(L->nphase - 1)];
}

static inline int arrive(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    struct phase_ctl *c = ctl_of(L, k);
    unsigned before = atomic_fetch_add_explicit(&c->arrived, 1, memory_order_acq_rel);
    if (before + 1 < (unsigned)sh->p)
        return 0;
    atomic_store_explicit(&c->arrived, 0, memory_order_relaxed);
    return 1;
}

static inline void release(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    publish_word(&ctl_of(L, k)->gen, k);
    wake_sleepers(sh);
}

static inline void wait_release(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    wait_for(sh, &ctl_of(L, k)->gen, k);
}

/* Every rank of the area meets at operation k: the last to arrive
 * releases the others.  Afterwards all ranks finished k-1. */
static inline void all_meet(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    if (arrive(sh, L, k))
        release(sh, L, k);
    else
        wait_release(sh, L, k);
    all_arrived(L, k);
}

/* Slot r of operation k's phase (r == p: the result slot). */
static inline unsigned char *slot_of(struct uz_coll_shm *sh, struct lane *L, uint64_t k, int r)
{
    uint64_t phase = k & (uint64_t)(L->nphase - 1);
    return L->data + ((size_t)phase * (size_t)(sh->p + 1) + (size_t)r) * L->slot;
}

/* ------------------------------------------------------------ data moving */

/* Bytes [off, off+len) of the packed stream of (buf, count, dt). */
static inline void pack_range(const void *buf, MPI_Count count, const uz_datatype *dt, size_t off, size_t len, void *dst)
{
    if (len == 0)
        return;
    if (uz_dt_is_contig(dt, count)) {
        memcpy(dst, (const char *)buf + dt->true_lb + off, len);
        return;
    }
    struct uz_dt_cursor c;
    uz_dt_cursor_init(&c, buf, count, dt);
    uz_dt_cursor_seek(&c, off);
    uz_dt_cursor_pack(&c, dst, len);
}

static inline void unpack_range(void *buf, MPI_Count count, const uz_datatype *dt, size_t off, size_t len, const void *src)
{
    if (len == 0)
        return;
    if (uz_dt_is_contig(dt, count)) {
        memcpy((char *)buf + dt->true_lb + off, src, len);
        return;
    }
    struct uz_dt_cursor c;
    uz_dt_cursor_init(&c, buf, count, dt);
    uz_dt_cursor_seek(&c, off);
    uz_dt_cursor_unpack(&c, src, len);
}

#endif /* UZ_COLL_COLL_SHM_AREA_H */
