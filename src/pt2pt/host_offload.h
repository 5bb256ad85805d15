/*
 * host_offload.h — what collectives may ask the request layer about this
 * host's ranks: which of them the host transport reaches, and that
 * transport's collective offload (shared areas and doorbells,
 * uz_coll_offload in transport/transport.h).  Collectives use these
 * instead of a transport's own headers.
 */
#ifndef UZ_PT2PT_HOST_OFFLOAD_H
#define UZ_PT2PT_HOST_OFFLOAD_H

#include "transport/transport.h"

/* The open host transport's collective offload, or NULL. */
const struct uz_coll_offload *uz_pt2pt_host_offload(void);

/* `world`'s index on this host as the host transport names it (this rank's
 * own when `world` is this rank), or -1 when the host transport does not
 * reach it. */
int uz_pt2pt_host_index(int world);

/* How many other ranks the host transport reaches. */
int uz_pt2pt_host_peers(void);

#endif /* UZ_PT2PT_HOST_OFFLOAD_H */
