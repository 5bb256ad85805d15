/*
 * tool_events.h — where the layers below the tools interface announce the
 * events an MPI_T tool may watch (src/mpit/events.c registers the tools).
 *
 * An event costs nothing while no tool watches it: the place where it
 * happens loads one counter of watchers and branches.  Every event sits
 * on a path that is slow anyway (a message queued unexpected, a rendezvous,
 * a dead peer, a retransmission), never on the eager fast path.  The tools
 * layer sits above every other, so the announcement goes through a
 * function pointer it installs rather than a call upward.
 */
#ifndef UZ_BASE_TOOL_EVENTS_H
#define UZ_BASE_TOOL_EVENTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/compiler.h"

/* The events, each with up to UZ_TOOL_EVENT_ELEMENTS 64-bit elements
 * (their names and meaning are in src/mpit/event_table.c). */
enum uz_tool_event {
    UZ_TOOL_EVENT_UNEXPECTED,       /* {source rank in the communicator, tag, bytes, context id} */
    UZ_TOOL_EVENT_RENDEZVOUS,       /* {destination world rank, tag, bytes} */
    UZ_TOOL_EVENT_PEER_DEAD,        /* {world rank, MPI error class} */
    UZ_TOOL_EVENT_UDP_RETRANSMIT,   /* {peer world rank, datagrams sent again} */
    UZ_TOOL_EVENTS
};
enum { UZ_TOOL_EVENT_ELEMENTS = 4 };

/* How many tool registrations watch each event. */
extern atomic_int uz_tool_event_watchers[UZ_TOOL_EVENTS];

/* The tools layer's receiver of events, installed with the first watcher. */
typedef void (*uz_tool_event_sink)(enum uz_tool_event ev, const int64_t *elements);
extern _Atomic(uz_tool_event_sink) uz_tool_event_sink_fn;

void uz_tool_event_deliver(enum uz_tool_event ev, const int64_t *elements) UZ_COLD;

static inline void uz_tool_event(enum uz_tool_event ev, int64_t e0, int64_t e1, int64_t e2, int64_t e3)
{
    if (UZ_UNLIKELY(atomic_load_explicit(&uz_tool_event_watchers[ev], memory_order_relaxed) > 0)) {
        const int64_t elements[UZ_TOOL_EVENT_ELEMENTS] = { e0, e1, e2, e3 };
        uz_tool_event_deliver(ev, elements);
    }
}

#endif /* UZ_BASE_TOOL_EVENTS_H */
