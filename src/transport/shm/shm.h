/*
 * shm.h — the shared-memory transport: ranks on the same host.
 *
 * Messages travel through one ring per ordered pair of ranks, made of
 * cache-line slots.  A record (header + payload) starts in a slot whose
 * first word, its sequence number, is written last: the receiver polls that
 * word, so seeing it means the data is there too (UZURA's "poll the message
 * itself").  A tiny message is one slot, a single store of a cache line
 * (DIMMnet-1's AOTF); longer ones flow over following slots (BOTF).  Large
 * messages use bulk transfers: the receiver pulls straight from the
 * sender's memory with process_vm_readv, while the sender, if it is waiting
 * anyway, pushes from the other end (DIMMnet-1's PULL and PUSH at once).
 *
 * Peers are named by their local index on this host (0..nlocal-1).
 */
#ifndef UZ_TRANSPORT_SHM_SHM_H
#define UZ_TRANSPORT_SHM_SHM_H

#include <stddef.h>
#include <poll.h>
#include <stdint.h>

#include "transport/transport.h"

/* The host's ranks, in local order, as the request layer's wire-up found
 * them; `fence` synchronises every rank of the job (each host's ranks must
 * call it the same number of times). */
struct uz_shm_setup {
    int my_local;
    int nlocal;
    const int *local_world_ranks;       /* world rank of each local index */
    int node_id;
    const char *job_id;
    int (*fence)(void);
    /* The owner will sleep in poll() on network sockets too: peers wake it
     * with a datagram on a socket instead of the futex. */
    int pollable_wake;
};

/* Create or attach the host segment; MPI error code on failure. */
int uz_shm_init(const struct uz_shm_setup *setup);
void uz_shm_finalize(void);
/* Unlink this job's segment if this process created it (abort path). */
void uz_shm_unlink_on_abort(void);

void uz_shm_caps(struct uz_transport_caps *caps);

/* Send one record to local peer `peer`.  Returns 0, -EAGAIN when the ring
 * has no room now (retry after progress), or an MPI error code (> 0). */
int uz_shm_send(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload);

/* Poll incoming rings; calls `handler` for each record.  Returns the number
 * of records handled. */
int uz_shm_progress(uz_recv_handler handler);

/* ---------------------------------------------------------------- bulk */

/* Completion callbacks: `owner` is what the offer or pull was given. */
struct uz_shm_bulk_callbacks {
    void (*sent)(void *owner, int error);       /* sender: its memory is no longer needed */
    void (*received)(void *owner, int error);   /* receiver: all bytes are in place */
};
void uz_shm_bulk_set_callbacks(const struct uz_shm_bulk_callbacks *cb);

/* Is one-copy transfer usable (cross-memory attach works between us)? */
int uz_shm_bulk_available(void);

/* How large messages between this host's ranks travel (cross-memory attach
 * or the rings) and why, as one sentence for UZURA_VERBOSE; valid after
 * uz_shm_init. */
const char *uz_shm_large_message_path(void);

/* Sender: offer `niov` runs of its memory (total bytes) to local peer.
 * The runs array must stay valid until the `sent` callback.  Returns 0 and
 * fills `desc`, -EAGAIN when no record is free, or an MPI error code. */
int uz_shm_bulk_offer(int peer, const struct iovec *iov, int niov, size_t total,
                      void *owner, struct uz_bulk_desc *desc);

/* Receiver: accept an offer from local peer `peer` and pull it into `niov`
 * runs of own memory (which must stay valid until `received`). */
int uz_shm_bulk_pull(int peer, const struct uz_bulk_desc *desc, const struct iovec *iov,
                     int niov, size_t total, void *owner);

/* A side whose memory is a layout of short runs moves its bytes through a
 * staging buffer with these (see shm_bulk.c): `pack` fills `dst` with
 * stream bytes [offset, offset+len) (sender), `unpack` stores them from
 * `src` (receiver). */
struct uz_shm_stage {
    void (*pack)(void *ctx, size_t offset, void *dst, size_t len);
    void (*unpack)(void *ctx, size_t offset, const void *src, size_t len);
    void *ctx;
};

/* Sender: offer a staged buffer; the receiver must accept with runs
 * (uz_shm_bulk_pull), and the sender then copies everything. */
int uz_shm_bulk_offer_staged(int peer, const struct uz_shm_stage *stage, size_t total, void *owner,
                             struct uz_bulk_desc *desc);

/* Receiver: accept an offer of runs and copy it through `stage`. */
int uz_shm_bulk_pull_staged(int peer, const struct uz_bulk_desc *desc, const struct uz_shm_stage *stage,
                            size_t total, void *owner);

/* Sender: withdraw an offer nobody accepted (MPI_Cancel).  Returns 0 when
 * withdrawn, -EBUSY when the receiver already took it. */
int uz_shm_bulk_withdraw(const struct uz_bulk_desc *desc);

/* Bulk work in flight (the progress engine keeps polling while > 0). */
extern int uz_shm_bulk_active_ops;
static inline int uz_shm_bulk_pending(void)
{
    return uz_shm_bulk_active_ops;
}

/* -------------------------------------------------------------- waiting */

/* Sleep until a peer rings our doorbell or `timeout_ns` passes.  `ready`
 * is called after announcing the sleep and before sleeping; when it
 * returns nonzero there is work and we do not sleep. */
void uz_shm_sleep(long timeout_ns, int (*ready)(void));

/* Ring a local peer's doorbell if it sleeps. */
void uz_shm_wake(int peer);

/* Sleep in poll() on `fds` (network sockets) and our wake socket, as
 * uz_shm_sleep does on the futex; only with pollable_wake.  Returns after
 * an event, a wake-up or `timeout_ms`. */
void uz_shm_sleep_poll(struct pollfd *fds, int nfds, int timeout_ms, int (*ready)(void));

/* Memory this rank has made resident in the segment (for benchmarks). */
size_t uz_shm_reserved_bytes(void);
size_t uz_shm_segment_size(void);

#endif /* UZ_TRANSPORT_SHM_SHM_H */
