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
 * bitmap has UZ_CTX_WORDS words; agreement ANDs the bitmaps of all members
 * plus one more word that says whether every member could contribute its
 * real bitmap (see comm_context.c for why one may not).
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

/* One process's side of agreeing on context ids.  Concurrent agreements
 * of one process (threads; a blocking constructor while MPI_Comm_idup is
 * pending) are ordered by (parent context id, tag of the agreement), which
 * every member computes alike: the bitmap goes to the first waiting one
 * in that order, so that all processes give it to the same agreement. */
struct uz_ctx_claim {
    uint64_t prio;
    int registered;
    int owner;          /* contributed the real bitmap this round */
};

void uz_ctx_claim_begin(struct uz_ctx_claim *cl, uint32_t parent_ctx, int tag);
/* Fill words[UZ_AGREE_WORDS] with this process's contribution. */
void uz_ctx_claim_prepare(struct uz_ctx_claim *cl, uint64_t *words);
/* After the agreement: pick the `npairs` lowest pairs of the agreed
 * bitmap into ids[] (even numbers) and, when `take`, mark them used here.
 * Returns MPI_SUCCESS, UZ_CTX_RETRY (some member could not contribute:
 * prepare and agree again), or an error when the ids are exhausted. */
enum { UZ_CTX_RETRY = -1 };
int uz_ctx_claim_finish(struct uz_ctx_claim *cl, const uint64_t *agreed, int npairs,
                        uint32_t *ids, int take);
void uz_ctx_claim_end(struct uz_ctx_claim *cl);

/* Give a pair back (when the communicator using it dies). */
void uz_ctx_release(uint32_t id);

/* Agree on `npairs` context pairs over `spec` (blocking, retrying as
 * needed); the members that will use the ids pass take = 1.  When
 * `entry` is given, *agreed keeps the agreement for reading its entries
 * and blob (free it with uz_agree_free). */
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
