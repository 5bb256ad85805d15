/*
 * shm_state.h — the shm transport's per-process state, shared by its files.
 */
#ifndef UZ_TRANSPORT_SHM_STATE_H
#define UZ_TRANSPORT_SHM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "transport/shm/shm.h"
#include "transport/shm/shm_layout.h"

/* Sending side of the ring to one peer. */
struct shm_tx {
    struct shm_slot *slots;         /* NULL until the first send reserves the ring */
    struct shm_ring_ctl *ring_ctl;
    uint64_t produced;              /* next position to write */
    uint64_t consumed_seen;         /* last value read of the receiver's position */
    uint64_t *payload_first;        /* bit per slot: its first word was last written as payload */
};

/* Receiving side of the ring from one peer. */
struct shm_rx {
    struct shm_slot *slots;
    struct shm_ring_ctl *ring_ctl;
    uint64_t consumed;              /* next position to read */
    int peer;                       /* local index of the sender */
    int world_rank;
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
};

extern struct shm_state uz_shm;

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

/* Our process's and a local peer's pid, as published in the segment
 * (getpid() is a system call). */
static inline pid_t shm_pid_of(int local)
{
    return shm_ctl_of(local)->pid;
}

/* Reserve [offset, offset+len) of the segment; MPI error code on failure. */
int shm_reserve(size_t offset, size_t len, const char *what);

/* Wake sockets (shm_wait.c). */
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
