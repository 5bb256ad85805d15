/*
 * tcp_conn.c — setting up connections: connecting on demand to a peer's
 * published addresses, accepting, and the handshake that admits only
 * ranks of this job and the processes of other jobs it was told of
 * (tcp_foreign.c).
 *
 * The connecting side sends a hello {magic, version, its rank, the job
 * key}.  The accepting side reads exactly that many bytes and nothing
 * else, checks magic and key (in constant time), and otherwise closes the
 * socket and counts it in uz_net_stats.rejected_connections: a stranger
 * never gets a record delivered.  Handshakes are read without blocking and
 * must finish within TCP_HANDSHAKE_MS, so a silent or slow client cannot
 * hold anything up.
 *
 * When two ranks connect to each other at once, the connection opened by
 * the lower rank (by job key, then rank, for processes of two jobs) is kept: the higher rank abandons its own and answers
 * WELCOME; the lower one answers the higher one's hello with RACE_LOST.
 * Records are written only to a connection both sides have agreed on
 * (until then the request layer keeps them, tcp_send.c), so nothing
 * queued on either side is lost to the connection that is dropped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/tcp/tcp.h"

static void fill_hello(struct tcp_hello *h, enum tcp_hello_kind kind)
{
    memset(h, 0, sizeof(*h));
    h->magic = TCP_MAGIC;
    h->version = TCP_VERSION;
    h->kind = (uint16_t)kind;
    h->rank = uz_tcp.rank;
    memcpy(h->key, uz_tcp.key, UZ_NET_KEY_BYTES);
}

static void describe(const struct sockaddr_in *sin, char *buf, size_t len)
{
    char a[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
    snprintf(buf, len, "%s:%u", a, (unsigned)ntohs(sin->sin_port));
}

static void set_buffers(int fd)
{
    if (uz_config.tcp_sndbuf) {
        int v = (int)uz_config.tcp_sndbuf;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    }
    if (uz_config.tcp_rcvbuf) {
        int v = (int)uz_config.tcp_rcvbuf;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    }
}

/* -------------------------------------------------------- established */

/* Both sides agreed on `fd` for `world`: records flow from now on. */
static void established(int world, int fd, const char *where)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    p->fd = fd;
    snprintf(p->where, sizeof(p->where), "%s", where);
    if (tcp_rx_new(p) != 0) {
        tcp_peer_lost(world, uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory for the connection to rank %d",
                                         world));
        return;
    }
    p->pollout = p->txq != NULL;
    if (tcp_epoll_set(fd, EPOLLIN | (p->pollout ? EPOLLOUT : 0), tcp_tag(TCP_TAG_PEER, (uint32_t)world), 0) != 0
        && tcp_epoll_set(fd, EPOLLIN | (p->pollout ? EPOLLOUT : 0), tcp_tag(TCP_TAG_PEER, (uint32_t)world), 1) != 0) {
        tcp_peer_lost_errno(world, errno, "watching the connection to");
        return;
    }
    if (p->txq)
        tcp_flush(world);
}

static void clear_deadline(struct tcp_peer *p)
{
    if (p->deadline_ns) {
        p->deadline_ns = 0;
        uz_tcp.ndeadlines--;
    }
}

static void set_deadline(struct tcp_peer *p, int ms)
{
    if (!p->deadline_ns)
        uz_tcp.ndeadlines++;
    p->deadline_ns = tcp_now_ns() + ms * 1000000L;
}

static void abandon_outgoing(struct tcp_peer *p)
{
    if (p->out_fd >= 0)
        close(p->out_fd);               /* also leaves the epoll set */
    p->out_fd = -1;
    p->out_state = TCP_OUT_NONE;
    p->reply_got = 0;
    clear_deadline(p);
}

/* -------------------------------------------------------- the peer's card */

/* Parse "a.b.c.d:port,..." into the addresses we may try, loopback ones
 * first for a peer on this host and never for a peer elsewhere. */
static int read_addresses(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    struct uz_net_peer_card card;
    if (p->foreign) {
        card.value = p->card ? p->card : "";
        card.node_id = p->same_host ? uz_tcp.node_id : -1;
    } else if (!uz_tcp.read_card || uz_tcp.read_card("tcp", world, &card) != 0)
        return uz_err_make(MPI_ERR_OTHER, "tcp: cannot read the network card of rank %d", world);
    int same_node = card.node_id == uz_tcp.node_id, n = 0, cap = 1;
    for (const char *c = card.value; *c; c++)
        cap += *c == ',';
    p->addrs = calloc((size_t)cap, sizeof(*p->addrs));
    if (!p->addrs)
        return uz_err_make(MPI_ERR_NO_MEM, "tcp: out of memory reading a card");
    for (int pass = 0; pass < 2; pass++) {             /* loopback first, then the rest */
        for (const char *c = card.value; *c;) {
            char entry[64];
            size_t len = strcspn(c, ",");
            snprintf(entry, sizeof(entry), "%.*s", (int)(len < 63 ? len : 63), c);
            c += len + (c[len] == ',');
            char *colon = strrchr(entry, ':');
            struct sockaddr_in sin = { .sin_family = AF_INET };
            if (!colon)
                continue;
            *colon = '\0';
            long port = strtol(colon + 1, NULL, 10);
            if (port <= 0 || port > 65535 || inet_pton(AF_INET, entry, &sin.sin_addr) != 1)
                continue;
            sin.sin_port = htons((uint16_t)port);
            int loop = (ntohl(sin.sin_addr.s_addr) >> 24) == 127;
            if (loop != (pass == 0) || (loop && !same_node))
                continue;
            p->addrs[n++] = sin;
        }
    }
    p->naddrs = n;
    if (!n)
        return uz_err_make(MPI_ERR_OTHER, "tcp: rank %d publishes no address this rank may use (its card: "
                           "\"%.200s\"%s)", world, card.value, same_node ? "" : "; loopback is only for ranks "
                           "on the same host");
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- connecting */

static int send_hello(int fd)
{
    struct tcp_hello h;
    fill_hello(&h, TCP_HELLO);
    return send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(h) ? 0 : -1;
}

static void connect_failed(int world, int error);

/* Try addrs[attempt], then the following ones, until a connect starts. */
static void try_address(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    int error = p->last_error;
    for (; p->attempt < p->naddrs; p->attempt++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            error = errno;
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        set_buffers(fd);
        const struct sockaddr_in *sin = &p->addrs[p->attempt];
        if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) != 0 && errno != EINPROGRESS) {
            error = errno;
            close(fd);
            continue;
        }
        if (tcp_epoll_set(fd, EPOLLOUT, tcp_tag(TCP_TAG_OUTGOING, (uint32_t)world), 1) != 0) {
            error = errno;
            close(fd);
            break;
        }
        p->out_fd = fd;
        p->out_state = TCP_OUT_CONNECTING;
        set_deadline(p, TCP_CONNECT_MS);
        return;
    }
    connect_failed(world, error ? error : ETIMEDOUT);
}

static void connect_failed(int world, int error)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    char list[256] = "";
    for (int i = 0; i < p->naddrs && strlen(list) < sizeof(list) - 32; i++) {
        char a[32];
        describe(&p->addrs[i], a, sizeof(a));
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", a);
    }
    abandon_outgoing(p);
    tcp_peer_lost(world, uz_err_make(MPI_ERR_PROC_ABORTED, "tcp: cannot connect to rank %d at %s: %s",
                                     world, list, strerror(error)));
}

/* Start connecting to `world` (its first send).  Returns an MPI error code
 * when the peer cannot be reached at all. */
int tcp_connect_start(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    if (p->naddrs < 0) {
        int err = read_addresses(world);
        if (err) {
            tcp_peer_lost(world, err);
            return err;
        }
    }
    p->attempt = 0;
    try_address(world);
    return p->failed;
}

/* Start over from the first address (our connection closed during its
 * handshake: the peer, slow to read our hello, may have taken us for a
 * stranger). */
static void reconnect(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    abandon_outgoing(p);
    uz_tcp.count.reconnects++;
    if (++p->retries > TCP_CONNECT_RETRIES) {
        tcp_peer_lost(world, uz_err_make(MPI_ERR_PROC_ABORTED, "tcp: rank %d keeps closing our connection "
                                         "during its handshake", world));
        return;
    }
    p->attempt = 0;
    try_address(world);
}

static void read_reply(int world)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    ssize_t n = recv(p->out_fd, (char *)&p->reply + p->reply_got, sizeof(p->reply) - p->reply_got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        reconnect(world);
        return;
    }
    p->reply_got += (uint8_t)n;
    if (p->reply_got < sizeof(p->reply))
        return;
    const struct tcp_hello *r = &p->reply;
    if (r->magic != TCP_MAGIC || r->version != TCP_VERSION || !tcp_hello_is_from(p, world, r)
        || (r->kind != TCP_WELCOME && r->kind != TCP_RACE_LOST)) {
        /* Whatever answers there is not the rank we want: try the next address. */
        uz_net_stats.rejected_connections++;
        close(p->out_fd);
        p->out_fd = -1;
        p->reply_got = 0;
        p->attempt++;
        clear_deadline(p);
        try_address(world);
        return;
    }
    if (r->kind == TCP_RACE_LOST) {
        uz_tcp.count.races++;
        abandon_outgoing(p);
        p->out_state = TCP_OUT_WAIT_THEIRS;
        set_deadline(p, TCP_RACE_WAIT_MS);
        return;
    }
    char where[32];
    describe(&p->addrs[p->attempt], where, sizeof(where));
    int fd = p->out_fd;
    p->out_fd = -1;
    p->out_state = TCP_OUT_NONE;
    p->reply_got = 0;
    p->retries = 0;
    clear_deadline(p);
    uz_tcp.count.connects++;
    established(world, fd, where);
}

void tcp_on_outgoing(int world, uint32_t events)
{
    struct tcp_peer *p = &uz_tcp.peers[world];
    if (p->failed || p->out_fd < 0)
        return;
    if (p->out_state == TCP_OUT_CONNECTING) {
        int error = 0;
        socklen_t len = sizeof(error);
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (getsockopt(p->out_fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
            error = errno;
        struct sockaddr_in peer;
        socklen_t plen = sizeof(peer);
        if (!error && getpeername(p->out_fd, (struct sockaddr *)&peer, &plen) != 0)
            return;                     /* still connecting (an event about an earlier socket) */
        if (!error && send_hello(p->out_fd) != 0)
            error = errno ? errno : EIO;
        if (error) {
            p->last_error = error;
            close(p->out_fd);
            p->out_fd = -1;
            p->attempt++;
            clear_deadline(p);
            try_address(world);
            return;
        }
        clear_deadline(p);              /* a live peer may take its time to answer */
        p->out_state = TCP_OUT_HELLO_SENT;
        p->reply_got = 0;
        tcp_epoll_set(p->out_fd, EPOLLIN, tcp_tag(TCP_TAG_OUTGOING, (uint32_t)world), 0);
        return;
    }
    if (p->out_state == TCP_OUT_HELLO_SENT)
        read_reply(world);
}

/* -------------------------------------------------------- accepting */

static struct tcp_incoming *incoming_find(int fd)
{
    for (int i = 0; i < uz_tcp.nincoming; i++)
        if (uz_tcp.incoming[i].fd == fd)
            return &uz_tcp.incoming[i];
    return NULL;
}

/* Forget an accepted socket; `keep` leaves the socket open for its peer. */
static void incoming_drop(struct tcp_incoming *in, int keep, int rejected)
{
    if (rejected)
        uz_net_stats.rejected_connections++;
    if (!keep)
        close(in->fd);
    *in = uz_tcp.incoming[--uz_tcp.nincoming];
}

void tcp_on_listen(void)
{
    for (int i = 0; i < 16; i++) {
        struct sockaddr_in sin;
        socklen_t len = sizeof(sin);
        int fd = accept4(uz_tcp.listen_fd, (struct sockaddr *)&sin, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;                     /* EAGAIN, or a connection already gone */
        if (uz_tcp.nincoming == TCP_INCOMING_MAX
            || tcp_epoll_set(fd, EPOLLIN, tcp_tag(TCP_TAG_INCOMING, (uint32_t)fd), 1) != 0) {
            uz_net_stats.rejected_connections++;
            close(fd);
            continue;
        }
        struct tcp_incoming *in = &uz_tcp.incoming[uz_tcp.nincoming++];
        memset(in, 0, sizeof(*in));
        in->fd = fd;
        in->deadline_ns = tcp_now_ns() + TCP_HANDSHAKE_MS * 1000000L;
        describe(&sin, in->where, sizeof(in->where));
    }
}

static int answer(int fd, enum tcp_hello_kind kind)
{
    struct tcp_hello h;
    fill_hello(&h, kind);
    return send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(h) ? 0 : -1;
}

/* A rank of this job connected: keep its connection unless ours wins. */
static void admit(struct tcp_incoming *in, int world)
{
    int fd = in->fd;
    struct tcp_peer *p = &uz_tcp.peers[world];
    int ours_in_making = p->out_state == TCP_OUT_CONNECTING || p->out_state == TCP_OUT_HELLO_SENT;
    if (p->failed || p->fd >= 0 || (ours_in_making && tcp_we_are_lower(p, world))) {
        if (!p->failed)
            answer(fd, TCP_RACE_LOST);
        uz_tcp.count.races++;
        incoming_drop(in, 0, 0);
        return;
    }
    if (ours_in_making) {
        uz_tcp.count.races++;
        abandon_outgoing(p);
    } else if (p->out_state == TCP_OUT_WAIT_THEIRS) {
        p->out_state = TCP_OUT_NONE;
        clear_deadline(p);
    }
    char where[32];
    snprintf(where, sizeof(where), "%s", in->where);
    if (answer(fd, TCP_WELCOME) != 0) {
        incoming_drop(in, 0, 0);
        return;
    }
    incoming_drop(in, 1, 0);
    p->retries = 0;
    uz_tcp.count.accepts++;
    established(world, fd, where);
}

void tcp_on_incoming(int fd)
{
    struct tcp_incoming *in = incoming_find(fd);
    if (!in)
        return;
    ssize_t n = recv(fd, (char *)&in->hello + in->got, sizeof(in->hello) - (size_t)in->got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        /* Closed before a whole hello: a stranger if it sent anything; an
         * empty one may be a peer abandoning its side of a race. */
        incoming_drop(in, 0, in->got > 0);
        return;
    }
    in->got += (int)n;
    if (in->got >= 4 && in->hello.magic != TCP_MAGIC) {
        incoming_drop(in, 0, 1);
        return;
    }
    if (in->got < (int)sizeof(in->hello))
        return;
    const struct tcp_hello *h = &in->hello;
    int world = tcp_peer_of_hello(h);   /* compares the key, whatever else is wrong */
    if (world < 0 || h->version != TCP_VERSION || h->kind != TCP_HELLO || world == uz_tcp.rank) {
        incoming_drop(in, 0, 1);
        return;
    }
    admit(in, world);
}

void tcp_incoming_close_all(void)
{
    while (uz_tcp.nincoming)
        incoming_drop(&uz_tcp.incoming[0], 0, 0);
}

/* -------------------------------------------------------- deadlines */

void tcp_check_deadlines(long now)
{
    for (int i = uz_tcp.nincoming - 1; i >= 0; i--)
        if (now >= uz_tcp.incoming[i].deadline_ns)
            incoming_drop(&uz_tcp.incoming[i], 0, 1);
    for (int r = 0; uz_tcp.ndeadlines && r < uz_tcp.size; r++) {
        struct tcp_peer *p = &uz_tcp.peers[r];
        if (!p->deadline_ns || now < p->deadline_ns)
            continue;
        clear_deadline(p);
        if (p->out_state == TCP_OUT_CONNECTING) {
            p->last_error = ETIMEDOUT;
            close(p->out_fd);
            p->out_fd = -1;
            p->attempt++;
            try_address(r);
        } else if (p->out_state == TCP_OUT_WAIT_THEIRS && p->fd < 0) {
            /* The winner's connection never came: try ours again. */
            p->out_state = TCP_OUT_NONE;
            p->attempt = 0;
            try_address(r);
        }
    }
}

/* Milliseconds until the next deadline (for a sleeping rank), or -1. */
int tcp_deadline_ms(long now)
{
    long next = 0;
    for (int i = 0; i < uz_tcp.nincoming; i++)
        if (!next || uz_tcp.incoming[i].deadline_ns < next)
            next = uz_tcp.incoming[i].deadline_ns;
    for (int r = 0; uz_tcp.ndeadlines && r < uz_tcp.size; r++) {
        long d = uz_tcp.peers[r].deadline_ns;
        if (d && (!next || d < next))
            next = d;
    }
    if (!next)
        return -1;
    return next <= now ? 0 : (int)((next - now) / 1000000L) + 1;
}
