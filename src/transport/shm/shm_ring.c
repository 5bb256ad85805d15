/*
 * shm_ring.c — message records through the per-pair rings.
 *
 * The sender writes a record's bytes, then its sequence word (position + 1)
 * with a release store, so the receiver polling that word sees the whole
 * record, then passes its half of the wake-up fence (base/wake_fence.h) so
 * that its following check of the receiver's "sleeping" flag cannot be
 * taken before the record is seen (no lost wake-up).  A record that would cross the end of the ring is preceded by
 * a WRAP record and starts again at slot 0, so every record is contiguous.
 *
 * The receiver polls only the slot where the next record starts.  Any slot
 * may start a record one day, and the first word of a slot that was last
 * written as the middle of a long record is payload, which could look like
 * the expected sequence number.  So before publishing a record the sender
 * zeroes the first word of the slot after it when that word is payload (it
 * keeps a bit per slot).  The receiver writes nothing into the ring: the
 * lines it read go back to the sender clean, and a long message costs the
 * sender one extra store per record instead of the receiver one per slot
 * (which also made every line the sender rewrites a modified line in the
 * other core's cache).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy_small.h"
#include "base/errors.h"
#include "base/params.h"
#include "base/trace_stages.h"
#include "base/wake_fence.h"
#include "transport/shm/shm_state.h"

static inline uint32_t slots_for(size_t len)
{
    return (uint32_t)((offsetof(struct shm_slot, bytes) + len + sizeof(struct shm_slot) - 1) /
                      sizeof(struct shm_slot));
}

/* Where a lap's first look at the ring's start comes (never, when off). */
static inline uint32_t first_look(const struct shm_tx *tx)
{
    return tx->hot_slots ? tx->hot_slots : UINT32_MAX;
}

void shm_tx_start_hot(struct shm_tx *tx)
{
    size_t hot = uz_config.shm_ring_hot / sizeof(struct shm_slot);
    tx->hot_slots = hot && hot <= tx->nslots / 2 ? (uint32_t)hot : 0;
    tx->next_return = first_look(tx);
    tx->rx_index = -1;
    tx->reverse_seen = 0;
    tx->returned_at = 0;
}

/* First send to a peer: reserve the ring's memory and tell the peer to
 * start polling it. */
static int activate_tx(int peer)
{
    if (peer >= uz_shm.nlocal)
        return shm_link_activate_tx(peer);
    size_t off = shm_ring_offset(uz_shm.my_local, peer);
    int err = shm_reserve(off, uz_shm.hdr->ring_stride, "a message ring");
    if (err)
        return err;
    struct shm_tx *tx = &uz_shm.tx[peer];
    tx->payload_first = calloc((uz_shm.ring_slots + 63) / 64, sizeof(uint64_t));
    if (!tx->payload_first)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a message ring");
    tx->ring_ctl = (struct shm_ring_ctl *)(uz_shm.base + off);
    tx->slots = (struct shm_slot *)(uz_shm.base + off + sizeof(struct shm_ring_ctl));
    tx->nslots = uz_shm.ring_slots;
    tx->mask = uz_shm.ring_mask;
    tx->produced = 0;
    tx->consumed_seen = 0;
    shm_tx_start_hot(tx);
    struct shm_ctl *c = shm_ctl_of(peer);
    int me = uz_shm.my_local;
    atomic_fetch_or(&c->active_senders[me / 64], 1ul << (me % 64));
    atomic_fetch_add(&c->active_gen, 1);
    return MPI_SUCCESS;
}

static inline int ring_has_room(struct shm_tx *tx, uint64_t end)
{
    if (end - tx->consumed_seen <= tx->nslots)
        return 1;
    tx->consumed_seen = atomic_load_explicit(&tx->ring_ctl->consumed, memory_order_acquire);
    return end - tx->consumed_seen <= tx->nslots;
}

/* A record of `need` slots at `idx`: its first slot holds a sequence word,
 * the others payload. */
static inline void note_record(uint64_t *bits, uint32_t idx, uint32_t need)
{
    bits[idx / 64] &= ~(1ul << (idx % 64));
    for (uint32_t i = idx + 1; i < idx + need;) {
        uint32_t w = i / 64, b = i % 64;
        uint32_t n = idx + need - i < 64 - b ? idx + need - i : 64 - b;
        bits[w] |= (n == 64 ? ~0ul : ((1ul << n) - 1)) << b;
        i += n;
    }
}

/* Make sure slot `idx` cannot show a stale sequence number. */
static inline void clear_payload_first(struct shm_tx *tx, uint32_t idx)
{
    uint64_t bit = 1ul << (idx % 64);
    if (tx->payload_first[idx / 64] & bit) {
        atomic_store_explicit(&tx->slots[idx].seq, 0, memory_order_relaxed);
        tx->payload_first[idx / 64] &= ~bit;
    }
}

/* Slots received from `peer` since this ring last went back to its start
 * (0 when nothing came). */
static uint64_t reverse_traffic(struct shm_tx *tx, int peer)
{
    if (tx->rx_index < 0 || tx->rx_index >= uz_shm.nrx || uz_shm.rx[tx->rx_index].peer != peer) {
        tx->rx_index = -1;
        for (int i = 0; i < uz_shm.nrx && tx->rx_index < 0; i++)
            if (uz_shm.rx[i].peer == peer)
                tx->rx_index = i;
        if (tx->rx_index < 0)
            return 0;
    }
    return uz_shm.rx[tx->rx_index].consumed - tx->reverse_seen;
}

/* Positions past the ring's hot start (UZURA_SHM_RING_HOT): go back to
 * slot 0 now if the receiver has read what was there, instead of going
 * round the whole ring.  Round the whole ring, a sender writes lines it
 * wrote a ring ago, long out of its first-level cache, and a stream of
 * 4 KiB messages between two cores took 0.50 us each through a 256 KiB
 * ring against 0.34 with a hot start of 8 KiB; a receiver behind still
 * has the whole ring (the records go on past the hot start).
 *
 * Two cases only: the receiver has read everything (ping-pong, or a
 * stream it keeps up with), or it is behind but what came back from it
 * since the last return is under an eighth of what went (a stream one
 * way, as a broadcast's, or with a window's acknowledgement).  Both
 * sending at once (a bidirectional exchange of windows), writing where
 * the other core has just read while it writes too measured 10-30%
 * slower for 128 B-4 KiB than going round, so then the ring is used in
 * turn.  Reading the receiver's position takes the line from its core,
 * so while the start is busy the distance to the next look doubles.
 * Returns the slots the WRAP record gives up, or 0. */
static UZ_NOINLINE uint32_t early_wrap(struct shm_tx *tx, int peer, uint64_t pos, uint32_t idx, uint32_t need)
{
    tx->consumed_seen = atomic_load_explicit(&tx->ring_ctl->consumed, memory_order_acquire);
    uint64_t in_flight = pos - tx->consumed_seen;
    /* Mostly one way: what came back since the last return to the start
     * is small beside what went (a window's acknowledgement). */
    int one_way = reverse_traffic(tx, peer) * 8 <= pos - tx->returned_at;
    /* Slot 0 onwards must be free for the record and the slot after it. */
    if ((in_flight == 0 || one_way) && in_flight + need + 1 <= idx) {
        if (tx->rx_index >= 0)
            tx->reverse_seen = uz_shm.rx[tx->rx_index].consumed;
        tx->returned_at = pos;
        return tx->nslots - idx;
    }
    tx->next_return = idx + (idx - tx->hot_slots) + tx->hot_slots / 4;
    return 0;
}

/* One body for both sends; `traced` is a constant in each, so the plain
 * send carries no test of the trace switch (issue 29: the tools cost the
 * fast path nothing while off). */
static UZ_ALWAYS_INLINE int ring_send(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *pl,
                                      int traced)
{
    struct shm_tx *tx = &uz_shm.tx[peer];
    if (UZ_UNLIKELY(tx->slots == NULL)) {
        int err = activate_tx(peer);
        if (err)
            return err;
    }
    size_t len = hdr_len + pl->len;
    uint32_t need = slots_for(len);
    uint64_t pos = tx->produced;
    uint32_t idx = (uint32_t)pos & tx->mask;
    uint32_t wrap = idx + need > tx->nslots ? tx->nslots - idx : 0;
    if (UZ_UNLIKELY(idx >= tx->next_return) && !wrap)
        wrap = early_wrap(tx, peer, pos, idx, need);
    /* ... and the slot after the record, which we may have to clear. */
    if (!ring_has_room(tx, pos + wrap + need + 1))
        return -EAGAIN;
    if (wrap) {
        struct shm_slot *w = &tx->slots[idx];
        clear_payload_first(tx, 0);
        note_record(tx->payload_first, idx, 1);
        w->len = SHM_RECORD_WRAP;
        atomic_store_explicit(&w->seq, (uint32_t)(pos + 1), memory_order_release);
        pos += wrap;
        idx = 0;
        tx->next_return = first_look(tx);
    }
    struct shm_slot *slot = &tx->slots[idx];
    unsigned char *dst = slot->bytes;
    uz_copy_small(dst, hdr, hdr_len);
    if (pl->len) {
        if (pl->contig)
            uz_copy_small(dst + hdr_len, pl->contig, pl->len);
        else
            pl->pack(pl->pack_ctx, dst + hdr_len, pl->len);
    }
    slot->len = (uint32_t)len;
    note_record(tx->payload_first, idx, need);
    clear_payload_first(tx, (idx + need) & tx->mask);
    atomic_store_explicit(&slot->seq, (uint32_t)(pos + 1), memory_order_release);
    uz_wake_fence_publish();
    if (traced)
        uz_trace_enqueued();
    tx->produced = pos + need;
    if (atomic_load_explicit(&shm_peer_ctl(peer)->sleeping, memory_order_relaxed))
        uz_shm_wake(peer);
    return 0;
}

int uz_shm_send(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    return ring_send(peer, hdr, hdr_len, pl, 0);
}

int uz_shm_send_traced(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    return ring_send(peer, hdr, hdr_len, pl, 1);
}

/* ------------------------------------------------------------ receiving */

static void activate_rx(void)
{
    struct shm_ctl *me = uz_shm.my_ctl;
    uz_shm.seen_active_gen = atomic_load_explicit(&me->active_gen, memory_order_acquire);
    for (int s = 0; s < uz_shm.nlocal; s++) {
        unsigned long bits = atomic_load_explicit(&me->active_senders[s / 64], memory_order_acquire);
        if (!(bits & (1ul << (s % 64))))
            continue;
        int known = 0;
        for (int i = 0; i < uz_shm.nrx; i++)
            known |= uz_shm.rx[i].peer == s;
        if (known)
            continue;
        size_t off = shm_ring_offset(s, uz_shm.my_local);
        struct shm_rx *rx = &uz_shm.rx[uz_shm.nrx++];
        rx->ring_ctl = (struct shm_ring_ctl *)(uz_shm.base + off);
        rx->slots = (struct shm_slot *)(uz_shm.base + off + sizeof(struct shm_ring_ctl));
        rx->nslots = uz_shm.ring_slots;
        rx->mask = uz_shm.ring_mask;
        rx->consumed = 0;
        rx->peer = s;
        rx->world_rank = uz_shm.local_world_ranks[s];
    }
}

void shm_rx_add(int peer, int world, struct shm_slot *slots, struct shm_ring_ctl *ctl, uint32_t nslots)
{
    struct shm_rx *rx = &uz_shm.rx[uz_shm.nrx++];
    rx->ring_ctl = ctl;
    rx->slots = slots;
    rx->nslots = nslots;
    rx->mask = nslots - 1;
    rx->consumed = 0;
    rx->peer = peer;
    rx->world_rank = world;
}

int shm_ring_grow(int peers)
{
    struct shm_tx *tx = realloc(uz_shm.tx, sizeof(*tx) * (size_t)peers);
    if (tx)
        uz_shm.tx = tx;
    struct shm_rx *rx = tx ? realloc(uz_shm.rx, sizeof(*rx) * (size_t)peers) : NULL;
    if (!rx)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory adding a process of another job to shm");
    uz_shm.rx = rx;
    return MPI_SUCCESS;
}

/* Give `n` slots back to the sender. */
static inline void release_slots(struct shm_rx *rx, uint32_t n)
{
    rx->consumed += n;
    atomic_store_explicit(&rx->ring_ctl->consumed, rx->consumed, memory_order_release);
}

/* Records handled per ring per call, so one busy sender cannot starve the
 * others or delay the caller for long. */
enum { RECORDS_PER_POLL = 32 };

/* Once a record has completed a receive in this call, the caller probably
 * has what it waits for, and a record behind it that no receive wants yet
 * is likely for the caller's next receive (a sender running ahead, as a
 * broadcast's root).  Taking it now would copy it into an unexpected
 * buffer and later out again; left in the ring it is copied once, when
 * the receive is posted.  Until something completes, every record is
 * taken, so that a sender is never held by a receiver waiting for
 * someone else, and a record left is taken at the next call at the
 * latest (it comes first there, before anything can complete). */
static int poll_ring(struct shm_rx *rx, uz_recv_handler handler, unsigned *may_stay)
{
    int handled = 0;
    while (handled < RECORDS_PER_POLL) {
        uint32_t idx = (uint32_t)rx->consumed & rx->mask;
        struct shm_slot *slot = &rx->slots[idx];
        if (atomic_load_explicit(&slot->seq, memory_order_acquire) != (uint32_t)(rx->consumed + 1))
            break;
        uint32_t len = slot->len;
        if (len == SHM_RECORD_WRAP) {
            release_slots(rx, rx->nslots - idx);
            continue;
        }
        uz_trace_arrived();
        int answer = handler(rx->world_rank, slot->bytes, len, *may_stay);
        if (answer == UZ_RECORD_STAYS)
            break;
        if (answer == UZ_RECORD_FINISHED)
            *may_stay = UZ_RECORD_MAY_STAY;
        release_slots(rx, slots_for(len));
        handled++;
    }
    return handled;
}

int uz_shm_progress(void)
{
    uz_recv_handler handler = uz_shm.up->on_record;
    int handled = 0;
    unsigned may_stay = 0;
    if (UZ_UNLIKELY(atomic_load_explicit(&uz_shm.my_ctl->active_gen, memory_order_relaxed) !=
                    uz_shm.seen_active_gen))
        activate_rx();
    for (int i = 0; i < uz_shm.nrx; i++)
        handled += poll_ring(&uz_shm.rx[i], handler, &may_stay);
    if (UZ_UNLIKELY(uz_shm_bulk_pending()))
        handled += shm_bulk_progress();
    if (UZ_UNLIKELY(uz_shm.nlinks))
        handled += shm_links_progress();
    return handled;
}

int shm_rx_pending(void)
{
    if (atomic_load_explicit(&uz_shm.my_ctl->active_gen, memory_order_acquire) != uz_shm.seen_active_gen)
        return 1;
    for (int i = 0; i < uz_shm.nrx; i++) {
        struct shm_rx *rx = &uz_shm.rx[i];
        struct shm_slot *slot = &rx->slots[(uint32_t)rx->consumed & rx->mask];
        if (atomic_load_explicit(&slot->seq, memory_order_acquire) == (uint32_t)(rx->consumed + 1))
            return 1;
    }
    return 0;
}
