/*
 * ofi.h — the ofi transport's private header: its wire format, its state
 * and the functions its files share.
 *
 * ofi carries records over libfabric's reliable datagram endpoints
 * (FI_EP_RDM), with tagged messages where the provider has them and plain
 * ones otherwise, so the same code runs over InfiniBand verbs, EFA,
 * Slingshot (cxi) and, for testing here, the tcp and udp providers.  One
 * endpoint, one completion queue and one address vector per process; a
 * peer's endpoint name travels in its PMI card and is put in the address
 * vector the first time we send to it.
 *
 * libfabric is loaded with dlopen (ofi_dl.c): only fi_getinfo, fi_fabric,
 * fi_freeinfo, fi_dupinfo and fi_strerror are symbols; everything else the
 * headers reach through the objects' ops tables.  Without rdma/fabric.h at
 * configure time only ofi_ops.c is compiled, and opening ofi says so.
 *
 * Every message is one record behind an ofi_wire header that names the
 * sender and carries a token of the job key.  Records are received whole
 * into posted buffers of max_record bytes (ofi_recv.c).  Large messages go
 * by the request layer's bulk protocol: the sender registers its memory
 * and describes it to the receiver in an OFFER message, sent before the
 * request layer's rendezvous record (messages stay in order per pair:
 * FI_ORDER_SAS); the receiver pulls it with fi_read and answers PULLED
 * (ofi_bulk.c), the seed paper's PULL.  A provider without FI_RMA takes the
 * request layer's CTS/DATA path instead: the data is segmented into
 * records.  Memory is registered through a cache (ofi_mr.c).
 *
 * Files: ofi_ops.c (open, close, the ops table), ofi_dl.c (loading
 * libfabric), ofi_info.c (choosing the provider), ofi_send.c, ofi_recv.c,
 * ofi_progress.c (completions, waiting, dead peers, lingering),
 * ofi_bulk.c, ofi_mr.c.
 */
#ifndef UZ_TRANSPORT_OFI_OFI_H
#define UZ_TRANSPORT_OFI_OFI_H

#ifdef UZ_HAVE_LIBFABRIC

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "transport/net/net.h"

/* ------------------------------------------------------------ wire format */

enum ofi_kind {
    OFI_RECORD = 1,                     /* a request-layer record follows */
    OFI_OFFER = 2,                      /* struct ofi_offer_msg follows */
    OFI_PULLED = 3,                     /* struct ofi_pulled_msg follows */
    OFI_PING = 4,                       /* nothing follows: are you there? (ofi_progress.c) */
};

/* Before every message.  `seq` counts the sender's messages to this
 * receiver: the provider matches them to receive buffers in order, but a
 * large one (that the provider itself moves by rendezvous, as ofi_rxm
 * does) completes after later small ones, so the receiver puts them back
 * in order (ofi_recv.c). */
struct ofi_wire {
    uint64_t token;                     /* the job key's first 8 bytes: drop strangers */
    int32_t src;                        /* sender's world rank */
    uint16_t kind;                      /* enum ofi_kind */
    uint16_t seq;                       /* per (sender, receiver), wrapping */
};

/* One run of the sender's registered memory, as the receiver reads it. */
struct ofi_remote_run {
    uint64_t addr;                      /* virtual address, or offset in the region */
    uint64_t len;
};

/* The sender describes an offer before the rendezvous record names it. */
struct ofi_offer_msg {
    uint32_t slot, generation;          /* = struct uz_bulk_desc */
    uint64_t key;                       /* of the region holding every run */
    uint64_t total;
    uint32_t nruns, reserved;
    struct ofi_remote_run runs[];
};

/* The receiver has read an offer (error: an errno value, 0 all copied). */
struct ofi_pulled_msg {
    uint32_t slot, generation;
    int32_t error, reserved;
};

/* ------------------------------------------------------------ limits */

enum {
    OFI_RECORD_PAYLOAD = 65536,         /* payload of the largest record */
    OFI_RX_BUFS = 32,                   /* receive buffers kept posted */
    OFI_TX_BUFS = 64,                   /* send buffers: sends in flight at once */
    OFI_ZCOPY_MIN = 16384,              /* lent payloads from this size are sent from the user's buffer */
    OFI_OFFERS = 256,                   /* bulk offers of this process outstanding at once */
    OFI_READ_CHUNK = 1 << 20,           /* bytes of one fi_read */
    OFI_READS_PER_PULL = 8,             /* fi_reads in flight for one pull */
    OFI_MR_MAX = 256,                   /* registrations the cache keeps */
    OFI_MR_HOT = 8,                     /* of which the first level holds the last used */
    OFI_CQ_BATCH = 16,
};

/* ------------------------------------------------------------ libfabric */

/* The few symbols taken from libfabric.so.1 (ofi_dl.c). */
struct ofi_lib {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    uint32_t (*version)(void);
};
extern struct ofi_lib ofi_lib;
/* 0, or an MPI error code naming what is missing. */
int ofi_dl_load(void);
void ofi_dl_unload(void);

/* ------------------------------------------------------------ registration */

struct ofi_mr {
    uintptr_t lo, hi;                   /* page-aligned span registered */
    struct fid_mr *mr;
    void *desc;                         /* for local buffers (FI_MR_LOCAL) */
    uint64_t key;                       /* for peers */
    int refs;
    uint64_t used;                      /* LRU clock */
};

/* A region covering [addr, addr+len) with one more reference, or NULL
 * (*err: the MPI error code).  ofi_mr_put drops the reference. */
struct ofi_mr *ofi_mr_get(const void *addr, size_t len, int *err);
void ofi_mr_put(struct ofi_mr *r);
/* Address a peer names [addr] by in region r (FI_MR_VIRT_ADDR or offset). */
uint64_t ofi_mr_remote_addr(const struct ofi_mr *r, const void *addr);
void ofi_mr_close_all(void);

/* ------------------------------------------------------------ state */

/* What one fi_send / fi_recv / fi_read is for: the completion's context. */
enum ofi_op_kind { OFI_OP_TX, OFI_OP_RX, OFI_OP_READ };

struct ofi_op {
    struct fi_context2 ctx;             /* the provider's, first */
    uint8_t kind;                       /* enum ofi_op_kind */
    uint8_t ping;                       /* TX: a PING (ofi_progress.c) */
    int peer;
    void *hold;                         /* TX lent from the request layer, or NULL */
    struct ofi_mr *mr;                  /* TX from user memory: its registration */
    struct ofi_pull *pull;              /* READ */
    struct ofi_op *next_free;
    unsigned char *buf;                 /* TX/RX bounce buffer */
};

/* An offer received from a peer, until it is pulled or replaced. */
struct ofi_offer_in {
    uint32_t generation;
    uint64_t key, total;
    uint32_t nruns;
    struct ofi_remote_run runs[];
};

/* A receiver's fi_read of an offer into its own memory. */
struct ofi_pull {
    struct ofi_pull *next;
    int peer;
    uint32_t slot, generation;
    void *owner;
    struct ofi_offer_in *offer;
    struct iovec *local;
    int nlocal;
    struct ofi_mr *local_mr;            /* FI_MR_LOCAL providers */
    size_t total, posted, done;
    int li, ri;                         /* cursor: local run, remote run */
    size_t loff, roff;
    int in_flight;
    int error;                          /* errno */
    int answer_due;                     /* PULLED not yet sent (no send buffer free) */
};

/* One of this process's offers. */
struct ofi_offer_out {
    int peer;                           /* -1: free */
    uint32_t generation;
    void *owner;
    struct ofi_mr *mr;
};

struct ofi_peer {
    fi_addr_t addr;
    uint16_t tx_seq;                    /* of our next message to it */
    uint16_t rx_seq;                    /* of its next message to deliver */                     /* FI_ADDR_NOTAVAIL until the card is read */
    int failed;                         /* MPI error code once gone */
    int dead_listed;
    unsigned heard;                     /* probe period in which it last sent us something */
    long refused_since_ns;              /* our PINGs have been refused (FI_EAGAIN) since, or 0 */
    long ping_since_ns;                 /* a PING of ours waits for its completion since, or 0 */
    struct ofi_offer_in **offers;       /* [OFI_OFFERS], from this peer, lazily */
};

struct ofi_counters {
    unsigned long records_sent, records_received, injected, zcopy_sends;
    unsigned long offers, pulls, read_bytes, mr_hits, mr_misses, mr_evictions, eagain;
};

struct ofi_state {
    int rank, size;
    uint64_t token;
    const struct uz_upcalls *up;
    int (*read_card)(const char *transport, int world, struct uz_net_peer_card *card);
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    int wait_fd;                        /* the CQ's, or -1: sleep in short naps */
    int tagged;                         /* FI_TAGGED, else FI_MSG */
    int rma;                            /* fi_read available: bulk pulls */
    uint64_t mr_mode;
    size_t inject_size;
    size_t max_record;                  /* request-layer header + payload */
    size_t buf_size;                    /* ofi_wire + max_record */
    unsigned char *slab;                /* the bounce buffers */
    struct ofi_mr *slab_mr;
    struct ofi_op *ops;                 /* [OFI_RX_BUFS + OFI_TX_BUFS] */
    struct ofi_op *tx_free;
    int tx_busy;
    struct ofi_peer *peers;             /* [size] */
    int *dead;                          /* peers found dead, to report from progress */
    int ndead;
    struct ofi_offer_out offers[OFI_OFFERS];
    int noffers;
    struct ofi_pull *pulls;             /* in progress */
    int npulls;
    int in_progress;
    unsigned period;                    /* probe periods since open */
    long next_probe_ns;
    unsigned calls;
    /* lingering: a thread keeps the provider's progress going */
    pthread_t linger_thread;
    atomic_int linger_stop;         /* set by the main thread, read by the linger thread */
    int lingering;
    struct ofi_counters count;
};
extern struct ofi_state uz_ofi;

/* ------------------------------------------------------------ between files */

/* ofi_info.c */
int ofi_info_choose(struct fi_info **out);
void ofi_info_describe(char *buf, size_t len);

/* ofi_send.c */
int ofi_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
int ofi_send_control(int world, enum ofi_kind kind, const void *body, size_t len);
int ofi_peer_address(int world, fi_addr_t *addr);
void ofi_tx_done(struct ofi_op *op, int error);

/* ofi_recv.c */
int ofi_rx_post(struct ofi_op *op);
int ofi_rx_post_all(void);
void ofi_rx_done(struct ofi_op *op, size_t len);

/* ofi_progress.c */
int ofi_progress(void);
int ofi_pollfds(struct pollfd *fds, int max, int *timeout_ms);
int ofi_work_pending(void);
void ofi_peer_lost(int world, int err);
int ofi_error(const char *doing, ssize_t rc);
long ofi_now_ns(void);
void ofi_linger(void);
void ofi_linger_stop(void);

/* ofi_bulk.c */
int ofi_bulk_offer(int peer, const struct uz_bulk_mem *mem, size_t total, void *owner, struct uz_bulk_desc *desc);
int ofi_bulk_pull(int peer, const struct uz_bulk_desc *desc, const struct uz_bulk_mem *mem, size_t total,
                  void *owner);
int ofi_bulk_withdraw(int peer, const struct uz_bulk_desc *desc);
int ofi_bulk_pending(void);
void ofi_bulk_on_offer(int src, const void *body, size_t len);
void ofi_bulk_on_pulled(int src, const void *body, size_t len);
void ofi_read_done(struct ofi_op *op, int error);
int ofi_bulk_step(void);
void ofi_bulk_peer_lost(int world);
void ofi_bulk_free_all(void);

#endif /* UZ_HAVE_LIBFABRIC */
#endif /* UZ_TRANSPORT_OFI_OFI_H */
