/*
 * p2p_comm.h — what the request layer knows of a communicator: the few
 * values its messages need, which the MPI core keeps ready in every
 * communicator, and how to keep one alive while a request names it.  Nothing here looks inside a
 * communicator; uz_comm is only a name at this layer.
 */
#ifndef UZ_PT2PT_P2P_COMM_H
#define UZ_PT2PT_P2P_COMM_H

#include <stdint.h>

#include "base/object.h"

/* A communicator as the request layer sees it, on one context.  The
 * request layer never looks inside a communicator: each communicator keeps
 * this ready for its point-to-point and its collective context (c->p2p,
 * c->p2p_coll in core/comm.h), so a send hands over one pointer. */
struct uz_p2p_comm {
    uz_comm *comm;              /* kept alive while a request names it; opaque */
    uint32_t context_id;        /* what the messages carry to be matched */
    int rank;                   /* this process's rank: the source messages carry */
    const int *remote_world;    /* world rank of each remote rank; NULL: the identity */
};

static inline int uz_p2p_world_rank(const struct uz_p2p_comm *c, int rank)
{
    return c->remote_world ? c->remote_world[rank] : rank;
}

/* How the request layer keeps the communicator of a request alive: the
 * MPI core's reference counting, handed to uz_pt2pt_init(). */
struct uz_pt2pt_comm_refs {
    void (*retain)(uz_comm *comm);
    void (*release)(uz_comm *comm);
};
extern struct uz_pt2pt_comm_refs uz_pt2pt_comm_refs;

#endif /* UZ_PT2PT_P2P_COMM_H */
