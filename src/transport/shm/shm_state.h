/*
 * shm_state.h — the shm transport's per-process state, shared by its files.
 */
#ifndef UZ_TRANSPORT_SHM_STATE_H
#define UZ_TRANSPORT_SHM_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/compiler.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_layout.h"

/* Sending side of the ring to one peer. */
struct shm_tx {
    struct shm_slot *slots;         /* NULL until the first send reserves the ring */
    struct shm_ring_ctl *ring_ctl;
    uint32_t nslots, mask;          /* the ring's slots (a power of two) */
    uint64_t produced;              /* next position to write */
    uint64_t consumed_seen;         /* last value read of the receiver's position */
    uint64_t *payload_first;        /* bit per slot: its first word was last written as payload */
    uint32_t hot_slots;             /* UZURA_SHM_RING_HOT in slots (0: off) */
    uint32_t next_return;           /* slot from which to look whether the start is free */
    int rx_index;                   /* uz_shm.rx[] of the same peer, -1 until looked up */
    uint64_t reverse_seen;          /* that ring's consumed position when we last went back to slot 0 */
    uint64_t returned_at;           /* our position then */
};

/* Receiving side of the ring from one peer. */
struct shm_rx {
    struct shm_slot *slots;
    struct shm_ring_ctl *ring_ctl;
    uint32_t nslots, mask;
    uint64_t consumed;              /* next position to read */
    int peer;                       /* the sender as the transport names it */
    int world_rank;                 /* ... and as the request layer does */
};

struct shm_state {
    int fd;                         /* kept open to reserve memory with fallocate */
    char name[128];                 /* segment name under /dev/shm */
    int created;                    /* this process created (and must unlink) it */
    int unlinked;
    unsigned char *base;
    size_t size;
    struct shm_segment_header *hdr;
    int my_local;
    int nlocal;
    int *local_world_ranks;
    uint32_t ring_slots;            /* power of two */
    uint32_t ring_mask;
    struct shm_ctl *my_ctl;
    struct shm_tx *tx;              /* [nlocal] */
    struct shm_rx *rx;              /* [nlocal], active ones first */
    int nrx;
    unsigned seen_active_gen;
    size_t reserved;                /* bytes this rank reserved with fallocate */
    int cma;                        /* bulk transfers by cross-memory attach */
    int wake_fd;                    /* our wake socket (sleeps_in_poll), or -1 */
    const struct uz_upcalls *up;    /* the request layer */
    /* Processes of other jobs on this host (shm_link.c): peer nlocal + i
     * is links[i].  tx and rx have room for nlocal + links_cap peers. */
    struct shm_link *links;
    int nlinks, links_cap;
    int links_busy;                 /* links still being set up (shm_link.c) */
    const uint8_t *job_key;
    int world_rank;
};

extern struct shm_state uz_shm;

/* A ring's sending side starts using its hot start (UZURA_SHM_RING_HOT). */
void shm_tx_start_hot(struct shm_tx *tx);

static inline struct shm_ctl *shm_ctl_of(int local)
{
    return (struct shm_ctl *)(uz_shm.base + uz_shm.hdr->ctl_offset + (size_t)local * uz_shm.hdr->ctl_stride);
}

static inline size_t shm_ring_offset(int sender, int receiver)
{
    return uz_shm.hdr->ring_offset + ((size_t)sender * uz_shm.nlocal + receiver) * uz_shm.hdr->ring_stride;
}

static inline struct shm_bulk_record *shm_bulk_record_of(int local, uint32_t index)
{
    return (struct shm_bulk_record *)(uz_shm.base + uz_shm.hdr->bulk_offset +
        ((size_t)local * uz_shm.hdr->bulk_records_per_rank + index) * sizeof(struct shm_bulk_record));
}

/* The control block of a peer: a rank of this host's segment, or the
 * other side's in the segment of a link to a process of another job. */
struct shm_ctl *shm_link_peer_ctl(int peer);
static inline struct shm_ctl *shm_peer_ctl(int peer)
{
    return UZ_LIKELY(peer < uz_shm.nlocal) ? shm_ctl_of(peer) : shm_link_peer_ctl(peer);
}

/* Our process's and a peer's pid, as published in shared memory (getpid()
 * is a system call). */
static inline pid_t shm_pid_of(int peer)
{
    return shm_peer_ctl(peer)->pid;
}

/* ---- links to processes of other jobs (shm_link.c) */
int uz_shm_add_peer(int peer, const struct uz_foreign_peer *fp);
int uz_shm_close_peer(int peer);
int uz_shm_card(char *buf, size_t len);
/* First send to a link peer: its ring, once the link is attached
 * (-EAGAIN before); MPI error code. */
int shm_link_activate_tx(int peer);
/* Attaches, unlinks and deaths of link peers; returns work done. */
int shm_links_progress(void);
/* Mark this process sleeping (1) or awake (0) in every link. */
void shm_links_sleeping(int v);
/* Ring a link peer's wake socket. */
void shm_link_wake(int peer);
/* The bulk records a link peer offers (side `theirs`) or we offer to it,
 * and how many; does cross-memory attach work both ways on it (1, 0; -1:
 * not known yet). */
struct shm_bulk_record *shm_link_bulk_record(int peer, int theirs, uint32_t index);
uint32_t shm_link_bulk_records(int peer);
int shm_link_cma(int peer);
void shm_links_finalize(void);
extern unsigned long uz_shm_link_bulk;      /* one-copy transfers with processes of other jobs */
extern const struct uz_transport_counter uz_shm_counters[];
/* tx/rx room for `peers` peers (nlocal + links); MPI error code. */
int shm_ring_grow(int peers);
/* Start polling a link's incoming ring. */
void shm_rx_add(int peer, int world, struct shm_slot *slots, struct shm_ring_ctl *ctl, uint32_t nslots);
/* Bulk state for `peers` peers. */
int shm_bulk_grow(int peers);
/* Drop our offers to a dead process of another job (shm_bulk.c). */
void shm_bulk_forget_peer(int peer);

/* Reserve [offset, offset+len) of the segment; MPI error code on failure. */
int shm_reserve(size_t offset, size_t len, const char *what);

/* Wake sockets (shm_wait.c). */
struct sockaddr_un;
socklen_t shm_wake_address_of(const char *job, int world_rank, struct sockaddr_un *sa);
void shm_wake_by_socket(const struct sockaddr_un *sa, socklen_t len);
int shm_wake_socket_open(void);
int shm_sleep_in_poll(void);
void shm_wake_socket_close(void);

/* Cold receive memory (shm_prefault.c): should a pull of `total` bytes
 * into these runs make their pages present first; do so; and the bytes
 * made present so far (printed with UZURA_VERBOSE=2). */
int shm_prefault_wanted(const struct iovec *iov, int niov, size_t total);
void shm_prefault(const struct iovec *iov, int niov);
uint64_t shm_prefaulted_bytes(void);

/* Bulk progress (shm_bulk.c): returns work done. */
int shm_bulk_progress(void);
int shm_bulk_ready(void);
void shm_bulk_init(void);
void shm_bulk_finalize(void);

#endif /* UZ_TRANSPORT_SHM_STATE_H */
