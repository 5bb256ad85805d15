/*
 * ofi_send.c — sending records and control messages.
 *
 * A record goes as one message: ofi_wire, the request-layer header, the
 * payload.  Small ones are injected (the provider copies them and reports
 * no completion); others are copied into one of OFI_TX_BUFS send buffers,
 * which come back when their completion is read.  A payload the request
 * layer lends (uz_payload.hold) of OFI_ZCOPY_MIN bytes or more is sent
 * straight from the user's buffer (registered through ofi_mr.c when the
 * provider wants local registration) and released on completion: the
 * provider copies it once into its socket or DMAs it, as the seed's
 * scatter/gather without a staging copy.  No free buffer, or a provider
 * that says FI_EAGAIN, is -EAGAIN: the request layer retries after
 * progress.
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/errors.h"
#include "transport/ofi/ofi.h"

/* ------------------------------------------------------------ addresses */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int ofi_peer_address(int world, fi_addr_t *addr)
{
    struct ofi_peer *p = &uz_ofi.peers[world];
    if (p->addr != FI_ADDR_NOTAVAIL) {
        *addr = p->addr;
        return MPI_SUCCESS;
    }
    struct uz_net_peer_card card;
    int err = uz_ofi.read_card("ofi", world, &card);
    if (err)
        return err;
    unsigned char name[UZ_NET_CARD_MAX / 2];
    size_t n = 0, len = strlen(card.value);
    if (len % 2 || len / 2 > sizeof(name))
        return uz_err_make(MPI_ERR_OTHER, "ofi: rank %d's card \"%.40s\" is not an endpoint name", world, card.value);
    for (size_t i = 0; i < len; i += 2) {
        int hi = hexval(card.value[i]), lo = hexval(card.value[i + 1]);
        if (hi < 0 || lo < 0)
            return uz_err_make(MPI_ERR_OTHER, "ofi: rank %d's card \"%.40s\" is not an endpoint name", world,
                               card.value);
        name[n++] = (unsigned char)(hi << 4 | lo);
    }
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(uz_ofi.av, name, 1, &a, 0, NULL);
    if (rc != 1)
        return uz_err_make(MPI_ERR_OTHER, "ofi: cannot add rank %d's endpoint to the address vector: %s", world,
                           ofi_lib.strerror(rc < 0 ? -rc : FI_EINVAL));
    p->addr = *addr = a;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ buffers */

static struct ofi_op *tx_get(int world)
{
    struct ofi_op *op = uz_ofi.tx_free;
    if (!op)
        return NULL;
    uz_ofi.tx_free = op->next_free;
    uz_ofi.tx_busy++;
    op->peer = world;
    op->hold = NULL;
    op->mr = NULL;
    op->ping = 0;
    return op;
}

static void tx_put(struct ofi_op *op)
{
    op->next_free = uz_ofi.tx_free;
    uz_ofi.tx_free = op;
    uz_ofi.tx_busy--;
}

void ofi_tx_done(struct ofi_op *op, int error)
{
    void *hold = op->hold;
    if (op->ping)
        uz_ofi.peers[op->peer].ping_since_ns = 0;
    ofi_mr_put(op->mr);
    tx_put(op);
    if (hold && !uz_ofi.lingering)
        uz_ofi.up->released(hold, error);
}

static void *slab_desc(void)
{
    return uz_ofi.slab_mr ? uz_ofi.slab_mr->desc : NULL;
}

static ssize_t post_send(const void *buf, size_t len, void *desc, fi_addr_t to, void *ctx)
{
    if (uz_ofi.tagged)
        return fi_tsend(uz_ofi.ep, buf, len, desc, to, 0, ctx);
    return fi_send(uz_ofi.ep, buf, len, desc, to, ctx);
}

static ssize_t post_inject(const void *buf, size_t len, fi_addr_t to)
{
    if (uz_ofi.tagged)
        return fi_tinject(uz_ofi.ep, buf, len, to, 0);
    return fi_inject(uz_ofi.ep, buf, len, to);
}

/* What a failed post means: -EAGAIN, or an MPI error code. */
static int post_failed(ssize_t rc, int world)
{
    if (rc == -FI_EAGAIN) {
        uz_ofi.count.eagain++;
        return -EAGAIN;
    }
    return uz_err_make(MPI_ERR_OTHER, "ofi: sending to rank %d failed: %s", world, ofi_lib.strerror((int)-rc));
}

/* The header of the next message to `world` (its sequence number is
 * taken only once the message is posted: sent_one). */
static void fill_wire(void *buf, int world, enum ofi_kind kind)
{
    struct ofi_wire w = { .token = uz_ofi.token, .src = uz_ofi.rank, .kind = (uint16_t)kind,
                          .seq = uz_ofi.peers[world].tx_seq };
    memcpy(buf, &w, sizeof(w));
}

static void sent_one(int world)
{
    uz_ofi.peers[world].tx_seq++;
}

/* Copy the payload's bytes to dst. */
static void copy_payload(unsigned char *dst, const struct uz_payload *pl)
{
    if (!pl->len)
        return;
    if (pl->contig) {
        memcpy(dst, pl->contig, pl->len);
    } else if (pl->pack) {
        pl->pack(pl->pack_ctx, dst, pl->len);
    } else {
        size_t done = 0;
        while (done < pl->len) {
            struct iovec iov[16];
            size_t bytes = 0;
            int n = pl->iov(pl->pack_ctx, iov, 16, pl->len - done, &bytes);
            for (int i = 0; i < n; i++) {
                memcpy(dst + done, iov[i].iov_base, iov[i].iov_len);
                done += iov[i].iov_len;
            }
            if (n <= 0 || !bytes)
                break;
        }
    }
}

/* ------------------------------------------------------------ sending */

/* A lent payload sent from the user's buffer: header from a send buffer.
 * Returns 1 when the buffer cannot be registered: copy it instead. */
static int send_zcopy(int world, fi_addr_t to, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    struct ofi_op *op = tx_get(world);
    if (!op)
        return -EAGAIN;
    void *desc[2] = { slab_desc(), NULL };
    if (uz_ofi.mr_mode & FI_MR_LOCAL) {
        int err = 0;
        op->mr = ofi_mr_get(pl->contig, pl->len, &err);
        if (!op->mr) {
            tx_put(op);
            return 1;
        }
        desc[1] = op->mr->desc;
    }
    fill_wire(op->buf, world, OFI_RECORD);
    memcpy(op->buf + sizeof(struct ofi_wire), hdr, hdr_len);
    struct iovec iov[2] = { { op->buf, sizeof(struct ofi_wire) + hdr_len }, { (void *)pl->contig, pl->len } };
    ssize_t rc = uz_ofi.tagged ? fi_tsendv(uz_ofi.ep, iov, desc, 2, to, 0, op)
                               : fi_sendv(uz_ofi.ep, iov, desc, 2, to, op);
    if (rc) {
        ofi_mr_put(op->mr);
        tx_put(op);
        return post_failed(rc, world);
    }
    sent_one(world);
    op->hold = pl->hold;
    uz_ofi.count.zcopy_sends++;
    uz_ofi.count.records_sent++;
    return -EINPROGRESS;
}

int ofi_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    struct ofi_peer *p = &uz_ofi.peers[world];
    if (UZ_UNLIKELY(p->failed))
        return p->failed;
    size_t total = sizeof(struct ofi_wire) + hdr_len + pl->len;
    if (UZ_UNLIKELY(hdr_len + pl->len > uz_ofi.max_record))
        return uz_err_make(MPI_ERR_INTERN, "ofi: a record of %zu bytes exceeds the largest, %zu", hdr_len + pl->len,
                           uz_ofi.max_record);
    fi_addr_t to;
    int err = ofi_peer_address(world, &to);
    if (err)
        return err;
    if (pl->hold && pl->contig && pl->len >= OFI_ZCOPY_MIN && uz_ofi.info->tx_attr->iov_limit >= 2) {
        int rc = send_zcopy(world, to, hdr, hdr_len, pl);
        if (rc != 1)
            return rc;
    }
    if (total <= uz_ofi.inject_size) {
        unsigned char buf[total];
        fill_wire(buf, world, OFI_RECORD);
        memcpy(buf + sizeof(struct ofi_wire), hdr, hdr_len);
        copy_payload(buf + sizeof(struct ofi_wire) + hdr_len, pl);
        ssize_t rc = post_inject(buf, total, to);
        if (rc)
            return post_failed(rc, world);
        sent_one(world);
        uz_ofi.count.injected++;
        uz_ofi.count.records_sent++;
        return 0;
    }
    struct ofi_op *op = tx_get(world);
    if (!op) {
        uz_ofi.count.eagain++;
        return -EAGAIN;
    }
    fill_wire(op->buf, world, OFI_RECORD);
    memcpy(op->buf + sizeof(struct ofi_wire), hdr, hdr_len);
    copy_payload(op->buf + sizeof(struct ofi_wire) + hdr_len, pl);
    ssize_t rc = post_send(op->buf, total, slab_desc(), to, op);
    if (rc) {
        tx_put(op);
        return post_failed(rc, world);
    }
    sent_one(world);
    uz_ofi.count.records_sent++;
    return 0;
}

int ofi_send_control(int world, enum ofi_kind kind, const void *body, size_t len)
{
    fi_addr_t to;
    int err = ofi_peer_address(world, &to);
    if (err)
        return err;
    if (sizeof(struct ofi_wire) + len > uz_ofi.buf_size)
        return uz_err_make(MPI_ERR_INTERN, "ofi: a control message of %zu bytes does not fit", len);
    struct ofi_op *op = tx_get(world);
    if (!op)
        return -EAGAIN;
    fill_wire(op->buf, world, kind);
    op->ping = kind == OFI_PING;
    if (len)
        memcpy(op->buf + sizeof(struct ofi_wire), body, len);
    ssize_t rc = post_send(op->buf, sizeof(struct ofi_wire) + len, slab_desc(), to, op);
    if (rc) {
        tx_put(op);
        return post_failed(rc, world);
    }
    sent_one(world);
    return 0;
}

#endif /* UZ_HAVE_LIBFABRIC */
