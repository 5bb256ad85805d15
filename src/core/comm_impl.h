/*
 * comm_impl.h — building communicators, shared by the constructors
 * (comm_create.c, comm_split.c, comm_inter.c, the topology constructors)
 * and nothing else.
 *
 * Every constructor follows the same steps:
 *   1. agree on a context id with the other members (comm_context.c, over
 *      the agreement collective of comm_agree.h);
 *   2. uz_comm_new() the object from its group(s);
 *   3. uz_comm_activate() it: context id, error handler inherited from the
 *      parent, collective state.
 * A communicator that fails after step 2 is dropped with uz_comm_discard(),
 * which also gives its context id back.
 *
 * Context ids come in pairs (id for point-to-point, id + 1 for collectives,
 * see comm.h), from a bitmap of free pairs that every process keeps.  The
 * bitmap has UZ_CTX_WORDS words; agreement ANDs the members' offers
 * plus one more word that says which parts of its bitmap every member
 * could offer (see comm_context.c for why one may not).
 *
 * Tags.  Agreement messages travel on the parent's collective context
 * (context_id + 1) with negative tags, which the collectives layer never
 * uses: UZ_TAG_AGREE_BASE - (sequence number of the operation on the
 * parent) for constructors every rank of the parent calls, and
 * UZ_TAG_GROUP_BASE + (user tag) for MPI_Comm_create_group, which only
 * some ranks call.
 */
#ifndef UZ_CORE_COMM_IMPL_H
#define UZ_CORE_COMM_IMPL_H

#include <stdint.h>

#include "core/comm.h"
#include "core/comm_agree.h"

enum {
    UZ_CTX_PAIRS = 2048,                /* context ids 0 .. 4095 */
    UZ_CTX_WORDS = UZ_CTX_PAIRS / 64,
    UZ_AGREE_WORDS = UZ_CTX_WORDS + 1,  /* + the "every member contributed" word */
    UZ_CTX_BOOTSTRAP = 4,               /* pair 2: MPI_Comm_create_from_group & co */
};

#define UZ_TAG_AGREE_BASE   (-65536)
#define UZ_TAG_AGREE_SPAN   0x0fffffff
#define UZ_TAG_GROUP_BASE   (-0x7fffffff - 1)     /* INT_MIN */
#define UZ_TAG_GROUP_SPAN   0x3fffffff

/* The tag of the next full-communicator agreement on `parent` (bumps its
 * collective sequence, which every rank of parent does in step). */
int uz_comm_next_agree_tag(uz_comm *parent);

/* --------------------------------------------------------- context ids */

/* Give a pair back (when the communicator using it dies). */
void uz_ctx_release(uint32_t id);

/* An agreement on context ids in progress: rounds of the agreement
 * collective until the members find pairs free in all of them
 * (comm_context.c explains the rounds and why one agreement never waits
 * for another).  Concurrent agreements of one process are ordered by
 * (prio_ctx, spec->tag), which every member computes alike: prio_ctx is
 * the parent's context id. */
struct uz_ctx_agreement;

/* Start agreeing on `npairs` (1 or 2) pairs over `spec`.  take = 1: this
 * process will use the ids (0: a process of the parent outside the new
 * communicator).  blocking = 1: the caller waits for it at once.  `entry`
 * (spec->entry_ints ints) is this member's contribution.  done(g, arg),
 * if given, is called once from the progress engine when it finishes (or
 * from here, when it finishes at once).  Call with the request layer's
 * lock held, like everything below. */
int uz_ctx_agreement_start(const struct uz_agree_spec *spec, uint32_t prio_ctx, const int *entry,
                           int npairs, int take, int blocking,
                           void (*done)(struct uz_ctx_agreement *g, void *arg), void *arg,
                           struct uz_ctx_agreement **out);
/* Once finished: its error, and the ids (even numbers) when none. */
int uz_ctx_agreement_error(const struct uz_ctx_agreement *g);
const uint32_t *uz_ctx_agreement_ids(const struct uz_ctx_agreement *g);
/* Finished or not (an unfinished one stops and gives back what it holds). */
void uz_ctx_agreement_free(struct uz_ctx_agreement *g);

/* Agree on `npairs` context pairs over `spec` and wait for it; the
 * members that will use the ids pass take = 1.  When `agreed` is given,
 * *agreed keeps the agreement for reading its entries and blob (free it
 * with uz_agree_free). */
int uz_ctx_agree(const struct uz_agree_spec *spec, uint32_t prio, const int *entry, int npairs,
                 int take, uint32_t *ids, struct uz_agree **agreed);

/* The common case: every rank of intracommunicator `parent` agrees on one
 * pair (MPI_Comm_dup and friends). */
int uz_ctx_agree_intra(uz_comm *parent, int take, uint32_t *id);

/* A spec for agreeing over all ranks of `parent`: an intracommunicator, or
 * both groups of an intercommunicator (local phase on its local_comm,
 * leaders swap over the intercommunicator). */
void uz_agree_spec_for(uz_comm *parent, struct uz_agree_spec *spec);

/* ------------------------------------------------------ communicators */

/* A new communicator over `local` (and `remote`, NULL for an
 * intracommunicator), taking over the caller's references to both.  It
 * has no context id yet, MPI_ERRORS_ARE_FATAL and no name.  NULL when out
 * of memory (the references are dropped). */
uz_comm *uz_comm_new(uz_group *local, uz_group *remote);

/* Finish a new communicator: its context id (and, for an
 * intercommunicator, local_id for its local_comm), the error handler of
 * `parent` (NULL: keep the default), collective state. */
int uz_comm_activate(uz_comm *c, uz_comm *parent, uint32_t id, uint32_t local_id);

/* Drop a communicator that was never handed to the user. */
void uz_comm_discard(uz_comm *c);

/* Hand a communicator out: *out = its handle, or MPI_COMM_NULL for NULL. */
void uz_comm_return(uz_comm *c, MPI_Comm *out);

/* MPI procedures that other constructors build on (MPI_Cart_sub). */
int uz_mpi_Comm_split(uz_comm *comm, int color, int key, MPI_Comm *newcomm);

/* MPI_Comm_create on an intercommunicator (comm_inter.c). */
int uz_comm_create_inter(uz_comm *comm, uz_group *group, MPI_Comm *newcomm);

/* Run the attribute delete callbacks of `c` (MPI_Comm_free; MPI_COMM_SELF
 * and MPI_COMM_WORLD at MPI_Finalize). */
int uz_comm_delete_attrs(uz_comm *c);

/* ------------------------------------------------------------- groups */

/* A group of n members from world ranks (copied). NULL: out of memory. */
uz_group *uz_group_from_world_ranks(int n, const int *world_ranks);

/* The index of world rank w in g, or MPI_UNDEFINED. */
int uz_group_rank_of_world(const uz_group *g, int w);

/* Do two groups have exactly the same members in the same order? */
int uz_group_same(const uz_group *a, const uz_group *b);

/* MPI_Group_compare: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL in *result. */
int uz_group_compare(const uz_group *a, const uz_group *b, int *result);

#endif /* UZ_CORE_COMM_IMPL_H */
