/*
 * match.c — the posted and unexpected queues, hashed by (context, source).
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "base/zero.h"
#include "pt2pt/match.h"

struct match_entry {
    struct match_entry *next;       /* in its hash bucket */
    uint32_t context_id;
    int32_t src;                    /* MPI_ANY_SOURCE for the context-wide lists */
    uz_request *posted_head, *posted_tail;
    struct uz_unexpected *unexp_head, *unexp_tail;  /* per source, or all (ANY) */
};

enum { BUCKETS = 1024 };
static struct match_entry *buckets[BUCKETS];
static uint64_t post_counter;
/* Receives posted with MPI_ANY_SOURCE, and messages queued unexpected: when
 * none exist, matching skips those lists (the common case). */
static long wildcard_posted, unexpected_queued;
/* The most messages ever queued unexpected at once (an MPI_T high-water
 * mark); raised only on the unexpected path. */
static long unexpected_high;

static inline unsigned bucket_of(uint32_t ctx, int32_t src)
{
    uint32_t h = ctx * 2654435761u ^ ((uint32_t)src * 40503u);
    return (h ^ (h >> 16)) & (BUCKETS - 1);
}

static struct match_entry *entry_find(uint32_t ctx, int32_t src)
{
    for (struct match_entry *e = buckets[bucket_of(ctx, src)]; e; e = e->next)
        if (e->context_id == ctx && e->src == src)
            return e;
    return NULL;
}

static struct match_entry *entry_get(uint32_t ctx, int32_t src)
{
    struct match_entry *e = entry_find(ctx, src);
    if (e)
        return e;
    e = calloc(1, sizeof(*e));
    if (!e)
        abort();                    /* a few dozen bytes: nothing sensible to do */
    e->context_id = ctx;
    e->src = src;
    unsigned b = bucket_of(ctx, src);
    e->next = buckets[b];
    buckets[b] = e;
    return e;
}

static inline int tag_matches(int want, int have)
{
    return want == have || want == MPI_ANY_TAG;
}

/* ------------------------------------------------------------ unexpected */

static struct uz_unexpected *free_unexpected;

/*
 * Payload buffers of unexpected eager messages, kept for reuse by
 * power-of-two size class (128 bytes to 64 KiB), up to DATA_POOL_BYTES in
 * all.  A receiver that runs behind its sender, such as the other ranks of
 * a loop of broadcasts whose root races ahead, takes every message through
 * here: malloc and free of a 4 KiB payload were 260 of a two-rank 4 KiB
 * Bcast receiver's 1900 instructions a call, and a reused buffer is still
 * in the cache.
 */
enum { DATA_MIN_SHIFT = 7, DATA_MAX_SHIFT = 16, DATA_CLASSES = DATA_MAX_SHIFT - DATA_MIN_SHIFT + 1,
       DATA_POOL_BYTES = 1 << 20 };
struct pooled_data {
    struct pooled_data *next;
};
static struct pooled_data *data_pool[DATA_CLASSES];
static size_t data_pooled_bytes;

/* The class whose buffers hold n bytes (n > 64), -1 beyond the largest. */
static inline int data_class(size_t n)
{
    if (n > (size_t)1 << DATA_MAX_SHIFT)
        return -1;
    int shift = n <= (size_t)1 << DATA_MIN_SHIFT ? DATA_MIN_SHIFT : 64 - __builtin_clzl(n - 1);
    return shift - DATA_MIN_SHIFT;
}

static inline size_t class_bytes(int c)
{
    return (size_t)1 << (c + DATA_MIN_SHIFT);
}

static unsigned char *data_get(int c, size_t n)
{
    if (c < 0)
        return malloc(n);
    struct pooled_data *d = data_pool[c];
    if (!d)
        return malloc(class_bytes(c));
    data_pool[c] = d->next;
    data_pooled_bytes -= class_bytes(c);
    return (unsigned char *)d;
}

static void data_put(int c, unsigned char *buf)
{
    if (c < 0 || data_pooled_bytes + class_bytes(c) > DATA_POOL_BYTES) {
        free(buf);
        return;
    }
    struct pooled_data *d = (struct pooled_data *)buf;
    d->next = data_pool[c];
    data_pool[c] = d;
    data_pooled_bytes += class_bytes(c);
}

struct uz_unexpected *uz_unexpected_new(size_t data_bytes)
{
    struct uz_unexpected *u = free_unexpected;
    if (u)
        free_unexpected = u->next_src;
    else if (!(u = malloc(sizeof(*u))))
        return NULL;
    _Static_assert(offsetof(struct uz_unexpected, small) % 8 == 0, "cleared in words");
    uz_zero(u, offsetof(struct uz_unexpected, small));
    if (data_bytes <= sizeof(u->small)) {
        u->data = u->small;
        u->data_class = -1;
    } else if (!(u->data = data_get(u->data_class = (int8_t)data_class(data_bytes), data_bytes))) {
        u->next_src = free_unexpected;
        free_unexpected = u;
        return NULL;
    }
    return u;
}

void uz_unexpected_free(struct uz_unexpected *u)
{
    if (u->data != u->small)
        data_put(u->data_class, u->data);
    u->next_src = free_unexpected;
    free_unexpected = u;
}

void uz_unexpected_enqueue(struct uz_unexpected *u)
{
    struct match_entry *e = entry_get(u->context_id, u->src);
    struct match_entry *all = entry_get(u->context_id, MPI_ANY_SOURCE);
    u->next_src = NULL;
    u->prev_src = e->unexp_tail;
    if (e->unexp_tail)
        e->unexp_tail->next_src = u;
    else
        e->unexp_head = u;
    e->unexp_tail = u;
    u->next_all = NULL;
    u->prev_all = all->unexp_tail;
    if (all->unexp_tail)
        all->unexp_tail->next_all = u;
    else
        all->unexp_head = u;
    all->unexp_tail = u;
    u->queued = 1;
    if (++unexpected_queued > unexpected_high)
        unexpected_high = unexpected_queued;
}

void uz_unexpected_dequeue(struct uz_unexpected *u)
{
    struct match_entry *e = entry_find(u->context_id, u->src);
    struct match_entry *all = entry_find(u->context_id, MPI_ANY_SOURCE);
    if (u->prev_src) u->prev_src->next_src = u->next_src; else e->unexp_head = u->next_src;
    if (u->next_src) u->next_src->prev_src = u->prev_src; else e->unexp_tail = u->prev_src;
    if (u->prev_all) u->prev_all->next_all = u->next_all; else all->unexp_head = u->next_all;
    if (u->next_all) u->next_all->prev_all = u->prev_all; else all->unexp_tail = u->prev_all;
    u->queued = 0;
    unexpected_queued--;
}

struct uz_unexpected *uz_unexpected_find(uint32_t ctx, int src, int tag)
{
    if (!unexpected_queued)
        return NULL;
    if (src != MPI_ANY_SOURCE) {
        struct match_entry *e = entry_find(ctx, src);
        for (struct uz_unexpected *u = e ? e->unexp_head : NULL; u; u = u->next_src)
            if (tag_matches(tag, u->tag))
                return u;
        return NULL;
    }
    struct match_entry *all = entry_find(ctx, MPI_ANY_SOURCE);
    for (struct uz_unexpected *u = all ? all->unexp_head : NULL; u; u = u->next_all)
        if (tag_matches(tag, u->tag))
            return u;
    return NULL;
}

struct uz_unexpected *uz_unexpected_find_cookie(uint32_t ctx, int src, uint64_t cookie)
{
    struct match_entry *e = entry_find(ctx, src);
    for (struct uz_unexpected *u = e ? e->unexp_head : NULL; u; u = u->next_src)
        if (u->cookie == cookie)
            return u;
    return NULL;
}

/* ---------------------------------------------------------------- posted */

void uz_posted_enqueue(uz_request *req)
{
    struct match_entry *e = entry_get(req->context_id, req->peer);
    req->post_seq = ++post_counter;
    wildcard_posted += req->peer == MPI_ANY_SOURCE;
    req->next = NULL;
    req->prev = e->posted_tail;
    if (e->posted_tail)
        e->posted_tail->next = req;
    else
        e->posted_head = req;
    e->posted_tail = req;
}

static void posted_unlink(struct match_entry *e, uz_request *req)
{
    wildcard_posted -= req->peer == MPI_ANY_SOURCE;
    if (req->prev) req->prev->next = req->next; else e->posted_head = req->next;
    if (req->next) req->next->prev = req->prev; else e->posted_tail = req->prev;
    req->next = req->prev = NULL;
}

static uz_request *first_match(struct match_entry *e, int tag)
{
    for (uz_request *r = e ? e->posted_head : NULL; r; r = r->next)
        if (tag_matches(r->tag, tag))
            return r;
    return NULL;
}

uz_request *uz_posted_match(uint32_t ctx, int src, int tag)
{
    struct match_entry *es = entry_find(ctx, src);
    struct match_entry *ea = wildcard_posted ? entry_find(ctx, MPI_ANY_SOURCE) : NULL;
    uz_request *a = first_match(es, tag);
    uz_request *b = first_match(ea, tag);
    if (a && (!b || a->post_seq < b->post_seq)) {
        posted_unlink(es, a);
        return a;
    }
    if (b) {
        posted_unlink(ea, b);
        return b;
    }
    return NULL;
}

int uz_posted_remove(uz_request *req)
{
    struct match_entry *e = entry_find(req->context_id, req->peer);
    for (uz_request *r = e ? e->posted_head : NULL; r; r = r->next) {
        if (r == req) {
            posted_unlink(e, req);
            return 1;
        }
    }
    return 0;
}

void uz_posted_filter(int (*keep)(uz_request *req, void *arg), void *arg, void (*fail)(uz_request *req))
{
    for (int b = 0; b < BUCKETS; b++) {
        for (struct match_entry *e = buckets[b]; e; e = e->next) {
            uz_request *r = e->posted_head;
            while (r) {
                uz_request *next = r->next;
                if (!keep(r, arg)) {
                    posted_unlink(e, r);
                    fail(r);
                }
                r = next;
            }
        }
    }
}

/* ----------------------------------------------------------- for tools */

long uz_unexpected_queued(void)
{
    return unexpected_queued;
}

long uz_unexpected_high_water(void)
{
    return unexpected_high;
}

/* Counted by walking the queues when a tool asks, so that posting and
 * matching a receive keep no count of their own. */
long uz_match_queued_on(uint32_t context_id, int all_contexts, int posted)
{
    long n = 0;
    for (int b = 0; b < BUCKETS; b++) {
        for (struct match_entry *e = buckets[b]; e; e = e->next) {
            if (!all_contexts && e->context_id != context_id)
                continue;
            if (posted) {
                for (uz_request *r = e->posted_head; r; r = r->next)
                    n++;
            } else if (e->src != MPI_ANY_SOURCE) {
                for (struct uz_unexpected *u = e->unexp_head; u; u = u->next_src)
                    n++;
            }
        }
    }
    return n;
}

void uz_match_finalize(void)
{
    for (int b = 0; b < BUCKETS; b++) {
        struct match_entry *e = buckets[b];
        while (e) {
            struct match_entry *next = e->next;
            if (e->src != MPI_ANY_SOURCE) {
                struct uz_unexpected *u = e->unexp_head;
                while (u) {
                    struct uz_unexpected *n = u->next_src;
                    if (u->data != u->small)
                        free(u->data);
                    free(u);
                    u = n;
                }
            }
            free(e);
            e = next;
        }
        buckets[b] = NULL;
    }
    while (free_unexpected) {
        struct uz_unexpected *n = free_unexpected->next_src;
        free(free_unexpected);
        free_unexpected = n;
    }
    for (int c = 0; c < DATA_CLASSES; c++) {
        while (data_pool[c]) {
            struct pooled_data *n = data_pool[c]->next;
            free(data_pool[c]);
            data_pool[c] = n;
        }
    }
    data_pooled_bytes = 0;
}
