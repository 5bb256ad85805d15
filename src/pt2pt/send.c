/*
 * send.c — the sending side of the request layer: choosing eager or
 * rendezvous, injecting records in order per peer, and reacting to the
 * receiver's answers (ACK, CTS, bulk completion, cancel replies).
 *
 * Every record to a peer leaves in the order it was started: while a
 * peer's send queue is not empty, new records queue behind it.  This keeps
 * MPI's non-overtaking rule and lets the pieces of one eager message follow
 * each other with nothing in between, which the receiver relies on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "base/profile.h"
#include "base/tool_events.h"
#include "datatype/dt_engine.h"
#include "pt2pt/cookie.h"
#include "pt2pt/path.h"
#include "pt2pt/protocol.h"
#include "pt2pt/send.h"
#include "pt2pt/stats.h"
#include "pt2pt/status.h"
#include "pt2pt/trace.h"

enum { HDR = sizeof(struct uz_msg_hdr) };

/* Smallest nonblocking eager send whose buffer a transport may keep
 * reading until the receiver acknowledges it (see lends_eager). */
enum { NET_LEND_MIN = 16384 };

/*
 * Does a nonblocking eager send lend its buffer to the transport?  One that
 * keeps sent bytes (caps.keeps_sent_bytes: udp) must keep every byte until
 * the receiver acknowledges it.  A blocking send
 * copies them right after the kernel took them (the copy overlaps the
 * receiver's work, and the caller gets its buffer back at once); a
 * nonblocking one can instead complete on the ACK, which saves that copy
 * where it costs most: a sender streaming a window of messages, whose
 * core is the bottleneck.  (A synchronous send keeps its own ACK path.)
 */
static inline int lends_eager(const struct uz_peer *p, int nonblocking, enum uz_send_mode mode,
                              size_t bytes)
{
    return nonblocking && p->lends && mode != UZ_SEND_SYNC && bytes >= NET_LEND_MIN;
}

static inline void fill_hdr(struct uz_msg_hdr *h, uint8_t kind, uint8_t flags, int tag,
                            uint32_t context_id, int src)
{
    h->kind = kind;
    h->flags = flags;
    h->reserved = 0;
    h->tag = tag;
    h->context_id = context_id;
    h->src = src;
}

static void pack_from_cursor(void *cursor, void *dst, size_t len)
{
    uz_dt_cursor_pack(cursor, dst, len);
}

static int iov_from_cursor(void *cursor, struct iovec *iov, int max, size_t max_bytes, size_t *bytes)
{
    return uz_dt_cursor_iov(cursor, iov, max, max_bytes, bytes);
}

/* Staged bulk send: pack stream bytes [offset, offset+len). */
static void pack_at_offset(void *cursor, size_t offset, void *dst, size_t len)
{
    uz_dt_cursor_seek(cursor, offset);
    uz_dt_cursor_pack(cursor, dst, len);
}

/* Payload of `len` bytes at stream offset `offset` of the request's data
 * (the cursor is kept at `offset` by sending pieces in order). */
static inline void payload_of(uz_request *r, size_t offset, size_t len, struct uz_payload *pl)
{
    pl->len = len;
    pl->hold = r->lend_eager ? r : NULL;       /* see lends_eager() */
    pl->hold_briefly = r->lend_eager;
    if (r->contig) {
        pl->contig = r->contig + offset;
        pl->pack = NULL;
    } else {
        pl->contig = NULL;
        pl->pack = pack_from_cursor;
        pl->iov = iov_from_cursor;
        pl->pack_ctx = r->cursor;
    }
}

/* ------------------------------------------------------------ send queue */

static int *flush_list;         /* world ranks whose queues are not empty */
int uz_send_flush_count;        /* its length (read inline by progress) */
static int flush_cap;

static void flush_list_add(int world)
{
    struct uz_peer *p = &uz_peers[world];
    if (p->in_flush_list)
        return;
    if (uz_send_flush_count == flush_cap) {
        int cap = flush_cap ? 2 * flush_cap : 16;
        int *n = realloc(flush_list, sizeof(int) * cap);
        if (!n)
            abort();
        flush_list = n;
        flush_cap = cap;
    }
    flush_list[uz_send_flush_count++] = world;
    p->in_flush_list = 1;
}

static void sendq_push(struct uz_peer *p, uz_request *r)
{
    r->next = NULL;
    if (p->sendq_tail)
        p->sendq_tail->next = r;
    else
        p->sendq_head = r;
    p->sendq_tail = r;
}

static void sendq_pop(struct uz_peer *p)
{
    uz_request *r = p->sendq_head;
    p->sendq_head = r->next;
    if (!p->sendq_head)
        p->sendq_tail = NULL;
    r->next = NULL;
}

static int sendq_remove(struct uz_peer *p, uz_request *r)
{
    uz_request *prev = NULL;
    for (uz_request *q = p->sendq_head; q; prev = q, q = q->next) {
        if (q != r)
            continue;
        if (prev)
            prev->next = q->next;
        else
            p->sendq_head = q->next;
        if (p->sendq_tail == q)
            p->sendq_tail = prev;
        q->next = NULL;
        return 1;
    }
    return 0;
}

/* --------------------------------------------------------- completion */

static void send_complete(uz_request *r, int error)
{
    if (UZ_UNLIKELY(uz_trace_of(r)))
        uz_trace_send_done(r->trace_seq, r->tag, r->peer_world);
    r->phase = UZ_SEND_DONE;
    r->status.MPI_ERROR = error;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    uz_request_complete(r);
}

/* ------------------------------------------------------ control records */

int uz_send_control(int world, const void *rec, size_t len)
{
    struct uz_peer *p = &uz_peers[world];
    if (!p->sendq_head) {
        struct uz_payload none = { 0 };
        int rc = uz_path_send(p, rec, len, &none);
        if (rc != -EAGAIN)
            return rc;
    }
    uz_request *c = uz_request_new(UZ_REQ_SEND);
    if (!c || !(c->buf = malloc(len)))
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory queueing a control record");
    memcpy(c->buf, rec, len);
    c->bytes = len;
    c->phase = UZ_SEND_CONTROL;
    c->peer_world = world;
    sendq_push(p, c);
    flush_list_add(world);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- the send steps */

/* A record the transport took with -EINPROGRESS reads our buffer until
 * uz_pt2pt_released(): the request stays until then. */
static inline int held_by_net(uz_request *r, int rc)
{
    if (rc != -EINPROGRESS)
        return rc;
    uz_request_retain(r);
    r->net_held++;
    uz_send_held++;
    return 0;
}

/* Inject as many eager pieces as fit.  Returns 1 when all are out, 0 when
 * the transport is full, or an MPI error code (> 1). */
static int step_eager(struct uz_peer *p, uz_request *r)
{
    unsigned char rec[HDR + sizeof(struct uz_ext_eager)];
    struct uz_msg_hdr *h = (struct uz_msg_hdr *)rec;
    uint8_t sync = r->send_mode == UZ_SEND_SYNC ? UZ_MSG_SYNC : 0;
    size_t single = p->max_record - HDR - (sync ? sizeof(struct uz_ext_cookie) : 0);
    struct uz_payload pl;
    int rc;

    if (r->sent == 0 && r->bytes <= single) {
        size_t hlen = HDR;
        fill_hdr(h, UZ_MSG_EAGER, sync ? UZ_MSG_SYNC | UZ_MSG_SYNC_EXT : 0, r->tag, r->context_id,
                 r->my_rank);
        if (sync) {
            struct uz_ext_cookie ext = { r->cookie };
            memcpy(rec + HDR, &ext, sizeof(ext));
            hlen += sizeof(ext);
        }
        payload_of(r, 0, r->bytes, &pl);
        rc = held_by_net(r, uz_path_send(p, rec, hlen, &pl));
        if (rc == -EAGAIN)
            return 0;
        if (rc)
            return rc;
        if (UZ_UNLIKELY(uz_trace_of(r)))
            uz_trace_send_out(UZ_STAGE_SEND_ENQUEUED, r->trace_seq, r->tag, r->peer_world);
        r->sent = r->bytes;
        return 1;
    }
    while (r->sent < r->bytes) {
        size_t hlen, room;
        if (r->sent == 0) {
            fill_hdr(h, UZ_MSG_EAGER_FIRST, sync, r->tag, r->context_id, r->my_rank);
            struct uz_ext_eager ext = { r->bytes, r->cookie };
            memcpy(rec + HDR, &ext, sizeof(ext));
            hlen = HDR + sizeof(ext);
        } else {
            fill_hdr(h, UZ_MSG_EAGER_MORE, 0, r->tag, r->context_id, r->my_rank);
            hlen = HDR;
        }
        room = p->max_record - hlen;
        size_t piece = r->bytes - r->sent < room ? r->bytes - r->sent : room;
        payload_of(r, r->sent, piece, &pl);
        rc = held_by_net(r, uz_path_send(p, rec, hlen, &pl));
        if (rc == -EAGAIN)
            return 0;
        if (rc)
            return rc;
        if (UZ_UNLIKELY(uz_trace_of(r)) && r->sent == 0)
            uz_trace_send_out(UZ_STAGE_SEND_ENQUEUED, r->trace_seq, r->tag, r->peer_world);
        r->sent += piece;
    }
    return 1;
}

/* Describe the send buffer for a bulk transfer. */
static int bulk_runs(uz_request *r)
{
    if (r->contig) {
        r->bulk_iov_one.iov_base = r->contig;
        r->bulk_iov_one.iov_len = r->bytes;
        r->bulk_iov = &r->bulk_iov_one;
        r->bulk_niov = 1;
        return 0;
    }
    int cap = 16, n = 0;
    struct iovec *v = malloc(sizeof(*v) * cap);
    if (!v)
        return -1;
    uz_dt_cursor_seek(r->cursor, 0);
    for (;;) {
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
        int k = uz_dt_cursor_iov(r->cursor, v + n, cap - n, SIZE_MAX, &got);
        if (k == 0)
            break;
        n += k;
    }
    uz_dt_cursor_seek(r->cursor, 0);
    r->bulk_iov = v;
    r->bulk_niov = n;
    return 0;
}

static int step_rts(struct uz_peer *p, uz_request *r)
{
    unsigned char rec[HDR + sizeof(struct uz_ext_rts)];
    struct uz_msg_hdr *h = (struct uz_msg_hdr *)rec;
    struct uz_ext_rts ext = { .size = r->bytes, .cookie = r->cookie };
    /* One-copy pulls pay per memory run, so a layout of runs shorter than
     * the transport says is worth it (the receiver copies: our runs are
     * remote to it) is offered staged: if the receiver has long runs, we
     * pack and push; if not, it answers CTS and the data is packed through
     * the transport.  Staging leaves one core to do all the copying, which
     * beats the two-core ring only while the data stays in cache: larger
     * messages go by CTS/DATA. */
    const struct uz_transport_caps *caps = &p->path->caps;
    int long_runs = r->contig || uz_dt_mean_run(r->datatype) >= caps->bulk_min_run_remote;
    if (p->has_bulk && !r->bulk_offered && (long_runs || r->bytes <= caps->bulk_staged_max)) {
        struct uz_bulk_mem mem = { 0 };
        if (long_runs) {
            if (!r->bulk_iov && bulk_runs(r) != 0)
                return uz_err_make(MPI_ERR_NO_MEM, "out of memory describing a %zu-byte message", r->bytes);
            mem.iov = r->bulk_iov;
            mem.niov = r->bulk_niov;
            r->bulk_kind = UZ_RTS_BULK_RUNS;
        } else {
            mem.pack = pack_at_offset;
            mem.ctx = r->cursor;
            r->bulk_kind = UZ_RTS_BULK_PUSH;
        }
        int rc = p->path->ops->bulk_offer(p->addr, &mem, r->bytes, r, &r->bulk);
        if (rc > 0)
            return rc;
        if (rc == -EBUSY)
            return 0;                   /* a record is on its way back: try again */
        r->bulk_offered = rc == 0;      /* no free record: the CTS path still works */
    }
    if (r->bulk_offered) {
        ext.has_bulk = r->bulk_kind;
        ext.bulk = r->bulk;
    }
    fill_hdr(h, UZ_MSG_RTS, r->send_mode == UZ_SEND_SYNC ? UZ_MSG_SYNC : 0, r->tag, r->context_id,
             r->my_rank);
    memcpy(rec + HDR, &ext, sizeof(ext));
    struct uz_payload none = { 0 };
    int rc = uz_path_send(p, rec, sizeof(rec), &none);
    if (rc == -EAGAIN)
        return 0;
    if (UZ_UNLIKELY(uz_trace_of(r)) && rc == 0)
        uz_trace_send_out(UZ_STAGE_SEND_ENQUEUED, r->trace_seq, r->tag, r->peer_world);
    return rc ? rc : 1;
}

static int step_data(struct uz_peer *p, uz_request *r)
{
    unsigned char rec[HDR + sizeof(struct uz_ext_data)];
    struct uz_msg_hdr *h = (struct uz_msg_hdr *)rec;
    fill_hdr(h, UZ_MSG_DATA, 0, r->tag, r->context_id, r->my_rank);
    size_t room = p->max_record - sizeof(rec);
    while (r->sent < r->send_limit) {
        size_t piece = r->send_limit - r->sent < room ? r->send_limit - r->sent : room;
        struct uz_ext_data ext = { r->peer_cookie, r->sent };
        memcpy(rec + HDR, &ext, sizeof(ext));
        struct uz_payload pl;
        payload_of(r, r->sent, piece, &pl);
        /* The receiver is waiting for these bytes and the send cannot
         * complete before they are out anyway: a transport that would copy
         * them for retransmission may read them from here instead. */
        if (r->contig)
            pl.hold = r;
        int rc = held_by_net(r, uz_path_send(p, rec, sizeof(rec), &pl));
        if (rc == -EAGAIN)
            return 0;
        if (rc)
            return rc;
        r->sent += piece;
    }
    if (UZ_UNLIKELY(uz_trace_of(r)))
        uz_trace_send_out(UZ_STAGE_SEND_DATA, r->trace_seq, r->tag, r->peer_world);
    return 1;
}

/* Advance the request at the head of a peer's queue.  Returns 1 when it
 * left the queue, 0 when blocked. */
static int step(struct uz_peer *p, uz_request *r)
{
    int rc;
    switch (r->phase) {
    case UZ_SEND_CONTROL: {
        struct uz_payload none = { 0 };
        rc = uz_path_send(p, r->buf, r->bytes, &none);
        if (rc == -EAGAIN)
            return 0;
        sendq_pop(p);
        free(r->buf);
        r->buf = NULL;
        uz_request_release(r);
        return 1;
    }
    case UZ_SEND_EAGER:
        rc = step_eager(p, r);
        if (rc == 0)
            return 0;
        sendq_pop(p);
        if (r->net_held) {                      /* a lent eager send (never synchronous) */
            if (rc > 1 && !r->net_error)
                r->net_error = rc;
            r->phase = UZ_SEND_WAIT_NET;        /* completes in uz_pt2pt_released() */
        } else if (rc > 1)
            send_complete(r, rc);
        else if (r->send_mode == UZ_SEND_SYNC && !r->acked)
            r->phase = UZ_SEND_WAIT_ACK;
        else
            send_complete(r, MPI_SUCCESS);
        return 1;
    case UZ_SEND_RTS:
        rc = step_rts(p, r);
        if (rc == 0)
            return 0;
        sendq_pop(p);
        if (rc > 1)
            send_complete(r, rc);
        else
            r->phase = UZ_SEND_WAIT_CTS;
        return 1;
    case UZ_SEND_DATA:
        rc = step_data(p, r);
        if (rc == 0)
            return 0;
        sendq_pop(p);
        if (rc > 1 && !r->net_error)
            r->net_error = rc;
        if (r->net_held)
            r->phase = UZ_SEND_WAIT_NET;        /* completes in uz_pt2pt_released() */
        else
            send_complete(r, rc > 1 ? rc : MPI_SUCCESS);
        return 1;
    default:
        sendq_pop(p);
        return 1;
    }
}

static void flush_peer(int world)
{
    struct uz_peer *p = &uz_peers[world];
    while (p->sendq_head && step(p, p->sendq_head))
        ;
}

int uz_send_flush(void)
{
    int work = 0;
    for (int i = 0; i < uz_send_flush_count;) {
        int world = flush_list[i];
        struct uz_peer *p = &uz_peers[world];
        uz_request *before = p->sendq_head;
        size_t sent_before = before ? before->sent : 0;    /* a cancel may have emptied it */
        flush_peer(world);
        /* A long message leaving piece by piece is progress too: counting
         * it keeps a sender that streams into a full ring from being
         * treated as idle and sent to yield between pieces. */
        work += p->sendq_head != before || (before && before->sent != sent_before);
        if (!p->sendq_head) {
            p->in_flush_list = 0;
            flush_list[i] = flush_list[--uz_send_flush_count];
        } else {
            i++;
        }
    }
    return work;
}


/* ------------------------------------------------------- starting sends */

static void start_queued(struct uz_peer *p, uz_request *r)
{
    int world = r->peer_world;
    sendq_push(p, r);
    if (p->sendq_head == r)
        flush_peer(world);
    if (p->sendq_head)
        flush_list_add(world);
}

/* Set up a request's view of its buffer. */
int uz_request_set_buffer(uz_request *r, void *buf, MPI_Count count, uz_datatype *dt)
{
    r->buf = buf;
    r->count = count;
    r->datatype = dt;
    uz_dt_retain(dt);
    r->bytes = (size_t)(count * dt->size);
    if (uz_dt_is_contig(dt, count) || r->bytes == 0) {
        r->contig = (unsigned char *)buf + dt->true_lb;
        return MPI_SUCCESS;
    }
    r->cursor = malloc(sizeof(struct uz_dt_cursor));
    if (!r->cursor)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a transfer");
    uz_dt_cursor_init(r->cursor, buf, count, dt);
    return MPI_SUCCESS;
}

/* A request that completed at once (nonblocking eager send). */
static uz_request *completed_send_request(void)
{
    uz_request *r = uz_request_new(UZ_REQ_SEND);
    if (!r)
        return NULL;
    r->phase = UZ_SEND_DONE;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    atomic_store_explicit(&r->complete, 1, memory_order_relaxed);
    return r;
}

/* The send itself, for a message numbered `trace_seq` by UZURA_TRACE=stages
 * (0: not traced).  Inlined into uz_pt2pt_send and uz_pt2pt_send_quick with
 * 0, where every stamp folds away, and into the cold observed_send.
 * `quick`: a message that goes out at once leaves *out NULL. */
static UZ_ALWAYS_INLINE int send_to(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                                    const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out,
                                    int world, size_t bytes, uint32_t trace_seq, int quick)
{
    struct uz_peer *p = &uz_peers[world];
    /* Fast path: an eager message that fits one record goes out now,
     * without a request (blocking) or with an already-complete one. */
    size_t limit = p->eager_limit;
    int lend = lends_eager(p, out != NULL, mode, bytes) && uz_dt_is_contig(dt, count);
    if (mode != UZ_SEND_SYNC && bytes <= p->eager_single && bytes <= limit && !p->sendq_head && !lend) {
        struct uz_msg_hdr h;
        /* Every field set, not `= { .len = bytes }`: GCC clears the rest
         * with `rep stos`, tens of cycles on each eager send. */
        struct uz_payload pl;
        struct uz_dt_cursor cursor;
        pl.len = bytes;
        pl.hold = NULL;
        pl.hold_briefly = 0;
        fill_hdr(&h, UZ_MSG_EAGER, 0, tag, pc->context_id, pc->rank);
        if (uz_dt_is_contig(dt, count) || bytes == 0) {
            pl.contig = (const unsigned char *)buf + dt->true_lb;
            pl.pack = NULL;
            pl.iov = NULL;
            pl.pack_ctx = NULL;
        } else {
            uz_dt_cursor_init(&cursor, buf, count, dt);
            pl.contig = NULL;
            pl.pack = pack_from_cursor;
            pl.iov = iov_from_cursor;
            pl.pack_ctx = &cursor;
        }
        /* Counted before it goes: a transport publishes a record behind a
         * full barrier (shm's sequence word) that waits for the record's
         * bytes to reach the peer's cache; what is done before it overlaps
         * that wait, what comes after waits behind it (measured: the counts
         * after the send cost 6 % of the 64-byte message rate).  Taken back
         * if it did not go. */
        struct uz_traffic *traffic = &uz_traffic[p->traffic];
        traffic->msgs_sent++;
        traffic->bytes_sent += bytes;
        uz_pt2pt_stats.eager_sent++;
        int rc = uz_path_send(p, &h, sizeof(h), &pl);
        if (rc == 0) {
            if (UZ_UNLIKELY(trace_seq)) {
                uz_trace_send_out(UZ_STAGE_SEND_ENQUEUED, trace_seq, tag, world);
                uz_trace_send_done(trace_seq, tag, world);
            }
            if (out && quick)
                *out = NULL;
            else if (out && !(*out = completed_send_request()))
                return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
            return MPI_SUCCESS;
        }
        traffic->msgs_sent--;
        traffic->bytes_sent -= bytes;
        uz_pt2pt_stats.eager_sent--;
        if (rc != -EAGAIN)
            return rc;
    }

    uz_request *r = uz_request_new(UZ_REQ_SEND);
    if (!r)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
    r->comm = pc->comm;
    uz_pt2pt_comm_refs.retain(pc->comm);
    r->context_id = pc->context_id;
    r->my_rank = pc->rank;
    r->peer = dest;
    r->peer_world = world;
    r->tag = tag;
    r->send_mode = (uint8_t)mode;
    if (UZ_UNLIKELY(trace_seq))
        r->trace_seq = trace_seq;
    int err = uz_request_set_buffer(r, (void *)buf, count, dt);
    if (err) {
        uz_request_release(r);
        return err;
    }
    /* Between hosts a rendezvous costs a network round trip, so networks
     * keep their own, larger limit (pt2pt_init.c). */
    int eager = bytes <= limit;
    if (mode == UZ_SEND_SYNC || !eager)
        r->cookie = uz_cookie_issue(r);
    r->phase = eager ? UZ_SEND_EAGER : UZ_SEND_RTS;
    r->lend_eager = (uint8_t)(eager && lend);
    uz_traffic[p->traffic].msgs_sent++;
    uz_traffic[p->traffic].bytes_sent += bytes;
    if (eager) {
        uz_pt2pt_stats.eager_sent++;
    } else {
        uz_pt2pt_stats.rendezvous_sent++;
        uz_tool_event(UZ_TOOL_EVENT_RENDEZVOUS, world, tag, (int64_t)bytes, 0);
    }
    start_queued(p, r);
    if (out) {
        *out = r;
        return MPI_SUCCESS;
    }
    uz_request_wait(r);
    err = r->status.MPI_ERROR;
    uz_request_release(r);
    return err;
}

/* UZURA_TRACE=stages or the traffic profile: number and count the message,
 * then send it.  Out of line, so that a run without them pays one branch. */
static UZ_COLD int observed_send(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                                 const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out,
                                 int world, size_t bytes, int quick)
{
    uint32_t trace_seq = uz_trace_stages ? uz_trace_send_entry(tag, world) : 0;
    /* Collective contexts are odd (comm.h): context_id + 1. */
    uz_profile_send(world, bytes, (int)(pc->context_id & 1));
    return send_to(buf, count, dt, dest, tag, pc, mode, out, world, bytes, trace_seq, quick);
}

/* uz_pt2pt_send and uz_pt2pt_send_quick, told apart by `quick`, which
 * folds away in each. */
static UZ_ALWAYS_INLINE int send_entry(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                                       const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out,
                                       int quick)
{
    if (UZ_UNLIKELY(dest == MPI_PROC_NULL)) {
        if (out && quick)
            *out = NULL;
        else if (out && !(*out = completed_send_request()))
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
        return MPI_SUCCESS;
    }
    int world = uz_p2p_world_rank(pc, dest);
    size_t bytes = (size_t)(count * dt->size);
    if (UZ_UNLIKELY(uz_trace_stages | uz_profile_on))
        return observed_send(buf, count, dt, dest, tag, pc, mode, out, world, bytes, quick);
    return send_to(buf, count, dt, dest, tag, pc, mode, out, world, bytes, 0, quick);
}

int uz_pt2pt_send(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                  const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out)
{
    return send_entry(buf, count, dt, dest, tag, pc, mode, out, 0);
}

int uz_pt2pt_send_quick(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                        const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out)
{
    return send_entry(buf, count, dt, dest, tag, pc, mode, out, 1);
}

/* -------------------------------------------------- answers from receivers */

/* Take back a bulk offer the receiver has not accepted: 0, or -EBUSY when
 * it is pulling after all. */
static int bulk_withdraw(uz_request *r)
{
    const struct uz_peer *p = &uz_peers[r->peer_world];
    return p->path->ops->bulk_withdraw(p->addr, &r->bulk);
}

void uz_send_on_ack(uint64_t cookie)
{
    uz_request *r = uz_cookie_lookup(cookie);
    if (!r || r->kind != UZ_REQ_SEND)
        return;
    r->acked = 1;
    if (r->phase == UZ_SEND_WAIT_ACK)
        send_complete(r, MPI_SUCCESS);
}

void uz_send_on_cts(uint64_t send_cookie, uint64_t recv_cookie, uint64_t bytes)
{
    uz_request *r = uz_cookie_lookup(send_cookie);
    if (!r || r->kind != UZ_REQ_SEND || r->phase != UZ_SEND_WAIT_CTS)
        return;
    if (r->bulk_offered) {
        if (bulk_withdraw(r) != 0)
            return;                     /* the receiver is pulling after all */
        r->bulk_offered = 0;
    }
    r->send_limit = bytes < r->bytes ? bytes : r->bytes;
    r->peer_cookie = recv_cookie;
    r->sent = 0;
    if (r->cursor)
        uz_dt_cursor_seek(r->cursor, 0);
    if (r->send_limit == 0) {
        send_complete(r, MPI_SUCCESS);
        return;
    }
    r->phase = UZ_SEND_DATA;
    start_queued(&uz_peers[r->peer_world], r);
}

long uz_send_held;

void uz_pt2pt_released(void *hold, int error)
{
    uz_request *r = hold;
    uz_send_held--;
    if (error && !r->net_error)
        r->net_error = error;
    if (--r->net_held == 0 && r->phase == UZ_SEND_WAIT_NET && !uz_request_is_complete(r))
        send_complete(r, r->net_error);
    uz_request_release(r);
}

void uz_send_on_bulk_done(void *owner, int error)
{
    uz_request *r = owner;
    r->bulk_offered = 0;
    send_complete(r, error ? uz_err_make(MPI_ERR_OTHER, "copying a large message to its receiver "
                                         "failed: %s", strerror(error)) : MPI_SUCCESS);
}

void uz_send_on_cancel_reply(uint64_t cookie, int cancelled)
{
    uz_request *r = uz_cookie_lookup(cookie);
    if (!r || r->kind != UZ_REQ_SEND || !cancelled)
        return;
    if (r->bulk_offered) {
        bulk_withdraw(r);
        r->bulk_offered = 0;
    }
    uz_status_set_cancelled(&r->status, 1);
    r->phase = UZ_SEND_DONE;
    r->status.MPI_ERROR = MPI_SUCCESS;
    uz_request_complete(r);
}

/* ----------------------------------------------------------------- cancel */

int uz_send_cancel(uz_request *r)
{
    if (uz_request_is_complete(r))
        return MPI_SUCCESS;
    struct uz_peer *p = &uz_peers[r->peer_world];
    if ((r->phase == UZ_SEND_RTS || (r->phase == UZ_SEND_EAGER && r->sent == 0)) && sendq_remove(p, r)) {
        if (r->bulk_offered) {
            bulk_withdraw(r);
            r->bulk_offered = 0;
        }
        uz_status_set_cancelled(&r->status, 1);
        r->phase = UZ_SEND_DONE;
        uz_request_complete(r);
        return MPI_SUCCESS;
    }
    if ((r->phase == UZ_SEND_WAIT_CTS || r->phase == UZ_SEND_WAIT_ACK) && !r->cancel_sent && r->cookie) {
        unsigned char rec[HDR + sizeof(struct uz_ext_cookie)];
        fill_hdr((struct uz_msg_hdr *)rec, UZ_MSG_CANCEL, 0, r->tag, r->context_id, r->my_rank);
        struct uz_ext_cookie ext = { r->cookie };
        memcpy(rec + HDR, &ext, sizeof(ext));
        r->cancel_sent = 1;
        return uz_send_control(r->peer_world, rec, sizeof(rec));
    }
    return MPI_SUCCESS;         /* already delivered: it completes normally, not cancelled */
}
