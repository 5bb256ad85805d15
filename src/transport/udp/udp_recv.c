/*
 * udp_recv.c — the receiving side of GigaE PM (paper §3.3, steps R0–R4).
 *
 * Every datagram is checked before any field is believed: length, magic
 * (the header is at the datagram's start or its end, udp_wire.h), then
 * the SipHash tag under the job key.  What fails is dropped and
 * counted (uz_net_stats), never delivered.  Then, per sending peer:
 *
 *   R0  MsgIdRecv starts at the agreed first number (0) — not at the first
 *       arrival as in the paper, so that a lost first segment is noticed
 *       like any other.
 *   R1  seq == expected: accept; the ACK is owed, and is piggy-backed on
 *       the next packet to that peer or sent after K segments / T µs —
 *       or at the end of the read batch when the segment ends a record
 *       whose sender waits for the ACK to complete its send.
 *   R2  seq == expected while our receive buffer is above its high
 *       watermark: send STOP(expected), repeated until echoed.
 *   R3  seq > expected: a gap; LOST(expected), once per gap, and the
 *       segment is dropped (go-back-N keeps the receiver simple: it only
 *       ever holds the record being reassembled).
 *   R4  the buffer is back under its low watermark: GO(expected).
 *   seq < expected: a duplicate (our ACK was lost); dropped, ACK again.
 *
 * The receive buffer is the socket's receive queue — what the kernel holds
 * for us and we have not read, the place where a slow receiver's backlog
 * piles up and from which the kernel drops when it overflows.  Its
 * occupancy is read (SO_MEMINFO) whenever a read batch comes back full.
 * Unlike the paper, segments already in that queue after a STOP are
 * accepted rather than discarded: reading them is what frees the buffer,
 * and discarding them would make a receiver that is always behind discard
 * everything, forever.
 *
 * Segments of a record arrive in order; a record of one segment is handed
 * to the request layer straight from the receive buffer, a longer one is
 * reassembled — directly into the receiver's memory when the request layer
 * can place it (rendezvous data, eager messages a posted receive matches),
 * else in a per-peer buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/trace_stages.h"
#include "transport/udp/udp.h"

/* ------------------------------------------------------------ reassembly */

static void copy_to_runs(const struct iovec *v, int n, size_t off, const unsigned char *src, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        if (off >= v[i].iov_len) {
            off -= v[i].iov_len;
            continue;
        }
        size_t k = v[i].iov_len - off < len ? v[i].iov_len - off : len;
        memcpy((unsigned char *)v[i].iov_base + off, src, k);
        src += k;
        len -= k;
        off = 0;
    }
}

static void record_reset(struct udp_peer *p)
{
    p->rec_len = 0;
    p->rec_got = 0;
    p->placing = 0;
}

/* The first segment of a record of several. */
static int record_begin(struct udp_peer *p, const struct udp_wire *w, const unsigned char *data)
{
    p->rec_len = w->rec_len;
    p->rec_hdr_len = w->hdr_len;
    p->rec_got = w->len;
    p->placing = 0;
    size_t payload = p->rec_len - p->rec_hdr_len;
    if (!udp.lingering && p->rec_hdr_len <= sizeof(p->rec_hdr) && payload) {
        p->nplace = udp.up->place(p->world, data, p->rec_hdr_len, payload, p->place, UDP_PLACE_MAX);
        if (p->nplace > 0) {
            p->placing = 1;
            memcpy(p->rec_hdr, data, p->rec_hdr_len);
            copy_to_runs(p->place, p->nplace, 0, data + p->rec_hdr_len, w->len - p->rec_hdr_len);
            return 0;
        }
    }
    if (!p->rec_store && !(p->rec_store = malloc(udp.conf.max_record)))
        return -1;
    p->rec_buf = p->rec_store;
    memcpy(p->rec_buf, data, w->len);
    return 0;
}

static void record_end(struct udp_peer *p)
{
    if (udp.lingering)
        udp.stats.dropped_after_finalize++;
    else if (p->placing)
        udp.up->placed(p->world, p->rec_hdr, p->rec_hdr_len, p->rec_len - p->rec_hdr_len);
    else
        udp.up->on_record(p->world, p->rec_buf, p->rec_len, 0);
    record_reset(p);
}

/* Hand a segment's bytes on; -1 when the segments do not make a record. */
static int deliver_segment(struct udp_peer *p, const struct udp_wire *w, const unsigned char *data)
{
    if (w->flags & UDP_F_FIRST) {
        uz_trace_arrived();
        if (p->rec_len || w->rec_len > udp.conf.max_record || w->hdr_len > w->rec_len ||
            w->hdr_len > w->len || w->len > w->rec_len)
            return -1;
        if (w->flags & UDP_F_LAST) {
            if (w->len != w->rec_len)
                return -1;
            if (!udp.lingering)
                udp.up->on_record(p->world, data, w->len, 0);
            else
                udp.stats.dropped_after_finalize++;
            return 0;
        }
        return record_begin(p, w, data);
    }
    if (!p->rec_len || p->rec_got + w->len > p->rec_len)
        return -1;
    if (p->placing)
        copy_to_runs(p->place, p->nplace, p->rec_got - p->rec_hdr_len, data, w->len);
    else
        memcpy(p->rec_buf + p->rec_got, data, w->len);
    p->rec_got += w->len;
    if (w->flags & UDP_F_LAST) {
        if (p->rec_got != p->rec_len)
            return -1;
        record_end(p);
    }
    return 0;
}

/* ---------------------------------------------------------------- R0–R4 */

static void owe_ack(struct udp_peer *p, long now)
{
    if (++p->unacked >= p->ack_every) {
        udp_send_control(p, 0);
        return;
    }
    if (!p->ack_due_ns) {
        p->ack_due_ns = now + udp.conf.ack_delay_ns;
        udp_timer_arm(p->ack_due_ns);
    }
}

static void on_data(struct udp_peer *p, const struct udp_wire *w, const unsigned char *data, long now)
{
    if (w->seq == p->expected) {
        if (udp.congested && !p->rx_stopped) {          /* R2 */
            p->rx_stopped = 1;
            p->fc_gen++;
            udp.stats.stop_sent++;
            udp_send_control(p, 0);                     /* carries STOP(expected) */
        }
        if (deliver_segment(p, w, data) != 0) {         /* R1 */
            uz_net_stats.malformed++;
            record_reset(p);
        } else if ((w->flags & UDP_F_LAST) && (w->xflags & UDP_X_ACK_REQ)) {
            p->ack_req = 1;
        }
        p->expected++;
        udp.stats.data_recv++;
        udp.stats.bytes_recv += w->len;
        owe_ack(p, now);
        return;
    }
    if (udp_seq_before(w->seq, p->expected)) {
        udp.stats.duplicates++;
        if (!p->ack_now) {                              /* once per read batch */
            p->ack_now = 1;
            udp_send_control(p, 0);
        }
        return;
    }
    udp.stats.out_of_order++;                           /* R3 */
    if (p->lost_for != p->expected || now - p->lost_ns > udp.conf.rto_ns) {
        p->lost_for = p->expected;
        p->lost_ns = now;
        udp.stats.lost_sent++;
        udp_send_control(p, UDP_F_LOST);
    }
}

/* Check one datagram and act on it.  `w` is its header, wherever it was
 * (find_headers), and `header_mac` the MAC of that header alone, both
 * computed beforehand for the whole read batch. */
static void on_datagram(const unsigned char *buf, size_t len, const struct udp_wire *w, uint64_t header_mac,
                        long now)
{
    int last = !udp_wire_at_start(buf, len);
    if (!w || w->magic != UDP_WIRE_MAGIC || w->version != UDP_WIRE_VERSION || w->len != len - sizeof(*w) ||
        !(w->xflags & UDP_X_TRAILER) != !last) {
        uz_net_stats.malformed++;
        return;
    }
    const unsigned char *payload = last ? buf : buf + sizeof(*w);
    uint64_t mac = (w->flags & UDP_F_MAC_PAYLOAD)
        ? udp_siphash2(udp.key, w, UDP_WIRE_MAC_BYTES, payload, w->len)
        : header_mac;
    if (mac != w->mac || (udp.conf.mac_payload && w->len && !(w->flags & UDP_F_MAC_PAYLOAD))) {
        uz_net_stats.rejected_datagrams++;
        return;
    }
    if (w->dst != (uint32_t)udp.world_rank) {
        /* Raw Ethernet: frames for the other ranks of this host pass by. */
        if (!udp.conf.raw)
            uz_net_stats.rejected_datagrams++;
        return;
    }
    if (w->src >= (uint32_t)udp.world_size || w->src == (uint32_t)udp.world_rank) {
        uz_net_stats.malformed++;
        return;
    }
    struct udp_peer *p = udp_peer_get((int)w->src);
    if (!p || p->dead)
        return;
    p->heard_ns = now;
    p->icmp_errors = 0;
    if ((int32_t)(w->fc_echo - p->fc_echoed) > 0 && (int32_t)(w->fc_echo - p->fc_gen) <= 0)
        p->fc_echoed = w->fc_echo;
    udp_window_on_header(p, w, now);                    /* our sending side: ACK, LOST, STOP, GO */
    if (p->dead)
        return;
    if (w->flags & UDP_F_DATA)
        on_data(p, w, payload, now);
    else if (w->flags & UDP_F_PING) {
        if (p->rx_stopped)
            p->fc_echoed = p->fc_gen - 1;               /* say STOP again */
        udp_send_control(p, 0);
    }
}

/* The receive queue against the watermarks (with hysteresis), looked at
 * before reading while traffic flows: it is what piled up while we were
 * away (the slow receiver), before this call drains it. */
static void measure_backlog(void)
{
    size_t queued = udp_link_rx_queued();
    if (!udp.congested && queued > udp.conf.stop_high * udp.rcvbuf)
        udp.congested = 1;
    else if (udp.congested && queued < udp.conf.stop_low * udp.rcvbuf)
        udp.congested = 0;
}

/* R4: the backlog is gone: GO to every peer we stopped. */
static void send_go(void)
{
    for (int i = 0; i < udp.nlive; i++) {
        struct udp_peer *p = udp.live[i];
        if (!p->rx_stopped || p->dead)
            continue;
        p->rx_stopped = 0;
        p->fc_gen++;
        udp.stats.go_sent++;
        udp_send_control(p, 0);                         /* carries GO(expected) */
    }
}

enum { BATCHES_PER_POLL = 16 };

/* Where each datagram of a read batch has its header — at its start, or
 * else at its end (udp_wire.h) — and the MACs of those headers, four at a
 * time (udp_auth.c).  A header at its end that is not 8-byte aligned (the
 * last, shorter segment of a record) is read from an aligned copy.  What
 * is too short to hold a header gets none, and on_datagram drops it. */
static void find_headers(const struct udp_in *in, int n, const struct udp_wire **hw, uint64_t *mac)
{
    static struct udp_wire aligned[UDP_RX_SEGS];
    static const struct udp_wire *w[UDP_RX_SEGS];
    static uint64_t got[UDP_RX_SEGS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        const unsigned char *at = in[i].buf;
        hw[i] = NULL;
        if (in[i].len < sizeof(struct udp_wire))
            continue;
        if (!udp_wire_at_start(in[i].buf, in[i].len))
            at += in[i].len - sizeof(struct udp_wire);
        /* A trailer, or a header at the start of a segment that GRO packed
         * behind others of a size that is no multiple of 8 (a 1500-byte
         * path gives 1372-byte datagrams), may be misaligned. */
        if ((uintptr_t)at % _Alignof(struct udp_wire)) {
            memcpy(&aligned[i], at, sizeof(aligned[i]));
            at = (const unsigned char *)&aligned[i];
        }
        hw[i] = w[k++] = (const struct udp_wire *)at;
    }
    udp_siphash_headers(udp.key, w, k, got);
    k = 0;
    for (int i = 0; i < n; i++)
        mac[i] = hw[i] ? got[k++] : 0;
}

int udp_recv_poll(void)
{
    static struct udp_in in[UDP_RX_SEGS];
    static int flowing;
    int handled = 0, was_congested = udp.congested;
    if (flowing)
        measure_backlog();
    was_congested |= udp.congested;
    for (int round = 0; round < BATCHES_PER_POLL; round++) {
        int n = udp.conf.raw ? udp_raw_recv(in, UDP_RX_SEGS) : udp_link_recv(in, UDP_RX_SEGS);
        if (n <= 0) {
            udp.congested = 0;          /* we read it all */
            break;
        }
        static const struct udp_wire *hw[UDP_RX_SEGS];
        static uint64_t mac[UDP_RX_SEGS];
        find_headers(in, n, hw, mac);
        long now = udp_now();
        for (int i = 0; i < n; i++)
            on_datagram(in[i].buf, in[i].len, hw[i], mac[i], now);
        handled += n;
        for (int i = 0; i < udp.nlive; i++) {
            struct udp_peer *p = udp.live[i];
            p->ack_now = 0;
            /* The sender of a record read from its user's memory is
             * waiting for this ACK to complete the send: it must not wait
             * for our next packet to it, which may come only when this
             * rank enters MPI again, or for the ACK timer, which runs only
             * inside MPI calls. */
            if (p->ack_req) {
                p->ack_req = 0;
                if (p->unacked && !p->dead)
                    udp_send_control(p, 0);
            }
        }
        if (!udp.rx_more) {
            udp.congested = 0;
            break;
        }
    }
    flowing = handled > 0;
    if (was_congested && !udp.congested)
        send_go();
    return handled;
}

/* ------------------------------------------------------------- timers */

void udp_recv_on_timer(struct udp_peer *p, long now)
{
    if (p->dead)
        return;
    if (p->ack_due_ns) {
        if (now >= p->ack_due_ns)
            udp_send_control(p, 0);                     /* the coalesced ACK */
        else
            udp_timer_arm(p->ack_due_ns);
    }
    if (p->fc_gen != p->fc_echoed) {                    /* STOP/GO until echoed */
        long at = p->fc_sent_ns + udp.conf.rto_ns;
        if (now >= at)
            udp_send_control(p, 0);
        else
            udp_timer_arm(at);
    }
}

void udp_recv_free(struct udp_peer *p)
{
    free(p->rec_store);
    p->rec_store = NULL;
    p->rec_buf = NULL;
}
