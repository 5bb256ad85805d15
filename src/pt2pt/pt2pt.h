/*
 * pt2pt.h — the request layer's interface to the MPI core, collectives and
 * one-sided operations: start sends and receives on an explicit context,
 * wait for requests, drive progress.
 *
 * The MPI procedures (MPI_Send, MPI_Irecv, ...) are thin wrappers over
 * these; collectives call them with the communicator's collective context
 * (context_id + 1) so their traffic never matches user receives.
 */
#ifndef UZ_PT2PT_PT2PT_H
#define UZ_PT2PT_PT2PT_H

#include <stddef.h>

#include "pt2pt/p2p_comm.h"
#include "pt2pt/request.h"
#include "pt2pt/status.h"
#include "transport/transport.h"

struct uz_path;

/* What the request layer keeps per world rank: how it is reached (path.h),
 * the protocol state of messages to and from it. */
struct uz_peer {
    /* The transport that reaches it, its send() first: the hot path reads
     * nothing else (path.h). */
    int (*send)(int addr, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
    int addr;                           /* the peer as its transport names it */
    int failed;                         /* error code once the peer is known dead, else 0 */
    size_t eager_single;                /* payload of one eager record */
    size_t eager_limit;                 /* largest message sent eagerly */
    size_t max_record;                  /* header + payload of one record */
    const struct uz_path *path;         /* the transport and its caps */
    uint8_t has_bulk;                   /* one-copy bulk transfers to and from it */
    uint8_t lends;                      /* its transport keeps sent bytes: lend eager buffers */
    uint8_t traffic;                    /* its transport's uz_traffic slot (stats.h) */
    /* Records waiting to go out, in order (sends and control records). */
    uz_request *sendq_head, *sendq_tail;
    int in_flush_list;
    /* An eager message whose pieces are still arriving from this peer:
     * either straight into a matched receive or into an unexpected entry. */
    uz_request *rx_req;
    struct uz_unexpected *rx_unexp;
    size_t rx_discard;                  /* bytes to drop (truncated receive) */
    /* The receive an eager record from this peer was matched to when its
     * header arrived (uz_pt2pt_place), before the rest of it. */
    uz_request *rx_matched;
};

extern struct uz_peer *uz_peers;        /* indexed by world rank */

int uz_pt2pt_init(const struct uz_pt2pt_comm_refs *refs);
int uz_pt2pt_finalize(void);

/* What wire-up chose, for UZURA_VERBOSE (pt2pt_describe.c): each writes one
 * sentence and returns 0, or returns -1 when there is nothing to say. */
int uz_pt2pt_num_hosts(void);
/* The host of a world rank, numbered as uz_rt.node_id numbers this one's. */
int uz_pt2pt_host_of(int world_rank);
int uz_pt2pt_describe_transports(char *buf, size_t len);
int uz_pt2pt_describe_network(int i, char *buf, size_t len);   /* the i-th network, from 0 */
int uz_pt2pt_describe_large_messages(char *buf, size_t len);
int uz_pt2pt_describe_eager(char *buf, size_t len);
/* This host has more ranks than processors (known once wired up). */
int uz_pt2pt_host_oversubscribed(void);

/* Start a send of (buf, count, datatype) to rank `dest` of the
 * communicator `pc`, on its context.  When `out` is NULL the call blocks
 * until the send is complete (MPI_Send); otherwise *out receives a request. */
int uz_pt2pt_send(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                  const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out);

/* A nonblocking send as uz_pt2pt_send with `out`, except that a message
 * that went out at once leaves *out NULL: complete, with no request to
 * release (a collective schedule's small sends, which would otherwise make
 * and free a completed request each). */
int uz_pt2pt_send_quick(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                        const struct uz_p2p_comm *pc, enum uz_send_mode mode, uz_request **out);

/* Start a receive.  When `out` is NULL the call blocks and fills `status`
 * (which may be MPI_STATUS_IGNORE); the return value is then the error of
 * the receive (MPI_ERR_TRUNCATE included). */
int uz_pt2pt_recv(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                  const struct uz_p2p_comm *pc, MPI_Status *status, uz_request **out);

/* A nonblocking receive as uz_pt2pt_recv with `out`, except that a message
 * from a named source and tag whose bytes are all here already is taken at
 * once: *out NULL, `status` (or MPI_STATUS_IGNORE) filled, and the
 * receive's error (MPI_ERR_TRUNCATE) returned (a collective schedule's
 * receives of messages its peers sent ahead). */
int uz_pt2pt_recv_quick(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                        const struct uz_p2p_comm *pc, MPI_Status *status, uz_request **out);

/* A nonblocking receive from a named source whose hooks (request.h) are
 * in place before it is posted, so they run even for a message that is
 * already here: on_match when it is matched to a message, on_complete when
 * it completes (both may run before this returns; *out is set first). */
struct uz_recv_hooks {
    void (*on_match)(uz_request *r);
    void (*on_complete)(uz_request *r);
    void *arg;
};
int uz_pt2pt_recv_hooked(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                         const struct uz_p2p_comm *pc, const struct uz_recv_hooks *hooks, uz_request **out);

/* A nonblocking receive whose bytes the caller reads as soon as they land
 * (a collective's reduction step): a one-copy transfer is then copied by
 * this process alone, so the bytes arrive in its own cache rather than
 * written by the sender's core (reduce of 32-256 KiB between two ranks
 * measured 1.5-2x faster that way). */
int uz_pt2pt_recv_to_read(void *buf, MPI_Count count, uz_datatype *dt, int source, int tag,
                          const struct uz_p2p_comm *pc, uz_request **out);

/* Receive a message taken off the queues by MPI_Mprobe/MPI_Improbe. */
int uz_pt2pt_mrecv(void *buf, MPI_Count count, uz_datatype *dt, struct uz_unexpected *msg,
                   uz_comm *comm, MPI_Status *status, uz_request **out);

/* Look for a matching message without receiving it.  When `take` is set
 * the message is removed from the queues and returned in *msg. */
int uz_pt2pt_probe(int source, int tag, uint32_t context_id, int blocking,
                   int *flag, MPI_Status *status, int take, struct uz_unexpected **msg);

/* A transport found `world` dead: fail what waits on it, and make later
 * sends to it fail with `error`. */
void uz_pt2pt_peer_failed(int world, int error);

/* Cancel a pending send or receive; MPI error code. */
int uz_pt2pt_cancel(uz_request *req);

/* Drive every transport once; returns the number of events handled. */
int uz_progress(void);

/* Wait until done(arg) is true, progressing and, when nothing happens for
 * a while, yielding the core and then sleeping until a peer wakes us. */
void uz_progress_wait(int (*done)(void *arg), void *arg);
/* Sleep (bounded) until done(arg), a local peer's doorbell or, when some
 * peer is across the network, a packet from it: for waits of their own
 * (collectives) that must not miss network traffic while asleep. */
void uz_progress_sleep(int (*done)(void *arg), void *arg, long timeout_ns);
/* How long a waiting rank polls before yielding (UZURA_WAIT_SPIN_US). */
long uz_progress_spin_ns(void);
/* How long a waiting rank yields after spinning before it sleeps
 * (UZURA_WAIT_YIELD_US; 200 us with more ranks than cores). */
long uz_progress_yield_ns(void);
/* How a waiting rank spends its time and why, one sentence (UZURA_VERBOSE). */
void uz_progress_describe(char *buf, size_t len);

/* Sleeping is safe now: whatever is awaited will ring this rank's doorbell
 * (no records queued behind a full ring, no other thread that may finish
 * the work without ringing, a transport with a doorbell). */
int uz_progress_can_sleep(void);

/* Work outside the progress engine that completes requests without ringing
 * a doorbell (the I/O thread of src/io/) holds the rank awake while such a
 * request is pending: waiting then polls and yields instead of sleeping. */
void uz_progress_hold_awake(int delta);

/* Wait for one request to complete (does not free it). */
void uz_request_wait(uz_request *req);

/* Requests other than point-to-point that need polling (collective
 * schedules): registered while incomplete. */
void uz_progress_register(uz_request *req);
void uz_progress_unregister(uz_request *req);

/* Fill `status` from a completed request (MPI_STATUS_IGNORE allowed) for
 * a call that returns one status: its MPI_ERROR stays the user's (status.h);
 * the calls returning several set it themselves. */
static inline void uz_request_copy_status(const uz_request *req, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        uz_status_copy_out(status, &req->status);
}

#endif /* UZ_PT2PT_PT2PT_H */
