/*
 * uzura_ext.h — Uzura's own extensions beside the MPI standard: nothing
 * here is portable to another MPI.  Include it after mpi.h.
 *
 * Per-stage latency trace (UZURA_TRACE=stages, docs/performance.md
 * "Per-stage latency breakdown"): the library stamps each stage of a
 * message's path with the cycle counter into a per-process ring, which a
 * program reads with UZURA_Trace_stages.
 */
#ifndef UZURA_EXT_H
#define UZURA_EXT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stages, in the order a message passes them.  Sender side: */
enum {
    UZURA_STAGE_SEND_ENTRY = 1,     /* the request layer starts the send */
    UZURA_STAGE_SEND_ENQUEUED,      /* the transport published the message's first record (data or RTS) */
    UZURA_STAGE_SEND_DATA,          /* rendezvous by CTS/DATA: the transport published the last DATA record */
    UZURA_STAGE_SEND_COMPLETE,      /* the send request is complete */
    /* Receiver side: */
    UZURA_STAGE_RECV_ENTRY,         /* the receive that took the message was posted */
    UZURA_STAGE_ARRIVAL,            /* the transport saw the message's first record */
    UZURA_STAGE_MATCH,              /* the request layer matched it with the receive */
    UZURA_STAGE_COPY,               /* the last payload byte is in the receive buffer */
    UZURA_STAGE_RECV_COMPLETE,      /* the receive request is complete */
    UZURA_STAGE_LAST = UZURA_STAGE_RECV_COMPLETE
};

/* One stamp.  Messages are numbered from 1 in the order this process
 * started sending them (sender stages) or saw them arrive (receiver
 * stages): the two numberings are separate. */
typedef struct UZURA_Stage_record {
    uint64_t time;      /* cycle counter (rdtsc) on x86-64, else nanoseconds */
    uint32_t seq;       /* the message's number */
    int32_t tag;        /* its tag */
    int32_t peer;       /* the other side's rank in MPI_COMM_WORLD */
    uint16_t stage;     /* UZURA_STAGE_* */
    uint16_t reserved;
} UZURA_Stage_record;

/* Move up to `max` stamps, oldest first, into `out` and forget them;
 * *count says how many.  *ticks_per_us (may be NULL) is the counter's rate,
 * calibrated against CLOCK_MONOTONIC at MPI_Init.  Without UZURA_TRACE=stages
 * nothing is recorded and *count is 0.  The ring keeps the latest
 * UZURA_TRACE_RECORDS stamps.  Returns MPI_SUCCESS, or MPI_ERR_ARG. */
int UZURA_Trace_stages(UZURA_Stage_record *out, int max, int *count, double *ticks_per_us);

/* The stage's name ("send_entry", ...), or NULL for no stage. */
const char *UZURA_Trace_stage_name(int stage);

#ifdef __cplusplus
}
#endif

#endif /* UZURA_EXT_H */
