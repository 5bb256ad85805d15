/*
 * transport.h — the one interface between the request layer and every
 * transport (the P2P layer of DESIGN.md): self, shm, tcp, udp, and any
 * added later.  docs/writing-a-transport.md says how to add one.
 *
 * A transport moves opaque records — a request-layer header followed by
 * payload bytes — between ranks of the job, in order per pair, and hands
 * each arriving record up.  It never sees a communicator, a tag-matching
 * rule or a datatype object; payload comes from a contiguous buffer or
 * from a "packer" callback that fills the transport's own memory directly
 * (so a non-contiguous send is packed straight into the shared ring, with
 * no staging copy).
 *
 * Three things cross the boundary, each in one place here:
 *   - down: `struct uz_transport_ops`, one table per transport, filled
 *     with designated initializers; an optional member the transport does
 *     not have is NULL, never a function that pretends;
 *   - up: `struct uz_upcalls`, handed to the transport when it opens; a
 *     transport reaches the request layer through it and nothing else (it
 *     includes no pt2pt header);
 *   - what the request layer may assume: `struct uz_transport_caps`.
 *
 * Which transports exist is transport_list.h, one line each.
 */
#ifndef UZ_TRANSPORT_TRANSPORT_H
#define UZ_TRANSPORT_TRANSPORT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* ------------------------------------------------------------ payloads */

/* Fills `len` bytes at `dst` with the next bytes of a message payload. */
typedef void (*uz_pack_fn)(void *ctx, void *dst, size_t len);

/* Optional source of a payload as runs of the sender's memory (a datatype
 * cursor): fills ≤ max iovecs covering at most max_bytes of the next bytes
 * and advances; returns their number and the bytes in *bytes.  A transport
 * that writes from iovecs (writev) uses it instead of `pack`, so nothing
 * is staged. */
typedef int (*uz_payload_iov_fn)(void *ctx, struct iovec *iov, int max, size_t max_bytes, size_t *bytes);

/* Where the payload of one message record comes from: either `contig`
 * (len bytes), or `pack(pack_ctx, dst, len)` (or, equivalently, `iov`).
 *
 * `hold`, when not NULL, lets a transport keep reading a `contig` payload
 * after send() returns instead of copying it: it then returns -EINPROGRESS
 * and later calls up->released(hold, error) once it needs the bytes no
 * more.  A transport that must keep a copy anyway for retransmission (udp)
 * saves that copy this way; others ignore it.  `hold_briefly` says the
 * owner wants its buffer back soon (an eager send someone waits for): the
 * transport copies the bytes whenever it has nothing else to do rather
 * than wait for the peer's acknowledgement. */
struct uz_payload {
    const void *contig;
    uz_pack_fn pack;
    void *pack_ctx;
    uz_payload_iov_fn iov;          /* optional: same bytes as runs, same ctx */
    size_t len;
    void *hold;                     /* owner to release, or NULL: copy before returning */
    int hold_briefly;               /* with hold: rather copy when idle than wait long for the peer */
};

/* Header bytes a network transport accepts on top of its configured record
 * size (UZURA_TCP_RECORD, UZURA_UDP_RECORD): a record then carries that
 * many payload bytes, so a 256 KiB message travels as one record instead
 * of one of 256 KiB less a header and a second of a few bytes whose extra
 * round through both stacks is on the message's critical path. */
enum { UZ_RECORD_HEADER_ROOM = 64 };

/* ----------------------------------------------------- one-copy transfers */

/* A bulk transfer offered by a sender, as carried inside a message. */
struct uz_bulk_desc {
    uint32_t record;        /* which of the sender's records */
    uint32_t generation;    /* guards against a stale or forged descriptor */
};

/* One side's memory in a bulk transfer: either `niov` runs of it, or —
 * for a layout of runs too short to be worth describing (an 8-byte
 * vector) — "staged": the transport moves the bytes through a small buffer
 * of its own, and `pack` (sender) fills `dst` with stream bytes
 * [offset, offset+len), `unpack` (receiver) stores them from `src`.  A
 * staged side copies everything itself, against the other side's runs. */
struct uz_bulk_mem {
    const struct iovec *iov;
    int niov;
    void (*pack)(void *ctx, size_t offset, void *dst, size_t len);
    void (*unpack)(void *ctx, size_t offset, const void *src, size_t len);
    void *ctx;                      /* not NULL: staged */
    int copy_alone;                 /* receiver: it reads the bytes next, so it copies them all
                                     * itself (into its own cache) without the sender's help */
};

/* Completion of a one-copy put or get that finishes after the call returns
 * (as UCX's uct_completion_t): the transport calls done() once, from a
 * later progress(), and the object must stay valid until then.  A
 * transport that always copies inside the call (shm, self) never does. */
struct uz_rma_completion {
    void (*done)(struct uz_rma_completion *self, int error);
};

/* -------------------------------------------------------------- upcalls */

/* Every arriving message record, in order per sending rank: `msg` points at
 * the request-layer header, `len` covers header and payload.  The bytes are
 * valid only during the call.  `flags` is 0 or UZ_RECORD_MAY_STAY; the
 * answer is one of UZ_RECORD_TAKEN, UZ_RECORD_FINISHED, UZ_RECORD_STAYS. */
typedef int (*uz_recv_handler)(int src_world_rank, const void *msg, size_t len, unsigned flags);

enum {
    /* The transport can leave the record where it is and offer it again,
     * first, at its next progress call (shm: it is still in the ring).
     * The request layer may then decline a message no receive waits for
     * yet, instead of copying it into a buffer of its own. */
    UZ_RECORD_MAY_STAY = 1u,
};

enum {
    UZ_RECORD_TAKEN = 0,        /* handled; the bytes are read no more */
    UZ_RECORD_FINISHED = 1,     /* handled, and a receive completed with it */
    UZ_RECORD_STAYS = 2,        /* declined (only under UZ_RECORD_MAY_STAY) */
};

/* For transports that receive a record in parts (a stream, or the
 * segments of a datagram protocol): before the payload, ask where it may
 * go.  `hdr` is the record's first `hdr_len` bytes (the request-layer
 * header and its extension).  Returns the number of runs (≤ max, covering
 * exactly `len` bytes) of the receiver's own memory to put the payload
 * into, or 0 when the record must be handed over whole to on_record.
 * Once the payload is in the runs, the transport calls uz_recv_placed
 * with the same header instead of on_record. */
typedef int (*uz_recv_placer)(int src_world_rank, const void *hdr, size_t hdr_len, size_t len,
                              struct iovec *iov, int max);
typedef void (*uz_recv_placed)(int src_world_rank, const void *hdr, size_t hdr_len, size_t len);

/* The request layer as a transport sees it.  Every member is set; a
 * transport calls those its protocol needs.  None may be called from a
 * thread of the transport's own (a lingering thread after linger() calls
 * nothing). */
struct uz_upcalls {
    uz_recv_handler on_record;
    uz_recv_placer place;
    uz_recv_placed placed;
    /* A payload lent with `hold` is read no more; the send may complete
     * (with `error` when not 0). */
    void (*released)(void *hold, int error);
    /* A bulk transfer ended for this side: `owner` is what bulk_offer or
     * bulk_pull was given; `error` an errno value, 0 when every byte was
     * copied. */
    void (*bulk_done)(void *owner, int error);
    /* `world` is gone: fail what waits on it, and later sends to it with
     * `error` (an MPI error code).  Called from the top of progress(), never
     * from inside send(). */
    void (*peer_failed)(int world, int error);
};

/* --------------------------------------------------------------- opening */

/* Which peers a transport may be chosen for (the request layer's wire-up
 * decides, docs/writing-a-transport.md). */
enum uz_reach {
    UZ_REACH_SELF,          /* this process */
    UZ_REACH_HOST,          /* ranks on this host (setup.local_world_ranks) */
    UZ_REACH_NETWORK,       /* any rank, through its card; chosen by UZURA_NET */
};

enum { UZ_NET_KEY_BYTES = 16, UZ_NET_CARD_MAX = 900 };

/* Another rank's published card for a network transport, and its host. */
struct uz_net_peer_card {
    int node_id;
    const char *value;                  /* this transport's card, valid until the next read */
};

/* A process of another job (a job this one connected to, spawned or was
 * spawned by), made known to a network transport after it opened
 * (docs/dynamic-processes.md).  It presents `key`, its own job's key, and
 * calls itself rank `rank` there; the transport admits its connections by
 * that pair, as it admits this job's ranks by the job key. */
struct uz_foreign_peer {
    const uint8_t *key;                 /* UZ_NET_KEY_BYTES */
    int rank;                           /* in its own job */
    int same_host;                      /* it shares this host (loopback may reach it) */
    const char *card;                   /* its card for this transport (a host transport: its host_card) */
    int *addr;                          /* out: how the transport names it as `peer` from now on */
};

/* What a transport is given when it opens. */
struct uz_transport_setup {
    int world_rank;
    int world_size;
    int node_id;                        /* this rank's host, numbered by wire-up */
    const char *job_id;                 /* names of shared memory, sockets: private to the job */
    const uint8_t *job_key;             /* UZ_NET_KEY_BYTES, same on every rank */
    /* Synchronises every rank of the job (each host's ranks must call it
     * the same number of times). */
    int (*fence)(void);

    /* UZ_REACH_HOST: this host's ranks in local order; a peer is named by
     * its index here.  `segment_id` names the host's shared segment. */
    int my_local;
    int nlocal;
    const int *local_world_ranks;
    int segment_id;
    /* The rank will sleep in poll() on other transports' descriptors
     * (some have pollfds): a doorbell must be pollable too. */
    int sleeps_in_poll;

    /* UZ_REACH_NETWORK: read_card() fetches a peer's card for this
     * transport (`transport` is its name) when it first needs it. */
    int (*read_card)(const char *transport, int world, struct uz_net_peer_card *card);
};

/* What the request layer may assume of a transport, after open(). */
struct uz_transport_caps {
    size_t max_record;      /* largest header+payload of one record */
    size_t inline_payload;  /* payload bytes that travel with a minimal header in one cache line */
    /* Keeps what it sent until the peer acknowledges it (udp), so a sender
     * lending it the buffer (uz_payload.hold) saves a copy; a transport
     * that hands bytes to the kernel and forgets them (tcp) gains nothing. */
    int keeps_sent_bytes;
    /* bulk_offer / bulk_pull work between this rank and its peers. */
    int has_bulk;
    /* The transport's costs, so that the request layer chooses without
     * knowing them.  A side whose mean run is shorter than
     * bulk_min_run_remote, when the other side copies (its runs are
     * remote to the copier), or shorter than bulk_min_run_local, when it
     * copies itself, is better staged; staged transfers are worth it up to
     * bulk_staged_max bytes (0: the transport takes no staged side). */
    size_t bulk_min_run_remote;
    size_t bulk_min_run_local;
    size_t bulk_staged_max;
    /* put / get work between this rank and its peers (a transport may have
     * the members and still not here: cross-memory attach refused). */
    int has_put_get;
};

/* -------------------------------------------------- collective offload */

/* Shared areas and doorbells for collective algorithms among ranks a
 * UZ_REACH_HOST transport reaches (src/coll/coll_shm.c).  An area is
 * named by a short `tag` unique in the job, created zero-filled by one
 * rank, mapped by the others, and its name removed once all have mapped
 * it.  A rank waiting on an area sleeps through the request layer
 * (uz_progress_sleep), which the transport's doorbell wakes. */
struct uz_coll_offload {
    /* Create (create != 0) or attach to the area; NULL on failure with
     * *err set to an MPI error code.  Creating may rewrite `tag` (of
     * `taglen` bytes) into what the others need to attach: the creator
     * passes on the tag it ends with. */
    void *(*area_map)(char *tag, size_t taglen, size_t bytes, int create, int *err);
    /* Every rank has attached (or given up): drop the name. */
    void (*area_unlink)(const char *tag);
    void (*area_unmap)(void *area, size_t bytes);
    /* Ring local peer `peer`'s doorbell if it sleeps (one load otherwise). */
    void (*wake_if_sleeping)(int peer);
};

/* --------------------------------------------------------------- tools */

/* One counter a transport keeps of its own protocol (retransmissions,
 * reconnections...), which src/mpit/ offers as an MPI_T performance
 * variable named <transport>_<name>.  The value lives as long as the
 * transport is open and reads 0 otherwise. */
struct uz_transport_counter {
    const char *name;
    const char *help;                   /* one line */
    const unsigned long *value;
};

/* ------------------------------------------------------------ operations */

/*
 * A transport.  `peer` arguments name a peer as the transport knows it:
 * the index in setup.local_world_ranks for UZ_REACH_HOST, else the world
 * rank.  Members marked optional may be NULL.
 */
struct uz_transport_ops {
    const char *name;                   /* its folder, card key and UZURA_NET value */
    enum uz_reach reach;

    /* ---- life cycle */
    /* Open: set up the endpoint and keep `up`.  A network transport writes
     * this rank's card (no spaces, no ';') into `card`; others get NULL. */
    int (*open)(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card,
                size_t cardlen);
    void (*caps)(struct uz_transport_caps *caps);
    /* Optional: MPI_Finalize is about to enter its last fence, after which
     * the request layer calls nothing until close().  A transport that
     * still owes peers bytes, retransmissions or ACKs (tcp, udp: the kernel
     * keeps no copy) keeps its protocol running until close(). */
    void (*linger)(void);
    void (*close)(void);
    /* Optional: one sentence on how it was set up, naming any fallback
     * taken and why, for UZURA_VERBOSE (after open). */
    void (*describe)(char *buf, size_t len);

    /* ---- records */
    /* Send one record: 0 written, -EAGAIN no room now (retry after
     * progress), -EINPROGRESS payload->hold's bytes are lent until
     * up->released(), else an MPI error code (> 0). */
    int (*send)(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
    /* Optional: send() that also notes when the record went out
     * (uz_trace_enqueued, base/trace_stages.h).  The request layer takes it
     * instead of send() while UZURA_TRACE=stages is on, so that send()
     * itself need not test the switch; a transport without it tests
     * uz_trace_stages inside send(). */
    int (*send_traced)(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
    /* Optional (a transport that delivers inside send() has none): handle
     * arrivals, retransmissions, bulk steps; returns events handled. */
    int (*progress)(void);

    /* ---- waiting (progress.c, docs/point-to-point.md "Waiting") */
    /* Optional: descriptors to wait on while the rank sleeps; returns how
     * many were written (≤ max).  *timeout_ms is lowered if the transport
     * needs to run again by then (retransmission timers). */
    int (*pollfds)(struct pollfd *fds, int max, int *timeout_ms);
    /* Optional: something has arrived or a transfer step waits, without
     * handling it (a sleeper's last look). */
    int (*work_pending)(void);
    /* Optional, the doorbell: sleep until a peer rings, something happens
     * on `fds` (which has room for one more entry), or `timeout_ns`
     * passes.  `ready` is called after announcing the sleep and before
     * sleeping; when it returns nonzero there is work and it does not
     * sleep.  Peers ring a sleeping rank after each record they send.
     * Returns 1 if a sleep on the doorbell alone ran to its timeout
     * unrung (a wake-up lost, or no peer sent for that long), else 0. */
    int (*sleep)(long timeout_ns, struct pollfd *fds, int nfds, int (*ready)(void));
    /* Optional, with sleep: a transport with pollfds opened after this one
     * (for processes of another job), so from now on sleep() is given
     * descriptors and its doorbell must wake poll() too.  MPI error code. */
    int (*sleep_in_poll)(void);

    /* ---- one-copy bulk transfers (optional, all or none; caps.has_bulk)
     * The sender offers its memory and names the offer in a record; the
     * receiver pulls it into its own with one copy (cross-memory attach
     * here, RDMA read elsewhere), and a sender that waits anyway may copy
     * from its end.  Each side's up->bulk_done(owner, error) says when its
     * memory is no longer needed. */
    /* Sender: offer `mem` (which must stay valid until bulk_done).
     * Returns 0 and fills `desc`; -EBUSY when no record is free but one
     * will be without any receive being posted (the request layer tries
     * again later); -EAGAIN when no record is free (the request layer then
     * takes the CTS/DATA path); or an MPI error code. */
    int (*bulk_offer)(int peer, const struct uz_bulk_mem *mem, size_t total, void *owner,
                      struct uz_bulk_desc *desc);
    /* Receiver: accept `desc` from `peer` into `mem`, `total` bytes (may be
     * fewer than offered).  Both sides staged is refused. */
    int (*bulk_pull)(int peer, const struct uz_bulk_desc *desc, const struct uz_bulk_mem *mem, size_t total,
                     void *owner);
    /* Sender: withdraw an offer nobody accepted (CTS arrived, MPI_Cancel).
     * 0 when withdrawn (no bulk_done follows), -EBUSY when the receiver
     * already took it. */
    int (*bulk_withdraw)(int peer, const struct uz_bulk_desc *desc);
    /* Transfers in flight: MPI_Finalize progresses until there are none. */
    int (*bulk_pending)(void);

    /* ---- one-copy put/get of byte runs, for one-sided operations
     * (optional; without them the caller carries the bytes in records).
     * Copy between this process's runs `local` and `peer`'s runs `remote`,
     * given by address in the peer's memory, the same number of bytes in
     * each, in order.  Returns 0 when every byte is copied, -EINPROGRESS
     * when comp->done() will say so later, -EAGAIN when it cannot start
     * now, else an MPI error code.  Transports that need memory registered
     * first (RDMA) will add that when they come; cross-memory attach
     * needs none. */
    int (*put)(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp);
    int (*get)(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp);

    /* ---- processes of other jobs (optional; without them a transport
     * reaches only its own job).  Peers beyond setup.world_size are such
     * processes, numbered by the request layer in the order it adds them.
     * A network transport reaches them anywhere, a host transport (shm)
     * those on this host whose descriptor carries its host_card; both
     * sides of a pair make the same choice from the two descriptors. */
    /* Make `peer` (world_size or more, never added before) reachable, and
     * set *fp->addr to how it is named from now on (a network transport:
     * `peer` itself). */
    int (*add_peer)(int peer, const struct uz_foreign_peer *fp);
    /* Optional, UZ_REACH_HOST with add_peer: this process's card for
     * processes of other jobs on this host (no spaces); -1 when it takes
     * none (UZURA_SHM=0). */
    int (*host_card)(char *buf, size_t len);
    /* Close the connection to `peer` once what was sent reached it and the
     * peer closes its side too (MPI_Comm_disconnect on both): 0 when closed
     * (or none was open), -EAGAIN while that takes (call progress and ask
     * again), else an MPI error code.  A later send opens a new one. */
    int (*close_peer)(int peer);
    /* Optional: this process waits for something from `peer` (a receive
     * names it).  Its own job's end tells this job of a dead rank, another
     * job's does not: the transport makes sure it would notice that peer
     * dying (tcp opens the connection it would open on a send). */
    void (*watch_peer)(int peer);

    /* ---- collectives (optional, UZ_REACH_HOST only) */
    const struct uz_coll_offload *coll;

    /* ---- tools (optional): its counters, ended by an entry whose name is NULL */
    const struct uz_transport_counter *counters;
};

#endif /* UZ_TRANSPORT_TRANSPORT_H */
