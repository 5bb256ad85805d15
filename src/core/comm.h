/*
 * comm.h — communicators: a group (two for an intercommunicator), a context
 * id that keeps their messages apart from every other communicator's, an
 * error handler, a name, attributes and an optional topology.
 */
#ifndef UZ_CORE_COMM_H
#define UZ_CORE_COMM_H

#include <stdint.h>

#include "core/errhandler.h"
#include "core/group.h"
#include "core/object.h"

struct uz_attr_list;
struct uz_topology;
struct uz_info;

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
    uz_errhandler *errhandler;
    struct uz_attr_list *attrs;
    struct uz_topology *topo;
    struct MPI_ABI_Info *info;
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

/* Set up MPI_COMM_WORLD and MPI_COMM_SELF after the job is known. */
int uz_comm_init_builtins(void);
void uz_comm_finalize_builtins(void);

#endif /* UZ_CORE_COMM_H */
