/*
 * comm_context.c — context ids: a per-process bitmap of free pairs, and
 * agreeing on pairs that are free in every member (see comm_impl.h).
 *
 * Agreement is MPICH's: AND the members' bitmaps and take the lowest pair
 * left.  No central server, and an id comes back to the bitmap when the
 * communicator that used it dies, so long-running programs that create and
 * free communicators never run out.  Members of the parent that will not
 * belong to the new communicator (MPI_UNDEFINED in MPI_Comm_split) take
 * part but keep the pair free: no process is ever in two communicators
 * with the same id, which is all that matching needs, since a message is
 * matched by (context id, source rank, tag) at the one process it is for.
 *
 * Concurrency.  While one agreement is running in a process, the bitmap is
 * "lent" to it: a second agreement started meanwhile (another thread, or a
 * blocking constructor while an MPI_Comm_idup is pending) contributes all
 * zeros and a 0 in the last word, so the whole round yields nothing, every
 * member sees that in the same AND, and they try again.  Without that, two
 * agreements of one process could pick the same pair.  When several wait,
 * the bitmap goes to the first in the order of (parent context id, tag),
 * which all members compute alike, so that every process serves the same
 * agreement first and retries cannot go on forever.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm_impl.h"
#include "core/errors.h"
#include "pt2pt/lock.h"

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t free_pairs[UZ_CTX_WORDS];
static int bitmap_ready;
static int bitmap_lent;                 /* an agreement holds the bitmap */

/* Agreements waiting for the bitmap, by prio (small: one per thread or
 * pending MPI_Comm_idup). */
enum { MAX_WAITERS = 256 };
static uint64_t waiters[MAX_WAITERS];
static int nwaiters;

/* Pairs 0 and 1 are MPI_COMM_WORLD's and MPI_COMM_SELF's, pair 2 is the
 * bootstrap context of the group-based constructors. */
static void bitmap_init_locked(void)
{
    if (bitmap_ready)
        return;
    memset(free_pairs, 0xff, sizeof(free_pairs));
    free_pairs[0] &= ~(uint64_t)0x7;
    bitmap_ready = 1;
}

void uz_ctx_claim_begin(struct uz_ctx_claim *cl, uint32_t parent_ctx, int tag)
{
    /* ~tag grows with the parent's sequence number for constructor tags. */
    uint64_t prio = (uint64_t)parent_ctx << 32 | (uint32_t)~tag;
    cl->prio = prio;
    cl->owner = 0;
    pthread_mutex_lock(&ctx_lock);
    cl->registered = nwaiters < MAX_WAITERS;
    if (cl->registered)
        waiters[nwaiters++] = prio;
    pthread_mutex_unlock(&ctx_lock);
}

static int lowest_waiter_locked(uint64_t prio)
{
    for (int i = 0; i < nwaiters; i++)
        if (waiters[i] < prio)
            return 0;
    return 1;
}

void uz_ctx_claim_prepare(struct uz_ctx_claim *cl, uint64_t *words)
{
    pthread_mutex_lock(&ctx_lock);
    bitmap_init_locked();
    cl->owner = !bitmap_lent && lowest_waiter_locked(cl->prio);
    if (cl->owner) {
        bitmap_lent = 1;
        memcpy(words, free_pairs, sizeof(free_pairs));
        words[UZ_CTX_WORDS] = ~(uint64_t)0;
    } else {
        memset(words, 0, sizeof(uint64_t) * UZ_AGREE_WORDS);
    }
    pthread_mutex_unlock(&ctx_lock);
}

int uz_ctx_claim_finish(struct uz_ctx_claim *cl, const uint64_t *agreed, int npairs,
                        uint32_t *ids, int take)
{
    int everyone = agreed[UZ_CTX_WORDS] != 0;
    int found = 0;
    if (everyone) {
        for (int w = 0; w < UZ_CTX_WORDS && found < npairs; w++) {
            uint64_t bits = agreed[w];
            while (bits && found < npairs) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                ids[found++] = (uint32_t)(2 * (64 * w + b));
            }
        }
    }
    pthread_mutex_lock(&ctx_lock);
    if (cl->owner) {
        if (everyone && found == npairs && take) {
            for (int i = 0; i < npairs; i++) {
                uint32_t pair = ids[i] / 2;
                free_pairs[pair / 64] &= ~((uint64_t)1 << (pair % 64));
            }
        }
        bitmap_lent = 0;
        cl->owner = 0;
    }
    pthread_mutex_unlock(&ctx_lock);
    if (!everyone)
        return UZ_CTX_RETRY;
    if (found < npairs)
        return uz_err_make(MPI_ERR_OTHER, "out of context ids: %d communicators exist already "
                           "(free some with MPI_Comm_free)", UZ_CTX_PAIRS);
    return MPI_SUCCESS;
}

void uz_ctx_claim_end(struct uz_ctx_claim *cl)
{
    pthread_mutex_lock(&ctx_lock);
    if (cl->registered) {
        for (int i = 0; i < nwaiters; i++) {
            if (waiters[i] == cl->prio) {
                waiters[i] = waiters[--nwaiters];
                break;
            }
        }
        cl->registered = 0;
    }
    pthread_mutex_unlock(&ctx_lock);
}

void uz_ctx_release(uint32_t id)
{
    uint32_t pair = id / 2;
    if (pair < 3 || pair >= UZ_CTX_PAIRS)
        return;
    pthread_mutex_lock(&ctx_lock);
    free_pairs[pair / 64] |= (uint64_t)1 << (pair % 64);
    pthread_mutex_unlock(&ctx_lock);
}

/* ---------------------------------------------------- blocking agreement */

/* Called with the request layer's lock held (pt2pt/lock.h). */
int uz_ctx_agree(const struct uz_agree_spec *spec, uint32_t prio, const int *entry, int npairs,
                 int take, uint32_t *ids, struct uz_agree **agreed)
{
    struct uz_ctx_claim cl;
    uint64_t words[UZ_AGREE_WORDS];
    int err;
    if (agreed)
        *agreed = NULL;
    uz_ctx_claim_begin(&cl, prio, spec->tag);
    for (;;) {
        struct uz_agree *a;
        uz_ctx_claim_prepare(&cl, words);
        if ((err = uz_agree_run(spec, words, entry, &a))) {
            uint64_t none[UZ_AGREE_WORDS] = { 0 };
            uz_ctx_claim_finish(&cl, none, npairs, ids, 0);     /* give the bitmap back */
            break;
        }
        err = uz_ctx_claim_finish(&cl, uz_agree_words(a), npairs, ids, take);
        if (err != UZ_CTX_RETRY) {
            if (agreed && !err)
                *agreed = a;
            else
                uz_agree_free(a);
            break;
        }
        uz_agree_free(a);
        /* Let the agreement that holds the bitmap run (another thread's,
         * or a pending MPI_Comm_idup that progress drives). */
        uz_unlock();
        sched_yield();
        uz_lock();
    }
    uz_ctx_claim_end(&cl);
    return err;
}

int uz_ctx_agree_intra(uz_comm *parent, int take, uint32_t *id)
{
    struct uz_agree_spec spec;
    uz_agree_spec_for(parent, &spec);
    return uz_ctx_agree(&spec, parent->context_id, NULL, 1, take, id, NULL);
}
