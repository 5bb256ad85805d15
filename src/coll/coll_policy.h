/*
 * coll_policy.h — which algorithm a collective call gets: the rules, as
 * functions of a small description of the call (its situation) and the
 * UZURA_COLL_* tunables in uz_config.
 *
 * The collectives ask these functions while they run (the shared-memory
 * algorithms whether to take a call, the schedule builders which
 * message-passing algorithm to build), and `uzura_info --coll-table` asks
 * the same functions for a grid of situations, so the table it prints (and
 * docs/collectives.md shows) is the rules themselves, not a second copy of
 * them.  For that, coll_policy.c needs nothing but base/params: uzura_info
 * compiles it in, as it does params.c.
 *
 * What the rules cannot know from a situation stays with the algorithm that
 * runs: the shared area also declines a call when it could not be set up,
 * for user-defined operations, non-predefined reductions or buffers it
 * cannot work in place; the table assumes none of these.
 */
#ifndef UZ_COLL_COLL_POLICY_H
#define UZ_COLL_COLL_POLICY_H

#include <stddef.h>

#include "coll/coll_chosen.h"

/* One call as the rules see it.  `bytes` is, by operation:
 *   bcast, reduce, allreduce, scan     the whole vector (count * type size);
 *   reduce_scatter                     the whole input vector (every block);
 *   gather, scatter                    one block (the root's per-rank block);
 *   allgather                          one rank's block (the average for v forms);
 *   alltoall(v)                        the block for one peer;
 *   barrier                            unused. */
struct uz_coll_situation {
    enum uz_coll_op op;
    size_t bytes;
    int p;                      /* ranks in the communicator */
    int oversubscribed;         /* more ranks on this host than processors */
    int commutative;            /* reductions: the operation commutes */
    long long units;            /* reductions: units of the vector (reducer.h) */
    int fixed;                  /* equal blocks (not a v or w form) */
};

/* The `want` of the shared-memory functions (coll_shm.h), from op's
 * tunable: 0 auto, 1 shm named, -1 another algorithm named. */
int uz_coll_policy_want(enum uz_coll_op op);

/* The value of op's tunable (its word's row in base/params_coll.h). */
int uz_coll_tunable(enum uz_coll_op op);

/* Does the call go through the shared area (copying through it), when its
 * communicator lies within one host and the call blocks? */
int uz_coll_shm_wanted(const struct uz_coll_situation *s, int want);

/* Gather(v) and Scatter(v) when the communicator lies within one host and
 * the call blocks: the tunable's word of the algorithm that takes the call
 * there (shm, pull, push), or UZ_ALG_AUTO for message passing.  The v
 * forms ask it of each block (fixed 0), or, where the root plans for all,
 * of the average block. */
int uz_coll_shm_rooted(const struct uz_coll_situation *s);

/* Gatherv and Scatterv (op GATHER or SCATTER) within one host: may the call
 * go through shared memory at all (then each block travels as
 * uz_coll_shm_rooted() of its size says)?  `direct_ok`: every rank of the
 * host can read every other's memory.  The same answer on every rank. */
int uz_coll_shm_rooted_v(enum uz_coll_op op, int oversubscribed, int direct_ok);

/* Gatherv and Scatterv through shared memory: does a block of `bytes`
 * travel as an ordinary message instead (the linear algorithm's way)?  The root asks it of each rank's block, the rank of its own: both
 * know the same size (the type signatures match), so both answer alike. */
int uz_coll_shm_v_eager(enum uz_coll_op op, size_t bytes, int oversubscribed, int p);
/* The largest block of at most `cap` bytes that uz_coll_shm_v_eager()
 * sends by message, or -1 when none does: one bound to compare each block
 * with instead of asking for each.  `cap` must lie below the size from
 * which two ranks with a core each scatter by rendezvous (256 KiB), the
 * one place where the answer is not the same for every smaller size. */
long uz_coll_shm_v_eager_max(enum uz_coll_op op, int oversubscribed, size_t cap);

/* Allgather and Alltoall: are the blocks pulled from the other ranks'
 * memory (before the area's copy is considered)? */
int uz_coll_shm_pull(const struct uz_coll_situation *s, int want);

/* The message-passing algorithm: the value of the op's tunable word
 * (base/params_coll.h), never auto or shm. */
int uz_coll_mp_choice(const struct uz_coll_situation *s);

/* The algorithm of a blocking call whose communicator lies within one host
 * when `one_host`, else of any call on a communicator spanning hosts (and
 * of nonblocking and persistent calls, which never use the area): what the
 * table shows. */
int uz_coll_choice(const struct uz_coll_situation *s, int one_host);

/* The tunable's word for algorithm `alg` of op ("?" for none), the
 * operation's name as in coll_<name>_algorithm, and its tunable
 * ("COLL_BCAST"). */
const char *uz_coll_alg_word(enum uz_coll_op op, int alg);
const char *uz_coll_op_name(enum uz_coll_op op);
const char *uz_coll_op_tunable(enum uz_coll_op op);

#endif /* UZ_COLL_COLL_POLICY_H */
