/*
 * rma_am.c — one-sided operations as messages (rma_am.h): the origin's
 * requests and the target's service.
 *
 * Messages travel on the window's private communicator:
 *   TAG_AM        a request: struct am_hdr, the serialized target datatype,
 *                 then inline data (put and accumulate data up to
 *                 AM_INLINE, the two operands of compare-and-swap)
 *   TAG_POST      post, target to origin (no data)
 *   TAG_COMPLETE  complete, origin to target (no data)
 *   reply tags    from TAG_REPLY up, one per request that needs one: the
 *                 data of a large put or accumulate (origin to target),
 *                 what a get or fetching accumulate returns, a lock grant,
 *                 a flush or unlock answer (an int error code)
 * Messages between two ranks on one communicator are not overtaken, so the
 * target applies one origin's requests in the order they were issued; a
 * FLUSH or UNLOCK is answered only when every earlier request of that
 * origin is finished (its data received and applied).
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "core/info.h"
#include "datatype/dt_engine.h"
#include "coll/coll.h"
#include "pt2pt/path.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma_am.h"
#include "rma/target.h"

enum { TAG_AM = 1, TAG_POST = 2, TAG_COMPLETE = 3, TAG_REPLY = 16, TAG_REPLY_SPAN = 1 << 20 };
enum { AM_INLINE = 8192 };

enum am_kind { AM_PUT = 1, AM_GET, AM_ACC, AM_GACC, AM_CAS, AM_LOCK, AM_UNLOCK, AM_FLUSH };

struct am_hdr {
    uint8_t kind;
    uint8_t lock_type;          /* LOCK, UNLOCK: MPI_LOCK_SHARED - 300 or MPI_LOCK_EXCLUSIVE - 300 */
    uint8_t inline_data;        /* the data follows the type in this message */
    uint8_t pad;
    int32_t reply_tag;          /* what the target sends back comes with this tag */
    int32_t data_tag;           /* data that does not fit inline follows with this one */
    int32_t pad2;
    int64_t disp;
    int64_t count;              /* of the target datatype */
    int64_t bytes;              /* count * its size */
    int64_t op;                 /* predefined MPI_Op handle value */
    uint64_t type_len;          /* serialized target datatype that follows */
};

/* Something the target or the origin waits for, and what to do once it
 * is done. */
enum pend_what {
    P_HDR,                      /* target: a request's header arriving */
    P_PUT_DATA,                 /* target: a put's data arriving into the window */
    P_ACC_DATA,                 /* target: an accumulate's data arriving in scratch */
    P_SEND,                     /* either: a reply or request leaving; free its buffer */
    P_RECV,                     /* origin: a reply arriving in the user's buffer */
};

struct pend {
    struct pend *next;
    enum pend_what what;
    uz_request *req;
    int peer;                   /* target side: the origin it counts against */
    void *buf;                  /* freed when done */
    uz_datatype *type;          /* released when done */
    struct am_hdr hdr;          /* P_ACC_DATA: the request */
};

struct deferred {
    struct deferred *next;
    int origin;
    int reply_tag;
    int kind;                   /* AM_FLUSH, AM_UNLOCK (then lock_type), AM_LOCK */
    int lock_type;
};

struct uz_rma_am {
    uz_win *w;
    uz_request *service;        /* registered with the progress engine */
    int in_poll;
    struct pend *target_side, *origin_side;
    int *pending_from;          /* unfinished requests per origin */
    int *error_from;            /* first failure of an origin's requests, for its next answer */
    struct deferred *deferred;  /* answers waiting for pending_from[origin] == 0, or a lock */
    uint8_t *dirty;             /* origin: requests sent to a target since its last flush */
    uint32_t next_tag;
    int async;                  /* this window started the progress thread */
};

static int am_flush_local(uz_win *w);

/* ------------------------------------------------------------- helpers */

static uz_datatype *byte_type(void)
{
    return uz_datatype_get(MPI_BYTE);
}

static int reply_tag(struct uz_rma_am *am)
{
    int t = TAG_REPLY + (int)(am->next_tag++ % TAG_REPLY_SPAN);
    return t;
}

/* Append: the target serves one origin's requests in arrival order. */
static void pend_add(struct pend **list, struct pend *p)
{
    p->next = NULL;
    while (*list)
        list = &(*list)->next;
    *list = p;
}

static struct pend *pend_new(enum pend_what what, uz_request *req, int peer, void *buf, uz_datatype *type)
{
    struct pend *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->what = what;
    p->req = req;
    p->peer = peer;
    p->buf = buf;
    p->type = type;
    return p;
}

static void pend_free(struct pend *p)
{
    if (p->req)
        uz_request_release(p->req);
    free(p->buf);
    if (p->type)
        uz_dt_release(p->type);
    free(p);
}

/* Send (buf, count, dt) to `peer` with `tag`; the request joins `list`,
 * and `heap` (if not NULL) is freed when it is done. */
static int send_tracked_out(struct uz_rma_am *am, struct pend **list, const void *buf, MPI_Count count,
                            uz_datatype *dt, int peer, int tag, void *heap, int count_against, uz_request **local)
{
    uz_request *r = NULL;
    int err = uz_pt2pt_send(buf, count, dt, peer, tag, &am->w->comm->p2p, UZ_SEND_STANDARD, &r);
    if (err) {
        free(heap);
        return err;
    }
    struct pend *p = pend_new(P_SEND, r, count_against, heap, NULL);
    if (!p) {
        uz_request_release(r);
        free(heap);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided request");
    }
    if (count_against >= 0)
        am->pending_from[count_against]++;
    pend_add(list, p);
    if (local) {
        uz_request_retain(r);
        *local = r;
    }
    return MPI_SUCCESS;
}

static int send_tracked(struct uz_rma_am *am, struct pend **list, const void *buf, MPI_Count count,
                        uz_datatype *dt, int peer, int tag, void *heap, int count_against)
{
    return send_tracked_out(am, list, buf, count, dt, peer, tag, heap, count_against, NULL);
}

static int recv_tracked(struct uz_rma_am *am, struct pend **list, enum pend_what what, void *buf,
                        MPI_Count count, uz_datatype *dt, int peer, int tag, uz_datatype *hold, struct pend **out)
{
    uz_request *r = NULL;
    int err = uz_pt2pt_recv(buf, count, dt, peer, tag, &am->w->comm->p2p, MPI_STATUS_IGNORE, &r);
    if (err)
        return err;
    struct pend *p = pend_new(what, r, what == P_RECV ? -1 : peer, NULL, hold);
    if (!p) {
        uz_request_release(r);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided request");
    }
    if (what != P_RECV)
        am->pending_from[peer]++;
    pend_add(list, p);
    if (out)
        *out = p;
    return MPI_SUCCESS;
}

/* Hand the caller the request whose completion is the operation's local
 * completion (the request forms wait on it). */
static void give_local(struct pend *p, uz_request **local)
{
    if (local) {
        uz_request_retain(p->req);
        *local = p->req;
    }
}

static int is_done(uz_request *r)
{
    return atomic_load_explicit(&r->complete, memory_order_acquire);
}

/* ------------------------------------------------------ the target side */

/* Where a request's bytes are in this rank's memory; NULL and *err when
 * outside the window. */
static char *target_addr(uz_win *w, const struct am_hdr *h, uz_datatype *type, int *err)
{
    struct uz_rma_target t;
    *err = uz_rma_target_served(w, (MPI_Aint)h->disp, h->count, type, &t);
    return *err ? NULL : t.mapped;
}

static void note_error(struct uz_rma_am *am, int origin, int err)
{
    if (err && !am->error_from[origin])
        am->error_from[origin] = err;
}

static int try_lock(uz_win *w, int lock_type)
{
    atomic_int *l = &w->peers[w->rank].ctrl->lock;
    if (lock_type == MPI_LOCK_EXCLUSIVE) {
        int expect = 0;
        return atomic_compare_exchange_strong_explicit(l, &expect, UZ_RMA_LOCK_EXCL, memory_order_acquire,
                                                       memory_order_relaxed);
    }
    int v = atomic_fetch_add_explicit(l, 1, memory_order_acquire);
    if (!(v & UZ_RMA_LOCK_EXCL))
        return 1;
    atomic_fetch_sub_explicit(l, 1, memory_order_relaxed);
    return 0;
}

static void give_lock(uz_win *w, int lock_type)
{
    atomic_int *l = &w->peers[w->rank].ctrl->lock;
    if (lock_type == MPI_LOCK_EXCLUSIVE)
        atomic_store_explicit(l, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(l, 1, memory_order_release);
}

/* Apply an accumulate whose data (packed, or NULL for MPI_NO_OP) is here;
 * with a fetch, send the old data back first. */
static void apply_acc(struct uz_rma_am *am, int origin, const struct am_hdr *h, uz_datatype *type,
                      const void *data)
{
    uz_win *w = am->w;
    int err;
    char *addr = target_addr(w, h, type, &err);
    uz_op *op = uz_op_get((MPI_Op)(intptr_t)h->op);
    const uz_datatype *basic = uz_dt_homogeneous_basic(type);
    int bytewise = 0;
    uz_op_kernel kern = op && basic ? uz_op_kernel_find(op, basic, &bytewise) : NULL;
    if (!err && !kern)
        err = uz_err_make(MPI_ERR_OP, "one-sided accumulate: the operation is not defined for the target's type");
    void *old = NULL;
    if (!err && h->kind == AM_GACC && !(old = malloc((size_t)h->bytes ? (size_t)h->bytes : 1)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory serving a one-sided request");
    if (!err) {
        struct uz_rma_target t = { .win = w, .rank = w->rank, .mapped = addr, .count = h->count, .type = type,
                                   .bytes = (size_t)h->bytes };
        uz_rma_acc_lock(w, w->rank);
        err = uz_rma_combine(&t, uz_op_get(MPI_NO_OP) == op ? NULL : data, old, kern,
                             bytewise ? 1 : (size_t)basic->size);
        uz_rma_acc_unlock(w, w->rank);
    }
    note_error(am, origin, err);
    if (h->kind == AM_GACC) {
        /* The origin waits for its result whatever happened: send it
         * (zeros when the request failed; the error comes with the next
         * flush). */
        if (!old)
            old = calloc(1, (size_t)h->bytes ? (size_t)h->bytes : 1);
        note_error(am, origin, send_tracked(am, &am->target_side, old, h->bytes, byte_type(), origin, h->reply_tag,
                                            old, origin));
    }
}

static void serve_cas(struct uz_rma_am *am, int origin, const struct am_hdr *h, uz_datatype *type,
                      const char *data)
{
    uz_win *w = am->w;
    int err;
    char *addr = target_addr(w, h, type, &err);
    size_t size = (size_t)h->bytes;
    char *old = calloc(1, size ? size : 1);
    if (!err && old) {
        struct uz_rma_target t = { .win = w, .rank = w->rank, .mapped = addr, .count = 1, .type = type,
                                   .bytes = size };
        uz_rma_acc_lock(w, w->rank);
        err = uz_rma_swap(&t, data, data + size, old, size);
        uz_rma_acc_unlock(w, w->rank);
    }
    note_error(am, origin, err);
    note_error(am, origin, send_tracked(am, &am->target_side, old, (MPI_Count)size, byte_type(), origin,
                                        h->reply_tag, old, origin));
}

/* A whole request message has arrived from `origin`. */
static void serve(struct uz_rma_am *am, int origin, char *msg, size_t len)
{
    uz_win *w = am->w;
    struct am_hdr h;
    if (len < sizeof(h)) {
        note_error(am, origin, uz_err_make(MPI_ERR_INTERN, "a one-sided request of %zu bytes is cut short", len));
        return;
    }
    memcpy(&h, msg, sizeof(h));
    if (h.kind == AM_LOCK || h.kind == AM_UNLOCK || h.kind == AM_FLUSH) {
        struct deferred *d = calloc(1, sizeof(*d));
        if (!d) {
            note_error(am, origin, uz_err_make(MPI_ERR_NO_MEM, "out of memory serving a one-sided request"));
            return;
        }
        d->origin = origin;
        d->reply_tag = h.reply_tag;
        d->kind = h.kind;
        d->lock_type = h.lock_type + 300;
        /* Keep arrival order: answers go out oldest first. */
        struct deferred **pp = &am->deferred;
        while (*pp)
            pp = &(*pp)->next;
        *pp = d;
        return;
    }
    uz_datatype *type = NULL;
    int err = MPI_SUCCESS;
    if (sizeof(h) + h.type_len > len)
        err = uz_err_make(MPI_ERR_INTERN, "a one-sided request is cut short");
    else
        err = uz_dt_deserialize(msg + sizeof(h), (size_t)h.type_len, &type);
    const char *data = msg + sizeof(h) + h.type_len;
    char *addr = NULL;
    if (!err && h.kind != AM_ACC && h.kind != AM_GACC && h.kind != AM_CAS)
        addr = target_addr(w, &h, type, &err);
    if (err) {
        note_error(am, origin, err);
        /* Still answer what the origin waits for. */
        if (h.kind == AM_GET || h.kind == AM_GACC || h.kind == AM_CAS) {
            void *zeros = calloc(1, (size_t)h.bytes ? (size_t)h.bytes : 1);
            if (zeros)
                send_tracked(am, &am->target_side, zeros, h.bytes, byte_type(), origin, h.reply_tag, zeros, origin);
        }
        if ((h.kind == AM_PUT || h.kind == AM_ACC || h.kind == AM_GACC) && !h.inline_data &&
            h.op != (int64_t)(intptr_t)MPI_NO_OP) {
            void *sink = malloc((size_t)h.bytes ? (size_t)h.bytes : 1);
            struct pend *p = NULL;
            if (sink && !recv_tracked(am, &am->target_side, P_PUT_DATA, sink, h.bytes, byte_type(), origin,
                                      h.data_tag, NULL, &p))
                p->buf = sink;
            else
                free(sink);
        }
        if (type)
            uz_dt_release(type);
        return;
    }
    switch (h.kind) {
    case AM_PUT:
        if (h.inline_data) {
            uz_dt_unpack(addr, h.count, type, data, (size_t)h.bytes);
            uz_dt_release(type);
        } else {
            /* Straight into the window, laid out by the rebuilt type. */
            note_error(am, origin, recv_tracked(am, &am->target_side, P_PUT_DATA, addr, h.count, type, origin,
                                                h.data_tag, type, NULL));
        }
        return;
    case AM_GET:
        note_error(am, origin, send_tracked(am, &am->target_side, addr, h.count, type, origin, h.reply_tag, NULL,
                                            origin));
        uz_dt_release(type);
        return;
    case AM_ACC:
    case AM_GACC:
        if (h.inline_data || (h.op == (int64_t)(intptr_t)MPI_NO_OP)) {
            apply_acc(am, origin, &h, type, h.inline_data ? data : NULL);
            uz_dt_release(type);
        } else {
            void *tmp = malloc((size_t)h.bytes);
            struct pend *p = NULL;
            err = tmp ? recv_tracked(am, &am->target_side, P_ACC_DATA, tmp, h.bytes, byte_type(), origin,
                                     h.data_tag, type, &p)
                      : uz_err_make(MPI_ERR_NO_MEM, "out of memory serving a one-sided request");
            if (err) {
                free(tmp);
                uz_dt_release(type);
                note_error(am, origin, err);
                return;
            }
            p->buf = tmp;
            p->hdr = h;
        }
        return;
    case AM_CAS:
        serve_cas(am, origin, &h, type, data);
        uz_dt_release(type);
        return;
    }
    uz_dt_release(type);
    note_error(am, origin, uz_err_make(MPI_ERR_INTERN, "unknown one-sided request kind %d", h.kind));
}

/* Answer what can be answered, oldest first per origin. */
static int run_deferred(struct uz_rma_am *am)
{
    int work = 0;
    uz_win *w = am->w;
    for (struct deferred **pp = &am->deferred; *pp;) {
        struct deferred *d = *pp;
        int ready = am->pending_from[d->origin] == 0;
        /* An older answer for the same origin still waiting blocks it. */
        for (struct deferred *e = am->deferred; e != d && ready; e = e->next)
            if (e->origin == d->origin)
                ready = 0;
        if (ready && d->kind == AM_LOCK)
            ready = try_lock(w, d->lock_type);
        if (!ready) {
            pp = &d->next;
            continue;
        }
        if (d->kind == AM_UNLOCK)
            give_lock(w, d->lock_type);
        int *code = malloc(sizeof(int));
        if (code) {
            *code = d->kind == AM_LOCK ? MPI_SUCCESS : am->error_from[d->origin];
            if (d->kind != AM_LOCK)
                am->error_from[d->origin] = 0;
            send_tracked(am, &am->target_side, code, 1, uz_datatype_get(MPI_INT), d->origin, d->reply_tag, code, -1);
        }
        *pp = d->next;
        free(d);
        work++;
    }
    return work;
}

static int service_poll(uz_request *req)
{
    struct uz_rma_am *am = req->ops_state;
    if (am->in_poll)
        return 0;
    am->in_poll = 1;
    int work = 0;
    /* Requests whose data or headers have arrived, replies that left. */
    for (struct pend **pp = &am->target_side; *pp;) {
        struct pend *p = *pp;
        if (!is_done(p->req)) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        work++;
        int err = p->req->status.MPI_ERROR;
        if (p->what == P_HDR) {
            size_t len = (size_t)uz_status_bytes(&p->req->status);
            serve(am, p->peer, p->buf, len);
        } else if (p->what == P_ACC_DATA) {
            if (!err)
                apply_acc(am, p->peer, &p->hdr, p->type, p->buf);
        }
        if (p->peer >= 0) {
            am->pending_from[p->peer]--;
            note_error(am, p->peer, err);
        }
        pend_free(p);
    }
    /* New requests: take each off the queue and receive it (never
     * blocking here: we may be inside any wait of the program). */
    for (;;) {
        int flag = 0;
        MPI_Status st;
        struct uz_unexpected *msg = NULL;
        uz_pt2pt_probe(MPI_ANY_SOURCE, TAG_AM, am->w->comm->context_id, 0, &flag, &st, 1, &msg);
        if (!flag)
            break;
        size_t len = (size_t)uz_status_bytes(&st);
        char *buf = malloc(len ? len : 1);
        uz_request *r = NULL;
        int err = buf ? uz_pt2pt_mrecv(buf, (MPI_Count)len, byte_type(), msg, am->w->comm, MPI_STATUS_IGNORE, &r)
                      : MPI_ERR_NO_MEM;
        struct pend *p = err ? NULL : pend_new(P_HDR, r, st.MPI_SOURCE, buf, NULL);
        if (!p) {
            /* Out of memory: the request is lost; say so at the next flush. */
            free(buf);
            if (r)
                uz_request_release(r);
            note_error(am, st.MPI_SOURCE, uz_err_make(MPI_ERR_NO_MEM, "out of memory receiving a one-sided request"));
            continue;
        }
        am->pending_from[st.MPI_SOURCE]++;
        pend_add(&am->target_side, p);
        work++;
    }
    work += run_deferred(am);
    am->in_poll = 0;
    return work;
}

static const struct uz_request_ops service_ops = { .poll = service_poll };

/* ------------------------------------------------------------- open/close */

int uz_rma_am_open(uz_win *w)
{
    int any = 0;
    for (int r = 0; r < w->size; r++) {
        struct uz_rma_peer *p = &w->peers[r];
        if (r == w->rank || p->local_base)
            continue;
        const struct uz_peer *pp = &uz_peers[p->world];
        int cma = pp->path && pp->path->caps.has_put_get && pp->path->ops->put;
        p->am = !uz_rma_is_local(w, r) || !cma;
        any |= p->am;
    }
    /* Whether anyone will send us requests: agreed, so that every rank
     * serves if any rank sends requests at all. */
    int needed = 0;
    int err = uz_coll_allreduce(&any, &needed, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), w->comm);
    if (err || !needed)
        return err;
    struct uz_rma_am *am = calloc(1, sizeof(*am));
    if (!am)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
    am->w = w;
    am->pending_from = calloc((size_t)w->size, sizeof(int));
    am->error_from = calloc((size_t)w->size, sizeof(int));
    am->dirty = calloc((size_t)w->size, 1);
    am->service = uz_request_new(UZ_REQ_OTHER);
    if (!am->pending_from || !am->error_from || !am->dirty || !am->service) {
        free(am->pending_from);
        free(am->error_from);
        free(am->dirty);
        if (am->service)
            uz_request_release(am->service);
        free(am);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
    }
    am->service->ops = &service_ops;
    am->service->ops_state = am;
    uz_lock();
    uz_progress_register(am->service);
    uz_unlock();
    w->am = am;
    /* Requests from other hosts are served while we compute only by a
     * thread of our own; asked for by the environment or the window. */
    const char *v = w->info ? uz_info_lookup(w->info, "uzura_async_progress") : NULL;
    if (uz_config.async_progress || (v && (!strcmp(v, "true") || !strcmp(v, "1")))) {
        if ((err = uz_rma_async_progress_start()))
            return err;
        am->async = 1;
    }
    return MPI_SUCCESS;
}

void uz_rma_am_close(uz_win *w)
{
    struct uz_rma_am *am = w->am;
    if (!am)
        return;
    uz_lock();
    /* Replies still leaving must leave: the peers wait for them. */
    while (am->target_side || am->origin_side) {
        uz_progress();
        service_poll(am->service);
        am_flush_local(w);
    }
    uz_progress_unregister(am->service);
    uz_unlock();
    if (am->async)
        uz_rma_async_progress_stop();
    uz_request_release(am->service);
    while (am->deferred) {
        struct deferred *d = am->deferred;
        am->deferred = d->next;
        free(d);
    }
    free(am->pending_from);
    free(am->error_from);
    free(am->dirty);
    free(am);
    w->am = NULL;
}

/* ------------------------------------------------------- the origin side */

/* Build and send a request: header, the serialized type, inline data
 * (`data`, `data_len`). */
static int send_request(uz_win *w, int target, struct am_hdr *h, uz_datatype *ttype, const void *data,
                        size_t data_len)
{
    struct uz_rma_am *am = w->am;
    size_t tl = ttype ? uz_dt_serialized_size(ttype) : 0;
    h->type_len = tl;
    size_t len = sizeof(*h) + tl + data_len;
    char *msg = malloc(len);
    if (!msg)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided request");
    memcpy(msg, h, sizeof(*h));
    if (ttype)
        uz_dt_serialize(ttype, msg + sizeof(*h));
    if (data_len)
        memcpy(msg + sizeof(*h) + tl, data, data_len);
    am->dirty[target] = 1;
    return send_tracked(am, &am->origin_side, msg, (MPI_Count)len, byte_type(), target, TAG_AM, msg, -1);
}

static int am_put(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype,
                  MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype, uz_request **local)
{
    struct uz_rma_am *am = w->am;
    struct am_hdr h = { .kind = AM_PUT, .disp = disp, .count = tcount, .bytes = tcount * ttype->size };
    size_t bytes = (size_t)h.bytes;
    if (bytes <= AM_INLINE) {
        char stage[AM_INLINE];
        uz_dt_pack(obuf, ocount, otype, stage);
        h.inline_data = 1;
        return send_request(w, target, &h, ttype, stage, bytes);
    }
    h.data_tag = reply_tag(am);
    int err = send_request(w, target, &h, ttype, NULL, 0);
    if (!err)
        err = send_tracked_out(am, &am->origin_side, obuf, ocount, otype, target, h.data_tag, NULL, -1, local);
    return err;
}

static int am_get(uz_win *w, int target, void *obuf, MPI_Count ocount, uz_datatype *otype, MPI_Aint disp,
                  MPI_Count tcount, uz_datatype *ttype, uz_request **local)
{
    struct uz_rma_am *am = w->am;
    struct am_hdr h = { .kind = AM_GET, .disp = disp, .count = tcount, .bytes = tcount * ttype->size,
                        .reply_tag = reply_tag(am) };
    uz_dt_retain(otype);
    struct pend *p = NULL;
    int err = recv_tracked(am, &am->origin_side, P_RECV, obuf, ocount, otype, target, h.reply_tag, otype, &p);
    if (err) {
        uz_dt_release(otype);
        return err;
    }
    give_local(p, local);
    return send_request(w, target, &h, ttype, NULL, 0);
}

static int am_acc(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype, void *rbuf,
                  MPI_Count rcount, uz_datatype *rtype, MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype,
                  uz_op *op, int fetch, uz_request **local)
{
    struct uz_rma_am *am = w->am;
    struct am_hdr h = { .kind = fetch ? AM_GACC : AM_ACC, .disp = disp, .count = tcount,
                        .bytes = tcount * ttype->size, .op = (int64_t)(intptr_t)uz_op_handle(op) };
    int no_op = op == uz_op_get(MPI_NO_OP);
    int err;
    if (fetch) {
        h.reply_tag = reply_tag(am);
        uz_dt_retain(rtype);
        struct pend *p = NULL;
        if ((err = recv_tracked(am, &am->origin_side, P_RECV, rbuf, rcount, rtype, target, h.reply_tag, rtype,
                                &p))) {
            uz_dt_release(rtype);
            return err;
        }
        give_local(p, local);
        local = NULL;           /* the result arriving is what completes locally */
    }
    size_t bytes = (size_t)h.bytes;
    if (no_op)
        return send_request(w, target, &h, ttype, NULL, 0);
    if (bytes <= AM_INLINE) {
        char stage[AM_INLINE];
        uz_dt_pack(obuf, ocount, otype, stage);
        h.inline_data = 1;
        return send_request(w, target, &h, ttype, stage, bytes);
    }
    /* Larger data follows in a message of its own, packed by the
     * request layer from the origin's layout. */
    h.data_tag = reply_tag(am);
    if ((err = send_request(w, target, &h, ttype, NULL, 0)))
        return err;
    return send_tracked_out(am, &am->origin_side, obuf, ocount, otype, target, h.data_tag, NULL, -1, local);
}

static int am_cas(uz_win *w, int target, const void *origin, const void *compare, void *result,
                  uz_datatype *dt, MPI_Aint disp, uz_request **local)
{
    struct uz_rma_am *am = w->am;
    size_t size = (size_t)dt->size;
    struct am_hdr h = { .kind = AM_CAS, .disp = disp, .count = 1, .bytes = (int64_t)size,
                        .reply_tag = reply_tag(am), .inline_data = 1 };
    char both[128];
    if (2 * size > sizeof(both))
        return uz_err_make(MPI_ERR_TYPE, "elements of %zu bytes are too large", size);
    memcpy(both, origin, size);
    memcpy(both + size, compare, size);
    struct pend *p = NULL;
    int err = recv_tracked(am, &am->origin_side, P_RECV, result, (MPI_Count)size, byte_type(), target,
                           h.reply_tag, NULL, &p);
    if (err)
        return err;
    give_local(p, local);
    return send_request(w, target, &h, dt, both, 2 * size);
}

/* Wait until `done(arg)`, serving requests meanwhile. */
static int pend_list_empty(void *arg)
{
    struct uz_rma_am *am = arg;
    for (struct pend **pp = &am->origin_side; *pp;) {
        struct pend *p = *pp;
        if (!is_done(p->req)) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        pend_free(p);
    }
    return am->origin_side == NULL;
}

static int am_flush_local(uz_win *w)
{
    if (!w->am)
        return MPI_SUCCESS;
    uz_progress();              /* serve others even when nothing of ours is pending */
    uz_progress_wait(pend_list_empty, w->am);
    return MPI_SUCCESS;
}

/* Send a control request and wait for its int answer. */
static int control(uz_win *w, int target, int kind, int lock_type)
{
    struct uz_rma_am *am = w->am;
    struct am_hdr h = { .kind = (uint8_t)kind, .lock_type = (uint8_t)(lock_type ? lock_type - 300 : 0),
                        .reply_tag = reply_tag(am) };
    int code = MPI_SUCCESS;
    uz_request *r = NULL;
    int err = uz_pt2pt_recv(&code, 1, uz_datatype_get(MPI_INT), target, h.reply_tag, &w->comm->p2p,
                            MPI_STATUS_IGNORE, &r);
    if (err)
        return err;
    if (!(err = send_request(w, target, &h, NULL, NULL, 0))) {
        uz_request_wait(r);
        err = r->status.MPI_ERROR;
    }
    uz_request_release(r);
    if (!err && kind != AM_LOCK)
        am->dirty[target] = 0;
    return err ? err : code;
}

static int am_lock(uz_win *w, int target, int lock_type)
{
    return control(w, target, AM_LOCK, lock_type);
}

static int am_unlock(uz_win *w, int target, int lock_type)
{
    int err = am_flush_local(w);
    int err2 = control(w, target, AM_UNLOCK, lock_type);
    return err ? err : err2;
}

static int am_flush(uz_win *w, int target)
{
    if (!w->am)
        return MPI_SUCCESS;
    /* A rank that spins on flushes to itself or to ranks it reaches
     * directly (a lock word it compares and swaps) must still serve the
     * ranks that reach it by messages: they may hold what it waits for. */
    uz_progress();
    int err = am_flush_local(w);
    for (int r = target < 0 ? 0 : target; r < (target < 0 ? w->size : target + 1); r++) {
        if (w->am->dirty[r]) {
            int e = control(w, r, AM_FLUSH, 0);
            if (!err)
                err = e;
        }
    }
    return err;
}

/* ------------------------------------------------- post/start/complete/wait */

static int am_post(uz_win *w, int origin)
{
    return uz_pt2pt_send(NULL, 0, byte_type(), origin, TAG_POST, &w->comm->p2p, UZ_SEND_STANDARD, NULL);
}

static int am_await_post(uz_win *w, int target)
{
    return uz_pt2pt_recv(NULL, 0, byte_type(), target, TAG_POST, &w->comm->p2p, MPI_STATUS_IGNORE, NULL);
}

static int am_complete(uz_win *w, int target)
{
    int err = am_flush(w, target);
    int err2 = uz_pt2pt_send(NULL, 0, byte_type(), target, TAG_COMPLETE, &w->comm->p2p, UZ_SEND_STANDARD, NULL);
    return err ? err : err2;
}

static int am_await_complete(uz_win *w, int origin, int blocking, int *taken)
{
    *taken = 0;
    if (!blocking) {
        int flag = 0;
        MPI_Status st;
        uz_progress();
        uz_pt2pt_probe(origin, TAG_COMPLETE, w->comm->context_id, 0, &flag, &st, 0, NULL);
        if (!flag)
            return MPI_SUCCESS;
    }
    int err = uz_pt2pt_recv(NULL, 0, byte_type(), origin, TAG_COMPLETE, &w->comm->p2p, MPI_STATUS_IGNORE, NULL);
    *taken = !err;
    return err;
}

/* ------------------------------------------------- the locked entry points */

/* The request layer's state is shared with the progress thread (when it
 * runs) and with other threads of the program: each entry takes the
 * library lock, as the point-to-point procedures do. */

int uz_rma_am_put(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype,
                  MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype, uz_request **local)
{
    uz_lock();
    int err = am_put(w, target, obuf, ocount, otype, disp, tcount, ttype, local);
    uz_unlock();
    return err;
}

int uz_rma_am_get(uz_win *w, int target, void *obuf, MPI_Count ocount, uz_datatype *otype, MPI_Aint disp,
                  MPI_Count tcount, uz_datatype *ttype, uz_request **local)
{
    uz_lock();
    int err = am_get(w, target, obuf, ocount, otype, disp, tcount, ttype, local);
    uz_unlock();
    return err;
}

int uz_rma_am_acc(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype, void *rbuf,
                  MPI_Count rcount, uz_datatype *rtype, MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype,
                  uz_op *op, int fetch, uz_request **local)
{
    uz_lock();
    int err = am_acc(w, target, obuf, ocount, otype, rbuf, rcount, rtype, disp, tcount, ttype, op, fetch, local);
    uz_unlock();
    return err;
}

int uz_rma_am_cas(uz_win *w, int target, const void *origin, const void *compare, void *result,
                  uz_datatype *dt, MPI_Aint disp, uz_request **local)
{
    uz_lock();
    int err = am_cas(w, target, origin, compare, result, dt, disp, local);
    uz_unlock();
    return err;
}

int uz_rma_am_lock(uz_win *w, int target, int lock_type)
{
    uz_lock();
    int err = am_lock(w, target, lock_type);
    uz_unlock();
    return err;
}

int uz_rma_am_unlock(uz_win *w, int target, int lock_type)
{
    uz_lock();
    int err = am_unlock(w, target, lock_type);
    uz_unlock();
    return err;
}

int uz_rma_am_flush(uz_win *w, int target)
{
    if (!w->am)
        return MPI_SUCCESS;        /* no peer by messages: nothing to lock for */
    uz_lock();
    int err = am_flush(w, target);
    uz_unlock();
    return err;
}

int uz_rma_am_flush_local(uz_win *w)
{
    if (!w->am)
        return MPI_SUCCESS;        /* no peer by messages: nothing to lock for */
    uz_lock();
    int err = am_flush_local(w);
    uz_unlock();
    return err;
}

int uz_rma_am_post(uz_win *w, int origin)
{
    uz_lock();
    int err = am_post(w, origin);
    uz_unlock();
    return err;
}

int uz_rma_am_await_post(uz_win *w, int target)
{
    uz_lock();
    int err = am_await_post(w, target);
    uz_unlock();
    return err;
}

int uz_rma_am_complete(uz_win *w, int target)
{
    uz_lock();
    int err = am_complete(w, target);
    uz_unlock();
    return err;
}

int uz_rma_am_await_complete(uz_win *w, int origin, int blocking, int *taken)
{
    uz_lock();
    int err = am_await_complete(w, origin, blocking, taken);
    uz_unlock();
    return err;
}
