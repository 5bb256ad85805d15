/*
 * match.h — matching receives with messages: the posted-receive queues and
 * the unexpected-message queues (YAMPII §2.3).
 *
 * Both are kept per (context, source), so the common case — a known source
 * and tag — looks at one short list.  Receives posted with MPI_ANY_SOURCE
 * wait in a list of their own per context; a message is matched to the
 * earliest-posted receive of the two lists.  Unexpected messages are also
 * threaded on one arrival-ordered list per context, which is what an
 * MPI_ANY_SOURCE receive searches.
 */
#ifndef UZ_PT2PT_MATCH_H
#define UZ_PT2PT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "pt2pt/request.h"
#include "transport/transport.h"

/* A message that arrived (or began arriving) before its receive. */
struct uz_unexpected {
    struct uz_unexpected *next_src, *prev_src;  /* on its (context, source) list */
    struct uz_unexpected *next_all, *prev_all;  /* on its context's arrival list */
    uint32_t context_id;
    int32_t src;                /* rank in the communicator */
    int32_t tag;
    int src_world;
    uint8_t kind;               /* UZ_MSG_EAGER (data here) or UZ_MSG_RTS */
    uint8_t flags;              /* UZ_MSG_SYNC */
    uint8_t queued;             /* still on the queues (not probed away by MPI_Mprobe) */
    uint8_t has_bulk;
    int8_t data_class;          /* `data`'s size class in the payload pool, -1: none (match.c) */
    uint32_t trace_seq;         /* UZURA_TRACE=stages: its number, 0 when not traced */
    size_t size;                /* bytes of the whole message */
    size_t arrived;             /* eager bytes received so far */
    uint64_t cookie;            /* sender's (synchronous ACK or rendezvous) */
    struct uz_bulk_desc bulk;
    /* Set when a receive took this message while it was still arriving:
     * the rest of its pieces go straight to that receive's buffer. */
    uz_request *claimed;
    unsigned char *data;        /* eager bytes (points at `small` when they fit) */
    unsigned char small[64];
};

struct uz_unexpected *uz_unexpected_new(size_t data_bytes);
void uz_unexpected_free(struct uz_unexpected *u);

/* Append an arrived message to its queues. */
void uz_unexpected_enqueue(struct uz_unexpected *u);
/* Take a queued message off its queues. */
void uz_unexpected_dequeue(struct uz_unexpected *u);

/* Earliest unexpected message matching (context, src, tag); src and tag may
 * be wildcards.  Not removed. */
struct uz_unexpected *uz_unexpected_find(uint32_t context_id, int src, int tag);

/* The queued message from (context, src) whose sender cookie is `cookie`. */
struct uz_unexpected *uz_unexpected_find_cookie(uint32_t context_id, int src, uint64_t cookie);

/* Queue a receive (the unexpected queues were searched first). */
void uz_posted_enqueue(uz_request *req);
/* Remove and return the earliest posted receive matching a message. */
uz_request *uz_posted_match(uint32_t context_id, int src, int tag);
/* Remove a posted receive (MPI_Cancel); returns 1 if it was queued. */
int uz_posted_remove(uz_request *req);

/* Remove every posted receive for which keep(req, arg) is false, calling
 * fail(req) on each. */
void uz_posted_filter(int (*keep)(uz_request *req, void *arg), void *arg, void (*fail)(uz_request *req));

void uz_match_finalize(void);

/* For MPI_T tools (src/mpit/), called with the library lock held: messages
 * queued unexpected now and at most so far, and receives posted (posted != 0)
 * or messages queued unexpected on one context (or on all), counted. */
long uz_unexpected_queued(void);
long uz_unexpected_high_water(void);
long uz_match_queued_on(uint32_t context_id, int all_contexts, int posted);

#endif /* UZ_PT2PT_MATCH_H */
