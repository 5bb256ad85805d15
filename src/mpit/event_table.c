/*
 * event_table.c — the MPI_T event types: one row per event of
 * base/tool_events.h, in its order, with the names of its elements.  Every
 * element is a 64-bit integer, laid out one after another, so that
 * MPI_T_event_copy hands a tool the whole record as an int64_t array.
 */
#include <stddef.h>

#include "base/tool_events.h"
#include "mpit/mpit.h"

struct event_type {
    const char *name;
    const char *help;
    const char *category;
    int nelements;
    const char *elements[UZ_TOOL_EVENT_ELEMENTS];
};

static const struct event_type types[UZ_TOOL_EVENTS] = {
    [UZ_TOOL_EVENT_UNEXPECTED] = {
        "unexpected_message_arrived",
        "A message arrived before a receive matched it and was queued: source rank in its communicator, tag, "
        "bytes, context id",
        "pt2pt", 4, { "source", "tag", "bytes", "context_id" } },
    [UZ_TOOL_EVENT_RENDEZVOUS] = {
        "rendezvous_started",
        "A send began a rendezvous (the receiver will fetch or ask for the payload): destination world rank, "
        "tag, bytes",
        "pt2pt", 3, { "destination", "tag", "bytes" } },
    [UZ_TOOL_EVENT_PEER_DEAD] = {
        "peer_declared_dead",
        "A transport declared a peer dead; communication with it fails from now on: world rank, MPI error class",
        "pt2pt", 2, { "world_rank", "error_class" } },
    [UZ_TOOL_EVENT_UDP_RETRANSMIT] = {
        "udp_retransmit",
        "The udp transport went back to resend datagrams (after LOST or a timeout): peer world rank, datagrams",
        "udp", 2, { "world_rank", "datagrams" } },
};

int uz_mpit_event_count(void)
{
    return UZ_TOOL_EVENTS;
}

const char *uz_mpit_event_name(int index)
{
    return types[index].name;
}

const char *uz_mpit_event_help(int index)
{
    return types[index].help;
}

int uz_mpit_event_elements(int index)
{
    return types[index].nelements;
}

const char *uz_mpit_event_element_name(int index, int element)
{
    return types[index].elements[element];
}

int uz_mpit_event_category(int index)
{
    return uz_mpit_category_of(types[index].category, "");
}
