/*
 * host_offload.c — the host transport's collective offload, as collectives
 * see it (host_offload.h): looked up in the paths wire-up opened.
 */
#include "base/runtime.h"
#include "pt2pt/host_offload.h"
#include "pt2pt/path.h"

static const struct uz_path *host_path(void)
{
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->reach == UZ_REACH_HOST)
            return &uz_paths[i];
    return NULL;
}

const struct uz_coll_offload *uz_pt2pt_host_offload(void)
{
    const struct uz_path *host = host_path();
    return host ? host->ops->coll : NULL;
}

int uz_pt2pt_host_index(int world)
{
    if (world == uz_rt.world_rank)
        return uz_rt.local_rank;
    if (world >= uz_rt.world_size)          /* a process of another job, even when shm reaches it */
        return -1;
    const struct uz_peer *p = &uz_peers[world];
    return p->path && p->path->ops->reach == UZ_REACH_HOST ? p->addr : -1;
}

int uz_pt2pt_host_peers(void)
{
    const struct uz_path *host = host_path();
    return host ? host->peers : 0;
}
