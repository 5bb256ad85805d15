/*
 * sched.c — building and running collective schedules (sched.h).
 *
 * Running is one loop: retire the steps that are complete, oldest first,
 * then start further steps until one is a fence that earlier incomplete
 * steps hold back.  Local steps (reduce, copy, call) run when started.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "coll/coll_wait.h"
#include "coll/direct.h"
#include "coll/sched.h"
#include "datatype/dt_engine.h"
#include "pt2pt/pt2pt.h"

/* A blocking schedule keeps at most this much scratch between calls. */
enum { SCRATCH_KEEP = 1 << 20, SCRATCH_MIN = 4096 };

struct uz_sched_chunk {
    struct uz_sched_chunk *next;
    size_t size, used;
    _Alignas(64) unsigned char mem[];
};

/* ---------------------------------------------------------------- building */

static inline int prepare_now(struct uz_sched *s);
static void message_now(struct uz_sched *s, enum uz_step_kind kind, const void *buf, MPI_Count count,
                        uz_datatype *dt, int peer, int local);

static struct uz_step *add(struct uz_sched *s, enum uz_step_kind kind)
{
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct uz_step *n = realloc(s->steps, sizeof(*n) * cap);
        if (!n) {
            if (!s->build_err)
                s->build_err = uz_err_make(MPI_ERR_NO_MEM, "out of memory building a collective schedule");
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    struct uz_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = (uint8_t)kind;
    st->fence = (uint8_t)s->pending_fence;
    s->pending_fence = 0;
    return st;
}

void uz_sched_fence(struct uz_sched *s)
{
    if (s->nsteps > 0)
        s->pending_fence = 1;
}

static void add_msg(struct uz_sched *s, enum uz_step_kind kind, const void *buf, MPI_Count count,
                    uz_datatype *dt, int peer, int local)
{
    if (s->immediate) {
        message_now(s, kind, buf, count, dt, peer, local || s->local_phase);
        return;
    }
    struct uz_step *st = add(s, kind);
    if (!st)
        return;
    st->buf = (void *)buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
    st->local = (uint8_t)(local || s->local_phase);
}

void uz_sched_send(struct uz_sched *s, const void *buf, MPI_Count count, uz_datatype *dt, int peer)
{
    add_msg(s, UZ_STEP_SEND, buf, count, dt, peer, 0);
}

void uz_sched_recv(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int peer)
{
    add_msg(s, UZ_STEP_RECV, buf, count, dt, peer, 0);
}

void uz_sched_send_local(struct uz_sched *s, const void *buf, MPI_Count count, uz_datatype *dt, int peer)
{
    add_msg(s, UZ_STEP_SEND, buf, count, dt, peer, 1);
}

void uz_sched_recv_local(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int peer)
{
    add_msg(s, UZ_STEP_RECV, buf, count, dt, peer, 1);
}

/* A reduction reads what the receives before it brought: those receives
 * ask to copy the bytes themselves (uz_pt2pt_recv_to_read), so they land
 * in this core's cache.  Not when this rank has a local copy to make
 * meanwhile: the sender's help then lets the two copies overlap (a scan's
 * chain, np 2, 32 KiB: 5.6 us helped, 8.3 alone).  Looks back over the
 * steps since the fence before the last one, where the inputs arrive. */
static void mark_read_next(struct uz_sched *s, const void *a, const void *b)
{
    int fences = 0, first = s->nsteps;
    for (int i = s->nsteps - 1; i >= 0 && fences < 2; i--) {
        if (s->steps[i].kind == UZ_STEP_COPY)
            return;
        fences += s->steps[i].fence;
        first = i;
    }
    for (int i = first; i < s->nsteps; i++) {
        struct uz_step *st = &s->steps[i];
        if (st->kind == UZ_STEP_RECV && (st->buf == a || st->buf == b))
            st->read_next = 1;
    }
}

void uz_sched_reduce(struct uz_sched *s, const void *in, void *inout, MPI_Count units)
{
    if (s->immediate) {
        if (prepare_now(s))
            uz_reducer_apply(&s->red, in, inout, units);
        return;
    }
    mark_read_next(s, in, inout);
    struct uz_step *st = add(s, UZ_STEP_REDUCE);
    if (!st)
        return;
    st->src = in;
    st->buf = inout;
    st->count = units;
}

void uz_sched_copy(struct uz_sched *s, const void *src, MPI_Count scount, uz_datatype *sdt, void *dst,
                   MPI_Count dcount, uz_datatype *ddt)
{
    if (s->immediate) {
        if (prepare_now(s))
            uz_coll_local_copy(src, scount, sdt, dst, dcount, ddt);
        return;
    }
    struct uz_step *st = add(s, UZ_STEP_COPY);
    if (!st)
        return;
    st->src = src;
    st->scount = scount;
    st->sdt = sdt;
    st->buf = dst;
    st->count = dcount;
    st->dt = ddt;
}

void uz_sched_call(struct uz_sched *s, void (*fn)(struct uz_sched *, void *), void *arg)
{
    if (s->immediate) {
        if (prepare_now(s))
            fn(s, arg);
        return;
    }
    struct uz_step *st = add(s, UZ_STEP_CALL);
    if (!st)
        return;
    st->fn = fn;
    st->buf = arg;
}

void *uz_sched_alloc(struct uz_sched *s, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    struct uz_sched_chunk *c = s->chunks;
    if (!c || c->size - c->used < bytes) {
        size_t size = bytes > SCRATCH_MIN ? bytes : SCRATCH_MIN;
        if (c && size < 2 * c->size && 2 * c->size <= SCRATCH_KEEP)
            size = 2 * c->size;
        c = malloc(sizeof(*c) + size);
        if (!c) {
            if (!s->build_err)
                s->build_err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for %zu bytes of collective "
                                           "scratch", bytes);
            return NULL;
        }
        c->size = size;
        c->used = 0;
        c->next = s->chunks;
        s->chunks = c;
    }
    void *p = c->mem + c->used;
    c->used += bytes;
    return p;
}

void uz_sched_hold_dt(struct uz_sched *s, uz_datatype *dt)
{
    if (!dt || dt->obj.builtin)
        return;
    if (s->nheld == s->held_cap) {
        int cap = s->held_cap ? 2 * s->held_cap : 4;
        uz_datatype **n = realloc(s->held, sizeof(*n) * cap);
        if (!n) {
            if (!s->build_err)
                s->build_err = uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a collective");
            return;
        }
        s->held = n;
        s->held_cap = cap;
    }
    uz_dt_retain(dt);
    s->held[s->nheld++] = dt;
}

void uz_sched_hold_op(struct uz_sched *s, uz_op *op)
{
    if (!op || op->predefined || s->held_op)
        return;
    uz_op_retain(op);
    s->held_op = op;
}

/* Scratch that grew past one chunk, or past SCRATCH_KEEP: freed, and one
 * chunk as large as last time needed kept, up to SCRATCH_KEEP. */
static UZ_COLD void trim_scratch(struct uz_sched *s)
{
    size_t total = 0;
    for (struct uz_sched_chunk *c = s->chunks; c; c = c->next)
        total += c->size;
    while (s->chunks) {
        struct uz_sched_chunk *c = s->chunks;
        s->chunks = c->next;
        free(c);
    }
    if (total <= SCRATCH_KEEP && (s->chunks = malloc(sizeof(*s->chunks) + total))) {
        s->chunks->size = total;
        s->chunks->next = NULL;
    }
}

/* Forget the steps and scratch of the last use, keeping memory for the
 * next. */
static void reset(struct uz_sched *s)
{
    struct uz_sched_chunk *c = s->chunks;
    if (UZ_UNLIKELY(c && (c->next || c->size > SCRATCH_KEEP)))
        trim_scratch(s);
    if (s->chunks)
        s->chunks->used = 0;
    s->nsteps = 0;
    s->next = s->oldest = 0;
    s->immediate = s->begun = 0;
    s->err = s->build_err = 0;
    s->pending_fence = 0;
    s->local_phase = 0;
    /* s->red stays: uz_sched_reducer may reuse it. */
}

void uz_sched_fini(struct uz_sched *s)
{
    while (s->chunks) {
        struct uz_sched_chunk *c = s->chunks;
        s->chunks = c->next;
        free(c);
    }
    for (int i = 0; i < s->nheld; i++)
        uz_dt_release(s->held[i]);
    if (s->held_op)
        uz_op_release(s->held_op);
    free(s->held);
    free(s->pending);
    free(s->steps);
    memset(s, 0, sizeof(*s));
}

/* ----------------------------------------------------------------- running */

void uz_coll_local_copy(const void *src, MPI_Count scount, const uz_datatype *sdt, void *dst, MPI_Count dcount,
                        const uz_datatype *ddt)
{
    size_t sbytes = (size_t)(scount * sdt->size), dbytes = (size_t)(dcount * ddt->size);
    size_t bytes = sbytes < dbytes ? sbytes : dbytes;
    if (bytes == 0)
        return;
    const char *s = src;
    char *d = dst;
    if (uz_dt_is_contig(sdt, scount) && uz_dt_is_contig(ddt, dcount)) {
        if (s + sdt->true_lb != d + ddt->true_lb)
            memmove(d + ddt->true_lb, s + sdt->true_lb, bytes);
    } else if (uz_dt_is_contig(ddt, dcount)) {
        uz_dt_pack(src, scount, sdt, d + ddt->true_lb);
    } else if (uz_dt_is_contig(sdt, scount)) {
        uz_dt_unpack(dst, dcount, ddt, s + sdt->true_lb, bytes);
    } else {
        enum { CHUNK = 8192 };
        _Alignas(64) unsigned char tmp[CHUNK];
        struct uz_dt_cursor in, out;
        uz_dt_cursor_init(&in, src, scount, sdt);
        uz_dt_cursor_init(&out, dst, dcount, ddt);
        size_t left = bytes;
        while (left) {
            size_t n = uz_dt_cursor_pack(&in, tmp, left < CHUNK ? left : CHUNK);
            if (n == 0)
                break;
            uz_dt_cursor_unpack(&out, tmp, n);
            left -= n;
        }
    }
}

static void start_step(struct uz_sched *s, struct uz_step *st)
{
    int err = MPI_SUCCESS;
    uz_comm *comm = s->comm;
    int tag = s->tag;
    if (st->local) {
        /* Intercommunicator collectives talk on the local group's
         * communicator too; the bit keeps them from matching that
         * communicator's own collectives, numbered by its own sequence. */
        comm = s->comm->local_comm;
        tag |= UZ_COLL_TAG_LOCAL_PHASE;
    }
    switch (st->kind) {
    case UZ_STEP_SEND:
        /* A send that goes out at once leaves no request (NULL: done). */
        err = uz_pt2pt_send_quick(st->buf, st->count, st->dt, st->peer, tag, &comm->p2p_coll, UZ_SEND_STANDARD,
                                  &st->req);
        break;
    case UZ_STEP_RECV:
        err = st->read_next
            ? uz_pt2pt_recv_to_read(st->buf, st->count, st->dt, st->peer, tag, &comm->p2p_coll, &st->req)
            : uz_pt2pt_recv_quick(st->buf, st->count, st->dt, st->peer, tag, &comm->p2p_coll, MPI_STATUS_IGNORE,
                                  &st->req);
        break;
    case UZ_STEP_REDUCE:
        uz_reducer_apply(&s->red, st->src, st->buf, st->count);
        break;
    case UZ_STEP_COPY:
        uz_coll_local_copy(st->src, st->scount, st->sdt, st->buf, st->count, st->dt);
        break;
    case UZ_STEP_CALL:
        st->fn(s, st->buf);
        break;
    }
    if (err) {
        st->req = NULL;
        if (!s->err)
            s->err = err;
    }
}

/* Advance as far as possible; returns 1 when every step is complete. */
static int advance(struct uz_sched *s)
{
    if (s->busy)
        return 0;
    s->busy = 1;
    for (;;) {
        while (s->oldest < s->next) {
            struct uz_step *st = &s->steps[s->oldest];
            if (st->req) {
                if (!uz_request_is_complete(st->req))
                    break;
                if (st->req->status.MPI_ERROR && !s->err)
                    s->err = st->req->status.MPI_ERROR;
                uz_request_release(st->req);
                st->req = NULL;
            }
            s->oldest++;
        }
        if (s->next == s->nsteps)
            break;
        struct uz_step *st = &s->steps[s->next];
        if (st->fence && s->oldest < s->next)
            break;
        s->next++;
        start_step(s, st);
    }
    s->busy = 0;
    return s->oldest == s->nsteps;
}

static int advance_done(void *arg)
{
    return advance(arg);
}

static void begin(struct uz_sched *s)
{
    if (!s->persistent)
        s->tag = uz_coll_next_tag(s->comm);
    s->next = s->oldest = 0;
    s->err = 0;
    s->begun = 1;
}

/* ----------------------------------------------------- immediate running */

void uz_sched_immediate(struct uz_sched *s)
{
    s->immediate = 1;
}

/* Retire the messages in flight that are complete; 1 when none is left. */
static int pending_settled(void *arg)
{
    struct uz_sched *s = arg;
    s->npending = uz_coll_requests_settle(s->pending, s->npending, &s->err);
    return s->npending == 0;
}

static void settle(struct uz_sched *s)
{
    if (s->npending && !pending_settled(s))
        uz_coll_wait(pending_settled, s, NULL);
}

/* Out of the common case: a fence to wait at, or no room to note one more
 * message in flight.  0 when the step must not start (the schedule failed
 * while being built: its buffers may be missing). */
static UZ_COLD int prepare_slow(struct uz_sched *s)
{
    if (s->build_err)
        return 0;
    if (s->pending_fence) {
        s->pending_fence = 0;
        settle(s);
    }
    if (s->npending == s->pending_cap) {
        int cap = s->pending_cap ? 2 * s->pending_cap : 8;
        uz_request **n = realloc(s->pending, sizeof(*n) * cap);
        if (!n) {
            s->build_err = uz_err_make(MPI_ERR_NO_MEM, "out of memory running a collective");
            return 0;
        }
        s->pending = n;
        s->pending_cap = cap;
    }
    return 1;
}

static inline int prepare_now(struct uz_sched *s)
{
    /* The tag is taken at the first step, not before building: a call
     * that its builder refuses (a bad count found only at the root) takes
     * no number, as when the whole list is built first. */
    if (!s->begun && !s->build_err)
        begin(s);
    if (UZ_UNLIKELY(s->build_err || s->pending_fence || s->npending == s->pending_cap) && !prepare_slow(s))
        return 0;
    s->nsteps++;                /* uz_sched_fence asks whether any step came before */
    return 1;
}

/* A send or receive of an immediate schedule: what start_step does, without
 * the step. */
static void message_now(struct uz_sched *s, enum uz_step_kind kind, const void *buf, MPI_Count count,
                        uz_datatype *dt, int peer, int local)
{
    if (!prepare_now(s))
        return;
    uz_comm *comm = s->comm;
    int tag = s->tag;
    if (UZ_UNLIKELY(local)) {
        comm = s->comm->local_comm;
        tag |= UZ_COLL_TAG_LOCAL_PHASE;
    }
    uz_request *req = NULL;
    int err = kind == UZ_STEP_SEND
        ? uz_pt2pt_send_quick(buf, count, dt, peer, tag, &comm->p2p_coll, UZ_SEND_STANDARD, &req)
        : uz_pt2pt_recv_quick((void *)buf, count, dt, peer, tag, &comm->p2p_coll, MPI_STATUS_IGNORE, &req);
    if (UZ_UNLIKELY(err)) {
        if (!s->err)
            s->err = err;
    } else if (req) {
        s->pending[s->npending++] = req;
    }
}

int uz_sched_blocking(uz_comm *comm, struct uz_sched **out)
{
    struct uz_coll_state *cs = uz_coll_state_of(comm);
    if (!cs)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting up collectives on a communicator");
    struct uz_sched *s = &cs->blocking;
    reset(s);
    s->comm = comm;
    *out = s;
    return MPI_SUCCESS;
}

int uz_sched_run(struct uz_sched *s)
{
    if (s->immediate) {
        if (!s->begun && !s->build_err)
            begin(s);               /* no step: the call still takes its number */
        settle(s);                  /* what went out completes, even after a failure */
        return s->build_err ? s->build_err : s->err;
    }
    if (s->build_err)
        return s->build_err;
    begin(s);
    if (!advance(s))
        uz_coll_wait(advance_done, s, NULL);
    return s->err;
}

int uz_sched_continue(struct uz_sched *s)
{
    if (s->immediate)
        return uz_sched_run(s);
    if (s->build_err || s->err)
        return s->build_err ? s->build_err : s->err;
    if (!advance(s))
        uz_coll_wait(advance_done, s, NULL);
    return s->err;
}

int uz_sched_new(uz_comm *comm, struct uz_sched **out)
{
    struct uz_sched *s = calloc(1, sizeof(*s));
    if (!s)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a collective");
    s->comm = comm;
    s->heap = 1;
    *out = s;
    return MPI_SUCCESS;
}

int uz_sched_new_persistent(uz_comm *comm, struct uz_sched **out)
{
    /* The number is taken first, whatever happens next, so that every
     * rank counts this init call. */
    int tag = uz_coll_next_persistent_tag(comm);
    int err = uz_sched_new(comm, out);
    if (!err) {
        (*out)->tag = tag;
        (*out)->persistent = 1;
    }
    return err;
}

void uz_sched_free(struct uz_sched *s)
{
    uz_sched_fini(s);
    free(s);
}

/* ----------------------------------------------------------------- requests */

static int request_poll(uz_request *req)
{
    struct uz_sched *s = req->ops_state;
    if (!advance(s))
        return 0;
    req->status.MPI_ERROR = s->err;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    uz_progress_unregister(req);
    uz_request_complete(req);
    return 1;
}

static void sched_unref(struct uz_sched *s)
{
    if (--s->refs == 0)
        uz_sched_free(s);
}

static void request_destroy(uz_request *req)
{
    struct uz_sched *s = req->ops_state;
    if (s)
        sched_unref(s);
    req->ops_state = NULL;
}

static const struct uz_request_ops request_ops = {
    .poll = request_poll,
    .destroy = request_destroy,
};

static int start_child(struct uz_sched *s, uz_request **out)
{
    uz_request *req = uz_request_new(UZ_REQ_OTHER);
    if (!req)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a collective");
    req->ops = &request_ops;
    req->ops_state = s;
    s->refs++;
    req->comm = s->comm;
    uz_comm_retain(s->comm);
    begin(s);
    if (!request_poll(req))
        uz_progress_register(req);
    *out = req;
    return MPI_SUCCESS;
}

int uz_sched_start_request(struct uz_sched *s, MPI_Request *request)
{
    uz_request *req;
    int err = s->build_err;
    if (!err)
        err = start_child(s, &req);
    if (err) {
        if (s->refs == 0)
            uz_sched_free(s);
        return err;
    }
    *request = uz_request_handle(req);
    return MPI_SUCCESS;
}

static int persistent_start(uz_request *preq)
{
    struct uz_sched *s = preq->ops_state;
    uz_request *child;
    int err = start_child(s, &child);
    if (err)
        return err;
    preq->child = child;
    preq->active = 1;
    return MPI_SUCCESS;
}

static const struct uz_request_ops persistent_ops = {
    .start = persistent_start,
    .destroy = request_destroy,
};

int uz_sched_persistent_request(struct uz_sched *s, MPI_Request *request)
{
    int err = s->build_err;
    uz_request *req = err ? NULL : uz_request_new(UZ_REQ_PERSISTENT);
    if (!req) {
        uz_sched_free(s);
        return err ? err : uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a persistent collective");
    }
    req->ops = &persistent_ops;
    req->ops_state = s;
    s->refs++;
    req->comm = s->comm;
    uz_comm_retain(s->comm);
    atomic_store(&req->complete, 1);    /* inactive */
    *request = uz_request_handle(req);
    return MPI_SUCCESS;
}
