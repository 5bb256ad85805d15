/*
 * trace.h — where the request layer writes its per-stage stamps
 * (UZURA_TRACE=stages, base/trace_stages.h): one helper per stage, so that
 * send.c and recv.c carry one guarded line at each place.
 *
 * A message is numbered when its send starts (sender) and when its first
 * record arrives (receiver); the number travels in the request (and in the
 * unexpected entry while no receive has it), so every later stamp of that
 * message carries it.  Every helper is called only when tracing is on.
 */
#ifndef UZ_PT2PT_TRACE_H
#define UZ_PT2PT_TRACE_H

#include "base/trace_stages.h"
#include "pt2pt/match.h"
#include "pt2pt/request.h"

/* The number of a traced request, else 0: the global flag first, so that
 * with tracing off nothing of the request is read. */
static inline uint32_t uz_trace_of(const uz_request *r)
{
    return UZ_UNLIKELY(uz_trace_stages) ? r->trace_seq : 0;
}

/* A send starts: number it; the transport's next enqueue is its own. */
static inline uint32_t uz_trace_send_entry(int tag, int world)
{
    uint32_t seq = uz_trace_next_send();
    uz_trace_enqueued_at = 0;
    uz_trace_stamp(UZ_STAGE_SEND_ENTRY, uz_trace_now(), seq, tag, world);
    return seq;
}

/* The transport took the message's first record (or, `stage` ==
 * UZ_STAGE_SEND_DATA, its last DATA record). */
static inline void uz_trace_send_out(enum uz_stage stage, uint32_t seq, int tag, int world)
{
    uz_trace_stamp(stage, uz_trace_take(&uz_trace_enqueued_at), seq, tag, world);
}

static inline void uz_trace_send_done(uint32_t seq, int tag, int world)
{
    uz_trace_stamp(UZ_STAGE_SEND_COMPLETE, uz_trace_now(), seq, tag, world);
}

/* A message's first record is in: number it. */
static inline uint32_t uz_trace_arrival(int tag, int src_world)
{
    uint32_t seq = uz_trace_next_recv();
    uz_trace_stamp(UZ_STAGE_ARRIVAL, uz_trace_take(&uz_trace_arrived_at), seq, tag, src_world);
    return seq;
}

/* Receive `r` took message `seq` (tag, src_world): when it was posted, and now. */
static inline void uz_trace_match(uz_request *r, uint32_t seq, int tag, int src_world)
{
    uint64_t now = uz_trace_now();
    r->trace_seq = seq;
    uz_trace_stamp(UZ_STAGE_RECV_ENTRY, r->trace_posted && r->trace_posted < now ? r->trace_posted : now,
                   seq, tag, src_world);
    uz_trace_stamp(UZ_STAGE_MATCH, now, seq, tag, src_world);
}

#endif /* UZ_PT2PT_TRACE_H */
