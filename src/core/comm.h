/*
 * comm.h — communicators: a group (two for an intercommunicator), a context
 * id that keeps their messages apart from every other communicator's, an
 * error handler, a name, attributes and an optional topology.
 */
#ifndef UZ_CORE_COMM_H
#define UZ_CORE_COMM_H

#include <stdint.h>

#include "base/object.h"
#include "core/errhandler.h"
#include "core/group.h"
#include "pt2pt/p2p_comm.h"

struct uz_attr_list;
struct uz_topology;
struct uz_info;
struct uz_bsend_buffer;
struct uz_coll_state;

typedef struct MPI_ABI_Comm {
    struct uz_object obj;
    int rank;                   /* in the local group */
    int size;                   /* of the local group */
    int remote_size;            /* of the remote group; == size for intracomms */
    int is_inter;
    uz_group *local_group;
    uz_group *remote_group;     /* == local_group for intracomms */
    /* Messages of this communicator carry context_id; its collectives use
     * context_id + 1 so they never match user point-to-point traffic. */
    uint32_t context_id;
    uint8_t has_context;        /* context_id is this communicator's own (give it back) */
    uint8_t coll_ready;         /* uz_coll_comm_init succeeded */
    /* Collective operations started on this communicator so far: every
     * rank starts them in the same order, so the count names an operation
     * consistently across ranks (tags of nonblocking collectives). */
    uint32_t coll_seq;
    /* Collective calls made on it through the one prologue (coll/algo.h),
     * blocking or not: names "call #k" in mpiexec's hang diagnosis. */
    uint32_t coll_calls;
    /* Intercommunicators: an intracommunicator over the local group, for
     * the local phase of collectives (NULL for intracommunicators). */
    struct MPI_ABI_Comm *local_comm;
    struct uz_coll_state *coll;     /* per-communicator collective state (shm areas, ...) */
    uz_errhandler *errhandler;
    struct uz_attr_list *attrs;
    struct uz_topology *topo;
    struct MPI_ABI_Info *info;
    struct uz_bsend_buffer *bsend;  /* MPI_Comm_attach_buffer, or NULL */
    uz_session *session;            /* the session it derives from (a reference), or NULL */
    /* The communicator as the request layer sees it, on context_id and on
     * context_id + 1, kept ready so that a send hands over one pointer
     * (uz_comm_p2p_update() whenever the context or the groups change). */
    struct uz_p2p_comm p2p, p2p_coll;
    char name[MPI_MAX_OBJECT_NAME];
} uz_comm;

extern uz_comm uz_comm_world, uz_comm_self;

static inline uz_comm *uz_comm_get(MPI_Comm h)
{
    if (uz_handle_is_predefined(h)) {
        if (h == MPI_COMM_WORLD) return &uz_comm_world;
        if (h == MPI_COMM_SELF) return &uz_comm_self;
        return NULL;
    }
    return uz_object_check(h, UZ_MAGIC_COMM);
}

static inline MPI_Comm uz_comm_handle(uz_comm *c)
{
    if (c == &uz_comm_world) return MPI_COMM_WORLD;
    if (c == &uz_comm_self) return MPI_COMM_SELF;
    return (MPI_Comm)c;
}

/* World rank of rank `r` of the remote group (the peer of a send). */
static inline int uz_comm_peer_world_rank(const uz_comm *c, int r)
{
    return uz_group_world_rank(c->remote_group, r);
}

/* The communicator as the request layer sees it, on any context; c->p2p
 * and c->p2p_coll are this on context_id and context_id + 1. */
static inline struct uz_p2p_comm uz_comm_p2p(uz_comm *c, uint32_t context_id)
{
    return (struct uz_p2p_comm){ c, context_id, c->rank, c->remote_group->world_ranks };
}

static inline void uz_comm_p2p_update(uz_comm *c)
{
    c->p2p = uz_comm_p2p(c, c->context_id);
    c->p2p_coll = uz_comm_p2p(c, c->context_id + 1);
}

/* Reference counting: pending operations keep a freed communicator alive;
 * the last release destroys it (uz_comm_destroy_parts, comm_create.c,
 * gives back what the constructors set up). */
void uz_comm_retain(uz_comm *c);
void uz_comm_release(uz_comm *c);
void uz_comm_destroy_parts(uz_comm *c);

/* A duplicate for the library's own traffic (a window's, a file's): a
 * context of its own, no attributes, info or topology.  Collective over
 * comm; uz_comm_release() gives it back. */
int uz_comm_dup_private(uz_comm *comm, uz_comm **out);

/* Set up MPI_COMM_WORLD and MPI_COMM_SELF after the job is known. */
int uz_comm_init_builtins(void);
void uz_comm_finalize_builtins(void);

/* Start of MPI_Finalize, before anything is torn down: run the attribute
 * delete callbacks of MPI_COMM_SELF (newest first, as the standard
 * requires), then those of MPI_COMM_WORLD. */
int uz_comm_finalize_attrs(void);

#endif /* UZ_CORE_COMM_H */
