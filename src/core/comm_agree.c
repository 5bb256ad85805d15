/*
 * comm_agree.c — the agreement collective of communicator creation (see
 * comm_agree.h): binomial gather of (bitmap, entries) to the first member,
 * optional leader exchange, binomial broadcast of the result.
 *
 * Members are numbered by their index in the member list; the root is
 * index 0.  In a binomial tree rooted at 0, the subtree of index i is the
 * contiguous range [i, i + lowbit(i)) (cut at n), so a child's gathered
 * entries drop into the full entry array at its own index.
 *
 * The whole thing is a small state machine driven by a pollable request:
 * each phase posts its receives and sends, and the next phase starts when
 * all of them have completed.  Messages:
 *
 *   up     child -> parent   [words | entries of the child's subtree]
 *   xhdr   leader <-> leader [words | u64 blob bytes | u64 key], then the
 *                            blob
 *   down   parent -> child   [words | all entries | u64 blob bytes |
 *                            u64 other group's key], then the blob
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "core/comm_agree.h"
#include "pt2pt/pt2pt.h"

enum agree_phase {
    PH_GATHER,          /* receiving from children */
    PH_XHDR,            /* root: swapping headers with the other leader */
    PH_XBLOB,           /* root: receiving the other leader's blob */
    PH_DOWN_HDR,        /* waiting for the parent's result */
    PH_DOWN_BLOB,
    PH_FANOUT,          /* sending the result to children */
    PH_DONE,
};

enum { MAX_CHILDREN = 32 };

struct uz_agree {
    struct uz_agree_spec s;
    int *members;                       /* owned copy, or NULL (identity) */
    int parent;                         /* member index, or -1 at the root */
    int nchild;
    int child[MAX_CHILDREN];            /* member indices */
    int span[MAX_CHILDREN];             /* members in each child's subtree */
    unsigned char *childbuf[MAX_CHILDREN];
    int myspan;
    size_t mask_bytes, entry_bytes;
    uint64_t *words;
    int *entries;
    unsigned char *up;                  /* [words | my subtree's entries] */
    unsigned char *down;                /* [words | entries | u64 blob bytes | u64 xkey] */
    size_t down_bytes;
    unsigned char *xhdr_out, *xhdr_in;  /* [words | u64 blob bytes | u64 xkey] */
    uint64_t xkey_in;                   /* the other group's spec.xkey */
    void *xsend;
    size_t xsend_bytes;
    void *blob;
    size_t blob_bytes;
    uz_request **pending;
    int npending, pending_cap;
    uz_request *req;                    /* drives the machine from progress */
    enum agree_phase phase;
    int err;
    void (*done)(struct uz_agree *a, void *arg);
    void *done_arg;
};

static uz_datatype *byte_type(void)
{
    return uz_datatype_get(MPI_BYTE);
}

static int member_rank(const struct uz_agree *a, int index)
{
    return a->members ? a->members[index] : index;
}

/* ----------------------------------------------------------- messaging */

static void post_recv(struct uz_agree *a, void *buf, size_t bytes, uz_comm *comm, int src,
                      uint32_t ctx, int tag)
{
    uz_request *r = NULL;
    struct uz_p2p_comm pc = uz_comm_p2p(comm, ctx);
    int err = uz_pt2pt_recv(buf, (MPI_Count)bytes, byte_type(), src, tag, &pc, NULL, &r);
    if (err && !a->err)
        a->err = err;
    if (r)
        a->pending[a->npending++] = r;
}

static void post_send(struct uz_agree *a, const void *buf, size_t bytes, uz_comm *comm, int dest,
                      uint32_t ctx, int tag)
{
    uz_request *r = NULL;
    struct uz_p2p_comm pc = uz_comm_p2p(comm, ctx);
    int err = uz_pt2pt_send(buf, (MPI_Count)bytes, byte_type(), dest, tag, &pc, UZ_SEND_STANDARD, &r);
    if (err && !a->err)
        a->err = err;
    if (r)
        a->pending[a->npending++] = r;
}

/* Have all posted operations completed?  Then collect their errors and
 * let them go. */
static int pending_done(struct uz_agree *a)
{
    for (int i = 0; i < a->npending; i++)
        if (!uz_request_is_complete(a->pending[i]))
            return 0;
    for (int i = 0; i < a->npending; i++) {
        int e = a->pending[i]->status.MPI_ERROR;
        if (e && !a->err)
            a->err = e;
        uz_request_release(a->pending[i]);
    }
    a->npending = 0;
    return 1;
}

static void and_words(uint64_t *dst, const unsigned char *src, int nwords)
{
    for (int i = 0; i < nwords; i++) {
        uint64_t w;
        memcpy(&w, src + 8 * (size_t)i, 8);
        dst[i] &= w;
    }
}

/* -------------------------------------------------------------- phases */

static void start_gather(struct uz_agree *a)
{
    for (int c = 0; c < a->nchild; c++) {
        size_t bytes = a->mask_bytes + (size_t)a->span[c] * a->entry_bytes;
        post_recv(a, a->childbuf[c], bytes, a->s.comm, member_rank(a, a->child[c]), a->s.ctx,
                  a->s.tag);
    }
}

static void finish_gather(struct uz_agree *a)
{
    for (int c = 0; c < a->nchild; c++) {
        and_words(a->words, a->childbuf[c], a->s.nwords);
        if (a->entry_bytes)
            memcpy(a->entries + (size_t)a->child[c] * a->s.entry_ints, a->childbuf[c] + a->mask_bytes,
                   (size_t)a->span[c] * a->entry_bytes);
    }
}

static void start_up(struct uz_agree *a)
{
    memcpy(a->up, a->words, a->mask_bytes);
    if (a->entry_bytes)
        memcpy(a->up + a->mask_bytes, a->entries + (size_t)a->s.me * a->s.entry_ints,
               (size_t)a->myspan * a->entry_bytes);
    size_t bytes = a->mask_bytes + (size_t)a->myspan * a->entry_bytes;
    post_send(a, a->up, bytes, a->s.comm, member_rank(a, a->parent), a->s.ctx, a->s.tag);
    post_recv(a, a->down, a->down_bytes, a->s.comm, member_rank(a, a->parent), a->s.ctx, a->s.tag);
}

static void start_exchange(struct uz_agree *a)
{
    if (a->s.xsend_entries) {
        a->xsend_bytes = (size_t)a->s.n * a->entry_bytes;
        a->xsend = malloc(a->xsend_bytes ? a->xsend_bytes : 1);
        if (!a->xsend) {
            a->err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
            return;
        }
        memcpy(a->xsend, a->entries, a->xsend_bytes);
    }
    uint64_t nbytes = a->xsend_bytes;
    memcpy(a->xhdr_out, a->words, a->mask_bytes);
    memcpy(a->xhdr_out + a->mask_bytes, &nbytes, 8);
    memcpy(a->xhdr_out + a->mask_bytes + 8, &a->s.xkey, 8);
    uz_comm *x = a->s.xcomm;
    post_recv(a, a->xhdr_in, a->mask_bytes + 16, x, a->s.xpeer, a->s.xctx, a->s.xtag);
    post_send(a, a->xhdr_out, a->mask_bytes + 16, x, a->s.xpeer, a->s.xctx, a->s.xtag);
    if (a->xsend_bytes)
        post_send(a, a->xsend, a->xsend_bytes, x, a->s.xpeer, a->s.xctx, a->s.xtag);
}

static int alloc_blob(struct uz_agree *a, uint64_t bytes)
{
    a->blob_bytes = (size_t)bytes;
    if (!bytes)
        return 0;
    a->blob = malloc(a->blob_bytes);
    if (!a->blob) {
        a->err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
        return 0;
    }
    return 1;
}

static int finish_xhdr(struct uz_agree *a)
{
    uint64_t nbytes;
    and_words(a->words, a->xhdr_in, a->s.nwords);
    memcpy(&nbytes, a->xhdr_in + a->mask_bytes, 8);
    memcpy(&a->xkey_in, a->xhdr_in + a->mask_bytes + 8, 8);
    if (!alloc_blob(a, nbytes))
        return 0;
    post_recv(a, a->blob, a->blob_bytes, a->s.xcomm, a->s.xpeer, a->s.xctx, a->s.xtag);
    return 1;
}

static int finish_down_hdr(struct uz_agree *a)
{
    uint64_t nbytes;
    size_t all = (size_t)a->s.n * a->entry_bytes;
    memcpy(a->words, a->down, a->mask_bytes);
    if (all)
        memcpy(a->entries, a->down + a->mask_bytes, all);
    memcpy(&nbytes, a->down + a->mask_bytes + all, 8);
    memcpy(&a->xkey_in, a->down + a->mask_bytes + all + 8, 8);
    if (!alloc_blob(a, nbytes))
        return 0;
    post_recv(a, a->blob, a->blob_bytes, a->s.comm, member_rank(a, a->parent), a->s.ctx, a->s.tag);
    return 1;
}

static void start_fanout(struct uz_agree *a)
{
    if (a->parent < 0) {            /* the root composes the result */
        size_t all = (size_t)a->s.n * a->entry_bytes;
        uint64_t nbytes = a->blob_bytes;
        memcpy(a->down, a->words, a->mask_bytes);
        if (all)
            memcpy(a->down + a->mask_bytes, a->entries, all);
        memcpy(a->down + a->mask_bytes + all, &nbytes, 8);
        memcpy(a->down + a->mask_bytes + all + 8, &a->xkey_in, 8);
    }
    for (int c = 0; c < a->nchild; c++) {
        int dest = member_rank(a, a->child[c]);
        post_send(a, a->down, a->down_bytes, a->s.comm, dest, a->s.ctx, a->s.tag);
        if (a->blob_bytes)
            post_send(a, a->blob, a->blob_bytes, a->s.comm, dest, a->s.ctx, a->s.tag);
    }
}

/* Run phases until one has to wait; returns 1 if anything moved. */
static int advance(struct uz_agree *a)
{
    int moved = 0;
    while (a->phase != PH_DONE && pending_done(a)) {
        moved = 1;
        if (a->err) {
            a->phase = PH_DONE;
            break;
        }
        switch (a->phase) {
        case PH_GATHER:
            finish_gather(a);
            if (a->parent >= 0) {
                start_up(a);
                a->phase = PH_DOWN_HDR;
            } else if (a->s.xcomm) {
                start_exchange(a);
                a->phase = PH_XHDR;
            } else {
                start_fanout(a);
                a->phase = PH_FANOUT;
            }
            break;
        case PH_XHDR:
            a->phase = finish_xhdr(a) ? PH_XBLOB : PH_FANOUT;
            if (a->phase == PH_FANOUT && !a->err)
                start_fanout(a);
            break;
        case PH_XBLOB:
            start_fanout(a);
            a->phase = PH_FANOUT;
            break;
        case PH_DOWN_HDR:
            a->phase = finish_down_hdr(a) ? PH_DOWN_BLOB : PH_FANOUT;
            if (a->phase == PH_FANOUT && !a->err)
                start_fanout(a);
            break;
        case PH_DOWN_BLOB:
            start_fanout(a);
            a->phase = PH_FANOUT;
            break;
        case PH_FANOUT:
            a->phase = PH_DONE;
            break;
        case PH_DONE:
            break;
        }
    }
    return moved;
}

/* ------------------------------------------------- the driving request */

static int agree_poll(uz_request *req)
{
    struct uz_agree *a = req->ops_state;
    int moved = advance(a);
    if (a->phase == PH_DONE) {
        uz_progress_unregister(req);
        req->status.MPI_ERROR = a->err;
        uz_request_complete(req);
        if (a->done)
            a->done(a, a->done_arg);    /* may free a: touch nothing after */
    }
    return moved;
}

static const struct uz_request_ops agree_ops = { .poll = agree_poll };

/* ------------------------------------------------------------ building */

/* The binomial tree around index me of n (root 0). */
static void make_tree(struct uz_agree *a)
{
    int n = a->s.n, me = a->s.me;
    int mask = 1;
    a->parent = -1;
    while (mask < n) {
        if (me & mask) {
            a->parent = me - mask;
            break;
        }
        mask <<= 1;
    }
    a->myspan = (me + mask < n ? mask : n - me);
    a->nchild = 0;
    for (int m = mask >> 1; m > 0; m >>= 1) {
        if (me + m < n) {
            a->child[a->nchild] = me + m;
            a->span[a->nchild] = me + 2 * m <= n ? m : n - (me + m);
            a->nchild++;
        }
    }
}

static int alloc_buffers(struct uz_agree *a)
{
    size_t all = (size_t)a->s.n * a->entry_bytes;
    a->words = malloc(a->mask_bytes ? a->mask_bytes : 1);
    a->entries = all ? malloc(all) : NULL;
    a->up = malloc(a->mask_bytes + (size_t)a->myspan * a->entry_bytes + 1);
    a->down_bytes = a->mask_bytes + all + 16;
    a->down = malloc(a->down_bytes);
    a->xhdr_out = malloc(a->mask_bytes + 16);
    a->xhdr_in = malloc(a->mask_bytes + 16);
    a->pending_cap = 2 * a->nchild + 4;
    a->pending = malloc(sizeof(*a->pending) * (size_t)a->pending_cap);
    if (!a->words || (all && !a->entries) || !a->up || !a->down || !a->xhdr_out || !a->xhdr_in ||
        !a->pending)
        return 0;
    for (int c = 0; c < a->nchild; c++) {
        a->childbuf[c] = malloc(a->mask_bytes + (size_t)a->span[c] * a->entry_bytes + 1);
        if (!a->childbuf[c])
            return 0;
    }
    return 1;
}

int uz_agree_start(const struct uz_agree_spec *spec, const uint64_t *words, const int *entry,
                   struct uz_agree **out)
{
    struct uz_agree *a = calloc(1, sizeof(*a));
    if (!a)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    a->s = *spec;
    a->mask_bytes = (size_t)spec->nwords * 8;
    a->entry_bytes = (size_t)spec->entry_ints * sizeof(int);
    make_tree(a);
    int ok = alloc_buffers(a);
    if (ok && spec->members) {
        a->members = malloc(sizeof(int) * (size_t)spec->n);
        ok = a->members != NULL;
        if (ok)
            memcpy(a->members, spec->members, sizeof(int) * (size_t)spec->n);
    }
    if (ok && spec->xcomm && !spec->xsend_entries && spec->xsend_bytes) {
        a->xsend_bytes = spec->xsend_bytes;
        ok = (a->xsend = malloc(a->xsend_bytes)) != NULL;
        if (ok)
            memcpy(a->xsend, spec->xsend, a->xsend_bytes);
    }
    if (ok)
        ok = (a->req = uz_request_new(UZ_REQ_OTHER)) != NULL;
    if (!ok) {
        uz_agree_free(a);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    a->s.members = NULL;
    a->s.xsend = NULL;
    a->req->ops = &agree_ops;
    a->req->ops_state = a;
    memcpy(a->words, words, a->mask_bytes);
    if (a->entry_bytes)
        memcpy(a->entries + (size_t)spec->me * spec->entry_ints, entry, a->entry_bytes);

    a->phase = PH_GATHER;
    start_gather(a);
    advance(a);
    if (a->phase == PH_DONE) {
        a->req->status.MPI_ERROR = a->err;
        uz_request_complete(a->req);
    } else {
        uz_progress_register(a->req);
    }
    *out = a;
    return MPI_SUCCESS;
}

void uz_agree_on_done(struct uz_agree *a, void (*done)(struct uz_agree *a, void *arg), void *arg)
{
    a->done = done;
    a->done_arg = arg;
    if (a->phase == PH_DONE)
        done(a, arg);
}

int uz_agree_wait(struct uz_agree *a)
{
    if (a->phase != PH_DONE)
        uz_request_wait(a->req);
    return a->err;
}

int uz_agree_run(const struct uz_agree_spec *spec, const uint64_t *words, const int *entry,
                 struct uz_agree **out)
{
    struct uz_agree *a;
    *out = NULL;
    int err = uz_agree_start(spec, words, entry, &a);
    if (err)
        return err;
    if ((err = uz_agree_wait(a))) {
        uz_agree_free(a);
        return err;
    }
    *out = a;
    return MPI_SUCCESS;
}

int uz_agree_error(const struct uz_agree *a)
{
    return a->err;
}

const uint64_t *uz_agree_words(const struct uz_agree *a)
{
    return a->words;
}

const int *uz_agree_entries(const struct uz_agree *a)
{
    return a->entries;
}

const void *uz_agree_blob(const struct uz_agree *a, size_t *bytes)
{
    *bytes = a->blob_bytes;
    return a->blob;
}

uint64_t uz_agree_xkey(const struct uz_agree *a)
{
    return a->xkey_in;
}

void uz_agree_free(struct uz_agree *a)
{
    if (!a)
        return;
    if (a->req) {
        if (a->phase != PH_DONE)
            uz_progress_unregister(a->req);
        uz_request_release(a->req);
    }
    for (int c = 0; c < a->nchild; c++)
        free(a->childbuf[c]);
    free(a->members);
    free(a->words);
    free(a->entries);
    free(a->up);
    free(a->down);
    free(a->xhdr_out);
    free(a->xhdr_in);
    free(a->xsend);
    free(a->blob);
    free(a->pending);
    free(a);
}

void uz_agree_free_unlocked(struct uz_agree *a)
{
    uz_lock();
    uz_agree_free(a);
    uz_unlock();
}
