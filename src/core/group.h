/*
 * group.h — process groups: an ordered set of processes, each named by its
 * rank in MPI_COMM_WORLD.
 */
#ifndef UZ_CORE_GROUP_H
#define UZ_CORE_GROUP_H

#include "base/object.h"

typedef struct MPI_ABI_Group {
    struct uz_object obj;
    int size;
    int my_rank;            /* this process's rank in the group, or MPI_UNDEFINED */
    /* world_ranks[i] is the world rank of group rank i; NULL means the
     * identity (the world group and its prefixes), which saves an array of
     * the job's size for the most common groups. */
    int *world_ranks;
    /* The session whose process set the group was made from (directly or
     * by group operations), holding a reference; NULL in the World model. */
    uz_session *session;
} uz_group;

extern uz_group uz_group_empty;

static inline int uz_group_world_rank(const uz_group *g, int rank)
{
    return g->world_ranks ? g->world_ranks[rank] : rank;
}

uz_group *uz_group_get(MPI_Group h);
MPI_Group uz_group_handle(uz_group *g);

/* A new group of `size` members taking ownership of `world_ranks` (malloc'd,
 * or NULL for the identity). */
uz_group *uz_group_new(int size, int *world_ranks);
void uz_group_retain(uz_group *g);
void uz_group_release(uz_group *g);

#endif /* UZ_CORE_GROUP_H */
