/*
 * tcp_recv.c — reading frames from an established connection and handing
 * their records to the request layer.
 *
 * Bytes are read into the connection's buffer as they come (one recv may
 * bring many small records, each handed over in place).  When the header
 * of a large record is in but its payload is not, the request layer is
 * asked where the payload belongs (up->place: the runs of a matched
 * receive buffer, for rendezvous data); the bytes already buffered are
 * copied there and the rest is read with readv straight into those runs.
 * Otherwise the buffer grows to hold the whole record.
 *
 * A frame that breaks the format — from a rank that did present the job
 * key — leaves the stream unreadable: it is counted as malformed and the
 * peer treated as failed, never guessed around.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "base/errors.h"
#include "base/trace_stages.h"
#include "transport/tcp/tcp.h"

int tcp_rx_new(struct tcp_peer *p)
{
    struct tcp_rx *rx = calloc(1, sizeof(*rx));
    if (!rx || !(rx->buf = malloc(TCP_RX_INITIAL))) {
        free(rx);
        return -1;
    }
    rx->cap = TCP_RX_INITIAL;
    rx->need = sizeof(struct tcp_frame);
    p->rx = rx;
    return 0;
}

void tcp_rx_free(struct tcp_peer *p)
{
    if (!p->rx)
        return;
    free(p->rx->buf);
    free(p->rx);
    p->rx = NULL;
}

static void malformed(int world, const struct tcp_frame *fr)
{
    uz_net_stats.malformed++;
    tcp_peer_lost(world, uz_err_make(MPI_ERR_OTHER, "tcp: rank %d sent a malformed frame (record %u bytes, "
                                     "header %u, kind %u); its connection is closed", world, fr->len,
                                     fr->hdr_len, fr->kind));
}

/* ------------------------------------------------------------ placement */

/* Copy `len` bytes into the runs, advancing them. */
static void runs_fill(struct tcp_rx *rx, const unsigned char *src, size_t len)
{
    while (len && rx->run < rx->nruns) {
        struct iovec *v = &rx->runs[rx->run];
        size_t n = len < v->iov_len ? len : v->iov_len;
        memcpy(v->iov_base, src, n);
        v->iov_base = (unsigned char *)v->iov_base + n;
        v->iov_len -= n;
        src += n;
        len -= n;
        if (!v->iov_len)
            rx->run++;
    }
}

static void runs_advance(struct tcp_rx *rx, size_t len)
{
    while (len && rx->run < rx->nruns) {
        struct iovec *v = &rx->runs[rx->run];
        size_t n = len < v->iov_len ? len : v->iov_len;
        v->iov_base = (unsigned char *)v->iov_base + n;
        v->iov_len -= n;
        len -= n;
        if (!v->iov_len)
            rx->run++;
    }
}

/* The record at the buffer's start has its header in: may its payload go
 * straight to its destination?  Returns 1 when placing has begun. */
static int try_place(int world, struct tcp_rx *rx, const struct tcp_frame *fr)
{
    const unsigned char *hdr = rx->buf + rx->start + sizeof(*fr);
    size_t payload = fr->len - fr->hdr_len;
    int n = uz_tcp.up->place(world, hdr, fr->hdr_len, payload, rx->runs, TCP_RUNS_MAX);
    if (n <= 0) {
        rx->refused = 1;
        return 0;
    }
    memcpy(rx->hdr, hdr, fr->hdr_len);
    rx->hdr_len = fr->hdr_len;
    rx->payload = payload;
    rx->nruns = n;
    rx->run = 0;
    size_t have = rx->end - rx->start - sizeof(*fr) - fr->hdr_len;
    runs_fill(rx, hdr + fr->hdr_len, have);
    rx->left = payload - have;
    rx->start = rx->end = 0;
    rx->placing = 1;
    uz_tcp.count.placed_bytes += payload;
    return 1;
}

static void placed(int world, struct tcp_rx *rx)
{
    rx->placing = 0;
    uz_tcp.up->placed(world, rx->hdr, rx->hdr_len, rx->payload);
}

/* ------------------------------------------------------------ frames */

static int frame_ok(const struct tcp_frame *fr)
{
    if (fr->kind == TCP_FRAME_BYE)
        return fr->len == 0 && fr->hdr_len == 0;
    return fr->kind == TCP_FRAME_RECORD && fr->hdr_len >= 1 && fr->hdr_len <= TCP_HDR_MAX
        && fr->hdr_len <= fr->len && fr->len <= uz_tcp.frame_max;
}

/* Hand over every whole record in the buffer.  Returns records handled. */
static int parse(int world, struct tcp_peer *p)
{
    uz_recv_handler handler = uz_tcp.up->on_record;
    struct tcp_rx *rx = p->rx;
    int events = 0;
    while (!p->failed && !rx->placing) {
        size_t have = rx->end - rx->start;
        struct tcp_frame fr;
        if (have < sizeof(fr)) {
            rx->need = sizeof(fr);
            break;
        }
        memcpy(&fr, rx->buf + rx->start, sizeof(fr));
        if (!frame_ok(&fr)) {
            malformed(world, &fr);
            break;
        }
        size_t total = sizeof(fr) + fr.len;
        uz_trace_arrived();
        if (fr.kind == TCP_FRAME_BYE) {
            tcp_on_bye(world);
            rx->start += total;
            continue;
        }
        if (have >= total) {
            handler(world, rx->buf + rx->start + sizeof(fr), fr.len, 0);
            rx->start += total;
            rx->refused = 0;
            events++;
            continue;
        }
        if (have >= sizeof(fr) + fr.hdr_len && fr.len - fr.hdr_len >= TCP_PLACE_MIN && !rx->refused
            && try_place(world, rx, &fr))
            break;
        rx->need = total;
        break;
    }
    if (rx->start == rx->end) {
        rx->start = rx->end = 0;
        if (rx->cap > 4 * TCP_RX_INITIAL && !rx->placing) {
            /* Give back what one large record needed. */
            unsigned char *n = realloc(rx->buf, TCP_RX_INITIAL);
            if (n) {
                rx->buf = n;
                rx->cap = TCP_RX_INITIAL;
            }
        }
    }
    return events;
}

/* Make room for rx->need bytes from start, and for a useful read. */
static int make_room(struct tcp_rx *rx)
{
    size_t have = rx->end - rx->start;
    if (rx->cap < rx->need) {
        size_t cap = rx->cap * 2 > rx->need ? rx->cap * 2 : rx->need;
        if (rx->start) {
            memmove(rx->buf, rx->buf + rx->start, have);
            rx->start = 0;
            rx->end = have;
        }
        unsigned char *n = realloc(rx->buf, cap);
        if (!n)
            return -1;
        rx->buf = n;
        rx->cap = cap;
    } else if (rx->start && (rx->cap - rx->start < rx->need || rx->cap - rx->end < 4096)) {
        memmove(rx->buf, rx->buf + rx->start, have);
        rx->start = 0;
        rx->end = have;
    }
    return 0;
}

/* ------------------------------------------------------------ reading */

static void read_failed(int world, ssize_t n)
{
    if (n == 0 && tcp_on_eof(world))
        return;
    if (n == 0)
        tcp_peer_lost(world, uz_err_make(MPI_ERR_PROC_ABORTED, "tcp: rank %d on %s closed its connection "
                                         "(the process ended or was killed)", world, uz_tcp.peers[world].where));
    else
        tcp_peer_lost_errno(world, errno, "reading from");
}

static int would_block(ssize_t n)
{
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

/* The connection to `world` is readable.  Returns records handled. */
int tcp_on_readable(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    struct tcp_rx *rx = p->rx;
    int events = 0;
    for (int round = 0; round < 8 && !p->failed; round++) {
        if (rx->placing) {
            ssize_t n = readv(p->fd, rx->runs + rx->run, rx->nruns - rx->run);
            if (n <= 0) {
                if (!would_block(n))
                    read_failed(world, n);
                break;
            }
            size_t wanted = rx->left;
            runs_advance(rx, (size_t)n);
            rx->left -= (size_t)n;
            if (!rx->left) {
                placed(world, rx);
                events++;
                continue;
            }
            if ((size_t)n < wanted)
                break;
            continue;
        }
        if (make_room(rx) != 0) {
            tcp_peer_lost(world, uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory for a %zu-byte record "
                                             "from rank %d", rx->need, world));
            break;
        }
        size_t room = rx->cap - rx->end;
        ssize_t n = recv(p->fd, rx->buf + rx->end, room, 0);
        if (n <= 0) {
            if (!would_block(n))
                read_failed(world, n);
            break;
        }
        rx->end += (size_t)n;
        events += parse(world, p);
        if ((size_t)n < room && !rx->placing)
            break;                      /* the socket is drained */
    }
    return events;
}
