/*
 * tool_events.c — the watcher counts of the events announced through
 * tool_events.h, and the hand-over to the tools layer's sink.
 */
#include "base/tool_events.h"

atomic_int uz_tool_event_watchers[UZ_TOOL_EVENTS];
_Atomic(uz_tool_event_sink) uz_tool_event_sink_fn;

void uz_tool_event_deliver(enum uz_tool_event ev, const int64_t *elements)
{
    uz_tool_event_sink sink = atomic_load_explicit(&uz_tool_event_sink_fn, memory_order_acquire);
    if (sink)
        sink(ev, elements);
}
