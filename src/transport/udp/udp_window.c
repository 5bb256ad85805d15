/*
 * udp_window.c — the sending side of GigaE PM (paper §3.3, steps S1–S6).
 *
 * A record handed to send() is cut into segments, each one datagram with
 * its own sequence number, and copied into the peer's window: N slots, the
 * paper's SBuf(r, i), kept until acknowledged because the request layer
 * forgets the record as soon as send() returns 0.  No room for the whole
 * record means -EAGAIN, and the request layer retries later, in order.
 *
 * Rendezvous data need not be copied: the request layer offers to keep
 * the user's buffer untouched until we release it (uz_payload.hold), so a
 * slot then holds only the segment's header and a pointer into that
 * buffer, the send completes when the last segment is acknowledged, and
 * the kernel's copy into its packet is the only one on the sending side.
 * Other contiguous records (eager messages) are sent from the user's
 * buffer the same way but copied into the slots right after, before
 * send() returns: the copy then overlaps the receiver's work on the data
 * instead of delaying it, and the send completes without waiting for the
 * receiver (an ACK that may be slow to come).  A nonblocking eager send
 * is held briefly instead (uz_payload.hold_briefly): released on its ACK
 * or copied when this rank is idle, whichever comes first
 * (copy_brief).
 *
 *   S1/S2  transmit every segment from `next` up to base + min(cwnd, N)
 *          without waiting for ACKs, remembering STime.
 *   S3     LOST(k): everything before k arrived; go back to k.
 *   S4     ACK(k): release before k.  STOP(k): release before k and stop.
 *          GO(k): resume from k.
 *   S5     STime of the oldest unacknowledged segment older than T: go back
 *          to it (T doubles each time; too long without a sign of life and
 *          the peer is declared dead, udp_timer.c).
 *
 * One addition to the paper: after a go-back the sender restarts with a
 * small burst (cwnd) that doubles with every window's worth of ACKs, so a
 * lossy path does not make it resend the whole window again and again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/tool_events.h"
#include "base/trace_stages.h"
#include "transport/udp/udp.h"

enum { CWND_RESTART = 16 };

/* Slots start on 8-byte boundaries, as the header's 64-bit tag wants. */
static inline size_t udp_slot_stride(const struct udp_peer *p)
{
    return (p->dgram + 7) & ~(size_t)7;
}

static inline unsigned char *slot_of(struct udp_peer *p, uint32_t seq)
{
    return p->slots + (size_t)(seq & (p->nslots - 1)) * udp_slot_stride(p);
}

/* ------------------------------------------------------------- sealing */

/* Everything of the seal but the MAC. */
static void seal_fields(struct udp_peer *p, struct udp_wire *w)
{
    w->magic = UDP_WIRE_MAGIC;
    w->version = UDP_WIRE_VERSION;
    w->src = (uint32_t)udp.world_rank;
    w->dst = (uint32_t)p->world;
    w->ack = p->expected;
    w->fc_echo = p->fc_seen;
    /* STOP and GO ride on everything we send until the peer echoes them
     * (paper §3.2: they are resent together with ACKs and data). */
    w->flags &= (uint8_t)~(UDP_F_STOP | UDP_F_GO | UDP_F_MAC_PAYLOAD);
    if (p->fc_gen != p->fc_echoed) {
        w->flags |= p->rx_stopped ? UDP_F_STOP : UDP_F_GO;
        w->fc_gen = p->fc_gen;
        p->fc_sent_ns = udp_now();
        udp_timer_arm(p->fc_sent_ns + udp.conf.rto_ns);
    }
    /* The ACK is piggy-backed: nothing more is owed. */
    p->unacked = 0;
    p->ack_due_ns = 0;
}

/* Seal with the MAC over the payload too; 0 when the header alone is
 * to be MACed (by the caller, a run of them at once). */
static int seal_with_payload(struct udp_wire *w, const void *payload, size_t len)
{
    if (!udp.conf.mac_payload || !len)
        return 0;
    w->flags |= UDP_F_MAC_PAYLOAD;
    w->mac = udp_siphash2(udp.key, w, UDP_WIRE_MAC_BYTES, payload, len);
    return 1;
}

void udp_seal(struct udp_peer *p, struct udp_wire *w, const void *payload, size_t len)
{
    seal_fields(p, w);
    if (!seal_with_payload(w, payload, len))
        w->mac = udp_siphash(udp.key, w, UDP_WIRE_MAC_BYTES);
}

void udp_send_control(struct udp_peer *p, uint8_t flags)
{
    struct udp_wire w;
    memset(&w, 0, sizeof(w));
    w.flags = flags;
    udp_seal(p, &w, NULL, 0);
    struct udp_out out = { &p->dest, { { &w, sizeof(w) } }, 1 };
    udp_io_send(&out, 1);
    udp.stats.acks_sent++;
}

/* ------------------------------------------------------- S1: segmenting */

uint32_t udp_window_slots(const struct udp_peer *p)
{
    uint32_t want = udp.conf.window;
    size_t by_bytes = udp.conf.window_bytes / p->dgram;
    if (by_bytes < want)
        want = (uint32_t)by_bytes;
    /* Room for two of the largest records, whatever the byte budget. */
    size_t need = 2 * ((udp.conf.max_record + p->seg - 1) / p->seg);
    if (want < need)
        want = (uint32_t)need;
    uint32_t n = 16;
    while (n < want)
        n <<= 1;
    return n;
}

static int alloc_window(struct udp_peer *p)
{
    uint32_t n = udp_window_slots(p);
    p->slots = malloc((size_t)n * udp_slot_stride(p));
    p->slot_len = calloc(n, sizeof(*p->slot_len));
    p->slot_ref = calloc(n, sizeof(*p->slot_ref));
    p->slot_flags = calloc(n, sizeof(*p->slot_flags));
    p->slot_hold = calloc(n, sizeof(*p->slot_hold));
    p->slot_brief = calloc(n, sizeof(*p->slot_brief));
    p->releasing = calloc(n / 2, sizeof(*p->releasing));    /* a held record has ≥ 2 segments */
    p->stime = calloc(n, sizeof(*p->stime));
    if (!p->slots || !p->slot_len || !p->slot_ref || !p->slot_flags || !p->slot_hold || !p->slot_brief || !p->releasing ||
        !p->stime) {
        udp_window_free(p, 0);
        return uz_err_make(MPI_ERR_NO_MEM, "udp: out of memory for a %u-segment window to rank %d",
                           n, p->world);
    }
    p->nslots = n;
    p->cwnd = n;
    return MPI_SUCCESS;
}

/* Segments [from, to) are acknowledged (or will never be): release the
 * held records whose last segment is among them.  The slots are cleared
 * first and the owners told after: completing a send may start another
 * to this peer, whose segments may take these very slots. */
static void release_held(struct udp_peer *p, uint32_t from, uint32_t to, int error)
{
    int n = 0;
    for (uint32_t s = from; udp_seq_before(s, to); s++) {
        uint32_t i = s & (p->nslots - 1);
        p->slot_ref[i] = NULL;
        if (p->slot_hold[i]) {
            p->releasing[n++] = p->slot_hold[i];
            p->slot_hold[i] = NULL;
            p->nheld--;
            p->nbrief -= p->slot_brief[i];
            udp.nbrief -= p->slot_brief[i];
        }
        p->slot_brief[i] = 0;
    }
    for (int k = 0; k < n; k++)
        udp.up->released(p->releasing[k], error);
}

void udp_window_free(struct udp_peer *p, int error)
{
    if (p->slot_hold)
        release_held(p, p->base, p->tail,
                     error ? error : uz_err_make(MPI_ERR_OTHER, "udp: closed with data to rank %d unacknowledged",
                                                 p->world));
    free(p->slots);
    free(p->slot_len);
    free(p->slot_ref);
    free(p->slot_flags);
    free(p->slot_hold);
    free(p->slot_brief);
    free(p->releasing);
    free(p->stime);
    p->slots = NULL;
    p->slot_len = NULL;
    p->slot_ref = NULL;
    p->slot_flags = NULL;
    p->slot_hold = NULL;
    p->slot_brief = NULL;
    p->releasing = NULL;
    p->stime = NULL;
    p->nslots = 0;
    p->nheld = 0;
    udp.nbrief -= p->nbrief;
    p->nbrief = 0;
    p->base = p->next = p->tail;
}

/* Copy record bytes [off, off + n) — the request-layer header first, then
 * the payload — to dst.  The payload is consumed in order, as a packer
 * expects. */
static void copy_record(unsigned char *dst, size_t off, size_t n, const void *hdr, size_t hdr_len,
                        const struct uz_payload *pl)
{
    if (off < hdr_len) {
        size_t h = hdr_len - off < n ? hdr_len - off : n;
        memcpy(dst, (const unsigned char *)hdr + off, h);
        dst += h;
        off += h;
        n -= h;
    }
    if (!n)
        return;
    size_t poff = off - hdr_len;
    if (pl->contig) {
        memcpy(dst, (const unsigned char *)pl->contig + poff, n);
    } else if (pl->pack) {
        pl->pack(pl->pack_ctx, dst, n);
    } else {
        while (n) {
            struct iovec iov[16];
            size_t got = 0;
            int k = pl->iov(pl->pack_ctx, iov, 16, n, &got);
            if (k <= 0)
                break;
            for (int i = 0; i < k; i++) {
                memcpy(dst, iov[i].iov_base, iov[i].iov_len);
                dst += iov[i].iov_len;
            }
            n -= got;
        }
    }
}

/* The unsealed header of segment s, from its metadata: flags, number and
 * length (for a record's first segment, always copied, the caller adds
 * rec_len and hdr_len).  A record
 * held until its ACK asks for the ACK at once on its last segment; one
 * held briefly is copied when we are idle, and its ACK may ride on the
 * receiver's next packet, as for a copied record.  Segments read from the
 * user's buffer get theirs when sealed; a slot gets one only when the
 * segment's bytes are copied into it. */
static inline void slot_header(const struct udp_peer *p, uint32_t s, struct udp_wire *w)
{
    uint32_t i = s & (p->nslots - 1);
    memset(w, 0, sizeof(*w));
    w->flags = p->slot_flags[i];
    w->xflags = p->slot_hold[i] && !p->slot_brief[i] ? UDP_X_ACK_REQ : 0;
    w->seq = s;
    w->len = (uint16_t)(p->slot_len[i] - sizeof(*w));
}

/* Segments [from, to) that read the user's buffer get its bytes, and
 * their header, in their slots, so that the buffer is the user's again. */
static void copy_lent(struct udp_peer *p, uint32_t from, uint32_t to)
{
    for (uint32_t s = from; udp_seq_before(s, to); s++) {
        uint32_t i = s & (p->nslots - 1);
        if (p->slot_ref[i]) {
            unsigned char *slot = slot_of(p, s);
            slot_header(p, s, (struct udp_wire *)slot);
            memcpy(slot + sizeof(struct udp_wire), p->slot_ref[i], p->slot_len[i] - sizeof(struct udp_wire));
            p->slot_ref[i] = NULL;
        }
    }
}

/* Segments of one offloaded run to p (push_runs). */
static int run_segments(const struct udp_peer *p)
{
    int most = (int)(UDP_GSO_BYTES / p->dgram);
    return most < UDP_GSO_SEGS ? most : UDP_GSO_SEGS;
}

int udp_window_send(struct udp_peer *p, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    size_t total = hdr_len + pl->len;
    if (total > udp.conf.max_record || hdr_len > 0xffff)
        return uz_err_make(MPI_ERR_INTERN, "udp: a %zu-byte record exceeds the %zu-byte limit",
                           total, udp.conf.max_record);
    if (!p->slots) {
        int err = alloc_window(p);
        if (err)
            return err;
    }
    uint32_t nseg = total ? (uint32_t)((total + p->seg - 1) / p->seg) : 1;
    if (nseg > p->nslots - (p->tail - p->base)) {
        udp.stats.send_eagain++;
        return -EAGAIN;         /* window full: the request layer retries in order */
    }
    if (p->base == p->tail) {
        /* The window was empty: the silence so far says nothing about the
         * peer, so its clock starts now. */
        p->alive_ns = udp_now();
        p->retries = 0;
        p->rto_ns = udp.conf.rto_ns;
    }
    /* A contiguous payload is read in place from the second segment on
     * (the first also carries the request-layer header, and is copied).
     * Held records stay so until acknowledged.  The others are copied
     * into the window too, but only after the kernel has taken what it
     * could send: the receiver is then already at work on it while we
     * copy, instead of waiting for the copy to finish. */
    int lent = pl->contig && nseg > 1;
    int held = lent && pl->hold;
    /* A long record's first run leaves as soon as its slots are ready, so
     * the wire is busy while the rest are filled. */
    uint32_t first_run = udp.conf.gso ? (uint32_t)run_segments(p) : UDP_BATCH;
    uint32_t start = p->tail;
    size_t off = 0;
    for (uint32_t i = 0; i < nseg; i++) {
        size_t n = total - off < p->seg ? total - off : p->seg;
        uint32_t seq = start + i;
        uint32_t idx = seq & (p->nslots - 1);
        uint8_t flags = UDP_F_DATA | (i == 0 ? UDP_F_FIRST : 0) | (i == nseg - 1 ? UDP_F_LAST : 0);
        p->slot_hold[idx] = held && i == nseg - 1 ? pl->hold : NULL;
        p->slot_brief[idx] = (unsigned char)(held && pl->hold_briefly);
        p->slot_len[idx] = (uint32_t)(sizeof(struct udp_wire) + n);
        p->slot_flags[idx] = flags;
        if (lent && i > 0) {
            /* Only metadata: the slot itself (cold, a cache line a
             * segment) is not touched until the bytes are copied. */
            p->slot_ref[idx] = (const unsigned char *)pl->contig + (off - hdr_len);
        } else {
            unsigned char *slot = slot_of(p, seq);
            struct udp_wire *w = (struct udp_wire *)slot;
            slot_header(p, seq, w);
            if (i == 0) {
                w->rec_len = (uint32_t)total;
                w->hdr_len = (uint16_t)hdr_len;
            }
            p->slot_ref[idx] = NULL;
            copy_record(slot + sizeof(*w), off, n, hdr, hdr_len, pl);
        }
        off += n;
        if (i + 1 == first_run && i + 1 < nseg) {
            p->tail = start + i + 1;
            udp_window_push(p);
        }
    }
    p->tail = start + nseg;
    udp.stats.records_sent++;
    udp.stats.records_in_place += (unsigned)lent;
    udp.stats.records_held += (unsigned)held;
    p->nheld += held;
    if (held && pl->hold_briefly) {
        p->nbrief++;
        udp.nbrief++;
    }
    udp_window_push(p);
    uz_trace_enqueued();
    if (lent && !held && p->slots)
        copy_lent(p, start + 1, start + nseg);
    return held ? -EINPROGRESS : 0;
}

/*
 * Records held briefly (an eager send someone waits for: the request
 * layer's hold_briefly) need not wait for their ACK when we have nothing
 * else to do: their bytes are copied into the slots a few segments at a
 * time, oldest first, and each record is released once it is all copied.
 * A sender streaming a window of messages is rarely idle and saves the
 * copy, as the receiver's ACKs release its records first; one that sends
 * and waits copies while the receiver works on the data, as a blocking
 * send does at once.  Returns the segments copied.
 */
enum { IDLE_COPY_SEGS = 16 };   /* ~23 KB at MTU 1500: a short delay to an ACK that comes meanwhile */

static int copy_brief(struct udp_peer *p, int budget)
{
    int copied = 0;
    for (uint32_t s = p->base; udp_seq_before(s, p->tail) && p->nbrief; s++) {
        uint32_t i = s & (p->nslots - 1);
        if (!p->slot_brief[i])
            continue;
        if (p->slot_ref[i]) {
            if (copied == budget)
                break;
            copy_lent(p, s, s + 1);
            copied++;
        }
        if (p->slot_hold[i]) {          /* the record's last segment: all copied */
            udp.stats.copied_idle++;
            release_held(p, s, s + 1, 0);
            if (!p->slots)
                break;                  /* the completion closed the window */
        } else {
            p->slot_brief[i] = 0;
        }
    }
    return copied;
}

int udp_window_copy_when_idle(void)
{
    int copied = 0;
    for (int k = 0; k < udp.nlive && udp.nbrief && copied < IDLE_COPY_SEGS; k++) {
        struct udp_peer *p = udp.live[k];
        if (p->nbrief && p->slots && !p->dead)
            copied += copy_brief(p, IDLE_COPY_SEGS - copied);
    }
    return copied;
}

/* ----------------------------------------------------- S1/S2: transmitting */

static void txq_add(struct udp_peer *p)
{
    if (p->in_txq)
        return;
    p->in_txq = 1;
    p->txq_next = udp.txq;
    udp.txq = p;
}

/* Headers whose MAC is still to be computed, and computing them. */
struct unsealed {
    struct udp_wire *w[UDP_GSO_SEGS > UDP_BATCH ? UDP_GSO_SEGS : UDP_BATCH];
    int n;
};

static void seal_macs(struct unsealed *u)
{
    uint64_t mac[sizeof(u->w) / sizeof(u->w[0])];
    udp_siphash_headers(udp.key, (const struct udp_wire *const *)u->w, u->n, mac);
    for (int i = 0; i < u->n; i++)
        u->w[i]->mac = mac[i];
    u->n = 0;
}

/* The pieces of one sendmsg.  A piece that continues the last one in
 * memory extends it: the kernel pays per piece, about what copying a few
 * hundred bytes costs it. */
struct pieces {
    struct iovec *v;
    int n;
};

static inline void add_piece(struct pieces *ps, const void *base, size_t len)
{
    struct iovec *last = ps->n ? &ps->v[ps->n - 1] : NULL;
    if (last && (const unsigned char *)last->iov_base + last->iov_len == (const unsigned char *)base)
        last->iov_len += len;
    else
        ps->v[ps->n++] = (struct iovec){ (void *)base, len };
}

/*
 * Segment s sealed (current ACK, flow control; its MAC added to `u` unless
 * it covers the payload), stamped as sent now, and its datagram added to
 * `ps`.  A segment copied into its slot is one piece, header then payload.
 * One read from the user's buffer is sealed into `h` instead — the caller
 * keeps a run's headers side by side — and goes out header first, or, when
 * *trail says the one before went header first, header last (udp_wire.h):
 * their two payloads are then one piece of the user's buffer and this
 * header and the next one piece of `h`s.  Raw Ethernet keeps headers first.
 */
static void seal_for_sending(struct udp_peer *p, uint32_t s, long now, struct pieces *ps, struct udp_wire *h,
                             int *trail, struct unsealed *u)
{
    uint32_t idx = s & (p->nslots - 1);
    unsigned char *slot = slot_of(p, s);
    size_t len = p->slot_len[idx], plen = len - sizeof(struct udp_wire);
    const unsigned char *ref = p->slot_ref[idx];
    struct udp_wire *w = (struct udp_wire *)slot;
    int last = 0;
    if (ref) {
        slot_header(p, s, h);
        w = h;
        if (*trail && !udp.conf.raw && plen >= 2) {
            last = !udp_wire_at_start(ref, plen);
            udp.stats.kept_first += (unsigned)!last;
        }
        if (last)
            w->xflags |= UDP_X_TRAILER;
    }
    seal_fields(p, w);
    if (!seal_with_payload(w, ref ? ref : slot + sizeof(*w), plen))
        u->w[u->n++] = w;
    p->stime[idx] = now;
    *trail = ref && !last;
    if (!ref) {
        add_piece(ps, slot, len);
    } else if (last) {
        udp.stats.trailers++;
        add_piece(ps, ref, plen);
        add_piece(ps, w, sizeof(*w));
    } else {
        add_piece(ps, w, sizeof(*w));
        add_piece(ps, ref, plen);
    }
}

/*
 * Segments [p->next, end) as offloaded runs (UDP_SEGMENT): up to
 * UDP_GSO_SEGS full segments (the last may be short) leave in one system
 * call and cross the stack as one packet, which is what lets a datagram
 * protocol keep up with TCP's segmentation offload.  Returns 0 when all
 * went or the socket is full, -1 when the kernel refused offload.
 */
static int push_runs(struct udp_peer *p, uint32_t end, long now)
{
    int most = run_segments(p);
    while (udp_seq_before(p->next, end)) {
        struct iovec iov[2 * UDP_GSO_SEGS];
        struct udp_wire hdrs[UDP_GSO_SEGS];
        struct pieces ps = { iov, 0 };
        struct unsealed u = { .n = 0 };
        int n = 0, trail = 0;
        size_t bytes = 0;
        for (uint32_t s = p->next; n < most && udp_seq_before(s, end); s++) {
            seal_for_sending(p, s, now, &ps, &hdrs[n], &trail, &u);
            size_t len = p->slot_len[s & (p->nslots - 1)];
            n++;
            bytes += len - sizeof(struct udp_wire);
            if (len != p->dgram)
                break;                  /* only the last of a run may be short */
        }
        seal_macs(&u);
        int sent = udp_link_send_run(&p->dest, iov, ps.n, n, p->dgram);
        if (sent < 0)
            return -1;
        if (sent == 0) {
            txq_add(p);                 /* the socket is full: again from progress */
            return 0;
        }
        udp.stats.bytes_sent += bytes;
        udp.stats.data_sent += (unsigned)n;
        p->next += (uint32_t)n;
        /* A run takes the kernel tens of microseconds: the next one is
         * stamped with its own time, and hold_ns counts from the end. */
        now = udp_now();
        p->last_tx_ns = now;
    }
    return 0;
}

/* Segments [p->next, end) one datagram each (batched by sendmmsg). */
static void push_datagrams(struct udp_peer *p, uint32_t end, long now)
{
    while (udp_seq_before(p->next, end)) {
        struct udp_out out[UDP_BATCH];
        struct udp_wire hdrs[UDP_BATCH];
        struct unsealed u = { .n = 0 };
        int n = 0, trail = 0;
        for (uint32_t s = p->next; n < UDP_BATCH && udp_seq_before(s, end); s++, n++) {
            /* Nothing to gather here, but headers go last as often as in
             * runs, so that tests with faults (which send datagram by
             * datagram) see both kinds lost, repeated and reordered. */
            struct pieces ps = { out[n].iov, 0 };
            seal_for_sending(p, s, now, &ps, &hdrs[n], &trail, &u);
            out[n].dest = &p->dest;
            out[n].niov = ps.n;
        }
        seal_macs(&u);
        int sent = udp_io_send(out, n);
        for (int i = 0; i < sent; i++)
            udp.stats.bytes_sent += p->slot_len[(p->next + (uint32_t)i) & (p->nslots - 1)] - sizeof(struct udp_wire);
        udp.stats.data_sent += (unsigned)sent;
        p->next += (uint32_t)sent;
        now = udp_now();
        p->last_tx_ns = now;
        if (sent < n) {
            txq_add(p);         /* the socket is full: again from progress */
            return;
        }
    }
}

void udp_window_push(struct udp_peer *p)
{
    if (p->stopped || p->dead || !p->slots)
        return;
    long now = udp_now();
    uint32_t limit = p->base + (p->cwnd < p->nslots ? p->cwnd : p->nslots);
    uint32_t end = udp_seq_before(p->tail, limit) ? p->tail : limit;
    /* Offload needs room for two segments in a packet, and sees every
     * segment as it is (fault injection wants them one by one). */
    int offload = udp.conf.gso && 2 * p->dgram <= UDP_GSO_BYTES && !udp_faults_active();
    if (offload && push_runs(p, end, now) != 0) {
        udp.conf.gso = 0;               /* refused: plain datagrams from now on */
        offload = 0;
    }
    if (!offload)
        push_datagrams(p, end, now);
    udp_timer_arm(now + p->rto_ns);
    if (p->nheld)
        udp_timer_arm(now + udp.conf.hold_ns);  /* unhold_slow() */
}

void udp_window_push_all(void)
{
    struct udp_peer *list = udp.txq;
    udp.txq = NULL;
    while (list) {
        struct udp_peer *p = list;
        list = p->txq_next;
        p->in_txq = 0;
        udp_window_push(p);
    }
}

/* -------------------------------------------------- S3/S4: the answers */

/* Everything before k has arrived: free those slots (k within what we sent). */
static int release_before(struct udp_peer *p, uint32_t k, long now)
{
    if (!udp_seq_before(p->base, k) || udp_seq_before(p->tail, k))
        return 0;
    uint32_t acked = k - p->base, from = p->base;
    p->base = k;
    if (udp_seq_before(p->next, k))
        p->next = k;
    p->alive_ns = now;
    p->retries = 0;
    p->rto_ns = udp.conf.rto_ns;
    if (p->cwnd < p->nslots) {          /* after a go-back: grow the burst again */
        p->cwnd += acked;
        if (p->cwnd > p->nslots)
            p->cwnd = p->nslots;
    }
    /* Last, with the window consistent: completing a send may start
     * another one to this peer. */
    release_held(p, from, k, 0);
    return 1;
}

static void go_back(struct udp_peer *p, uint32_t k)
{
    if (udp_seq_before(k, p->next)) {
        udp.stats.data_resent += p->next - k;
        uz_tool_event(UZ_TOOL_EVENT_UDP_RETRANSMIT, p->world, (int64_t)(p->next - k), 0, 0);
        p->next = k;
    }
    p->cwnd = CWND_RESTART < p->nslots ? CWND_RESTART : p->nslots;
}

static void on_lost(struct udp_peer *p, uint32_t k, long now)
{
    udp.stats.lost_recv++;
    if (udp_seq_before(k, p->base) || udp_seq_before(p->next, k))
        return;                         /* stale, or for segments not sent yet */
    release_before(p, k, now);
    /* The receiver sends one LOST per gap, but a reordered or duplicated
     * one may come twice: go back once per gap and round trip. */
    if (k == p->rewound_to && now - p->rewound_ns < p->rto_ns)
        return;
    p->rewound_to = k;
    p->rewound_ns = now;
    go_back(p, k);
}

static void on_flow_control(struct udp_peer *p, const struct udp_wire *w, long now)
{
    if ((int32_t)(w->fc_gen - p->fc_seen) <= 0) {
        p->alive_ns = now;              /* a repeat: our echo was lost, or a probe's answer */
        udp_send_control(p, 0);
        return;
    }
    p->fc_seen = w->fc_gen;
    if (p->slots)
        release_before(p, w->ack, now);
    p->alive_ns = now;
    if (w->flags & UDP_F_STOP) {
        udp.stats.stop_recv++;
        p->stopped = 1;
        p->probe_ns = now + p->rto_ns;
        udp_timer_arm(p->probe_ns);
    } else {
        udp.stats.go_recv++;
        p->stopped = 0;
        if (p->slots && !udp_seq_before(w->ack, p->base) && !udp_seq_before(p->tail, w->ack))
            go_back(p, w->ack);
        p->cwnd = p->nslots;
    }
    udp_send_control(p, 0);             /* echo the generation: the receiver stops repeating */
}

void udp_window_on_header(struct udp_peer *p, const struct udp_wire *w, long now)
{
    if (p->slots)
        release_before(p, w->ack, now);
    if ((w->flags & UDP_F_LOST) && p->slots)
        on_lost(p, w->ack, now);
    if (w->flags & (UDP_F_STOP | UDP_F_GO))
        on_flow_control(p, w, now);
    else if (p->stopped)
        p->alive_ns = now;
    if (p->slots && p->next != p->tail)
        udp_window_push(p);
}

/* ---------------------------------------------------------- S5: timeouts */

static double seconds(long ns)
{
    return ns / 1e9;
}

/*
 * Held records still unacknowledged hold_ns after the last transmission to
 * their peer (not after their own: a sender pushing a long message reads
 * no ACK until it is done): their bytes are copied from the user's buffer
 * into the window's slots and the sends released, so that a send completes
 * even when the ACK is slow — the receiver busy outside MPI, or its
 * packets waiting for the kernel to run them on a loaded host — as a
 * copied record's send would have.  The protocol then goes on as for a
 * copied record.
 */
static void unhold_slow(struct udp_peer *p, long now)
{
    if (p->next == p->base)
        return;                         /* held segments not transmitted yet */
    long due = p->last_tx_ns + udp.conf.hold_ns;
    if (now < due) {
        udp_timer_arm(due);
        return;
    }
    uint32_t upto = p->base;
    for (uint32_t s = p->base; udp_seq_before(s, p->next); s++)
        if (p->slot_hold[s & (p->nslots - 1)])
            upto = s + 1;
    if (upto == p->base)
        return;
    copy_lent(p, p->base, upto);
    udp.stats.unheld++;
    release_held(p, p->base, upto, 0);
}

void udp_window_on_timer(struct udp_peer *p, long now)
{
    if (p->dead || !p->slots)
        return;
    if (p->nheld)
        unhold_slow(p, now);
    if (p->stopped) {
        if (now < p->probe_ns) {
            udp_timer_arm(p->probe_ns);
            return;
        }
        if (now - p->alive_ns > udp.conf.peer_timeout_ns) {
            char why[160];
            snprintf(why, sizeof(why), "stopped us and gave no sign of life for %.1f s",
                     seconds(now - p->alive_ns));
            udp_peer_declare_dead(p, why);
            return;
        }
        udp_link_errors();              /* gone without a word? */
        if (p->gone)
            return;                     /* declared dead at the end of this progress call */
        /* Is it still there?  A live receiver answers a probe by
         * repeating its STOP (or with the GO we missed). */
        udp.stats.pings++;
        udp_send_control(p, UDP_F_PING);
        p->rto_ns = p->rto_ns * 2 < udp.conf.rto_max_ns ? p->rto_ns * 2 : udp.conf.rto_max_ns;
        p->probe_ns = now + p->rto_ns;
        udp_timer_arm(p->probe_ns);
        return;
    }
    if (p->next == p->base)
        return;                         /* nothing in flight */
    long deadline = p->stime[p->base & (p->nslots - 1)] + p->rto_ns;
    if (now < deadline) {
        udp_timer_arm(deadline);
        return;
    }
    /* No answer: before resending, see whether the host told us the
     * process is gone (an ICMP error whose report sendmmsg may have
     * swallowed). */
    udp_link_errors();
    if (p->gone)
        return;                         /* declared dead at the end of this progress call */
    udp.stats.timeouts++;
    p->retries++;
    if (now - p->alive_ns > udp.conf.peer_timeout_ns ||
        (udp.conf.retries > 0 && p->retries > udp.conf.retries)) {
        char why[160];
        snprintf(why, sizeof(why), "did not acknowledge for %.1f s (%d retransmissions)",
                 seconds(now - p->alive_ns), p->retries - 1);
        udp_peer_declare_dead(p, why);
        return;
    }
    p->rto_ns = p->rto_ns * 2 < udp.conf.rto_max_ns ? p->rto_ns * 2 : udp.conf.rto_max_ns;
    go_back(p, p->base);
    udp_window_push(p);
}
