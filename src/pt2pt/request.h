/*
 * request.h — request objects: one per nonblocking operation, and for
 * blocking ones that cannot finish at once.
 *
 * The request layer keeps point-to-point state here (which protocol phase a
 * send is in, how many bytes a receive has); other layers (collectives,
 * generalized requests, persistent operations) attach behaviour through the
 * `ops` table, so that MPI_Wait and friends treat every request alike.
 */
#ifndef UZ_PT2PT_REQUEST_H
#define UZ_PT2PT_REQUEST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "base/object.h"
#include "datatype/datatype.h"
#include "transport/transport.h"

struct uz_unexpected;
struct uz_dt_cursor;

enum uz_request_kind {
    UZ_REQ_SEND,
    UZ_REQ_RECV,
    UZ_REQ_PERSISTENT,      /* an inactive or started MPI_*_init request */
    UZ_REQ_OTHER,           /* collectives, generalized requests: see ops */
};

enum uz_send_mode {
    UZ_SEND_STANDARD,
    UZ_SEND_SYNC,
    UZ_SEND_READY,
    UZ_SEND_BUFFERED,
};

/* Send progress phases. */
enum uz_send_phase {
    UZ_SEND_QUEUED,         /* waiting behind earlier records to this peer */
    UZ_SEND_EAGER,          /* injecting eager pieces */
    UZ_SEND_WAIT_ACK,       /* all out; synchronous send waits to be matched */
    UZ_SEND_RTS,            /* rendezvous request not sent yet */
    UZ_SEND_WAIT_CTS,       /* waiting for the receiver (or its bulk pull) */
    UZ_SEND_DATA,           /* streaming DATA after CTS */
    UZ_SEND_WAIT_NET,       /* all DATA out; a network transport still reads the buffer */
    UZ_SEND_CONTROL,        /* an internal control record waiting to go out */
    UZ_SEND_DONE,
};

struct MPI_ABI_Request;

/* Behaviour of non-point-to-point requests. */
struct uz_request_ops {
    /* Make progress; called from the progress engine while incomplete. */
    int (*poll)(struct MPI_ABI_Request *req);
    /* MPI_Cancel; returns an MPI error code. */
    int (*cancel)(struct MPI_ABI_Request *req);
    /* Release resources when the request object dies. */
    void (*destroy)(struct MPI_ABI_Request *req);
    /* Persistent: start another round (MPI_Start). */
    int (*start)(struct MPI_ABI_Request *req);
    /* Fill req->status just before a complete request's status is handed
     * to the user (generalized requests ask the program); returns the
     * operation's error code. */
    int (*query)(struct MPI_ABI_Request *req);
    /* The user's handle is retired by MPI_Wait/Test and friends; returns
     * an error code to report there (generalized requests' free_fn). */
    int (*retire)(struct MPI_ABI_Request *req);
};

typedef struct MPI_ABI_Request {
    struct uz_object obj;
    uint8_t kind;               /* enum uz_request_kind */
    uint8_t send_mode;          /* enum uz_send_mode */
    uint8_t phase;              /* enum uz_send_phase */
    uint8_t user_freed;         /* MPI_Request_free on an active request */
    atomic_int complete;
    int active;                 /* persistent: started and not yet completed */
    MPI_Status status;          /* valid once complete */
    /* This process's rank in comm, the source its records carry; in the
     * hole after status, so that the fields below keep their cache lines. */
    int my_rank;

    uz_comm *comm;              /* retained while the request lives (opaque here) */
    uint32_t context_id;
    int peer;                   /* dest or source rank in comm (may be a wildcard) */
    int tag;
    int peer_world;             /* world rank of peer (sends; receives naming a source) */

    /* The user's buffer. */
    void *buf;
    MPI_Count count;
    uz_datatype *datatype;      /* retained */
    size_t bytes;               /* send: message size; receive: capacity */
    unsigned char *contig;      /* start of the bytes when contiguous, else NULL */
    struct uz_dt_cursor *cursor;/* non-contiguous: position in the layout */

    uint64_t cookie;            /* names this request to peers (0: none) */
    uint64_t post_seq;          /* receives: order of posting, for wildcard matching */

    /* Send state.  Two of its words are free in a receive, which keeps
     * there what only receives need: a request fits in five cache lines
     * (320 bytes; the arena rounds to 64), which the allocation clears. */
    size_t sent;                /* payload bytes injected */
    union {
        size_t send_limit;      /* send: bytes the receiver takes (rendezvous) */
        /* Receive, UZURA_TRACE=stages (pt2pt/trace.h): when it was posted. */
        uint64_t trace_posted;
    };
    union {
        uint64_t peer_cookie;   /* send: receiver's request, for DATA */
        /* Receive: called once, when it is matched to a message (msg_tag
         * and msg_size are set), before any later message from that
         * source is matched.  A completion is no such point: a rendezvous
         * sender may learn that its bytes were copied, and send again,
         * before this side's progress reports the copy done, so a layer
         * that must withdraw other receives because of what a message is
         * does it here. */
        void (*on_match)(struct MPI_ABI_Request *req);
    };
    struct uz_bulk_desc bulk;
    struct iovec *bulk_iov;     /* our runs for a bulk transfer */
    int bulk_niov;
    /* UZURA_TRACE=stages: the message's number, 0 when not traced. */
    uint32_t trace_seq;
    struct iovec bulk_iov_one;
    uint8_t bulk_offered;       /* a bulk transfer is offered for this send */
    uint8_t bulk_kind;          /* what was offered (enum uz_rts_bulk) */
    uint8_t acked;              /* synchronous send: the receiver matched it */
    uint8_t cancel_sent;        /* MPI_Cancel asked the receiver */
    uint8_t lend_eager;         /* a network transport may read eager pieces from the buffer */
    uint8_t reads_next;         /* receive: the caller reads the bytes at once (a reduction) */
    int net_held;               /* DATA records a network transport sends from our buffer */
    int net_error;              /* the first error one of them reported */

    /* Receive state. */
    size_t received;            /* payload bytes in place */
    size_t expected;            /* bytes that will arrive (message size, capped) */
    int msg_src;                /* matched message: source rank and tag */
    int msg_tag;
    size_t msg_size;            /* bytes the sender sent */

    /* Queue links: posted receives, a peer's send queue. */
    struct MPI_ABI_Request *next;
    struct MPI_ABI_Request *prev;

    /* Persistent requests: the operation to start, and the one running. */
    struct MPI_ABI_Request *child;

    /* Called once, when the request completes (before user visibility of
     * completion), by layers built on point-to-point. */
    void (*on_complete)(struct MPI_ABI_Request *req);
    void *hook_arg;             /* for on_complete and on_match */

    const struct uz_request_ops *ops;
    void *ops_state;
} uz_request;

_Static_assert(sizeof(uz_request) <= 320, "a request outgrew its five cache lines");

uz_request *uz_request_get(MPI_Request h);

static inline MPI_Request uz_request_handle(uz_request *r)
{
    return (MPI_Request)r;
}

/* A new request of `kind` with one reference (the caller's). */
uz_request *uz_request_new(enum uz_request_kind kind);

/* A request that lives in a blocking call's stack frame: it is never seen
 * by the user and is complete before the frame goes, so it needs no
 * reference counting, only cleanup of what it holds. */
void uz_request_init_on_stack(uz_request *req, enum uz_request_kind kind);
void uz_request_cleanup_on_stack(uz_request *req);

/* Drop a reference; the request is destroyed at the last one. */
void uz_request_release(uz_request *req);
void uz_request_retain(uz_request *req);

/* Mark complete (status already filled); runs the completion hook, and
 * destroys the request if the user already freed it. */
void uz_request_complete(uz_request *req);

static inline int uz_request_is_complete(const uz_request *req)
{
    return atomic_load_explicit(&req->complete, memory_order_acquire);
}

/* Some operation on `comm` has not completed: a send or receive (the
 * user's, a persistent one's running round, a buffered send's, a
 * collective's), a nonblocking collective.  What MPI_Comm_disconnect
 * waits for.  Looks at every request, for rare callers only. */
int uz_request_pending_on(const uz_comm *comm);

/* Requests currently alive (for leak checks in tests). */
long uz_request_live_count(void);

#endif /* UZ_PT2PT_REQUEST_H */
