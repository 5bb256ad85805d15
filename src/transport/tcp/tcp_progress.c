/*
 * tcp_progress.c — driving the tcp transport: one epoll_wait per call
 * (never blocking), dispatching what is ready, watching handshake and
 * connect deadlines, and reporting peers that are gone.
 *
 * A peer found dead — its connection closed or reset while the job runs,
 * no address of it connects, or it broke the frame format — is only
 * marked where it is found (perhaps inside a send that the request layer
 * is in the middle of); its sockets are closed and the request layer told
 * (up->peer_failed, which fails everything addressed to it) at the
 * end of the next progress call, from the top.  A peer that reached
 * MPI_Finalize is never reported: connections are closed only after the
 * job-wide fence, and nobody reads them after that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/errors.h"
#include "transport/tcp/tcp.h"

/* ------------------------------------------------------------ dead peers */

void tcp_peer_lost(int world, int err)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    if (p->failed)
        return;
    p->failed = err;
    if (!p->dead_listed) {
        p->dead_listed = 1;
        uz_tcp.dead[uz_tcp.ndead++] = world;
    }
}

void tcp_peer_lost_errno(int world, int error, const char *doing)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    if (uz_tcp.lingering) {
        tcp_peer_lost(world, MPI_ERR_PROC_ABORTED);    /* nobody to tell any more */
        return;
    }
    tcp_peer_lost(world, uz_err_make(MPI_ERR_PROC_ABORTED, "tcp: %s rank %d%s%s failed: %s "
                                     "(the process ended or its host is unreachable)", doing, world,
                                     p->where[0] ? " on " : "", p->where, strerror(error)));
}

/* One at a time from the end of the list: failing a peer's requests may
 * run code that finds another peer dead. */
static int reap(void)
{
    int n = 0;
    while (uz_tcp.ndead) {
        int world = uz_tcp.dead[--uz_tcp.ndead];
        struct tcp_peer *p = &uz_tcp.peers[world];
        if (p->fd >= 0)
            close(p->fd);
        if (p->out_fd >= 0)
            close(p->out_fd);
        p->fd = p->out_fd = -1;
        p->out_state = TCP_OUT_NONE;
        if (p->deadline_ns) {
            p->deadline_ns = 0;
            uz_tcp.ndeadlines--;
        }
        tcp_tx_free(p);
        tcp_rx_free(p);
        uz_tcp.up->peer_failed(world, p->failed);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------ progress */

static int dispatch(const struct epoll_event *ev)
{
    uint32_t tag = (uint32_t)(ev->data.u64 >> 32), value = (uint32_t)ev->data.u64;
    switch (tag) {
    case TCP_TAG_PEER: {
        struct tcp_peer *p = &uz_tcp.peers[value];
        int events = 0;
        if (p->failed || p->fd < 0)
            return 0;
        if (ev->events & EPOLLOUT) {
            p->full = 0;
            events += tcp_flush((int)value);
        }
        if (ev->events & (EPOLLIN | EPOLLHUP | EPOLLERR))
            events += tcp_on_readable((int)value);
        return events;
    }
    case TCP_TAG_LISTEN:
        tcp_on_listen();
        return 1;
    case TCP_TAG_INCOMING:
        tcp_on_incoming((int)value);
        return 1;
    case TCP_TAG_OUTGOING:
        tcp_on_outgoing((int)value, ev->events);
        return 1;
    }
    return 0;
}

int tcp_progress(void)
{
    enum { EVENTS = 32 };
    struct epoll_event ev[EVENTS];
    if (uz_tcp.in_progress)
        return 0;                       /* a handler called back into progress */
    uz_tcp.in_progress = 1;
    int n = epoll_wait(uz_tcp.ep, ev, EVENTS, 0), events = 0;
    for (int i = 0; i < n; i++)
        events += dispatch(&ev[i]);
    if (UZ_UNLIKELY(uz_tcp.nincoming || uz_tcp.ndeadlines))
        tcp_check_deadlines(tcp_now_ns());
    uz_tcp.in_progress = 0;
    if (UZ_UNLIKELY(uz_tcp.ndead))
        events += reap();
    return events;
}

/* The epoll set is itself pollable: it is readable whenever one of its
 * sockets has something (EPOLLOUT is in it only for sockets with queued
 * bytes). */
int tcp_pollfds(struct pollfd *fds, int max, int *timeout_ms)
{
    if (max < 1)
        return 0;
    fds[0] = (struct pollfd){ .fd = uz_tcp.ep, .events = POLLIN };
    if (uz_tcp.ndead)
        *timeout_ms = 0;
    else if (uz_tcp.nincoming || uz_tcp.ndeadlines) {
        int ms = tcp_deadline_ms(tcp_now_ns());
        if (ms >= 0 && ms < *timeout_ms)
            *timeout_ms = ms;
    }
    return 1;
}
