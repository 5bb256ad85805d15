/*
 * path.h — how the request layer reaches each peer: the open transports
 * ("paths"), and a table by world rank (uz_peers) saying which of them
 * reaches that rank.  Sending a record is one lookup in that table and one
 * call through it; nothing here knows one transport from another beyond
 * its reach and caps (transport.h).
 *
 * Which transport reaches which rank is decided once, by wire-up
 * (pt2pt_init.c, docs/point-to-point.md "Transports"): self for this
 * process, the host transport (shm) for ranks on this host, a network
 * chosen by UZURA_NET for the others.
 */
#ifndef UZ_PT2PT_PATH_H
#define UZ_PT2PT_PATH_H

#include "base/errors.h"
#include "pt2pt/pt2pt.h"
#include "transport/transport.h"

/* An open transport and what it said of itself. */
struct uz_path {
    const struct uz_transport_ops *ops;
    struct uz_transport_caps caps;
    int peers;                          /* ranks it reaches (self included for self) */
    char *card;                         /* a network's card for this process, or NULL */
};

/* The open transports, in the order they were opened (self, host,
 * networks), and their number. */
enum { UZ_MAX_PATHS = 8 };
extern struct uz_path uz_paths[UZ_MAX_PATHS];
extern int uz_npaths;

/* What the request layer hands every transport when it opens it
 * (pt2pt_init.c): the receive side (recv.c), lent payloads (send.c), bulk
 * completions and dead peers. */
extern const struct uz_upcalls uz_pt2pt_upcalls;

int uz_pt2pt_on_record(int src_world, const void *msg, size_t len, unsigned flags);
int uz_pt2pt_place(int src_world, const void *hdr, size_t hdr_len, size_t len, struct iovec *iov, int max);
void uz_pt2pt_placed(int src_world, const void *hdr, size_t hdr_len, size_t len);
void uz_pt2pt_released(void *hold, int error);

/* 0 when written, -EAGAIN when the transport has no room now, -EINPROGRESS
 * when it holds payload->hold's bytes until uz_pt2pt_released(), else an
 * MPI error code.  A rank no transport reaches has a send() that says so. */
static inline int uz_path_send(const struct uz_peer *p, const void *hdr, size_t hdr_len,
                               const struct uz_payload *payload)
{
    if (UZ_UNLIKELY(p->failed))
        return p->failed;
    return p->send(p->addr, hdr, hdr_len, payload);
}

/* One-copy put/get of byte runs with world rank `world` (path_rma.c), for
 * one-sided operations: `remote` are addresses in the peer's memory.
 * Through the transport's put/get where it has them and they work here;
 * otherwise -ENOTSUP, and the caller carries the bytes in records instead.
 * Else as uz_transport_ops.put. */
int uz_path_put(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                struct uz_rma_completion *comp);
int uz_path_get(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                struct uz_rma_completion *comp);
/* Would uz_path_get with `world` copy (rather than say -ENOTSUP)? */
int uz_path_can_get(int world);

/* Make process `world` (a rank, or a process of another job) reached by
 * `path`, which names it `addr` (pt2pt_init.c). */
void uz_path_reach(int world, struct uz_path *path, int addr);
/* Largest message sent eagerly over `path`: the limit for its reach
 * (UZURA_EAGER_LIMIT=0 on the host: chosen by whether ranks share cores). */
size_t uz_path_eager_limit(const struct uz_path *path);
/* The path of network `t`, opening it now when wire-up did not (for
 * processes of other jobs, proc_table.c). */
int uz_path_open_network(const struct uz_transport_ops *t, struct uz_path **out);
/* The host transport; a job of one rank opens it now (for processes of
 * other jobs on this host, proc_table.c).  *out NULL when there is none. */
int uz_path_open_host(struct uz_path **out);
/* The job's key (pt2pt_init.c). */
const uint8_t *uz_pt2pt_job_key(void);

/* The transport reaching a peer (NULL when none does). */
static inline const struct uz_transport_ops *uz_path_ops(const struct uz_peer *p)
{
    return p->path ? p->path->ops : NULL;
}

#endif /* UZ_PT2PT_PATH_H */
