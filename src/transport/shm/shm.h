/*
 * shm.h — the shared-memory transport's files, to each other: ranks on the
 * same host.  Nothing outside src/transport/shm/ includes it; the request
 * layer reaches the transport through uz_shm_transport (shm_ops.c).
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
 * Peers are named by their local index on this host (0..nlocal-1), and
 * processes of other jobs on this host by nlocal + i, each through a
 * segment of its own (shm_link.c).
 */
#ifndef UZ_TRANSPORT_SHM_SHM_H
#define UZ_TRANSPORT_SHM_SHM_H

#include <stddef.h>
#include <poll.h>
#include <stdint.h>

#include "transport/transport.h"

/* ------------------------------------------------------ shm_segment.c */

/* Create or attach the host segment (setup's host fields); MPI error code
 * on failure. */
int uz_shm_init(const struct uz_transport_setup *setup, const struct uz_upcalls *up);
void uz_shm_finalize(void);
void uz_shm_caps(struct uz_transport_caps *caps);
/* How large messages between this host's ranks travel (cross-memory attach
 * or the rings) and why, as one sentence for UZURA_VERBOSE. */
void uz_shm_describe(char *buf, size_t len);

/* --------------------------------------------------------- shm_ring.c */

/* Send one record to local peer `peer`: 0, -EAGAIN when the ring has no
 * room now (retry after progress), or an MPI error code (> 0). */
int uz_shm_send(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
/* The same, noting when the record was published (UZURA_TRACE=stages). */
int uz_shm_send_traced(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
/* Poll incoming rings (each record goes to up->on_record) and bulk
 * transfers; returns the work done. */
int uz_shm_progress(void);
/* Is a record waiting on any incoming ring (without handling it)? */
int shm_rx_pending(void);

/* --------------------------------------------------------- shm_bulk.c */

int uz_shm_bulk_offer(int peer, const struct uz_bulk_mem *mem, size_t total, void *owner,
                      struct uz_bulk_desc *desc);
int uz_shm_bulk_pull(int peer, const struct uz_bulk_desc *desc, const struct uz_bulk_mem *mem, size_t total,
                     void *owner);
int uz_shm_bulk_withdraw(int peer, const struct uz_bulk_desc *desc);

/* Bulk work in flight (the progress engine keeps polling while > 0). */
extern int uz_shm_bulk_active_ops;
static inline int uz_shm_bulk_pending(void)
{
    return uz_shm_bulk_active_ops;
}

/* ---------------------------------------------------------- shm_rma.c */

int uz_shm_put(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp);
int uz_shm_get(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp);

/* --------------------------------------------------------- shm_wait.c */

/* The doorbell (uz_transport_ops.sleep): sleep until a peer rings, an
 * event on `fds` (only with a wake socket, setup.sleeps_in_poll) or
 * `timeout_ns`. */
int uz_shm_sleep(long timeout_ns, struct pollfd *fds, int nfds, int (*ready)(void));

/* Ring a local peer's doorbell (it sleeps). */
void uz_shm_wake(int peer);
/* Ring it only if it sleeps (one load otherwise). */
void uz_shm_wake_if_sleeping(int peer);

/* --------------------------------------------------------- shm_coll.c */

extern const struct uz_coll_offload uz_shm_coll_offload;

/* Memory this rank has made resident in the segment (for benchmarks). */
size_t uz_shm_reserved_bytes(void);
size_t uz_shm_segment_size(void);

#endif /* UZ_TRANSPORT_SHM_SHM_H */
