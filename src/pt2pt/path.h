/*
 * path.h — sending one record to a peer by whichever transport reaches it.
 */
#ifndef UZ_PT2PT_PATH_H
#define UZ_PT2PT_PATH_H

#include "core/errors.h"
#include "pt2pt/pt2pt.h"
#include "transport/net/net.h"
#include "transport/shm/shm.h"

/* The network transport in use (tcp or udp), or NULL. */
extern const struct uz_net_ops *uz_net;

/* This process as its own peer: records are handed to the receive side at
 * once (self.c). */
int uz_self_send(const void *hdr, size_t hdr_len, const struct uz_payload *payload);

/* The request layer's handler for every arriving record (recv.c), and
 * the placement upcalls of stream transports. */
void uz_pt2pt_on_record(int src_world, const void *msg, size_t len);
int uz_pt2pt_place(int src_world, const void *hdr, size_t hdr_len, size_t len, struct iovec *iov, int max);
void uz_pt2pt_placed(int src_world, const void *hdr, size_t hdr_len, size_t len);
/* A transport that answered -EINPROGRESS to a payload with `hold` set reads
 * it no more: the send may complete (with `error` when not 0). */
void uz_pt2pt_released(void *hold, int error);

/* 0 when written, -EAGAIN when the transport has no room now, -EINPROGRESS
 * when it holds payload->hold's bytes until uz_pt2pt_released(), else an
 * MPI error code. */
static inline int uz_path_send(const struct uz_peer *p, int world, const void *hdr, size_t hdr_len,
                               const struct uz_payload *payload)
{
    if (UZ_UNLIKELY(p->failed))
        return p->failed;
    switch (p->path) {
    case UZ_PATH_SHM:
        return uz_shm_send(p->local, hdr, hdr_len, payload);
    case UZ_PATH_SELF:
        return uz_self_send(hdr, hdr_len, payload);
    case UZ_PATH_NET:
        return uz_net->send(world, hdr, hdr_len, payload);
    default:
        return uz_err_make(MPI_ERR_OTHER, "no transport reaches world rank %d "
                           "(it is on another host and no network transport is available yet)", world);
    }
}

#endif /* UZ_PT2PT_PATH_H */
