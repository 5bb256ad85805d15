/*
 * p2p_partitioned.c — partitioned requests (MPI_Psend_init, MPI_Precv_init):
 * creating them (which starts the handshake), MPI_Start, and the progress
 * that binds a pair and completes a round.  p2p_partitioned.h describes
 * the protocol; MPI_Pready* and MPI_Parrived are in p2p_partitioned_ready.c.
 *
 * A partitioned request is a persistent request (MPI_Start, MPI_Wait,
 * MPI_Request_free treat it as one, p2p_persistent.c): each start makes a
 * `round` request, pollable, that completes when every data message of the
 * round has completed on this side.  The data messages themselves are the
 * request layer's sends and receives; their hooks only keep the books (a
 * receive's match hook withdraws the receives a run makes unneeded, its
 * completion hook marks partitions arrived), and the round's poll (from the progress engine, after the transports)
 * does what needs the request layer: answering a hello, posting receives,
 * sending partitions readied before the pair was bound.
 */
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/info.h"
#include "core/p2p_partitioned.h"
#include "core/p2p_persistent.h"
#include "datatype/dt_engine.h"
#include "pt2pt/stats.h"
#include "pt2pt/status.h"

enum { REPLY_TAG = 0 };

/* ------------------------------------------------------ private contexts */

/* Freed requests give their context back, so that the request layer's
 * matching table (one entry per context and source, never removed) stays
 * as large as the most partitioned requests alive at once. */
static uint32_t *free_ctx;
static int nfree_ctx, free_ctx_cap;
static uint32_t next_ctx;

static uint32_t private_ctx_get(void)
{
    if (nfree_ctx)
        return free_ctx[--nfree_ctx];
    return UZ_PART_PRIVATE_CTX_BASE + next_ctx++;
}

static void private_ctx_put(uint32_t ctx)
{
    if (nfree_ctx == free_ctx_cap) {
        int cap = free_ctx_cap ? 2 * free_ctx_cap : 16;
        uint32_t *n = realloc(free_ctx, sizeof(*n) * cap);
        if (!n)
            return;                 /* the number is lost, nothing else */
        free_ctx = n;
        free_ctx_cap = cap;
    }
    free_ctx[nfree_ctx++] = ctx;
}

/* ---------------------------------------------------------------- helpers */

static uz_datatype *byte_type(void)
{
    return uz_datatype_get(MPI_BYTE);
}

/* Where data message i starts (no arithmetic on an empty buffer, which
 * may be NULL). */
static unsigned char *msg_at(const struct uz_part *p, int i, size_t len)
{
    return len ? p->base + (size_t)i * len : p->base;
}

static void note_error(struct uz_part *p, int err)
{
    if (err && !p->round_error)
        p->round_error = err;
}

/* Drop a handshake request this side no longer needs. */
static void drop_inner(uz_request *in)
{
    if (!uz_request_is_complete(in)) {
        in->on_complete = NULL;
        if (in->kind == UZ_REQ_RECV)
            uz_pt2pt_cancel(in);
        else
            uz_request_wait(in);    /* it reads memory that is about to go */
    }
    uz_request_release(in);
}

/* ------------------------------------------------------------ data messages */

static void inner_send_done(uz_request *in)
{
    struct uz_part *p = in->hook_arg;
    note_error(p, in->status.MPI_ERROR);
    p->outstanding--;
}

/* Send partitions [first, last] as one message: tag `first`, their bytes
 * back to back (they are, in the buffer or staging copy). */
static void send_run(struct uz_part *p, int first, int last)
{
    int k = last - first + 1;
    for (int j = first; j <= last; j++)
        p->started[j] = 1;
    p->nstarted += k;
    uz_pt2pt_stats.part_msgs++;
    uz_pt2pt_stats.part_merged += (unsigned long)(k - 1);
    uz_request *in = NULL;
    int err = uz_pt2pt_send(msg_at(p, first, p->part_bytes), (MPI_Count)(p->part_bytes * (size_t)k),
                            byte_type(), p->peer, first, &p->data_pc, UZ_SEND_STANDARD, &in);
    if (err) {
        note_error(p, err);
        return;
    }
    p->inner[first] = in;
    if (uz_request_is_complete(in)) {
        note_error(p, in->status.MPI_ERROR);
        return;
    }
    p->outstanding++;
    in->hook_arg = p;
    in->on_complete = inner_send_done;
}

static int sendable(struct uz_part *p, int i)
{
    return i >= 0 && i < p->partitions && !p->started[i] &&
           atomic_load_explicit(&p->ready[i], memory_order_acquire) == UZ_PART_READY;
}

/* Partition i and every ready, unsent neighbour on either side go as one
 * message: what MPI_Pready_range / _list mark together, and what was
 * readied before the pair was bound, costs one message per run instead of
 * one per partition.  Zero-byte partitions go one by one (their runs would
 * tell the receiver nothing about their length). */
void uz_part_send_ready(struct uz_part *p, int i)
{
    if (!p->round || !p->bound || p->bind_error || !sendable(p, i))
        return;
    int first = i, last = i;
    while (p->part_bytes && sendable(p, first - 1))
        first--;
    while (p->part_bytes && sendable(p, last + 1))
        last++;
    send_run(p, first, last);
}

/* How many of the sender's partitions a data message of `bytes` with tag
 * i carries (a run, see uz_part_send_ready), or 0 if that makes no sense. */
static int run_length(const struct uz_part *p, int i, MPI_Count bytes)
{
    if (!p->msg_bytes)
        return 1;               /* zero-byte partitions are not merged */
    MPI_Count k = bytes / (MPI_Count)p->msg_bytes;
    if (k < 1 || bytes % (MPI_Count)p->msg_bytes || k > (MPI_Count)(p->msgs - i))
        return 0;
    return (int)k;
}

/* The receive for data message i was matched: the message's length says
 * which of the sender's partitions it carries, and the receives for the
 * run's others will never match anything of this round.  They go now, at
 * the match, not when the run completes: the request layer matches every
 * message from the sender after this one later than this call, but a
 * rendezvous run completes here only when this side's progress reports the
 * copy done, and the sender may have seen the copy finish (its end of it,
 * or the record handed back), finished its round and sent the next one's
 * partitions before that — one with the tag of a receive still posted here
 * would land in this round, and the next round would wait for it forever.
 * Receives not posted yet (the run was already waiting when the round
 * started) are then not posted (post_receives). */
static void run_matched(uz_request *in)
{
    struct uz_part *p = in->hook_arg;
    int i = in->tag;
    int k = run_length(p, i, (MPI_Count)in->msg_size);      /* 0: arrived() reports it */
    for (int j = i + 1; j < i + k; j++) {
        p->covered[j] = 1;
        uz_request *other = p->inner[j];
        if (!other || uz_request_is_complete(other))
            continue;
        other->on_match = NULL;
        other->on_complete = NULL;
        uz_pt2pt_cancel(other);
        if (uz_request_is_complete(other))
            p->outstanding--;
        else                    /* matched before the run: cannot happen with ordered matching */
            note_error(p, uz_err_make(MPI_ERR_INTERN, "partitioned data message %d from rank %d took the "
                                      "receive of partition %d, which a run covers", i, p->peer, j));
    }
}

/* A data message is in place: mark the partitions of its run arrived,
 * unpack when the datatype is not contiguous, and let MPI_Parrived see
 * them. */
static void arrived(struct uz_part *p, uz_request *in)
{
    int i = in->tag;
    int err = in->status.MPI_ERROR;
    MPI_Count bytes = uz_status_bytes(&in->status);
    int k = run_length(p, i, bytes);
    if (!err && !k)
        err = uz_err_make(MPI_ERR_INTERN, "malformed partitioned data message from rank %d: %lld bytes "
                          "for partition %d of %d", p->peer, (long long)bytes, i, p->msgs);
    if (err)
        k = 1;
    note_error(p, err);
    if (!err && p->staging && p->msg_bytes) {
        uz_request *r = p->req;
        struct uz_dt_cursor c;
        size_t off = (size_t)i * p->msg_bytes;
        uz_dt_cursor_init(&c, r->buf, p->elements, r->datatype);
        uz_dt_cursor_seek(&c, off);
        uz_dt_cursor_unpack(&c, p->staging + off, p->msg_bytes * (size_t)k);
    }
    for (int j = i; j < i + k; j++) {
        p->narrived += !p->arrived[j];
        p->arrived[j] = 1;
    }
}

static void inner_recv_done(uz_request *in)
{
    struct uz_part *p = in->hook_arg;
    arrived(p, in);
    p->outstanding--;
}

/* One receive per sender partition, each able to take a run from it to
 * the end of the buffer (uz_part_send_ready), in increasing order: a run
 * already here (unexpected: the sender is a round ahead) is matched while
 * its receive is posted and marks the partitions after its first covered,
 * whose receives are then not posted. */
static void post_receives(struct uz_part *p)
{
    const struct uz_recv_hooks hooks = { run_matched, inner_recv_done, p };
    for (int i = 0; i < p->msgs; i++) {
        if (p->arrived[i] || p->covered[i])
            continue;
        uz_request *in = NULL;
        p->outstanding++;               /* the hooks may run before the call returns */
        int err = uz_pt2pt_recv_hooked(msg_at(p, i, p->msg_bytes),
                                       (MPI_Count)(p->msg_bytes * (size_t)(p->msgs - i)), byte_type(), p->peer,
                                       i, &p->own_pc, &hooks, &in);
        if (err) {
            p->outstanding--;
            note_error(p, err);
            p->arrived[i] = 1;
            p->narrived++;
            continue;
        }
        p->inner[i] = in;
    }
}

/* ---------------------------------------------------------------- binding */

static int sender_try_bind(struct uz_part *p)
{
    if (!p->reply_req || !uz_request_is_complete(p->reply_req))
        return 0;
    int err = p->reply_req->status.MPI_ERROR;
    uz_request_release(p->reply_req);
    p->reply_req = NULL;
    if (err) {
        p->bind_error = err;
    } else if (p->reply.mismatch) {
        p->bind_error = uz_err_make(MPI_ERR_TRUNCATE, "partitioned send of %zu bytes to rank %d (tag %d) "
                                    "matched a partitioned receive of %llu bytes", p->total, p->peer, p->tag,
                                    (unsigned long long)p->reply.bytes);
    } else {
        p->data_pc = uz_comm_p2p(p->req->comm, p->reply.data_ctx);
        p->bound = 1;
        p->flush = 1;
    }
    note_error(p, p->bind_error);
    return 1;
}

static int receiver_try_bind(struct uz_part *p)
{
    if (!p->hello_req || !uz_request_is_complete(p->hello_req))
        return 0;
    int err = p->hello_req->status.MPI_ERROR;
    MPI_Count got = uz_status_bytes(&p->hello_req->status);
    uz_request_release(p->hello_req);
    p->hello_req = NULL;
    const struct uz_part_hello *h = &p->hello;
    if (!err && (got != (MPI_Count)sizeof(*h) || h->partitions < 0 ||
                 (uint64_t)h->partitions * h->part_bytes != h->bytes))
        err = uz_err_make(MPI_ERR_INTERN, "malformed partitioned-communication hello from rank %d", p->peer);
    if (err) {
        p->bind_error = err;
        note_error(p, err);
        return 1;
    }
    int mismatch = h->bytes != p->total;
    p->reply = (struct uz_part_reply){ p->own_ctx, mismatch, p->total };
    struct uz_p2p_comm reply_pc = uz_comm_p2p(p->req->comm, h->reply_ctx);
    err = uz_pt2pt_send(&p->reply, sizeof(p->reply), byte_type(), p->peer, REPLY_TAG, &reply_pc,
                        UZ_SEND_STANDARD, &p->reply_req);
    if (!err && mismatch)
        err = uz_err_make(MPI_ERR_TRUNCATE, "partitioned receive of %zu bytes from rank %d (tag %d) "
                          "matched a partitioned send of %llu bytes", p->total, p->peer, p->tag,
                          (unsigned long long)h->bytes);
    if (!err && (p->inner = calloc((size_t)h->partitions + 1, sizeof(*p->inner))) &&
        (p->arrived = calloc((size_t)h->partitions + 1, 1)) && (p->covered = calloc((size_t)h->partitions + 1, 1))) {
        p->msgs = h->partitions;
        p->msg_bytes = h->part_bytes;
        p->bound = 1;
        post_receives(p);
        return 1;
    }
    if (!err)
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for %d partitions", h->partitions);
    p->bind_error = err;
    note_error(p, err);
    return 1;
}

/* Receive partition j covers bytes [j*R, (j+1)*R) of the message, which
 * the data messages (of msg_bytes each) cover from j*R/msg_bytes on. */
int uz_part_arrived(struct uz_part *p, int j)
{
    if (!p->bound)
        return 0;
    size_t R = p->part_bytes;
    if (R == 0 || p->msg_bytes == 0)
        return p->narrived == p->msgs;
    size_t first = (size_t)j * R / p->msg_bytes;
    size_t last = ((size_t)j * R + R - 1) / p->msg_bytes;
    for (size_t i = first; i <= last; i++)
        if (!p->arrived[i])
            return 0;
    return 1;
}

/* -------------------------------------------------------------- the round */

static int handshake_pending(struct uz_part *p)
{
    /* The sender's hello and the receiver's reply: released once sent. */
    uz_request **out = p->is_recv ? &p->reply_req : &p->hello_req;
    if (*out && uz_request_is_complete(*out)) {
        note_error(p, (*out)->status.MPI_ERROR);
        uz_request_release(*out);
        *out = NULL;
    }
    return *out != NULL;
}

static int round_done(struct uz_part *p)
{
    if (p->outstanding || handshake_pending(p))
        return 0;
    if (p->round_error)
        return 1;           /* a sender's unanswered reply receive goes when the request does */
    if (!p->bound)
        return 0;
    return p->is_recv ? p->narrived == p->msgs : p->nstarted == p->partitions;
}

static void finish_round(struct uz_part *p, int registered)
{
    uz_request *round = p->round;
    MPI_Status *st = &round->status;
    uz_status_set_empty(st);
    if (p->is_recv && p->peer == MPI_PROC_NULL) {
        uz_status_set_proc_null(st);
    } else if (p->is_recv) {
        st->MPI_SOURCE = p->peer;
        st->MPI_TAG = p->tag;
        uz_status_set_bytes(st, p->round_error ? 0 : (MPI_Count)p->total);
    }
    st->MPI_ERROR = p->round_error;
    for (int i = 0; p->inner && i < p->msgs; i++) {
        if (p->inner[i]) {
            uz_request_release(p->inner[i]);
            p->inner[i] = NULL;
        }
    }
    p->round = NULL;
    if (registered)
        uz_progress_unregister(round);
    uz_request_complete(round);
}

static int round_poll(uz_request *round)
{
    struct uz_part *p = round->ops_state;
    int work = 0;
    if (!p->bound && !p->bind_error)
        work += p->is_recv ? receiver_try_bind(p) : sender_try_bind(p);
    if (p->flush) {
        p->flush = 0;
        for (int i = 0; i < p->partitions; i++)
            uz_part_send_ready(p, i);       /* runs of what was readied before binding */
        work++;
    }
    if (round_done(p)) {
        finish_round(p, 1);
        work++;
    }
    return work;
}

static const struct uz_request_ops round_ops = {
    .poll = round_poll,
};

/* The handshake starts when the request is made, so that partitioned
 * operations with the same (communicator, source, tag) match in the order
 * of their initialization calls (MPI 4.1 §4.2): the sender posts the
 * receive for the reply and sends its hello, the receiver posts the
 * receive for the hello.  Binding completes in the first round's poll.
 * Library lock held. */
static int handshake_begin(struct uz_part *p)
{
    p->hello_started = 1;
    if (p->is_recv)
        return uz_pt2pt_recv(&p->hello, sizeof(p->hello), byte_type(), p->peer, p->tag, &p->hello_pc, NULL,
                             &p->hello_req);
    int err = uz_pt2pt_recv(&p->reply, sizeof(p->reply), byte_type(), p->peer, REPLY_TAG, &p->own_pc, NULL,
                            &p->reply_req);
    if (err)
        return err;
    p->hello = (struct uz_part_hello){ p->total, p->part_bytes, p->partitions, p->own_ctx };
    return uz_pt2pt_send(&p->hello, sizeof(p->hello), byte_type(), p->peer, p->tag, &p->hello_pc,
                         UZ_SEND_STANDARD, &p->hello_req);
}

/* MPI_Start (library lock held). */
static int part_start(uz_request *r)
{
    struct uz_part *p = r->ops_state;
    uz_request *round = uz_request_new(UZ_REQ_OTHER);
    if (!round)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a partitioned request");
    round->ops = &round_ops;
    round->ops_state = p;
    r->child = round;
    r->active = 1;
    p->round = round;
    p->nstarted = p->narrived = p->outstanding = 0;
    p->round_error = p->bind_error;
    for (int i = 0; !p->is_recv && i < p->partitions; i++) {
        atomic_store_explicit(&p->ready[i], UZ_PART_NOT_READY, memory_order_relaxed);
        p->started[i] = 0;
    }
    if (p->peer == MPI_PROC_NULL || p->bind_error) {
        finish_round(p, 0);
        return MPI_SUCCESS;
    }
    if (p->is_recv && p->bound) {
        memset(p->arrived, 0, (size_t)p->msgs);
        memset(p->covered, 0, (size_t)p->msgs);
        post_receives(p);
    }
    uz_progress_register(round);
    round_poll(round);
    return MPI_SUCCESS;
}

static void part_destroy(uz_request *r)
{
    struct uz_part *p = r->ops_state;
    if (p->hello_req)
        drop_inner(p->hello_req);
    if (p->reply_req)
        drop_inner(p->reply_req);
    free(p->inner);
    free(p->ready);
    free(p->started);
    free(p->arrived);
    free(p->covered);
    free(p->staging);
    /* A sender whose hello went unanswered keeps its context out of reuse:
     * a late reply there must not bind another request. */
    if (p->is_recv || !p->hello_started || p->bound || p->bind_error)
        private_ctx_put(p->own_ctx);
    free(p);
    r->ops_state = NULL;
}

static const struct uz_request_ops part_ops = {
    .start = part_start,
    .destroy = part_destroy,
};

struct uz_part *uz_part_of(uz_request *r)
{
    return r && r->ops == &part_ops ? r->ops_state : NULL;
}

/* ------------------------------------------------------------ creation */

static int part_alloc(struct uz_part *p, int is_recv)
{
    if (is_recv)
        return MPI_SUCCESS;     /* sized by the sender's hello */
    size_t n = (size_t)p->partitions + 1;
    p->ready = calloc(n, sizeof(*p->ready));
    p->started = calloc(n, 1);
    p->inner = calloc(n, sizeof(*p->inner));
    p->msgs = p->partitions;
    p->msg_bytes = p->part_bytes;
    return p->ready && p->started && p->inner ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int make_partitioned(void *buf, int partitions, MPI_Count count, uz_datatype *dt, int peer, int tag,
                            uz_comm *comm, int is_recv, MPI_Request *request)
{
    if (partitions < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid partitions %d (must not be negative)", partitions);
    MPI_Count elements, bytes;
    if (__builtin_mul_overflow(count, (MPI_Count)partitions, &elements) ||
        __builtin_mul_overflow(elements, (MPI_Count)dt->size, &bytes))
        return uz_err_make(MPI_ERR_COUNT, "%d partitions of count %lld overflow the message size", partitions,
                           (long long)count);
    struct uz_part *p = calloc(1, sizeof(*p));
    /* Requests come from a free list that the library lock guards. */
    uz_lock();
    uz_request *r = p ? uz_request_new(UZ_REQ_PERSISTENT) : NULL;
    if (r)
        p->own_ctx = private_ctx_get();
    uz_unlock();
    if (!r) {
        free(p);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a partitioned request");
    }
    p->req = r;
    p->is_recv = is_recv;
    p->peer = peer;
    p->tag = tag;
    p->partitions = partitions;
    p->part_bytes = (size_t)(count * dt->size);
    p->total = (size_t)bytes;
    p->elements = elements;
    uz_persistent_describe(r, &part_ops, p, buf, count, dt, peer, tag, comm);
    if (!uz_dt_is_contig(dt, elements) && bytes > 0)
        p->staging = malloc((size_t)bytes);
    p->base = p->staging ? p->staging : bytes ? (unsigned char *)buf + dt->true_lb : buf;
    p->hello_pc = uz_comm_p2p(comm, UZ_PART_HELLO_CTX_BASE | comm->context_id);
    p->own_pc = uz_comm_p2p(comm, p->own_ctx);
    if ((!p->staging && bytes > 0 && !uz_dt_is_contig(dt, elements)) || part_alloc(p, is_recv)) {
        uz_lock();
        uz_request_release(r);
        uz_unlock();
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a partitioned request of %lld bytes",
                           (long long)bytes);
    }
    if (peer != MPI_PROC_NULL) {
        uz_lock();
        int err = handshake_begin(p);
        if (err)
            uz_request_release(r);
        uz_unlock();
        if (err)
            return err;
    }
    *request = uz_request_handle(r);
    return MPI_SUCCESS;
}

int uz_mpi_Psend_init(const void *buf, int partitions, MPI_Count count, uz_datatype *datatype, int dest,
                      int tag, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    (void)info;                 /* no hints are understood */
    return make_partitioned((void *)buf, partitions, count, datatype, dest, tag, comm, 0, request);
}

int uz_mpi_Precv_init(void *buf, int partitions, MPI_Count count, uz_datatype *datatype, int source,
                      int tag, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    (void)info;
    return make_partitioned(buf, partitions, count, datatype, source, tag, comm, 1, request);
}
