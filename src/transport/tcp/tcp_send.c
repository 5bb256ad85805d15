/*
 * tcp_send.c — writing records to a peer's connection.
 *
 * A record goes out with one sendmsg: the frame header, the record header
 * and the payload straight from the sender's memory — the contiguous
 * buffer, or the runs of a non-contiguous datatype as iovecs (small ones
 * are packed instead: many tiny iovecs cost more than one copy).  The
 * request layer counts a record as sent once this returns 0, so when the
 * kernel takes only part of it the unsent rest is copied into the peer's
 * queue and written when the socket has room again.
 *
 * While that queue is not empty, small records are copied behind it (up
 * to UZURA_TCP_QUEUE bytes) and larger ones are refused with -EAGAIN: the
 * request layer keeps them and retries in order, so large payloads are
 * never copied just to wait, and memory stays bounded.  Before the
 * connection is agreed on, every record is refused: the request layer
 * holds it, and MPI_Finalize waits for what the request layer holds
 * (what this transport holds is written by tcp_linger.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/trace_stages.h"
#include "transport/tcp/tcp.h"

/* ------------------------------------------------------------ the queue */

static void want_pollout(int world, struct tcp_peer *p, int on)
{
    if (p->pollout == on || p->fd < 0)
        return;
    p->pollout = (uint8_t)on;
    tcp_epoll_set(p->fd, EPOLLIN | (on ? EPOLLOUT : 0), tcp_tag(TCP_TAG_PEER, (uint32_t)world), 0);
}

/* Room for `len` more bytes at the queue's tail, or NULL. */
static unsigned char *queue_reserve(struct tcp_peer *p, size_t len)
{
    struct tcp_block *b = p->txq_tail;
    if (!b || b->cap - b->len < len) {
        size_t cap = len > 65536 ? len : 65536;
        b = malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->next = NULL;
        b->off = b->len = 0;
        b->cap = cap;
        if (p->txq_tail)
            p->txq_tail->next = b;
        else
            p->txq = b;
        p->txq_tail = b;
    }
    if (!p->queued)
        uz_tcp.nqueued++;
    unsigned char *dst = b->data + b->len;
    b->len += len;
    p->queued += len;
    uz_tcp.count.queued_bytes += len;
    return dst;
}

static void block_pop(struct tcp_peer *p)
{
    struct tcp_block *b = p->txq;
    p->txq = b->next;
    if (!p->txq)
        p->txq_tail = NULL;
    free(b);
}

void tcp_tx_free(struct tcp_peer *p)
{
    while (p->txq)
        block_pop(p);
    if (p->queued)
        uz_tcp.nqueued--;
    p->queued = 0;
}

static int queue_failed(int world)
{
    int err = uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory queueing a record to rank %d", world);
    tcp_peer_lost(world, err);
    return err;
}

/* Copy a whole record (frame included) behind what is queued. */
static int queue_record(int world, struct tcp_peer *p, const struct tcp_frame *fr, const void *hdr,
                        size_t hdr_len, const struct uz_payload *pl)
{
    unsigned char *dst = queue_reserve(p, sizeof(*fr) + hdr_len + pl->len);
    if (!dst)
        return queue_failed(world);
    memcpy(dst, fr, sizeof(*fr));
    memcpy(dst + sizeof(*fr), hdr, hdr_len);
    dst += sizeof(*fr) + hdr_len;
    if (pl->len) {
        if (pl->contig)
            memcpy(dst, pl->contig, pl->len);
        else
            pl->pack(pl->pack_ctx, dst, pl->len);
    }
    uz_trace_enqueued();
    return 0;
}

/* Copy what sendmsg left of `iov` (after `sent` bytes), and the payload
 * bytes not yet taken from its source (`rest`), to the queue. */
static int queue_rest(int world, struct tcp_peer *p, const struct iovec *iov, int n, size_t sent,
                      const struct uz_payload *pl, size_t rest)
{
    size_t total = rest;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    unsigned char *dst = queue_reserve(p, total - sent);
    if (!dst)
        return queue_failed(world);
    p->full = 1;
    for (int i = 0; i < n; i++) {
        size_t len = iov[i].iov_len;
        if (sent >= len) {
            sent -= len;
            continue;
        }
        memcpy(dst, (const unsigned char *)iov[i].iov_base + sent, len - sent);
        dst += len - sent;
        sent = 0;
    }
    if (rest)
        pl->pack(pl->pack_ctx, dst, rest);
    want_pollout(world, p, 1);
    return 0;
}

/* Write as much of the queue as the socket takes.  Returns 1 when bytes
 * went out. */
int tcp_flush(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    struct iovec iov[64];
    int n = 0;
    if (p->failed || p->fd < 0 || !p->txq)
        return 0;
    for (struct tcp_block *b = p->txq; b && n < 64; b = b->next)
        iov[n++] = (struct iovec){ b->data + b->off, b->len - b->off };
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };
    ssize_t w = sendmsg(p->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            tcp_peer_lost_errno(world, errno, "writing to");
        p->full = 1;
        return 0;
    }
    p->full = (size_t)w < p->queued;
    p->queued -= (size_t)w;
    while (w > 0) {
        struct tcp_block *b = p->txq;
        size_t left = b->len - b->off;
        if ((size_t)w < left) {
            b->off += (size_t)w;
            break;
        }
        w -= (ssize_t)left;
        block_pop(p);
    }
    if (!p->queued) {
        uz_tcp.nqueued--;
        while (p->txq)                  /* empty blocks */
            block_pop(p);
        want_pollout(world, p, 0);
    }
    return 1;
}

/* ------------------------------------------------------------ sending */

static int may_queue(const struct tcp_peer *p, size_t bytes)
{
    return bytes <= TCP_QUEUE_SMALL + sizeof(struct tcp_frame) + TCP_HDR_MAX
        && p->queued + bytes <= uz_config.tcp_queue;
}

static void *scratch(size_t len)
{
    if (uz_tcp.scratch_cap < len) {
        void *n = realloc(uz_tcp.scratch, len);
        if (!n)
            return NULL;
        uz_tcp.scratch = n;
        uz_tcp.scratch_cap = len;
    }
    return uz_tcp.scratch;
}

/* The connection is up and nothing waits before this record. */
static int send_now(int world, struct tcp_peer *p, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    struct tcp_frame fr = { (uint32_t)(hdr_len + pl->len), (uint16_t)hdr_len, TCP_FRAME_RECORD };
    struct iovec iov[2 + TCP_SEND_RUNS];
    size_t rest = pl->len;              /* payload bytes not yet in iov */
    int n = 2, taken = 0;               /* taken: the payload's cursor has moved */
    iov[0] = (struct iovec){ &fr, sizeof(fr) };
    iov[1] = (struct iovec){ (void *)hdr, hdr_len };
    if (rest && pl->contig) {
        iov[n++] = (struct iovec){ (void *)pl->contig, rest };
        rest = 0;
    } else if (rest && (!pl->iov || rest <= TCP_PACK_MAX)) {
        void *buf = scratch(rest);
        if (!buf)
            return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory packing a %zu-byte payload", rest);
        pl->pack(pl->pack_ctx, buf, rest);
        iov[n++] = (struct iovec){ buf, rest };
        rest = 0;
        taken = 1;
    }
    for (;;) {
        if (rest && n < 2 + TCP_SEND_RUNS) {
            size_t got = 0;
            int k = pl->iov(pl->pack_ctx, iov + n, 2 + TCP_SEND_RUNS - n, rest, &got);
            n += k;
            rest -= got;
            taken = 1;
            if (!n)                     /* the source gave no runs: take the rest packed */
                return queue_rest(world, p, iov, 0, 0, pl, rest);
        }
        size_t bytes = 0;
        for (int i = 0; i < n; i++)
            bytes += iov[i].iov_len;
        struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(p->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        uz_trace_enqueued();
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                tcp_peer_lost_errno(world, errno, "writing to");
                return p->failed;
            }
            w = 0;
        }
        if ((size_t)w == bytes && !rest)
            return 0;
        if ((size_t)w == bytes) {
            n = 0;                      /* next runs of a long non-contiguous payload */
            taken = 1;
            continue;
        }
        if (w == 0 && !taken && !may_queue(p, bytes)) {
            uz_tcp.count.eagain++;
            return -EAGAIN;             /* nothing written: the request layer keeps it */
        }
        return queue_rest(world, p, iov, n, (size_t)w, pl, rest);
    }
}

int tcp_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    if (UZ_UNLIKELY(hdr_len > TCP_HDR_MAX || hdr_len + pl->len > uz_tcp.max_record))
        return uz_err_make(MPI_ERR_INTERN, "tcp: a record of %zu + %zu bytes to rank %d exceeds the transport's "
                           "limits (%d-byte header, %zu-byte record)", hdr_len, pl->len, world, TCP_HDR_MAX,
                           uz_tcp.max_record);
    if (UZ_LIKELY(p->fd >= 0 && !p->txq && !p->failed))
        return send_now(world, p, hdr, hdr_len, pl);
    if (p->failed)
        return p->failed;
    if (p->fd < 0) {
        /* Until both sides agree on a connection, records wait in the
         * request layer, which MPI_Finalize drains before its fence. */
        if (p->out_state == TCP_OUT_NONE) {
            int err = tcp_connect_start(world);
            if (err)
                return err;
        }
        uz_tcp.count.eagain++;
        return -EAGAIN;
    }
    if (!p->full) {
        tcp_flush(world);
        if (p->failed)
            return p->failed;
        if (!p->txq)
            return send_now(world, p, hdr, hdr_len, pl);
    }
    struct tcp_frame fr = { (uint32_t)(hdr_len + pl->len), (uint16_t)hdr_len, TCP_FRAME_RECORD };
    if (!may_queue(p, sizeof(fr) + hdr_len + pl->len)) {
        uz_tcp.count.eagain++;
        return -EAGAIN;
    }
    return queue_record(world, p, &fr, hdr, hdr_len, pl);
}
