/*
 * stats.h — counters of what the request layer did, printed at
 * MPI_Finalize with UZURA_VERBOSE=2 (tests use them to show that a path,
 * such as the copy reduction, really ran).
 */
#ifndef UZ_PT2PT_STATS_H
#define UZ_PT2PT_STATS_H

struct uz_pt2pt_stats {
    unsigned long eager_sent;       /* messages sent eagerly */
    unsigned long rendezvous_sent;  /* messages sent by rendezvous */
    unsigned long bulk_pulls;       /* rendezvous received by one-copy pull */
    unsigned long cts_sent;         /* rendezvous received through the transport (CTS/DATA) */
    unsigned long unexpected;       /* messages queued before their receive */
    unsigned long copy_reduced;     /* unexpected eager messages finished straight into the user's buffer */
    unsigned long dropped;          /* malformed records dropped */
    unsigned long part_msgs;        /* partitioned-send data messages (core/p2p_partitioned.c) */
    unsigned long part_merged;      /* partitions that went in another partition's message */
};

extern struct uz_pt2pt_stats uz_pt2pt_stats;

/* Messages and payload bytes through each transport, by its index in
 * uz_transport_table (uz_peer.traffic), for MPI_T tools.  Counted where
 * the request layer already counts a message (an eager send that went out,
 * a send queued, a record that begins a message): a plain add beside one
 * that was there, no branch.  Kept across MPI_Finalize. */
enum { UZ_TRAFFIC_SLOTS = 8 };
struct uz_traffic {
    unsigned long msgs_sent, bytes_sent;
    unsigned long msgs_recv, bytes_recv;
};
extern struct uz_traffic uz_traffic[UZ_TRAFFIC_SLOTS];

/* Waiting (progress.c), counted only once a wait has polled long enough to
 * look at the clock, so a message that is already there costs nothing. */
struct uz_wait_stats {
    unsigned long sleeps;           /* times a waiting rank slept (futex or poll) */
    unsigned long sleep_timeouts;   /* futex sleeps that ran out their timeout unrung */
    long long idle_ns;              /* time spent waiting with nothing to progress, past the first polls */
};
extern struct uz_wait_stats uz_wait_stats;

void uz_pt2pt_stats_print(void);

#endif /* UZ_PT2PT_STATS_H */
