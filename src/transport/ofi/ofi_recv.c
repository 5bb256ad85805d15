/*
 * ofi_recv.c — receiving: OFI_RX_BUFS buffers of a whole message each are
 * kept posted (any source, any tag); an arrival is checked, handed up or
 * to the bulk protocol, and its buffer posted again.
 *
 * Messages are handed on in each sender's order (ofi_wire.seq): one that
 * completes before an earlier one from the same sender (the provider may
 * still be moving a large earlier message) waits in its buffer, which is
 * posted again only when it has been handed on.  The earlier message has
 * a buffer already (matching is in order), so waiting cannot starve.
 *
 * A message is dropped and counted, never followed, when it is shorter
 * than its wire header, claims a rank outside the job, or lacks the job
 * key's token (a process that learned an endpoint name without being part
 * of the job).
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <string.h>

#include "base/errors.h"
#include "transport/ofi/ofi.h"

/* Buffers the provider refused (FI_EAGAIN), posted again from progress. */
static struct ofi_op *unposted;

int ofi_rx_post(struct ofi_op *op)
{
    void *desc = uz_ofi.slab_mr ? uz_ofi.slab_mr->desc : NULL;
    ssize_t rc = uz_ofi.tagged ? fi_trecv(uz_ofi.ep, op->buf, uz_ofi.buf_size, desc, FI_ADDR_UNSPEC, 0, ~0ULL, op)
                               : fi_recv(uz_ofi.ep, op->buf, uz_ofi.buf_size, desc, FI_ADDR_UNSPEC, op);
    if (rc == -FI_EAGAIN) {
        op->next_free = unposted;
        unposted = op;
        return 0;
    }
    if (rc)
        return uz_err_make(MPI_ERR_OTHER, "ofi: cannot post a receive buffer: %s", ofi_lib.strerror((int)-rc));
    return 0;
}

/* Post again what the provider refused before; 0 or an MPI error code. */
int ofi_rx_post_all(void)
{
    struct ofi_op *list = unposted;
    unposted = NULL;
    int err = 0;
    while (list) {
        struct ofi_op *op = list;
        list = op->next_free;
        int e = ofi_rx_post(op);
        if (e && !err)
            err = e;
    }
    return err;
}

/* Arrivals ahead of their turn, with their lengths (op->peer holds it). */
static struct ofi_op *early;

static void dispatch(struct ofi_op *op, size_t len)
{
    struct ofi_wire w;
    memcpy(&w, op->buf, sizeof(w));
    const unsigned char *body = op->buf + sizeof(w);
    size_t blen = len - sizeof(w);
    if (uz_ofi.lingering || uz_ofi.peers[w.src].failed)
        return;                         /* nobody to hand it to */
    uz_ofi.peers[w.src].heard = uz_ofi.period;
    uz_ofi.peers[w.src].refused_since_ns = 0;
    switch (w.kind) {
    case OFI_RECORD:
        uz_ofi.count.records_received++;
        uz_ofi.up->on_record(w.src, body, blen, 0);
        return;
    case OFI_OFFER:
        ofi_bulk_on_offer(w.src, body, blen);
        return;
    case OFI_PULLED:
        ofi_bulk_on_pulled(w.src, body, blen);
        return;
    case OFI_PING:
        return;
    }
    uz_net_stats.malformed++;
}

/* Hand on `op` and whatever from the same sender waited for it. */
static void deliver(struct ofi_op *op, size_t len, int src)
{
    for (;;) {
        uz_ofi.peers[src].rx_seq++;
        dispatch(op, len);
        ofi_rx_post(op);                /* one the provider refuses is posted again from progress */
        uint16_t want = uz_ofi.peers[src].rx_seq;
        struct ofi_op **at = &early;
        while (*at) {
            struct ofi_wire w;
            memcpy(&w, (*at)->buf, sizeof(w));
            if (w.src == src && w.seq == want)
                break;
            at = &(*at)->next_free;
        }
        if (!*at)
            return;
        op = *at;
        *at = op->next_free;
        len = (size_t)op->peer;
    }
}

void ofi_rx_done(struct ofi_op *op, size_t len)
{
    struct ofi_wire w;
    if (len < sizeof(w)) {
        uz_net_stats.malformed++;
        ofi_rx_post(op);
        return;
    }
    memcpy(&w, op->buf, sizeof(w));
    if (w.token != uz_ofi.token || w.src < 0 || w.src >= uz_ofi.size) {
        uz_net_stats.rejected_datagrams++;
        ofi_rx_post(op);
        return;
    }
    if (w.seq != uz_ofi.peers[w.src].rx_seq) {
        op->peer = (int)len;            /* kept until its turn */
        op->next_free = early;
        early = op;
        return;
    }
    deliver(op, len, w.src);
}

#endif /* UZ_HAVE_LIBFABRIC */
