/*
 * path_rma.c — one-copy put and get of byte runs to a peer, for one-sided
 * operations (path.h): the transport's put/get where it has them and they
 * work between us (caps.has_put_get), else -ENOTSUP so that the caller
 * (src/rma/, issue 24) sends the bytes in records instead.  DESIGN.md:
 * "src/rma/ decides, per operation, which".
 */
#include <errno.h>

#include "base/runtime.h"
#include "pt2pt/path.h"

static const struct uz_path *usable_path(int world, int is_put)
{
    if (world < 0 || world >= uz_rt.world_size)
        return NULL;
    const struct uz_peer *p = &uz_peers[world];
    if (!p->path || !p->path->caps.has_put_get)
        return NULL;
    return (is_put ? p->path->ops->put : p->path->ops->get) ? p->path : NULL;
}

int uz_path_put(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                struct uz_rma_completion *comp)
{
    const struct uz_path *path = usable_path(world, 1);
    if (!path)
        return -ENOTSUP;
    if (uz_peers[world].failed)
        return uz_peers[world].failed;
    return path->ops->put(uz_peers[world].addr, local, nlocal, remote, nremote, comp);
}

int uz_path_get(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                struct uz_rma_completion *comp)
{
    const struct uz_path *path = usable_path(world, 0);
    if (!path)
        return -ENOTSUP;
    if (uz_peers[world].failed)
        return uz_peers[world].failed;
    return path->ops->get(uz_peers[world].addr, local, nlocal, remote, nremote, comp);
}

int uz_path_can_get(int world)
{
    return usable_path(world, 0) != NULL && !uz_peers[world].failed;
}
