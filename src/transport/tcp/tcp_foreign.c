/*
 * tcp_foreign.c — peers that are processes of other jobs (MPI_Comm_connect,
 * MPI_Comm_spawn; docs/dynamic-processes.md), and closing a connection on
 * purpose (MPI_Comm_disconnect).
 *
 * The request layer numbers such a process after this job's ranks and
 * hands over what the two jobs swapped when they met: its job's key, its
 * rank there and its card.  A hello then names its sender by (key, rank):
 * this job's key and a rank of the job, or the key and rank of a process
 * added here.  Anything else is a stranger and is dropped as before; a
 * job learns another's key only through the authenticated meeting, so the
 * key keeps doing what it did.
 *
 * Closing: each side queues a BYE frame behind its records and half-closes
 * after it (shutdown), then reads until the peer's BYE and end of stream;
 * only an end of stream without a BYE is a dead peer.  Both sides close,
 * so neither leaves unread bytes that would turn its close into a reset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "transport/tcp/tcp.h"

/* Compares every byte whatever the first difference, so that the time taken
 * says nothing about how much of a guessed key was right. */
static int same_key(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t diff = 0;
    for (int i = 0; i < UZ_NET_KEY_BYTES; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

static int grow(int want)
{
    if (want <= uz_tcp.cap)
        return 0;
    int cap = uz_tcp.cap * 2 > want ? uz_tcp.cap * 2 : want;
    struct tcp_peer *peers = realloc(uz_tcp.peers, sizeof(*peers) * (size_t)cap);
    if (!peers)
        return -1;
    uz_tcp.peers = peers;
    int *dead = realloc(uz_tcp.dead, sizeof(int) * (size_t)cap);
    if (!dead)
        return -1;
    uz_tcp.dead = dead;
    uz_tcp.cap = cap;
    return 0;
}

int tcp_add_peer(int peer, const struct uz_foreign_peer *fp)
{
    if (peer < uz_tcp.size)
        return uz_err_make(MPI_ERR_INTERN, "tcp: process %d added twice", peer);
    if (grow(peer + 1) != 0)
        return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory for %d peers", peer + 1);
    for (int i = uz_tcp.size; i <= peer; i++) {
        struct tcp_peer *p = &uz_tcp.peers[i];
        memset(p, 0, sizeof(*p));
        p->fd = p->out_fd = -1;
        p->naddrs = -1;
        p->rank_there = -1;
        /* A number the request layer skipped never connects. */
        p->failed = MPI_ERR_INTERN;
    }
    uz_tcp.size = peer + 1;
    struct tcp_peer *p = &uz_tcp.peers[peer];
    p->card = strdup(fp->card ? fp->card : "");
    if (!p->card)
        return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory for a card");
    p->failed = 0;
    p->foreign = 1;
    p->same_host = (uint8_t)(fp->same_host != 0);
    p->rank_there = fp->rank;
    memcpy(p->key, fp->key, UZ_NET_KEY_BYTES);
    return MPI_SUCCESS;
}

/* The peer a hello comes from, or -1 for a stranger. */
int tcp_peer_of_hello(const struct tcp_hello *h)
{
    if (same_key(h->key, uz_tcp.key))
        return h->rank >= 0 && h->rank < uz_tcp.job_size ? h->rank : -1;
    for (int i = uz_tcp.job_size; i < uz_tcp.size; i++) {
        const struct tcp_peer *p = &uz_tcp.peers[i];
        if (p->foreign && p->rank_there == h->rank && same_key(h->key, p->key))
            return i;
    }
    return -1;
}

/* Is `h` (an answer to our hello) from the process we connected to? */
int tcp_hello_is_from(const struct tcp_peer *p, int peer, const struct tcp_hello *h)
{
    if (p->foreign)
        return h->rank == p->rank_there && same_key(h->key, p->key);
    return h->rank == peer && same_key(h->key, uz_tcp.key);
}

/* The order that decides a race between two connections: by job key, then
 * by rank in the job; both processes compute the same. */
int tcp_we_are_lower(const struct tcp_peer *p, int peer)
{
    if (!p->foreign)
        return uz_tcp.rank < peer;
    int c = memcmp(uz_tcp.key, p->key, UZ_NET_KEY_BYTES);
    return c != 0 ? c < 0 : uz_tcp.rank < p->rank_there;
}

/* ------------------------------------------------------------ closing */

/* Forget the connection (not the peer: a later send connects again). */
static void closed(int peer)
{
    struct tcp_peer *p = &uz_tcp.peers[peer];
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->closing = p->bye_got = 0;
    p->pollout = p->full = 0;
    tcp_tx_free(p);
    tcp_rx_free(p);
}

static int queue_bye(int peer)
{
    struct tcp_peer *p = &uz_tcp.peers[peer];
    struct tcp_frame fr = { 0, 0, TCP_FRAME_BYE };
    size_t cap = sizeof(fr);
    struct tcp_block *b = malloc(sizeof(*b) + cap);
    if (!b)
        return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory closing a connection");
    b->next = NULL;
    b->off = 0;
    b->len = b->cap = cap;
    memcpy(b->data, &fr, sizeof(fr));
    if (p->txq_tail)
        p->txq_tail->next = b;
    else {
        p->txq = b;
        uz_tcp.nqueued++;
    }
    p->txq_tail = b;
    p->queued += cap;
    return MPI_SUCCESS;
}

int tcp_close_peer(int peer)
{
    if (peer < 0 || peer >= uz_tcp.size)
        return MPI_SUCCESS;
    struct tcp_peer *p = &uz_tcp.peers[peer];
    if (p->failed || (p->fd < 0 && p->out_state == TCP_OUT_NONE))
        return MPI_SUCCESS;
    if (p->fd < 0)
        return -EAGAIN;                 /* a connection in the making: let it finish */
    if (!p->closing) {
        int err = queue_bye(peer);
        if (err)
            return err;
        p->closing = 1;
        tcp_flush(peer);
    }
    if (p->txq)
        return -EAGAIN;
    shutdown(p->fd, SHUT_WR);
    if (!p->bye_got)
        return -EAGAIN;
    closed(peer);
    return MPI_SUCCESS;
}

void tcp_on_bye(int peer)
{
    uz_tcp.peers[peer].bye_got = 1;
}

/* End of stream from `peer`: 1 when it said BYE first (nothing is lost:
 * the connection is closed when ours is done too), 0 when it died. */
int tcp_on_eof(int peer)
{
    struct tcp_peer *p = &uz_tcp.peers[peer];
    if (!p->bye_got)
        return 0;
    /* Stop watching for input until our side is done with it. */
    tcp_epoll_set(p->fd, p->pollout ? EPOLLOUT : 0, tcp_tag(TCP_TAG_PEER, (uint32_t)peer), 0);
    if (p->closing && !p->txq)
        closed(peer);
    return 1;
}

/* A receive waits on a process of another job we have no connection to:
 * connect, so that its death (a refused connect, a reset) is seen. */
void tcp_watch_peer(int peer)
{
    if (peer < 0 || peer >= uz_tcp.size)
        return;
    struct tcp_peer *p = &uz_tcp.peers[peer];
    if (!p->failed && p->fd < 0 && p->out_state == TCP_OUT_NONE)
        tcp_connect_start(peer);
}
