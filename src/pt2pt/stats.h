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
};

extern struct uz_pt2pt_stats uz_pt2pt_stats;

void uz_pt2pt_stats_print(void);

#endif /* UZ_PT2PT_STATS_H */
