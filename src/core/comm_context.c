/*
 * comm_context.c — context ids: a per-process bitmap of free pairs, and
 * agreeing with the other members on pairs that are free in all of them
 * (see comm_impl.h).
 *
 * Agreement is MPICH's: every member offers free pairs, the agreement
 * collective (comm_agree.c) ANDs the offers, and all take the lowest pair
 * left.  No central server, and an id comes back to the bitmap when the
 * communicator that used it dies, so long-running programs that create and
 * free communicators never run out.  Members of the parent that will not
 * use the result (non-members in MPI_Comm_create, ranks past a topology's
 * size) offer every id: no process is ever in two communicators with the
 * same id, which is all that matching needs, since a message is matched by
 * (context id, source rank, tag) at the one process it is for.
 *
 * Concurrency.  Several agreements may run in one process at once: threads
 * under MPI_THREAD_MULTIPLE, pending MPI_Comm_idups, a blocking
 * constructor while idups are pending.  Two of them must never offer the
 * same pair (both could win it), so the bitmap is cut into two regions,
 * each lent to one agreement at a time; an agreement that gets neither
 * offers nothing, the round yields nothing, every member sees that in the
 * same AND (the last word says which regions everyone offered), and they
 * go again.
 *
 * What must never happen is an agreement holding ids while it waits for
 * members that have not called yet: they may be stuck in another
 * agreement that needs those very ids (threads dup'ing two communicators
 * in opposite orders on two ranks; an idup started before a blocking
 * constructor on one rank and after it on another).  Hence:
 *   - a first round may hold only the small "eager" region (the lowest
 *     EAGER_WORDS words).  Most agreements succeed there; for the others
 *     it shows that all members have arrived;
 *   - the "main" region (and the eager one, when free) goes only to
 *     agreements past their first round, whose members are all present
 *     and keep running rounds until they finish, and among those to the
 *     first in an order that all processes compute alike: the one first
 *     everywhere is served by all its members in the same round, so
 *     retries end (MPICH's lowest-context-id-first rule).  An agreement
 *     is named by (parent context id, tag).  The two groups of
 *     MPI_Intercomm_create have different parents (each its local
 *     communicator), and two of them made at once could each be served
 *     first by one group and last by the other, forever; so an agreement
 *     with a leader exchange is named by the exchange's (context id,
 *     tag), which both leaders use and pass down to their groups with
 *     the first round's result;
 *   - a lone blocking agreement in a process that cannot start another
 *     meanwhile (no MPI_THREAD_MULTIPLE, nothing else pending) offers both
 *     regions in its first round: a single-threaded program without
 *     pending idups needs one round per constructor however many
 *     communicators it holds.
 * Rounds are driven by a pollable request: a nonblocking agreement never
 * waits, and a retry starts from the progress engine, never from inside
 * the completion of the round before it (a round over one process ends at
 * once, and retrying there recursed until the stack overflowed).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/comm_impl.h"
#include "pt2pt/pt2pt.h"

enum {
    EAGER_WORDS = 2,                    /* pairs 0 .. 127 */
    REGION_EAGER = 1,
    REGION_MAIN = 2,
    RESERVED_PAIRS = 3,                 /* MPI_COMM_WORLD, MPI_COMM_SELF, bootstrap */
    RETRY = -1,                         /* a round came out empty: go again */
};

struct uz_ctx_agreement {
    struct uz_agree_spec spec;          /* members and xsend point at the copies below */
    int *members;
    void *xsend;
    int *entry;
    uint64_t key;                       /* (parent context id, ~tag) */
    uint64_t order[2];                  /* (name, key): see the top of the file */
    int npairs, take, blocking;
    int rounds;                         /* finished rounds */
    unsigned held;                      /* regions lent to the running round */
    int listed;                         /* past the first round, wants the main region */
    struct uz_ctx_agreement *prev, *next;       /* the listed ones */
    uint64_t words[UZ_AGREE_WORDS];     /* this round's offer */
    struct uz_agree *round;             /* running */
    struct uz_agree *result;            /* the successful round, kept for its entries */
    uint32_t ids[2];
    int err, finished, retry;
    uz_request *req;                    /* drives the rounds from progress */
    void (*done)(struct uz_ctx_agreement *g, void *arg);
    void *done_arg;
};

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t free_pairs[UZ_CTX_WORDS];
static int bitmap_ready;
static unsigned regions_lent;
static int running;                     /* agreements started and not finished */
static struct uz_ctx_agreement *listed_head;

/* ------------------------------------------------------------- bitmap */

static void bitmap_init_locked(void)
{
    if (bitmap_ready)
        return;
    memset(free_pairs, 0xff, sizeof(free_pairs));
    free_pairs[0] &= ~(((uint64_t)1 << RESERVED_PAIRS) - 1);
    bitmap_ready = 1;
}

static int region_of_word(int w)
{
    return w < EAGER_WORDS ? REGION_EAGER : REGION_MAIN;
}

void uz_ctx_release(uint32_t id)
{
    uint32_t pair = id / 2;
    if (pair < RESERVED_PAIRS || pair >= UZ_CTX_PAIRS)
        return;
    pthread_mutex_lock(&ctx_lock);
    free_pairs[pair / 64] |= (uint64_t)1 << (pair % 64);
    pthread_mutex_unlock(&ctx_lock);
}

/* ------------------------------------------------------ the listed ones */

static void list_locked(struct uz_ctx_agreement *g)
{
    g->prev = NULL;
    g->next = listed_head;
    if (listed_head)
        listed_head->prev = g;
    listed_head = g;
    g->listed = 1;
}

static void unlist_locked(struct uz_ctx_agreement *g)
{
    if (!g->listed)
        return;
    if (g->prev)
        g->prev->next = g->next;
    else
        listed_head = g->next;
    if (g->next)
        g->next->prev = g->prev;
    g->listed = 0;
}

/* By name, then (for the rare tie of two names) by this process's key. */
static int comes_before(const struct uz_ctx_agreement *a, const struct uz_ctx_agreement *b)
{
    return a->order[0] != b->order[0] ? a->order[0] < b->order[0] : a->order[1] < b->order[1];
}

static const struct uz_ctx_agreement *first_listed_locked(void)
{
    const struct uz_ctx_agreement *first = listed_head;
    for (const struct uz_ctx_agreement *g = listed_head; g; g = g->next)
        if (comes_before(g, first))
            first = g;
    return first;
}

/* -------------------------------------------------------------- rounds */

/* This process's offer for the next round (see the top of the file). */
static void offer(struct uz_ctx_agreement *g)
{
    uint64_t *w = g->words;
    pthread_mutex_lock(&ctx_lock);
    bitmap_init_locked();
    if (!g->take) {
        memset(w, 0xff, sizeof(uint64_t) * UZ_CTX_WORDS);
        w[0] &= ~(((uint64_t)1 << RESERVED_PAIRS) - 1);
        w[UZ_CTX_WORDS] = REGION_EAGER | REGION_MAIN;
        pthread_mutex_unlock(&ctx_lock);
        return;
    }
    unsigned want = 0;
    if (g->rounds == 0)
        want = g->blocking && !uz_rt.thread_multiple && running == 1
             ? REGION_EAGER | REGION_MAIN : REGION_EAGER;
    else if (first_listed_locked() == g)
        want = REGION_EAGER | REGION_MAIN;
    g->held = want & ~regions_lent;
    regions_lent |= g->held;
    for (int i = 0; i < UZ_CTX_WORDS; i++)
        w[i] = g->held & region_of_word(i) ? free_pairs[i] : 0;
    w[UZ_CTX_WORDS] = g->held;
    pthread_mutex_unlock(&ctx_lock);
}

/* The agreement is over (either way): it lends nothing, waits for
 * nothing, and no longer counts as running. */
static void leave_locked(struct uz_ctx_agreement *g)
{
    regions_lent &= ~g->held;
    g->held = 0;
    unlist_locked(g);
    running--;
}

/* After a round: pick the pairs, take them, give the regions back.
 * Returns MPI_SUCCESS (ids in g->ids), RETRY or an error; every
 * member decides alike, from the same agreed words.  `name` is the name
 * the leaders of an intercommunicator's agreement gave it (0: none). */
static int settle(struct uz_ctx_agreement *g, const uint64_t *agreed, uint64_t name)
{
    unsigned offered = (unsigned)agreed[UZ_CTX_WORDS];
    int found = 0;
    for (int w = 0; w < UZ_CTX_WORDS && found < g->npairs; w++) {
        uint64_t bits = agreed[w];
        while (bits && found < g->npairs) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            g->ids[found++] = (uint32_t)(2 * (64 * w + b));
        }
    }
    int err = found == g->npairs ? MPI_SUCCESS
            : offered & REGION_MAIN ? uz_err_make(MPI_ERR_OTHER, "out of context ids: no %s "
                                                  "free in every member (free some communicators "
                                                  "with MPI_Comm_free)",
                                                  g->npairs == 1 ? "id" : "two ids")
            : RETRY;
    pthread_mutex_lock(&ctx_lock);
    if (name)
        g->order[0] = name;
    if (!err && g->take)
        for (int i = 0; i < found; i++) {
            uint32_t pair = g->ids[i] / 2;
            free_pairs[pair / 64] &= ~((uint64_t)1 << (pair % 64));
        }
    g->rounds++;
    if (err != RETRY) {
        leave_locked(g);
    } else {
        regions_lent &= ~g->held;
        g->held = 0;
        if (g->take && !g->listed)
            list_locked(g);
    }
    pthread_mutex_unlock(&ctx_lock);
    return err;
}

static void finish(struct uz_ctx_agreement *g, int err)
{
    g->err = err;
    g->finished = 1;
    uz_progress_unregister(g->req);
    g->req->status.MPI_ERROR = err;
    uz_request_complete(g->req);
    if (g->done)
        g->done(g, g->done_arg);
}

static void round_done(struct uz_agree *a, void *arg)
{
    struct uz_ctx_agreement *g = arg;
    g->round = NULL;
    int err = uz_agree_error(a);
    if (err) {
        pthread_mutex_lock(&ctx_lock);
        leave_locked(g);
        pthread_mutex_unlock(&ctx_lock);
    } else {
        err = settle(g, uz_agree_words(a), uz_agree_xkey(a));
    }
    if (err == RETRY) {
        g->retry = 1;                   /* the next poll starts it */
        uz_agree_free(a);
        return;
    }
    if (err)
        uz_agree_free(a);
    else
        g->result = a;
    finish(g, err);
}

static void start_round(struct uz_ctx_agreement *g)
{
    struct uz_agree *a;
    offer(g);
    int err = uz_agree_start(&g->spec, g->words, g->entry, &a);
    if (err) {
        pthread_mutex_lock(&ctx_lock);
        leave_locked(g);
        pthread_mutex_unlock(&ctx_lock);
        finish(g, err);
        return;
    }
    g->round = a;
    uz_agree_on_done(a, round_done, g);         /* may finish g at once */
}

/* Starting a retry is not progress: a waiting thread should go on to
 * yield the lock and the core to whoever holds what this one lacks. */
static int agreement_poll(uz_request *req)
{
    struct uz_ctx_agreement *g = req->ops_state;
    if (g->retry && !g->round) {
        g->retry = 0;
        start_round(g);
    }
    return 0;
}

static const struct uz_request_ops agreement_ops = { .poll = agreement_poll };

/* ----------------------------------------------------------- interface */

static void *copy_of(const void *p, size_t bytes, int *ok)
{
    if (!p || !bytes)
        return NULL;
    void *c = malloc(bytes);
    if (c)
        memcpy(c, p, bytes);
    else
        *ok = 0;
    return c;
}

int uz_ctx_agreement_start(const struct uz_agree_spec *spec, uint32_t prio_ctx, const int *entry,
                           int npairs, int take, int blocking,
                           void (*done)(struct uz_ctx_agreement *g, void *arg), void *arg,
                           struct uz_ctx_agreement **out)
{
    struct uz_ctx_agreement *g = calloc(1, sizeof(*g));
    int ok = g != NULL;
    if (ok) {
        g->spec = *spec;
        g->members = copy_of(spec->members, sizeof(int) * (size_t)spec->n, &ok);
        g->xsend = copy_of(spec->xsend, spec->xsend_bytes, &ok);
        g->entry = copy_of(entry, sizeof(int) * (size_t)spec->entry_ints, &ok);
        ok = ok && (g->req = uz_request_new(UZ_REQ_OTHER)) != NULL;
    }
    if (!ok) {
        if (g) {
            free(g->members);
            free(g->xsend);
            free(g->entry);
            free(g);
        }
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    g->spec.members = g->members;
    g->spec.xsend = g->xsend;
    g->key = (uint64_t)prio_ctx << 32 | (uint32_t)~spec->tag;
    g->order[0] = g->order[1] = g->key;
    if (spec->xcomm)
        g->spec.xkey = (uint64_t)spec->xctx << 32 | (uint32_t)~spec->xtag;
    g->npairs = npairs;
    g->take = take;
    g->blocking = blocking;
    g->done = done;
    g->done_arg = arg;
    g->req->ops = &agreement_ops;
    g->req->ops_state = g;
    pthread_mutex_lock(&ctx_lock);
    running++;
    pthread_mutex_unlock(&ctx_lock);
    uz_progress_register(g->req);
    *out = g;
    start_round(g);
    return MPI_SUCCESS;
}

int uz_ctx_agreement_error(const struct uz_ctx_agreement *g)
{
    return g->err;
}

const uint32_t *uz_ctx_agreement_ids(const struct uz_ctx_agreement *g)
{
    return g->ids;
}

void uz_ctx_agreement_free(struct uz_ctx_agreement *g)
{
    if (!g)
        return;
    if (!g->finished) {
        if (g->round)
            uz_agree_free(g->round);
        uz_progress_unregister(g->req);
        pthread_mutex_lock(&ctx_lock);
        leave_locked(g);
        pthread_mutex_unlock(&ctx_lock);
    }
    uz_agree_free(g->result);
    uz_request_release(g->req);
    free(g->members);
    free(g->xsend);
    free(g->entry);
    free(g);
}

/* ---------------------------------------------------- blocking agreement */

/* Called with the request layer's lock held (base/lock.h). */
int uz_ctx_agree(const struct uz_agree_spec *spec, uint32_t prio, const int *entry, int npairs,
                 int take, uint32_t *ids, struct uz_agree **agreed)
{
    struct uz_ctx_agreement *g;
    if (agreed)
        *agreed = NULL;
    int err = uz_ctx_agreement_start(spec, prio, entry, npairs, take, 1, NULL, NULL, &g);
    if (err)
        return err;
    uz_request_wait(g->req);
    if (!(err = g->err)) {
        memcpy(ids, g->ids, sizeof(uint32_t) * (size_t)npairs);
        if (agreed) {
            *agreed = g->result;
            g->result = NULL;
        }
    }
    uz_ctx_agreement_free(g);
    return err;
}

int uz_ctx_agree_intra(uz_comm *parent, int take, uint32_t *id)
{
    struct uz_agree_spec spec;
    uz_agree_spec_for(parent, &spec);
    return uz_ctx_agree(&spec, parent->context_id, NULL, 1, take, id, NULL);
}
