/*
 * shm_layout.h — the layout of a host's shared-memory segment, private to
 * the shm transport.
 *
 * One segment per host and job, created by the host's first rank:
 *
 *   header | control block per rank | ring per ordered pair | bulk records per rank
 *
 * The segment is sparse: a ring costs memory only once its sender has
 * reserved it (fallocate, so a full /dev/shm is a clear ENOSPC instead of a
 * SIGBUS on first touch), so a rank that talks to few peers stays small.
 */
#ifndef UZ_TRANSPORT_SHM_LAYOUT_H
#define UZ_TRANSPORT_SHM_LAYOUT_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

enum {
    SHM_CACHELINE = 64,
    SHM_PAGE = 4096,
    SHM_MAGIC = 0x757a7368,             /* "uzsh" */
    SHM_LAYOUT_VERSION = 4,
    SHM_MAX_LOCAL = 1024,               /* ranks per host */
    SHM_BULK_INLINE_IOV = 8,
};

/* Control block of one rank: how peers find it, wake it and tell it that a
 * new ring carries messages to it. */
struct shm_ctl {
    /* Written by peers. */
    _Alignas(SHM_CACHELINE) atomic_uint doorbell;   /* futex word */
    atomic_int sleeping;                            /* 1 while the owner may sleep */
    atomic_uint active_gen;                         /* bumped when a sender activates a ring */
    int wake_by_socket;                             /* ring by datagram (owner also polls sockets) */
    /* Bit s: rank s has started sending to this rank. */
    _Alignas(SHM_CACHELINE) atomic_ulong active_senders[SHM_MAX_LOCAL / 64];
    /* Written by the owner at start-up. */
    _Alignas(SHM_CACHELINE) pid_t pid;
    int world_rank;
    int cma_ok;                         /* owner could read a peer with process_vm_readv */
    int cma_errno;                      /* and if not, why (0: a short or wrong read) */
    int fence_registered;               /* owner is a membarrier target (base/wake_fence.h) */
    uint64_t probe_addr;                /* a word others may read to test cross-memory attach */
    uint64_t probe_value;
};

/* One slot of a ring: 64 bytes.  A message record starts at a slot with
 * this header and continues over as many following slots as it needs. */
struct shm_slot {
    atomic_uint seq;                    /* position + 1 of the record, stored last */
    uint32_t len;                       /* bytes of message after this 8-byte header */
    unsigned char bytes[SHM_CACHELINE - 8];
};

enum { SHM_RECORD_WRAP = 0xffffffffu };     /* len of a "continue at slot 0" record */

/* Per ordered pair: the consumer's position, on its own line. */
struct shm_ring_ctl {
    _Alignas(SHM_CACHELINE) atomic_ulong consumed;
};

/* A bulk transfer offered by its sender (see shm_bulk.c). */
enum shm_bulk_state {
    SHM_BULK_FREE = 0,
    SHM_BULK_OFFERED,       /* sender described its memory */
    SHM_BULK_ACCEPTED,      /* receiver described its memory; both may copy */
};

struct shm_bulk_record {
    _Alignas(SHM_CACHELINE) atomic_uint state;
    atomic_uint generation;
    uint64_t total;                     /* bytes to move */
    /* Sender's memory runs: inline when few, else an array in the sender's
     * memory that the receiver reads with process_vm_readv. */
    uint64_t src_iov_addr;
    uint32_t src_niov;
    uint32_t src_staged;                /* no runs: the sender packs and pushes every byte */
    pid_t src_pid;
    struct iovec src_inline[SHM_BULK_INLINE_IOV];
    /* Receiver's memory runs, for the sender to help push (0 runs: it may not). */
    uint64_t dst_iov_addr;
    uint32_t dst_niov;
    pid_t dst_pid;
    struct iovec dst_inline[SHM_BULK_INLINE_IOV];
    uint64_t chunk;                     /* bytes claimed at a time */
    _Alignas(SHM_CACHELINE) atomic_ulong next;      /* next byte offset to claim */
    _Alignas(SHM_CACHELINE) atomic_ulong copied;    /* bytes finished */
    atomic_int failed;                  /* a copy failed (errno); the receiver reports it */
};

struct shm_segment_header {
    uint32_t magic;
    uint32_t version;
    uint32_t nlocal;
    uint32_t ring_slots;
    uint64_t ctl_offset, ctl_stride;
    uint64_t ring_offset, ring_stride;
    uint64_t bulk_offset, bulk_records_per_rank;
    uint64_t total_size;
};

#endif /* UZ_TRANSPORT_SHM_LAYOUT_H */
