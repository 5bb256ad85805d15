/*
 * eager_limit.h — the eager limit to ranks on this host, as one rule that
 * the request layer (pt2pt_init.c) and the collectives' policy
 * (coll_policy.c, which uzura_info compiles in alone) both follow.
 */
#ifndef UZ_PT2PT_EAGER_LIMIT_H
#define UZ_PT2PT_EAGER_LIMIT_H

#include <stddef.h>

#include "base/params.h"

/* UZURA_EAGER_LIMIT=0 (the default).  With a core per rank the ring's two
 * copies beat the rendezvous up to 64 KiB (2026-12-08, np 2: ping-pong
 * 32 KiB 1.9-2.0 us against 4.1, 64 KiB 3.4-3.8 against 5.4; Gather,
 * Bcast, Exscan 32-64 KiB 0.24-0.68 x their time).  With ranks sharing
 * processors a receiver drains its ring only while it runs, and the
 * collectives there were tuned with 16 KiB, so that stays. */
enum { UZ_HOST_EAGER_OWN_CORES = 64 * 1024, UZ_HOST_EAGER_SHARED_CORES = 16 * 1024 };

/* For a host whose ranks share processors (oversubscribed) or not. */
static inline size_t uz_host_eager_limit(int oversubscribed)
{
    if (uz_config.eager_limit)
        return uz_config.eager_limit;
    return oversubscribed ? UZ_HOST_EAGER_SHARED_CORES : UZ_HOST_EAGER_OWN_CORES;
}

#endif
