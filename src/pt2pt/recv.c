/*
 * recv.c — the receiving side of the request layer: matching arriving
 * records with posted receives, queueing the unexpected ones, and moving
 * data into the user's buffer.
 *
 * Copy reduction (YAMPII §2.3.3): an eager message that arrives in pieces
 * and finds no receive is buffered; if its receive is posted while pieces
 * are still arriving, what has arrived is copied over and the remaining
 * pieces go straight into the user's buffer.
 *
 * Records come from processes of the same job, but each is still checked
 * (kind, lengths, cookies): a record that does not make sense is dropped
 * and counted, never followed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy_small.h"
#include "base/errors.h"
#include "base/params.h"
#include "base/runtime.h"
#include "base/tool_events.h"
#include "datatype/dt_engine.h"
#include "pt2pt/cookie.h"
#include "pt2pt/match.h"
#include "pt2pt/path.h"
#include "pt2pt/protocol.h"
#include "pt2pt/proc_table.h"
#include "pt2pt/recv.h"
#include "pt2pt/send.h"
#include "pt2pt/stats.h"
#include "pt2pt/status.h"
#include "pt2pt/trace.h"

enum { HDR = sizeof(struct uz_msg_hdr) };

struct uz_pt2pt_stats uz_pt2pt_stats;
struct uz_traffic uz_traffic[UZ_TRAFFIC_SLOTS];

/* A record that begins a message of `size` bytes came from `src_world`. */
static inline void count_arrival(int src_world, size_t size)
{
    struct uz_traffic *t = &uz_traffic[uz_peers[src_world].traffic];
    t->msgs_recv++;
    t->bytes_recv += size;
}

unsigned long uz_recv_dropped_records(void)
{
    return uz_pt2pt_stats.dropped;
}

static void drop(int src_world, const char *why)
{
    if (uz_pt2pt_stats.dropped++ == 0 && uz_config.verbose)
        fprintf(stderr, "Uzura rank %d: dropped a malformed record from rank %d (%s)\n",
                uz_rt.world_rank, src_world, why);
}

/* ------------------------------------------------------ moving the data */

/* Store message bytes [offset, offset+len) into the receive buffer,
 * dropping what lies beyond its capacity. */
static void recv_put(uz_request *r, size_t offset, const void *src, size_t len)
{
    if (offset >= r->expected)
        return;
    if (len > r->expected - offset)
        len = r->expected - offset;
    if (len == 0)
        return;
    if (r->contig) {
        uz_copy_small(r->contig + offset, src, len);
    } else {
        uz_dt_cursor_seek(r->cursor, offset);
        uz_dt_cursor_unpack(r->cursor, src, len);
    }
}

static inline void recv_complete(uz_request *r, int error)
{
    r->status.MPI_SOURCE = r->msg_src;
    r->status.MPI_TAG = r->msg_tag;
    uz_status_set_bytes(&r->status, (MPI_Count)r->expected);
    uz_status_set_cancelled(&r->status, 0);
    if (!error && r->msg_size > r->bytes)
        error = uz_err_make(MPI_ERR_TRUNCATE, "message of %zu bytes from rank %d (tag %d) is longer "
                            "than the receive buffer of %zu bytes", r->msg_size, r->msg_src,
                            r->msg_tag, r->bytes);
    r->status.MPI_ERROR = error;
    uz_request_complete(r);     /* may free r */
}

/* UZURA_TRACE=stages: the same, stamped.  Out of line, so that the
 * untraced path stays small enough to be inlined where it was. */
static UZ_COLD void recv_finish_traced(uz_request *r, int error)
{
    uint32_t seq = r->trace_seq;
    int tag = r->msg_tag, src = r->peer_world;  /* r may be gone after completing */
    if (seq)
        uz_trace_stamp(UZ_STAGE_COPY, uz_trace_now(), seq, tag, src);
    recv_complete(r, error);
    if (seq)
        uz_trace_stamp(UZ_STAGE_RECV_COMPLETE, uz_trace_now(), seq, tag, src);
}

static inline void recv_finish(uz_request *r, int error)
{
    if (UZ_UNLIKELY(uz_trace_stages))
        recv_finish_traced(r, error);
    else
        recv_complete(r, error);
}

/* The receive `r` takes a message of `size` bytes. */
static void recv_bind(uz_request *r, int src, int tag, size_t size, int src_world)
{
    r->msg_src = src;
    r->msg_tag = tag;
    r->msg_size = size;
    r->expected = size < r->bytes ? size : r->bytes;
    r->peer_world = src_world;
    r->received = 0;
    if (r->on_match)
        r->on_match(r);
}

static void send_ack(int src_world, const struct uz_msg_hdr *orig, uint64_t cookie)
{
    unsigned char rec[HDR + sizeof(struct uz_ext_cookie)];
    struct uz_msg_hdr *h = (struct uz_msg_hdr *)rec;
    *h = *orig;
    h->kind = UZ_MSG_ACK;
    h->flags = 0;
    struct uz_ext_cookie ext = { cookie };
    memcpy(rec + HDR, &ext, sizeof(ext));
    uz_send_control(src_world, rec, sizeof(rec));
}

/* ------------------------------------------------------------ rendezvous */

static int recv_runs(uz_request *r, struct iovec **out, int *nout)
{
    if (r->contig) {
        r->bulk_iov_one.iov_base = r->contig;
        r->bulk_iov_one.iov_len = r->expected;
        *out = &r->bulk_iov_one;
        *nout = 1;
        return 0;
    }
    int cap = 16, n = 0;
    size_t left = r->expected;
    struct iovec *v = malloc(sizeof(*v) * cap);
    if (!v)
        return -1;
    uz_dt_cursor_seek(r->cursor, 0);
    while (left) {
        if (n == cap) {
            struct iovec *nv = realloc(v, sizeof(*v) * cap * 2);
            if (!nv) {
                free(v);
                return -1;
            }
            v = nv;
            cap *= 2;
        }
        size_t got;
        int k = uz_dt_cursor_iov(r->cursor, v + n, cap - n, left, &got);
        if (k == 0)
            break;
        n += k;
        left -= got;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* Staged bulk receive: unpack stream bytes [offset, offset+len). */
static void unpack_at_offset(void *cursor, size_t offset, const void *src, size_t len)
{
    uz_dt_cursor_seek(cursor, offset);
    uz_dt_cursor_unpack(cursor, src, len);
}

/* Take a bulk offer: 1 when the transfer is under way. */
static int accept_bulk(uz_request *r, const struct uz_ext_rts *rts, const struct uz_peer *p)
{
    /* Runs cost per run in a one-copy transfer, more when they belong to
     * the other process (the transport's caps say how much is worth it):
     * short runs of ours are staged, or (when the sender is staged and
     * would write into them) left to the CTS/DATA path. */
    const struct uz_transport_caps *caps = &p->path->caps;
    const struct uz_transport_ops *t = p->path->ops;
    int long_runs = r->contig || uz_dt_mean_run(r->datatype) >= caps->bulk_min_run_local;
    if (rts->has_bulk == UZ_RTS_BULK_PUSH && !r->contig && uz_dt_mean_run(r->datatype) < caps->bulk_min_run_remote)
        return 0;
    if (rts->has_bulk == UZ_RTS_BULK_RUNS && !long_runs) {
        /* One core copies everything: past the cache, the ring's two
         * cores win (UZURA_SHM_STAGED_MAX). */
        if (r->expected > caps->bulk_staged_max)
            return 0;
        struct uz_bulk_mem stage = { .unpack = unpack_at_offset, .ctx = r->cursor };
        return t->bulk_pull(p->addr, &rts->bulk, &stage, r->expected, r) == MPI_SUCCESS;
    }
    struct iovec *iov;
    int n;
    if (recv_runs(r, &iov, &n) != 0)
        return 0;
    r->bulk_iov = iov;
    r->bulk_niov = n;
    struct uz_bulk_mem mem = { .iov = iov, .niov = n, .copy_alone = r->reads_next };
    return t->bulk_pull(p->addr, &rts->bulk, &mem, r->expected, r) == MPI_SUCCESS;
}

static void start_rendezvous(uz_request *r, const struct uz_msg_hdr *h, const struct uz_ext_rts *rts,
                             int src_world)
{
    struct uz_peer *p = &uz_peers[src_world];
    if (rts->has_bulk && p->has_bulk) {
        if (accept_bulk(r, rts, p)) {
            uz_pt2pt_stats.bulk_pulls++;
            return;
        }
        /* Could not pull: ask for the data instead. */
    }
    r->cookie = uz_cookie_issue(r);
    uz_pt2pt_stats.cts_sent++;
    unsigned char rec[HDR + sizeof(struct uz_ext_cts)];
    struct uz_msg_hdr *c = (struct uz_msg_hdr *)rec;
    *c = *h;
    c->kind = UZ_MSG_CTS;
    c->flags = 0;
    struct uz_ext_cts ext = { rts->cookie, r->cookie, r->expected };
    memcpy(rec + HDR, &ext, sizeof(ext));
    int err = uz_send_control(src_world, rec, sizeof(rec));
    if (err)
        recv_finish(r, err);
    else if (r->expected == 0)
        recv_finish(r, MPI_SUCCESS);
}

void uz_recv_on_bulk_done(void *owner, int error)
{
    uz_request *r = owner;
    r->received = r->expected;
    recv_finish(r, error ? uz_err_make(MPI_ERR_OTHER, "copying a large message from rank %d failed: %s",
                                       r->msg_src, strerror(error)) : MPI_SUCCESS);
}

/* ------------------------------------------------------------ eager data */

/* A matched receive takes the first (or only) piece of an eager message. */
static void eager_to_request(uz_request *r, const struct uz_msg_hdr *h, int src_world,
                             const unsigned char *data, size_t piece, size_t size, uint64_t sync_cookie)
{
    recv_bind(r, h->src, h->tag, size, src_world);
    recv_put(r, 0, data, piece);
    r->received = piece;
    if (sync_cookie)
        send_ack(src_world, h, sync_cookie);
    if (piece == size)
        recv_finish(r, MPI_SUCCESS);
    else
        uz_peers[src_world].rx_req = r;
}

static void eager_to_unexpected(const struct uz_msg_hdr *h, int src_world, const unsigned char *data,
                                size_t piece, size_t size, uint64_t cookie, uint32_t trace_seq)
{
    struct uz_unexpected *u = uz_unexpected_new(size);
    if (!u) {
        fprintf(stderr, "Uzura rank %d: out of memory buffering a %zu-byte message from rank %d\n",
                uz_rt.world_rank, size, src_world);
        uz_runtime_abort(1, "out of memory for unexpected messages");
    }
    u->context_id = h->context_id;
    u->src = h->src;
    u->tag = h->tag;
    u->src_world = src_world;
    u->kind = UZ_MSG_EAGER;
    u->flags = h->flags & UZ_MSG_SYNC;
    u->size = size;
    u->arrived = piece;
    u->cookie = cookie;
    u->trace_seq = trace_seq;   /* 0 when not traced */
    memcpy(u->data, data, piece);
    uz_unexpected_enqueue(u);
    uz_pt2pt_stats.unexpected++;
    uz_tool_event(UZ_TOOL_EVENT_UNEXPECTED, h->src, h->tag, (int64_t)size, h->context_id);
    if (piece < size)
        uz_peers[src_world].rx_unexp = u;
}

/* The receive this record was matched to when its header arrived, if any. */
static uz_request *take_matched(int src_world, const struct uz_msg_hdr *h)
{
    uz_request *r = uz_peers[src_world].rx_matched;
    if (!r)
        return NULL;
    uz_peers[src_world].rx_matched = NULL;
    if (r->context_id == h->context_id && (r->peer == MPI_ANY_SOURCE || r->peer == h->src) &&
        (r->tag == MPI_ANY_TAG || r->tag == h->tag))
        return r;
    /* The transport matched a record it then never delivered: a bug, but
     * the receive must not take another message for it. */
    drop(src_world, "eager record matched but not delivered");
    uz_posted_enqueue(r);
    return NULL;
}

/* Messages from this size may stay in the transport (UZ_RECORD_MAY_STAY).
 * Smaller ones are taken: their second copy costs less than handling them
 * one progress call each instead of many per call (8-byte Bcast loops at
 * np 2 took 0.09 us a call with every message left, 0.06 taken). */
enum { STAY_MIN_BYTES = 1024 };

/* A single-record eager message.  Under UZ_RECORD_MAY_STAY, one that no
 * receive wants yet is declined (the transport keeps it), before anything
 * is counted or matched, so that its next offer is its first. */
static int on_eager(int src_world, const struct uz_msg_hdr *h, const unsigned char *body, size_t len,
                    unsigned flags)
{
    uint64_t cookie = 0;
    if (h->flags & UZ_MSG_SYNC_EXT) {
        if (len < sizeof(struct uz_ext_cookie))
            { drop(src_world, "short synchronous eager record"); return UZ_RECORD_TAKEN; }
        struct uz_ext_cookie ext;
        memcpy(&ext, body, sizeof(ext));
        cookie = ext.cookie;
        body += sizeof(ext);
        len -= sizeof(ext);
    }
    uint32_t trace_seq = 0;
    uz_request *r = take_matched(src_world, h);     /* matched and numbered by place_eager */
    if (!r) {
        if (UZ_UNLIKELY(uz_trace_stages))
            trace_seq = uz_trace_arrival(h->tag, src_world);
        r = uz_posted_match(h->context_id, h->src, h->tag);
        if (UZ_UNLIKELY(trace_seq) && r)
            uz_trace_match(r, trace_seq, h->tag, src_world);
        else if (!r && (flags & UZ_RECORD_MAY_STAY) && len >= STAY_MIN_BYTES && !trace_seq)
            return UZ_RECORD_STAYS;
    }
    count_arrival(src_world, len);
    if (!r) {
        eager_to_unexpected(h, src_world, body, len, len, cookie, trace_seq);
        return UZ_RECORD_TAKEN;
    }
    eager_to_request(r, h, src_world, body, len, len, (h->flags & UZ_MSG_SYNC) ? cookie : 0);
    return UZ_RECORD_FINISHED;
}

static void on_eager_first(int src_world, const struct uz_msg_hdr *h, const unsigned char *body, size_t len)
{
    struct uz_ext_eager ext;
    if (len < sizeof(ext))
        { drop(src_world, "short eager header"); return; }
    memcpy(&ext, body, sizeof(ext));
    body += sizeof(ext);
    len -= sizeof(ext);
    struct uz_peer *p = &uz_peers[src_world];
    if (ext.size < len || p->rx_req || p->rx_unexp)
        { drop(src_world, "inconsistent eager message"); return; }
    count_arrival(src_world, ext.size);
    uint32_t trace_seq = 0;
    if (UZ_UNLIKELY(uz_trace_stages))
        trace_seq = uz_trace_arrival(h->tag, src_world);
    uz_request *r = uz_posted_match(h->context_id, h->src, h->tag);
    uint64_t ack = (h->flags & UZ_MSG_SYNC) ? ext.cookie : 0;
    if (UZ_UNLIKELY(trace_seq) && r)
        uz_trace_match(r, trace_seq, h->tag, src_world);
    if (r)
        eager_to_request(r, h, src_world, body, len, ext.size, ack);
    else
        eager_to_unexpected(h, src_world, body, len, ext.size, ext.cookie, trace_seq);
}

static void on_eager_more(int src_world, const unsigned char *body, size_t len)
{
    struct uz_peer *p = &uz_peers[src_world];
    if (p->rx_req) {
        uz_request *r = p->rx_req;
        if (r->received + len > r->msg_size)
            { drop(src_world, "eager piece beyond the message"); return; }
        recv_put(r, r->received, body, len);
        r->received += len;
        if (r->received == r->msg_size) {
            p->rx_req = NULL;
            recv_finish(r, MPI_SUCCESS);
        }
        return;
    }
    struct uz_unexpected *u = p->rx_unexp;
    if (!u || u->arrived + len > u->size)
        { drop(src_world, "eager piece with no message"); return; }
    if (u->claimed) {
        uz_request *r = u->claimed;
        recv_put(r, u->arrived, body, len);     /* straight to the user's buffer */
        r->received = u->arrived + len;
    } else {
        memcpy(u->data + u->arrived, body, len);
    }
    u->arrived += len;
    if (u->arrived < u->size)
        return;
    p->rx_unexp = NULL;
    if (u->claimed) {
        uz_request *r = u->claimed;
        uz_unexpected_free(u);
        uz_pt2pt_stats.copy_reduced++;
        recv_finish(r, MPI_SUCCESS);
    }
}

/* --------------------------------------------------- taking a queued message */

void uz_recv_take(uz_request *r, struct uz_unexpected *u)
{
    recv_bind(r, u->src, u->tag, u->size, u->src_world);
    if (UZ_UNLIKELY(uz_trace_stages) && u->trace_seq)
        uz_trace_match(r, u->trace_seq, u->tag, u->src_world);
    if (u->kind == UZ_MSG_RTS) {
        struct uz_msg_hdr h = { UZ_MSG_RTS, 0, 0, u->tag, u->context_id, u->src };
        struct uz_ext_rts rts = { .size = u->size, .cookie = u->cookie, .has_bulk = u->has_bulk,
                                  .bulk = u->bulk };
        uz_unexpected_free(u);
        start_rendezvous(r, &h, &rts, r->peer_world);
        return;
    }
    recv_put(r, 0, u->data, u->arrived);
    r->received = u->arrived;
    if (u->flags & UZ_MSG_SYNC) {
        struct uz_msg_hdr h = { UZ_MSG_ACK, 0, 0, u->tag, u->context_id, u->src };
        send_ack(u->src_world, &h, u->cookie);
    }
    if (u->arrived == u->size) {
        uz_unexpected_free(u);
        recv_finish(r, MPI_SUCCESS);
    } else {
        u->claimed = r;         /* the remaining pieces land in r's buffer */
    }
}

/* ---------------------------------------------------------------- records */

static void on_rts(int src_world, const struct uz_msg_hdr *h, const unsigned char *body, size_t len)
{
    struct uz_ext_rts rts;
    if (len != sizeof(rts))
        { drop(src_world, "bad rendezvous request"); return; }
    memcpy(&rts, body, sizeof(rts));
    count_arrival(src_world, rts.size);
    uint32_t trace_seq = 0;
    if (UZ_UNLIKELY(uz_trace_stages))
        trace_seq = uz_trace_arrival(h->tag, src_world);
    uz_request *r = uz_posted_match(h->context_id, h->src, h->tag);
    if (r) {
        recv_bind(r, h->src, h->tag, rts.size, src_world);
        if (UZ_UNLIKELY(trace_seq))
            uz_trace_match(r, trace_seq, h->tag, src_world);
        start_rendezvous(r, h, &rts, src_world);
        return;
    }
    struct uz_unexpected *u = uz_unexpected_new(0);
    if (!u)
        uz_runtime_abort(1, "out of memory for unexpected messages");
    u->context_id = h->context_id;
    u->src = h->src;
    u->tag = h->tag;
    u->src_world = src_world;
    u->kind = UZ_MSG_RTS;
    u->flags = h->flags & UZ_MSG_SYNC;
    u->size = rts.size;
    u->cookie = rts.cookie;
    u->has_bulk = (uint8_t)rts.has_bulk;
    u->bulk = rts.bulk;
    u->trace_seq = trace_seq;   /* 0 when not traced */
    uz_unexpected_enqueue(u);
    uz_pt2pt_stats.unexpected++;
    uz_tool_event(UZ_TOOL_EVENT_UNEXPECTED, h->src, h->tag, (int64_t)rts.size, h->context_id);
}

static void on_data(int src_world, const unsigned char *body, size_t len)
{
    struct uz_ext_data ext;
    if (len < sizeof(ext))
        { drop(src_world, "short data record"); return; }
    memcpy(&ext, body, sizeof(ext));
    uz_request *r = uz_cookie_lookup(ext.recv_cookie);
    len -= sizeof(ext);
    if (!r || r->kind != UZ_REQ_RECV || r->peer_world != src_world || ext.offset + len > r->expected)
        { drop(src_world, "data for no receive"); return; }
    recv_put(r, ext.offset, body + sizeof(ext), len);
    r->received += len;
    if (r->received >= r->expected)
        recv_finish(r, MPI_SUCCESS);
}

/*
 * The header of a one-record eager message is in and its payload is not:
 * match it now (records from one peer arrive whole and in order, so this
 * is the moment its turn comes), and let the payload go straight into a
 * contiguous receive buffer that holds it.  Otherwise the match is kept
 * for on_eager(), which gets the whole record as usual.
 */
static int place_eager(int src_world, const struct uz_msg_hdr *h, size_t len, struct iovec *iov)
{
    struct uz_peer *p = &uz_peers[src_world];
    if (p->rx_matched)
        return 0;
    uz_request *r = uz_posted_match(h->context_id, h->src, h->tag);
    if (!r)
        return 0;
    p->rx_matched = r;
    if (UZ_UNLIKELY(uz_trace_stages))
        uz_trace_match(r, uz_trace_arrival(h->tag, src_world), h->tag, src_world);
    if (!r->contig || len > r->bytes)
        return 0;
    recv_bind(r, h->src, h->tag, len, src_world);
    count_arrival(src_world, len);
    iov[0].iov_base = r->contig;
    iov[0].iov_len = len;
    return 1;
}

/* A record's header is in and its payload is not (a stream, or the first
 * segment of several): say where the payload may go (uz_recv_placer) —
 * rendezvous data for its receive, or a matched eager message. */
int uz_pt2pt_place(int src_world, const void *hdr, size_t hdr_len, size_t len, struct iovec *iov, int max)
{
    struct uz_msg_hdr h;
    struct uz_ext_data ext;
    if (hdr_len < HDR || max < 1)
        return 0;
    memcpy(&h, hdr, HDR);
    if (h.kind == UZ_MSG_EAGER && hdr_len == HDR && !(h.flags & (UZ_MSG_SYNC | UZ_MSG_SYNC_EXT)))
        return place_eager(src_world, &h, len, iov);
    if (h.kind != UZ_MSG_DATA || hdr_len != HDR + sizeof(ext))
        return 0;
    memcpy(&ext, (const unsigned char *)hdr + HDR, sizeof(ext));
    uz_request *r = uz_cookie_lookup(ext.recv_cookie);
    if (!r || r->kind != UZ_REQ_RECV || r->peer_world != src_world || ext.offset + len > r->expected)
        return 0;
    if (r->contig) {
        iov[0].iov_base = r->contig + ext.offset;
        iov[0].iov_len = len;
        return 1;
    }
    uz_dt_cursor_seek(r->cursor, ext.offset);
    size_t got = 0;
    int n = uz_dt_cursor_iov(r->cursor, iov, max, len, &got);
    if (got != len) {
        uz_dt_cursor_seek(r->cursor, ext.offset);
        return 0;               /* too many runs for one read: take the whole record */
    }
    return n;
}

void uz_pt2pt_placed(int src_world, const void *hdr, size_t hdr_len, size_t len)
{
    struct uz_msg_hdr h;
    memcpy(&h, hdr, HDR);
    if (h.kind == UZ_MSG_EAGER) {
        uz_request *r = uz_peers[src_world].rx_matched;
        uz_peers[src_world].rx_matched = NULL;
        if (r) {
            r->received = len;
            recv_finish(r, MPI_SUCCESS);
        }
        return;
    }
    struct uz_ext_data ext;
    memcpy(&ext, (const unsigned char *)hdr + HDR, sizeof(ext));
    uz_request *r = uz_cookie_lookup(ext.recv_cookie);
    if (!r)
        return;
    r->received += len;
    if (r->received >= r->expected)
        recv_finish(r, MPI_SUCCESS);
}

static void on_cancel(int src_world, const struct uz_msg_hdr *h, const unsigned char *body, size_t len)
{
    struct uz_ext_cookie ext;
    if (len != sizeof(ext))
        { drop(src_world, "bad cancel record"); return; }
    memcpy(&ext, body, sizeof(ext));
    struct uz_unexpected *u = uz_unexpected_find_cookie(h->context_id, h->src, ext.cookie);
    int cancelled = 0;
    if (u && u->src_world == src_world && !u->claimed && (u->kind == UZ_MSG_RTS || u->arrived == u->size)) {
        uz_unexpected_dequeue(u);
        uz_unexpected_free(u);
        cancelled = 1;
    }
    unsigned char rec[HDR + sizeof(struct uz_ext_cancel_reply)];
    struct uz_msg_hdr *c = (struct uz_msg_hdr *)rec;
    *c = *h;
    c->kind = UZ_MSG_CANCEL_REPLY;
    struct uz_ext_cancel_reply reply = { ext.cookie, (uint32_t)cancelled };
    memcpy(rec + HDR, &reply, sizeof(reply));
    uz_send_control(src_world, rec, sizeof(rec));
}

int uz_pt2pt_on_record(int src_world, const void *msg, size_t len, unsigned flags)
{
    struct uz_msg_hdr h;
    if (UZ_UNLIKELY(len < HDR))
        { drop(src_world, "record shorter than a header"); return UZ_RECORD_TAKEN; }
    memcpy(&h, msg, HDR);
    const unsigned char *body = (const unsigned char *)msg + HDR;
    len -= HDR;
    switch (h.kind) {
    case UZ_MSG_EAGER:
        return on_eager(src_world, &h, body, len, flags);
    case UZ_MSG_EAGER_FIRST:
        on_eager_first(src_world, &h, body, len);
        return UZ_RECORD_TAKEN;
    case UZ_MSG_EAGER_MORE:
        on_eager_more(src_world, body, len);
        return UZ_RECORD_TAKEN;
    case UZ_MSG_RTS:
        on_rts(src_world, &h, body, len);
        return UZ_RECORD_TAKEN;
    case UZ_MSG_DATA:
        on_data(src_world, body, len);
        return UZ_RECORD_TAKEN;
    case UZ_MSG_CANCEL:
        on_cancel(src_world, &h, body, len);
        return UZ_RECORD_TAKEN;
    case UZ_MSG_ACK:
    case UZ_MSG_CTS:
    case UZ_MSG_CANCEL_REPLY:
        break;
    default:
        { drop(src_world, "unknown record kind"); return UZ_RECORD_TAKEN; }
    }
    if (h.kind == UZ_MSG_ACK && len == sizeof(struct uz_ext_cookie)) {
        struct uz_ext_cookie ext;
        memcpy(&ext, body, sizeof(ext));
        uz_send_on_ack(ext.cookie);
    } else if (h.kind == UZ_MSG_CTS && len == sizeof(struct uz_ext_cts)) {
        struct uz_ext_cts ext;
        memcpy(&ext, body, sizeof(ext));
        uz_send_on_cts(ext.send_cookie, ext.recv_cookie, ext.bytes);
    } else if (h.kind == UZ_MSG_CANCEL_REPLY && len == sizeof(struct uz_ext_cancel_reply)) {
        struct uz_ext_cancel_reply ext;
        memcpy(&ext, body, sizeof(ext));
        uz_send_on_cancel_reply(ext.cookie, (int)ext.cancelled);
    } else {
        drop(src_world, "bad control record");
    }
    return UZ_RECORD_TAKEN;
}

/* -------------------------------------------------------- posting receives */

static uz_request *proc_null_request(void)
{
    uz_request *r = uz_request_new(UZ_REQ_RECV);
    if (!r)
        return NULL;
    uz_status_set_empty(&r->status);
    uz_status_set_proc_null(&r->status);
    atomic_store_explicit(&r->complete, 1, memory_order_relaxed);
    return r;
}

/* Fill in a receive request (its memory already initialised). */
static int setup_recv(uz_request *r, void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                      uz_comm *comm, uint32_t context_id, int source_world)
{
    r->comm = comm;
    r->context_id = context_id;
    r->peer = source;
    r->peer_world = source_world;
    r->tag = tag;
    if (UZ_UNLIKELY(uz_trace_stages))
        r->trace_posted = uz_trace_now();
    return uz_request_set_buffer(r, buf, count, dt);
}

static UZ_ALWAYS_INLINE uz_request *new_recv(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                            uz_comm *comm, uint32_t context_id, int source_world, int *err)
{
    uz_request *r = uz_request_new(UZ_REQ_RECV);
    if (!r) {
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
        return NULL;
    }
    uz_pt2pt_comm_refs.retain(comm);
    *err = setup_recv(r, buf, count, dt, source, tag, comm, context_id, source_world);
    if (*err) {
        uz_request_release(r);
        return NULL;
    }
    return r;
}

static int finish_blocking(uz_request *r, MPI_Status *status)
{
    uz_request_wait(r);
    int err = r->status.MPI_ERROR;
    uz_request_copy_status(r, status);
    uz_request_release(r);
    return err;
}

/* Take queued message u (found for it) into receive r, or queue r. */
static UZ_ALWAYS_INLINE void post_found(uz_request *r, struct uz_unexpected *u)
{
    if (u) {
        uz_unexpected_dequeue(u);
        uz_recv_take(r, u);
    } else if (UZ_UNLIKELY(r->peer_world >= 0 && uz_peers[r->peer_world].failed)) {
        /* Its only possible sender is known dead (peer_failure.c failed
         * the receives posted before): nothing more will come. */
        r->status.MPI_SOURCE = r->peer;
        r->status.MPI_TAG = r->tag;
        r->status.MPI_ERROR = uz_peers[r->peer_world].failed;
        uz_request_complete(r);
    } else {
        uz_posted_enqueue(r);
    }
}

/* Match a receive against the queued messages, or queue it. */
static UZ_ALWAYS_INLINE void post_recv(uz_request *r)
{
    post_found(r, uz_unexpected_find(r->context_id, r->peer, r->tag));
}

/* A queued message that a receive of (count, dt) can take without a
 * request: all of it here, eager, no acknowledgement owed (synchronous
 * mode), fits, contiguous, not traced.  Then only its bytes are copied:
 * setting up and completing a request, even on the stack, was as much work
 * again as the rest of taking a tiny message (callgrind: 170 of the 400
 * instructions of a collective's receive of a message sent ahead). */
static inline int takes_plainly(const struct uz_unexpected *u, MPI_Count count, const uz_datatype *dt)
{
    return u->kind == UZ_MSG_EAGER && u->arrived == u->size && !(u->flags & UZ_MSG_SYNC) &&
           u->size <= (size_t)(count * dt->size) && uz_dt_is_contig(dt, count) && !uz_trace_stages;
}

static inline void take_plainly(struct uz_unexpected *u, void *buf, const uz_datatype *dt, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = u->src;
        status->MPI_TAG = u->tag;
        memset(status->MPI_internal, 0, sizeof(status->MPI_internal));
        uz_status_set_bytes(status, (MPI_Count)u->size);
    }
    uz_unexpected_dequeue(u);
    if (u->size)
        memcpy((char *)buf + dt->true_lb, u->data, u->size);
    uz_unexpected_free(u);
}

/* A blocking receive keeps its request on the stack: the caller's frame
 * outlives it and nobody else ever holds it. */
static int recv_blocking(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                         const struct uz_p2p_comm *pc, int source_world, MPI_Status *status)
{
    struct uz_unexpected *u = uz_unexpected_find(pc->context_id, source, tag);
    if (u && takes_plainly(u, count, dt)) {
        take_plainly(u, buf, dt, status);
        return MPI_SUCCESS;
    }
    uz_request r;
    uz_request_init_on_stack(&r, UZ_REQ_RECV);
    int err = setup_recv(&r, buf, count, dt, source, tag, pc->comm, pc->context_id, source_world);
    if (!err) {
        post_found(&r, u);
        uz_request_wait(&r);
        err = r.status.MPI_ERROR;
        uz_request_copy_status(&r, status);
    }
    uz_request_cleanup_on_stack(&r);
    return err;
}

/* The world rank of a receive's source (-1: any).  A receive naming its
 * source fails when that peer dies (peer_failure.c); a process of another
 * job is watched so that we notice. */
static inline int watched_world(const struct uz_p2p_comm *pc, int source)
{
    int world = source == MPI_ANY_SOURCE ? -1 : uz_p2p_world_rank(pc, source);
    if (UZ_UNLIKELY(world >= uz_rt.world_size))
        uz_proc_watch(world);
    return world;
}

/* A nonblocking receive: made, given what its caller asks of it (the
 * caller reads the bytes next; hooks at match and completion), then
 * matched or queued.  The hooks go in before posting: a message already
 * here is matched, and may complete, inside post_recv. */
static UZ_ALWAYS_INLINE int post_new(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                                     const struct uz_p2p_comm *pc, int source_world, int reads_next,
                                     const struct uz_recv_hooks *hooks, uz_request **out)
{
    int err;
    uz_request *r = new_recv(buf, count, dt, source, tag, pc->comm, pc->context_id, source_world, &err);
    if (!r)
        return err;
    r->reads_next = (uint8_t)reads_next;
    if (hooks) {
        r->on_match = hooks->on_match;
        r->on_complete = hooks->on_complete;
        r->hook_arg = hooks->arg;
    }
    *out = r;
    post_recv(r);
    return MPI_SUCCESS;
}

int uz_pt2pt_recv(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                  const struct uz_p2p_comm *pc, MPI_Status *status, uz_request **out)
{
    if (UZ_UNLIKELY(source == MPI_PROC_NULL)) {
        if (out) {
            if (!(*out = proc_null_request()))
                return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
        } else if (status != MPI_STATUS_IGNORE) {
            uz_status_set_proc_null(status);
        }
        return MPI_SUCCESS;
    }
    int source_world = watched_world(pc, source);
    if (!out)
        return recv_blocking(buf, count, dt, source, tag, pc, source_world, status);
    return post_new(buf, count, dt, source, tag, pc, source_world, 0, NULL, out);
}

int uz_pt2pt_recv_hooked(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                         const struct uz_p2p_comm *pc, const struct uz_recv_hooks *hooks, uz_request **out)
{
    if (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE)
        return uz_err_make(MPI_ERR_INTERN, "a hooked receive names its source (got %d)", source);
    return post_new(buf, count, dt, source, tag, pc, watched_world(pc, source), 0, hooks, out);
}

int uz_pt2pt_recv_quick(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                        const struct uz_p2p_comm *pc, MPI_Status *status, uz_request **out)
{
    if (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
        return uz_pt2pt_recv(buf, count, dt, source, tag, pc, NULL, out);
    struct uz_unexpected *u = uz_unexpected_find(pc->context_id, source, tag);
    if (!u || u->kind != UZ_MSG_EAGER || u->arrived != u->size)
        return uz_pt2pt_recv(buf, count, dt, source, tag, pc, NULL, out);
    *out = NULL;
    if (takes_plainly(u, count, dt)) {
        take_plainly(u, buf, dt, status);
        return MPI_SUCCESS;
    }
    /* All of it is here: taken at once, as a blocking receive takes it,
     * with the request on the stack. */
    uz_request r;
    uz_request_init_on_stack(&r, UZ_REQ_RECV);
    int err = setup_recv(&r, buf, count, dt, source, tag, pc->comm, pc->context_id, watched_world(pc, source));
    if (!err) {
        uz_unexpected_dequeue(u);
        uz_recv_take(&r, u);
        err = r.status.MPI_ERROR;
        uz_request_copy_status(&r, status);
    }
    uz_request_cleanup_on_stack(&r);
    return err;
}

int uz_pt2pt_recv_to_read(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                          const struct uz_p2p_comm *pc, uz_request **out)
{
    if (source == MPI_PROC_NULL)
        return uz_pt2pt_recv(buf, count, dt, source, tag, pc, NULL, out);
    return post_new(buf, count, dt, source, tag, pc, watched_world(pc, source), 1, NULL, out);
}

int uz_pt2pt_mrecv(void *buf, MPI_Count count, uz_datatype *dt, struct uz_unexpected *msg, uz_comm *comm,
                   MPI_Status *status, uz_request **out)
{
    int err;
    uz_request *r = new_recv(buf, count, dt, msg->src, msg->tag, comm, msg->context_id, -1, &err);
    if (!r)
        return err;
    uz_recv_take(r, msg);
    if (out) {
        *out = r;
        return MPI_SUCCESS;
    }
    return finish_blocking(r, status);
}

int uz_recv_cancel(uz_request *r)
{
    if (uz_request_is_complete(r) || !uz_posted_remove(r))
        return MPI_SUCCESS;
    uz_status_set_empty(&r->status);
    r->status.MPI_SOURCE = r->peer;
    r->status.MPI_TAG = r->tag;
    uz_status_set_cancelled(&r->status, 1);
    uz_request_complete(r);
    return MPI_SUCCESS;
}

void uz_pt2pt_stats_print(void)
{
    const struct uz_pt2pt_stats *s = &uz_pt2pt_stats;
    fprintf(stderr, "Uzura rank %d: eager %lu, rendezvous %lu (one-copy pulls %lu, through the ring %lu), "
            "unexpected %lu, copy-reduced %lu, dropped records %lu\n", uz_rt.world_rank, s->eager_sent,
            s->rendezvous_sent, s->bulk_pulls, s->cts_sent, s->unexpected, s->copy_reduced, s->dropped);
}
