/*
 * net.h — what network transports (tcp, udp) share, and the interface the
 * request layer drives them through.
 *
 * A network transport has the same contract as the shm transport: it
 * carries records (request-layer header + payload) to a peer in order, and
 * hands each arriving record to the request layer's handler.  Payload comes
 * from a contiguous buffer or a packer, so nothing is staged that need not
 * be.  Peers are named by world rank.
 *
 * Start-up: each transport opens its endpoint and describes it in this
 * rank's business card (a short "name=value" text published through PMI);
 * after the card exchange it learns each peer's card lazily, on first use.
 * Every transport must drop, and count, anything that does not carry the
 * job's key (uz_net_job_key).
 */
#ifndef UZ_TRANSPORT_NET_NET_H
#define UZ_TRANSPORT_NET_NET_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

enum { UZ_NET_KEY_BYTES = 16, UZ_NET_CARD_MAX = 900 };

/* What a transport is given at start-up. */
struct uz_net_setup {
    int world_rank;
    int world_size;
    int node_id;
    const uint8_t *job_key;             /* UZ_NET_KEY_BYTES, same on every rank */
    /* Usable local addresses, as "a.b.c.d" strings, loopback last (only
     * peers on this node may use it).  UZURA_NET_IF restricts them. */
    int naddrs;
    char (*addrs)[64];
    int loopback_index;                 /* index of the loopback entry, or -1 */
};

/* Another rank's published card for this transport, and its node. */
struct uz_net_peer_card {
    int node_id;
    const char *value;                  /* this transport's part of the card */
};

struct uz_net_ops {
    const char *name;                   /* "tcp", "udp": the card key and UZURA_NET value */
    /* Keeps what it sent until the peer acknowledges it (udp), so that a
     * sender lending it the buffer (uz_payload.hold) saves a copy; a
     * transport that hands bytes to the kernel and forgets them (tcp)
     * gains nothing from a loan. */
    int keeps_sent_bytes;
    /* Open the endpoint; write this rank's card value (no spaces, no ';'). */
    int (*open)(const struct uz_net_setup *setup, char *card, size_t cardlen);
    /* Give the transport a way to read a peer's card when it first needs it. */
    void (*set_card_reader)(int (*read)(int world, struct uz_net_peer_card *card));
    /* As uz_shm_send: 0 written, -EAGAIN no room now, else an MPI error code. */
    int (*send)(int world, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
    /* Handle arrivals and retransmissions; returns events handled. */
    int (*progress)(uz_recv_handler handler);
    /* Descriptors to wait on while sleeping; returns how many were written.
     * *timeout_ms is lowered if the transport needs to run again by then
     * (retransmission timers). */
    int (*pollfds)(struct pollfd *fds, int max, int *timeout_ms);
    /* Bytes of one record the transport accepts at once. */
    size_t (*max_record)(void);
    /* A peer is dead (the transport gave up on it): MPI error code or 0. */
    int (*peer_error)(int world);
    /* Optional: MPI_Finalize is about to enter its last fence, after which
     * the request layer calls nothing until close().  A transport that
     * still owes peers retransmissions or ACKs (udp: the kernel keeps no
     * copy) keeps its protocol running until close(). */
    void (*linger)(void);
    void (*close)(void);
    /* Optional: one sentence on how the endpoint was set up, naming any
     * fallback taken and why, for UZURA_VERBOSE (after open). */
    void (*describe)(char *buf, size_t len);
};

extern const struct uz_net_ops uz_tcp_ops;
extern const struct uz_net_ops uz_udp_ops;

/* The job's key (from mpiexec's UZURA_JOB_KEY, or agreed through PMI). */
extern uint8_t uz_net_job_key[UZ_NET_KEY_BYTES];

/* Usable local IPv4 addresses (UZURA_NET_IF restricts them); loopback last. */
int uz_net_local_addresses(char (*addrs)[64], int max, int *loopback_index);

/* Counters of things dropped for lack of the job key or for being malformed. */
struct uz_net_stats {
    unsigned long rejected_connections;
    unsigned long rejected_datagrams;
    unsigned long malformed;
};
extern struct uz_net_stats uz_net_stats;

#endif /* UZ_TRANSPORT_NET_NET_H */
