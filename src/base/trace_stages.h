/*
 * trace_stages.h — per-stage latency stamps (UZURA_TRACE=stages): each
 * stage of a message's path (include/uzura_ext.h lists them) stamped with
 * the cycle counter into a per-process ring that UZURA_Trace_stages reads.
 *
 * Off, a stamp costs one load of uz_trace_stages and a branch predicted
 * not taken; nothing else on the fast path changes.  Transports cannot name
 * a message (they do not read the request layer's header), so they only
 * note the time of the moment they see (uz_trace_arrived: a record came
 * in) or publish (uz_trace_enqueued: a record went out); the request layer,
 * which knows the message, writes the stamp with that time right after.
 * A transport without the hooks (self, ofi) gets the request layer's own
 * time instead.  Stamps are written under the library's lock, like
 * everything on these paths.
 */
#ifndef UZ_BASE_TRACE_STAGES_H
#define UZ_BASE_TRACE_STAGES_H

#include <stdint.h>
#include <time.h>

#include "base/compiler.h"
#include <uzura_ext.h>

enum uz_stage {
    UZ_STAGE_SEND_ENTRY = UZURA_STAGE_SEND_ENTRY,
    UZ_STAGE_SEND_ENQUEUED = UZURA_STAGE_SEND_ENQUEUED,
    UZ_STAGE_SEND_DATA = UZURA_STAGE_SEND_DATA,
    UZ_STAGE_SEND_COMPLETE = UZURA_STAGE_SEND_COMPLETE,
    UZ_STAGE_RECV_ENTRY = UZURA_STAGE_RECV_ENTRY,
    UZ_STAGE_ARRIVAL = UZURA_STAGE_ARRIVAL,
    UZ_STAGE_MATCH = UZURA_STAGE_MATCH,
    UZ_STAGE_COPY = UZURA_STAGE_COPY,
    UZ_STAGE_RECV_COMPLETE = UZURA_STAGE_RECV_COMPLETE,
};

/* Nonzero while stamps are taken (UZURA_TRACE=stages). */
extern int uz_trace_stages;
/* The times a transport noted last (0: none since the request layer took it). */
extern uint64_t uz_trace_enqueued_at, uz_trace_arrived_at;

/* The counter: rdtsc where there is one (constant-rate on every x86-64 CPU
 * of the last decade; trace_stages.c measures its rate), else
 * CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t uz_trace_now(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Transport hooks: a record of some message was just published / seen. */
static inline void uz_trace_enqueued(void)
{
    if (UZ_UNLIKELY(uz_trace_stages))
        uz_trace_enqueued_at = uz_trace_now();
}

static inline void uz_trace_arrived(void)
{
    if (UZ_UNLIKELY(uz_trace_stages))
        uz_trace_arrived_at = uz_trace_now();
}

/* Append one stamp (the ring keeps the latest UZURA_TRACE_RECORDS). */
void uz_trace_stamp(enum uz_stage stage, uint64_t time, uint32_t seq, int tag, int peer_world);

/* The time a transport noted for the record just handled, and forget it;
 * now when it noted none. */
static inline uint64_t uz_trace_take(uint64_t *noted)
{
    uint64_t t = *noted;
    *noted = 0;
    return t ? t : uz_trace_now();
}

/* Number the next message this process sends / sees arrive. */
uint32_t uz_trace_next_send(void);
uint32_t uz_trace_next_recv(void);

/* MPI_Init (after the tunables are read) and MPI_Finalize.  MPI error code. */
int uz_trace_stages_init(void);
void uz_trace_stages_finalize(void);

#endif /* UZ_BASE_TRACE_STAGES_H */
