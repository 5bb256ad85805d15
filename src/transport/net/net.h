/*
 * net.h — what the network transports (tcp, udp) share: the job's key,
 * the local addresses to publish, and the counters of what they refused.
 *
 * A network transport has the same contract as every other
 * (transport.h): it carries records (request-layer header + payload) to a
 * peer in order, and hands each arriving record up.  Peers are named by
 * world rank.
 *
 * Start-up: each network opens its endpoint and describes it in a card (a
 * short "name=value"-safe text the wire-up publishes through PMI); it
 * reads a peer's card lazily, on first use (uz_transport_setup.read_card).
 * Every network transport must drop, and count, anything that does not
 * carry the job's key (uz_transport_setup.job_key).
 */
#ifndef UZ_TRANSPORT_NET_NET_H
#define UZ_TRANSPORT_NET_NET_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

/* Usable local IPv4 addresses, as "a.b.c.d" strings, loopback last (only
 * peers on this host may use it); UZURA_NET_IF restricts them. */
enum { UZ_NET_ADDRS_MAX = 16 };
struct uz_net_addrs {
    int n;
    char addr[UZ_NET_ADDRS_MAX][64];
    int loopback_index;                 /* index of the loopback entry, or -1 */
};
void uz_net_local_addresses(struct uz_net_addrs *a);

/* Counters of things dropped for lack of the job key or for being malformed. */
struct uz_net_stats {
    unsigned long rejected_connections;
    unsigned long rejected_datagrams;
    unsigned long malformed;
};
extern struct uz_net_stats uz_net_stats;

#endif /* UZ_TRANSPORT_NET_NET_H */
