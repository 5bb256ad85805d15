/*
 * tcp_ops.c — the tcp transport's entry points: opening the listening
 * socket and describing it in the rank's card, closing everything at
 * MPI_Finalize, and the uz_transport_ops table the request layer drives it
 * through.
 *
 * The card lists every published address with the one port, for example
 * "10.77.0.1:41234,127.0.0.1:41234"; a peer picks the first address that
 * it may use and that connects (tcp_conn.c).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/tcp/tcp.h"

struct tcp_state uz_tcp = { .ep = -1, .listen_fd = -1 };

long tcp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int tcp_epoll_set(int fd, uint32_t events, uint64_t data, int add)
{
    struct epoll_event ev = { .events = events, .data.u64 = data };
    return epoll_ctl(uz_tcp.ep, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

/* ------------------------------------------------------------------ open */

static int open_fail(const char *what, int error)
{
    return uz_err_make(MPI_ERR_OTHER, "tcp: cannot %s: %s", what, strerror(error));
}

static int listen_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return open_fail("create the listening socket", errno);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));   /* inherited by accepted sockets */
    if (uz_config.tcp_sndbuf) {
        int v = (int)uz_config.tcp_sndbuf;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    }
    if (uz_config.tcp_rcvbuf) {
        int v = (int)uz_config.tcp_rcvbuf;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    }
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof(sin);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, SOMAXCONN) != 0
        || getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
        int e = errno;
        close(fd);
        return open_fail("listen on a tcp port", e);
    }
    uz_tcp.listen_fd = fd;
    uz_tcp.port = ntohs(sin.sin_port);
    return MPI_SUCCESS;
}

static int write_card(const struct uz_net_addrs *local, char *card, size_t cardlen)
{
    size_t used = 0;
    card[0] = '\0';
    for (int i = 0; i < local->n; i++) {
        int n = snprintf(card + used, cardlen - used, "%s%s:%u", used ? "," : "", local->addr[i],
                         (unsigned)uz_tcp.port);
        if (n < 0 || (size_t)n >= cardlen - used)
            return uz_err_make(MPI_ERR_OTHER, "tcp: %d addresses do not fit in a card of %zu bytes "
                               "(choose interfaces with UZURA_NET_IF)", local->n, cardlen);
        used += (size_t)n;
    }
    if (!used)
        return uz_err_make(MPI_ERR_OTHER, "tcp: this host has no usable IPv4 address%s",
                           uz_config.net_if && *uz_config.net_if ? " on the interfaces UZURA_NET_IF names" : "");
    return MPI_SUCCESS;
}

/* The card, for tcp_describe. */
static char listening_on[UZ_NET_CARD_MAX];

static int tcp_open(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card,
                    size_t cardlen)
{
    uz_tcp.up = up;
    uz_tcp.read_card = setup->read_card;
    memcpy(uz_tcp.key, setup->job_key, UZ_NET_KEY_BYTES);
    uz_tcp.rank = setup->world_rank;
    uz_tcp.size = uz_tcp.job_size = uz_tcp.cap = setup->world_size;
    uz_tcp.node_id = setup->node_id;
    if (uz_config.tcp_record < 4096 || uz_config.tcp_record > (1u << 30))
        return uz_err_make(MPI_ERR_OTHER, "UZURA_TCP_RECORD=%zu: must be between 4k and 1g", uz_config.tcp_record);
    uz_tcp.max_record = uz_config.tcp_record + UZ_RECORD_HEADER_ROOM;
    uz_tcp.frame_max = uz_tcp.max_record > (16u << 20) ? uz_tcp.max_record : (16u << 20);
    uz_tcp.peers = calloc((size_t)setup->world_size, sizeof(*uz_tcp.peers));
    uz_tcp.dead = calloc((size_t)setup->world_size, sizeof(int));
    if (!uz_tcp.peers || !uz_tcp.dead)
        return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory for %d peers", setup->world_size);
    for (int r = 0; r < setup->world_size; r++) {
        uz_tcp.peers[r].fd = uz_tcp.peers[r].out_fd = -1;
        uz_tcp.peers[r].naddrs = -1;
    }
    uz_tcp.ep = epoll_create1(EPOLL_CLOEXEC);
    if (uz_tcp.ep < 0)
        return open_fail("create an epoll set", errno);
    int err = listen_socket();
    if (err)
        return err;
    if (tcp_epoll_set(uz_tcp.listen_fd, EPOLLIN, tcp_tag(TCP_TAG_LISTEN, 0), 1) != 0)
        return open_fail("watch the listening socket", errno);
    struct uz_net_addrs local;
    uz_net_local_addresses(&local);
    if ((err = write_card(&local, card, cardlen)))
        return err;
    snprintf(listening_on, sizeof(listening_on), "%s", card);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ close */

static void print_counters(void)
{
    const struct tcp_counters *c = &uz_tcp.count;
    fprintf(stderr, "Uzura rank %d: tcp connections opened %lu, accepted %lu, races %lu; "
            "rejected connections %lu, malformed frames %lu; placed bytes %lu, queued bytes %lu, "
            "refused sends %lu\n", uz_tcp.rank, c->connects, c->accepts, c->races,
            uz_net_stats.rejected_connections, uz_net_stats.malformed, c->placed_bytes, c->queued_bytes,
            c->eagain);
}

/* Called after the job-wide fence of MPI_Finalize: no peer sends to us any
 * more, and nothing we still hold is needed by anyone. */
static void tcp_close(void)
{
    tcp_linger_stop();
    if (uz_config.verbose >= 2)
        print_counters();
    for (int r = 0; uz_tcp.peers && r < uz_tcp.size; r++) {
        struct tcp_peer *p = &uz_tcp.peers[r];
        if (p->fd >= 0)
            close(p->fd);
        if (p->out_fd >= 0)
            close(p->out_fd);
        tcp_tx_free(p);
        tcp_rx_free(p);
        free(p->addrs);
        free(p->card);
    }
    tcp_incoming_close_all();
    if (uz_tcp.listen_fd >= 0)
        close(uz_tcp.listen_fd);
    if (uz_tcp.ep >= 0)
        close(uz_tcp.ep);
    free(uz_tcp.peers);
    free(uz_tcp.dead);
    free(uz_tcp.scratch);
    memset(&uz_tcp, 0, sizeof(uz_tcp));
    uz_tcp.ep = uz_tcp.listen_fd = -1;
}

/* ------------------------------------------------------------------ the rest */

static void tcp_caps(struct uz_transport_caps *caps)
{
    *caps = (struct uz_transport_caps){ .max_record = uz_tcp.max_record };
}

static void tcp_describe(char *buf, size_t len)
{
    snprintf(buf, len, "tcp listening on %s (one connection per peer, opened on first use)", listening_on);
}

/* What MPI_T tools see of the connections. */
static const struct uz_transport_counter tcp_counters[] = {
    { "connects", "tcp: connections this rank opened and kept", &uz_tcp.count.connects },
    { "accepts", "tcp: connections this rank accepted and kept", &uz_tcp.count.accepts },
    { "reconnects", "tcp: connects started over because the peer closed our handshake", &uz_tcp.count.reconnects },
    { "races", "tcp: connections dropped because both ranks connected at once", &uz_tcp.count.races },
    { NULL, NULL, NULL },
};

const struct uz_transport_ops uz_tcp_transport = {
    .name = "tcp",
    .reach = UZ_REACH_NETWORK,
    .open = tcp_open,
    .caps = tcp_caps,
    .linger = tcp_linger,
    .close = tcp_close,
    .describe = tcp_describe,
    .send = tcp_send,
    .progress = tcp_progress,
    .pollfds = tcp_pollfds,
    .counters = tcp_counters,
    .add_peer = tcp_add_peer,
    .close_peer = tcp_close_peer,
    .watch_peer = tcp_watch_peer,
};
