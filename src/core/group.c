/*
 * group.c — group objects: creation, reference counting and handles.  The
 * set operations of MPI_Group_* build on these.
 */
#include <stdlib.h>

#include "base/runtime.h"
#include "core/group.h"
#include "core/session.h"

uz_group uz_group_empty = {
    .obj = { .magic = UZ_MAGIC_GROUP, .builtin = 1, .refcount = 1 },
    .size = 0,
    .my_rank = MPI_UNDEFINED,
};

uz_group *uz_group_get(MPI_Group h)
{
    if (uz_handle_is_predefined(h))
        return h == MPI_GROUP_EMPTY ? &uz_group_empty : NULL;
    return uz_object_check(h, UZ_MAGIC_GROUP);
}

MPI_Group uz_group_handle(uz_group *g)
{
    return g == &uz_group_empty ? MPI_GROUP_EMPTY : (MPI_Group)g;
}

uz_group *uz_group_new(int size, int *world_ranks)
{
    uz_group *g = uz_object_alloc(sizeof(*g));
    if (!g) {
        free(world_ranks);
        return NULL;
    }
    uz_object_init(&g->obj, UZ_MAGIC_GROUP);
    g->size = size;
    g->world_ranks = world_ranks;
    g->my_rank = MPI_UNDEFINED;
    int me = uz_rt.world_rank;
    for (int i = 0; i < size; i++) {
        if (uz_group_world_rank(g, i) == me) {
            g->my_rank = i;
            break;
        }
    }
    return g;
}

void uz_group_retain(uz_group *g)
{
    uz_object_retain(&g->obj);
}

void uz_group_release(uz_group *g)
{
    if (g && uz_object_release(&g->obj)) {
        free(g->world_ranks);
        uz_session_release(g->session);
        uz_object_free(g, sizeof(*g));
    }
}
