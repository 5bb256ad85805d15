/*
 * transport.h — the interface between the request layer and the transports
 * (the P2P layer of DESIGN.md).
 *
 * A transport moves opaque messages — a request-layer header followed by
 * payload bytes — between ranks of the job, in order per pair, and hands
 * each arriving message to the request layer's receive handler.  It never
 * sees a communicator, a tag-matching rule or a datatype object; payload
 * comes from a contiguous buffer or from a "packer" callback that fills the
 * transport's own memory directly (so a non-contiguous send is packed
 * straight into the shared ring, with no staging copy).
 *
 * Transports that can copy between processes without the CPU of the owner
 * (cross-memory attach here; RDMA elsewhere) also offer "bulk" transfers
 * for large messages: the sender offers a list of its memory runs, the
 * receiver pulls them into its own runs with one copy.
 */
#ifndef UZ_TRANSPORT_TRANSPORT_H
#define UZ_TRANSPORT_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

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
 * and later calls uz_pt2pt_released(hold, error) (pt2pt/path.h) once it
 * needs the bytes no more.  A transport that must keep a copy anyway for
 * retransmission (udp) saves that copy this way; others ignore it.
 * `hold_briefly` says the owner wants its buffer back soon (an eager send
 * someone waits for): the transport copies the bytes whenever it has
 * nothing else to do rather than wait for the peer's acknowledgement. */
struct uz_payload {
    const void *contig;
    uz_pack_fn pack;
    void *pack_ctx;
    uz_payload_iov_fn iov;          /* optional: same bytes as runs, same ctx */
    size_t len;
    void *hold;                     /* owner to release, or NULL: copy before returning */
    int hold_briefly;               /* with hold: rather copy when idle than wait long for the peer */
};

/* Called by a transport for every arriving message record, in order per
 * sending rank: `msg` points at the request-layer header, `len` covers
 * header and payload.  The bytes are valid only during the call. */
typedef void (*uz_recv_handler)(int src_world_rank, const void *msg, size_t len);

/* Optional, for transports that read records from a stream (tcp): before
 * reading a record's payload, ask where it may go.  `hdr` is the record's
 * first `hdr_len` bytes (the request-layer header and its extension).
 * Returns the number of runs (≤ max, covering exactly `len` bytes) of the
 * receiver's own memory to read the payload into, or 0 when the record must
 * be handed over whole to the uz_recv_handler.  After reading into the runs
 * the transport calls uz_recv_placed with the same header. */
typedef int (*uz_recv_placer)(int src_world_rank, const void *hdr, size_t hdr_len, size_t len,
                              struct iovec *iov, int max);
typedef void (*uz_recv_placed)(int src_world_rank, const void *hdr, size_t hdr_len, size_t len);

/* A bulk transfer offered by a sender, as carried inside a message. */
struct uz_bulk_desc {
    uint32_t record;        /* which of the sender's records */
    uint32_t generation;    /* guards against a stale or forged descriptor */
};

/* Header bytes a network transport accepts on top of its configured record
 * size (UZURA_TCP_RECORD, UZURA_UDP_RECORD): a record then carries that
 * many payload bytes, so a 256 KiB message travels as one record instead
 * of one of 256 KiB less a header and a second of a few bytes whose extra
 * round through both stacks is on the message's critical path. */
enum { UZ_RECORD_HEADER_ROOM = 64 };

/* What the request layer may assume of a peer's transport. */
struct uz_transport_caps {
    size_t max_record;      /* largest header+payload of one message record */
    size_t inline_payload;  /* payload bytes that travel with a minimal header in one cache line */
    int has_bulk;           /* offers bulk transfers (one-copy) */
};

#endif /* UZ_TRANSPORT_TRANSPORT_H */
