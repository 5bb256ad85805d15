/*
 * protocol.h — the request layer's wire format: the header every message
 * record starts with, and the extensions some kinds carry.
 *
 * Eager messages carry their data; a message larger than the eager limit
 * goes by rendezvous: a request-to-send (RTS) carrying the size and, when
 * the transport can copy between processes, a bulk descriptor the receiver
 * pulls from; otherwise the receiver answers clear-to-send (CTS) and the
 * sender streams DATA records.  A synchronous send asks for an ACK when it
 * is matched.  Every field is written by a peer of the same job: the
 * receiver still checks sizes and cookies, so a corrupt record is an
 * error, never a wild write.
 */
#ifndef UZ_PT2PT_PROTOCOL_H
#define UZ_PT2PT_PROTOCOL_H

#include <stdint.h>

#include "transport/transport.h"

enum uz_msg_kind {
    UZ_MSG_EAGER = 1,       /* a whole message */
    UZ_MSG_EAGER_FIRST,     /* first piece of an eager message: + uz_ext_eager */
    UZ_MSG_EAGER_MORE,      /* next piece of the message begun just before on this pair */
    UZ_MSG_RTS,             /* rendezvous request: + uz_ext_rts */
    UZ_MSG_CTS,             /* receiver matched, send the data: + uz_ext_cts */
    UZ_MSG_DATA,            /* rendezvous data: + uz_ext_data */
    UZ_MSG_ACK,             /* synchronous send matched: + uz_ext_cookie */
    UZ_MSG_CANCEL,          /* sender withdraws an unmatched send: + uz_ext_cookie */
    UZ_MSG_CANCEL_REPLY,    /* + uz_ext_cancel_reply */
    UZ_MSG_KIND_LAST = UZ_MSG_CANCEL_REPLY,
};

enum {
    UZ_MSG_SYNC = 1,        /* the sender waits for an ACK (MPI_Ssend) */
    UZ_MSG_SYNC_EXT = 2,    /* an EAGER record carries uz_ext_cookie */
};

struct uz_msg_hdr {
    uint8_t kind;
    uint8_t flags;
    uint16_t reserved;
    int32_t tag;
    uint32_t context_id;
    int32_t src;            /* the sender's rank in the communicator */
};

/* A cookie names a request of the process that made it (see cookie.c). */
struct uz_ext_cookie {
    uint64_t cookie;
};

struct uz_ext_eager {       /* EAGER_FIRST */
    uint64_t size;          /* bytes of the whole message */
    uint64_t cookie;        /* sender's, for the ACK of a synchronous send */
};

/* What a rendezvous request offers besides CTS/DATA (uz_ext_rts.has_bulk). */
enum uz_rts_bulk {
    UZ_RTS_BULK_NONE = 0,
    UZ_RTS_BULK_RUNS = 1,   /* the sender's memory runs: the receiver may pull */
    UZ_RTS_BULK_PUSH = 2,   /* a staged sender: it pushes into the receiver's runs */
};

struct uz_ext_rts {
    uint64_t size;
    uint64_t cookie;        /* sender's request */
    uint32_t has_bulk;      /* enum uz_rts_bulk */
    struct uz_bulk_desc bulk;
};

struct uz_ext_cts {
    uint64_t send_cookie;   /* whose data */
    uint64_t recv_cookie;   /* where DATA records go */
    uint64_t bytes;         /* how many the receiver takes (less on truncation) */
};

struct uz_ext_data {
    uint64_t recv_cookie;
    uint64_t offset;
};

struct uz_ext_cancel_reply {
    uint64_t cookie;
    uint32_t cancelled;
};

/* Every header the request layer puts before a payload fits the room a
 * network transport keeps beside its record size. */
_Static_assert(sizeof(struct uz_msg_hdr) + sizeof(struct uz_ext_rts) <= UZ_RECORD_HEADER_ROOM &&
                   sizeof(struct uz_msg_hdr) + sizeof(struct uz_ext_eager) <= UZ_RECORD_HEADER_ROOM &&
                   sizeof(struct uz_msg_hdr) + sizeof(struct uz_ext_data) <= UZ_RECORD_HEADER_ROOM,
               "request-layer headers must fit UZ_RECORD_HEADER_ROOM");

#endif /* UZ_PT2PT_PROTOCOL_H */
