/*
 * tcp_linger.c — writing what is still queued while MPI_Finalize waits in
 * its last fence.
 *
 * The request layer counts a record as sent once the transport took it,
 * but the transport may still hold its tail in a peer's queue (the kernel
 * took only part of it).  A peer may need those bytes to finish its last
 * receive, and it can only reach the fence once it has them; yet this
 * rank, sitting in the fence, calls nothing.  So from linger() until
 * close() a thread keeps writing the queues (and reads and drops whatever
 * still arrives, so that a peer writing to us is never stuck either).
 * The request layer does nothing in between, so nothing else touches the
 * transport; no peer is reported dead from here.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/tcp/tcp.h"

static pthread_t thread;
static int running;
static atomic_int stop;

static int watch(struct pollfd *fds, int *worlds, int max)
{
    int n = 0;
    for (int r = 0; r < uz_tcp.size && n < max; r++) {
        struct tcp_peer *p = &uz_tcp.peers[r];
        if (p->fd < 0 || p->failed || !p->txq)
            continue;
        fds[n] = (struct pollfd){ .fd = p->fd, .events = POLLOUT | POLLIN };
        worlds[n++] = r;
    }
    return n;
}

static void drop_input(int world)
{
    static unsigned char sink[65536];
    struct tcp_peer *p = &uz_tcp.peers[world];
    ssize_t n = recv(p->fd, sink, sizeof(sink), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        tcp_peer_lost(world, MPI_ERR_PROC_ABORTED);     /* gone after its fence: nothing to write */
}

static void *linger_main(void *arg)
{
    enum { MAX = 1024 };
    static struct pollfd fds[MAX];
    static int worlds[MAX];
    (void)arg;
    while (!atomic_load(&stop)) {
        int n = watch(fds, worlds, MAX);
        if (!n)
            break;                      /* everything written */
        if (poll(fds, (nfds_t)n, 10) <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            if (fds[i].revents & POLLOUT)
                tcp_flush(worlds[i]);
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR) && !uz_tcp.peers[worlds[i]].failed)
                drop_input(worlds[i]);
        }
    }
    return NULL;
}

void tcp_linger(void)
{
    if (uz_config.verbose >= 2 && uz_tcp.nqueued) {
        size_t bytes = 0;
        for (int r = 0; r < uz_tcp.size; r++)
            bytes += uz_tcp.peers[r].queued;
        fprintf(stderr, "Uzura rank %d: tcp: %zu bytes to %d peers still queued at MPI_Finalize; "
                "written while it waits\n", uz_tcp.rank, bytes, uz_tcp.nqueued);
    }
    uz_tcp.lingering = 1;
    if (!uz_tcp.nqueued)
        return;
    atomic_store(&stop, 0);
    running = pthread_create(&thread, NULL, linger_main, NULL) == 0;
}

void tcp_linger_stop(void)
{
    if (running) {
        atomic_store(&stop, 1);
        pthread_join(thread, NULL);
        running = 0;
    }
}
