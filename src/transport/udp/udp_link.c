/*
 * udp_link.c — datagrams over the process's one UDP socket.
 *
 * The socket is bound to INADDR_ANY on a port the kernel picks, so a rank
 * is reachable on every address it publishes; the card lists them (the
 * loopback one is used only by peers of the same host) with the port and
 * the MTU of the path.  Datagrams go out in batches (sendmmsg) and come in
 * in batches (recvmmsg), one system call for up to UDP_BATCH of them.
 * Socket buffers are enlarged (UZURA_UDP_SOCKBUF) so a window's worth of
 * segments from several peers fits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "transport/udp/udp.h"

/* The interface that has address `addr`, and its MTU; -1 if none. */
int udp_iface_of(const char *addr, char *name, size_t namelen, size_t *mtu)
{
    struct ifaddrs *list;
    int found = -1;
    if (getifaddrs(&list) != 0)
        return -1;
    for (struct ifaddrs *ifa = list; ifa && found < 0; ifa = ifa->ifa_next) {
        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET)
            continue;
        char text[64];
        inet_ntop(AF_INET, &((struct sockaddr_in *)ifa->ifa_addr)->sin_addr, text, sizeof(text));
        if (strcmp(text, addr) != 0)
            continue;
        snprintf(name, namelen, "%s", ifa->ifa_name);
        struct ifreq ifr;
        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifa->ifa_name);
        int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        *mtu = 1500;
        if (s >= 0 && ioctl(s, SIOCGIFMTU, &ifr) == 0)
            *mtu = (size_t)ifr.ifr_mtu;
        if (s >= 0)
            close(s);
        found = 0;
    }
    freeifaddrs(list);
    return found;
}

static void set_buffers(int fd)
{
    int want = (int)udp.conf.sockbuf;
    /* As root the FORCE variants pass net.core.[rw]mem_max. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
    int got = 0;
    socklen_t len = sizeof(got);
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
    udp.rcvbuf = got > 0 ? (size_t)got : 212992;
}

void udp_link_set_buffers(int fd)
{
    set_buffers(fd);
}

int udp_link_open(char *card, size_t cardlen, const struct uz_net_addrs *local)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "udp: cannot open a socket: %s", strerror(errno));
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t slen = sizeof(sin);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &slen) != 0) {
        int e = errno;
        close(fd);
        return uz_err_make(MPI_ERR_OTHER, "udp: cannot bind a socket: %s", strerror(e));
    }
    set_buffers(fd);
    /* ICMP errors (port unreachable: the peer's process is gone) are
     * queued for udp_link_errors() instead of being lost. */
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
    /* Accept coalesced runs of segments (GRO): a peer's offloaded send
     * then crosses the stack as one packet instead of dozens. */
    if (udp.conf.gso && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) != 0) {
        udp.gro_refused = errno;
        udp.conf.gso = 0;
    }
    udp.fd = fd;

    /* The MTU of the path to other hosts: the smallest of our interfaces'. */
    size_t if_mtu = 0, lo_mtu = 65536;
    int n = snprintf(card, cardlen, "%u/", ntohs(sin.sin_port));
    char addrs[UZ_NET_CARD_MAX] = "", loop[64] = "-";
    for (int i = 0; i < local->n; i++) {
        char name[IF_NAMESIZE];
        size_t mtu = 1500;
        udp_iface_of(local->addr[i], name, sizeof(name), &mtu);
        if (i == local->loopback_index) {
            snprintf(loop, sizeof(loop), "%s", local->addr[i]);
            lo_mtu = mtu;
            continue;
        }
        if (!if_mtu || mtu < if_mtu)
            if_mtu = mtu;
        size_t used = strlen(addrs);
        snprintf(addrs + used, sizeof(addrs) - used, "%s%s", used ? "," : "", local->addr[i]);
    }
    udp.if_mtu = if_mtu ? if_mtu : 1500;
    udp.lo_mtu = lo_mtu;
    n += snprintf(card + n, cardlen - n, "%zu/%s/%s", udp.if_mtu, addrs[0] ? addrs : "-", loop);
    if ((size_t)n >= cardlen) {
        close(fd);
        return uz_err_make(MPI_ERR_OTHER, "udp: too many local addresses for the business card");
    }
    return MPI_SUCCESS;
}

/* A peer's card "port/mtu/addr,addr/loop": where to send and the path MTU. */
int udp_link_dest(struct udp_dest *d, const char *card, int same_node, size_t *mtu)
{
    unsigned port;
    size_t their_mtu;
    char addrs[UZ_NET_CARD_MAX], loop[64];
    if (sscanf(card, "%u/%zu/%899[^/]/%63s", &port, &their_mtu, addrs, loop) != 4 || port > 65535)
        return -1;
    const char *use;
    if (same_node && strcmp(loop, "-") != 0) {
        use = loop;
        *mtu = udp.lo_mtu;
    } else {
        char *comma = strchr(addrs, ',');
        if (comma)
            *comma = '\0';
        if (strcmp(addrs, "-") == 0)
            return -1;
        use = addrs;
        *mtu = their_mtu < udp.if_mtu ? their_mtu : udp.if_mtu;
    }
    memset(&d->in, 0, sizeof(d->in));
    d->in.sin_family = AF_INET;
    d->in.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, use, &d->in.sin_addr) != 1)
        return -1;
    snprintf(d->text, sizeof(d->text), "%.40s:%u", use, port);
    return 0;
}

int udp_link_send(struct udp_out *out, int n)
{
    struct mmsghdr m[UDP_BATCH];
    int done = 0;
    while (done < n) {
        int k = n - done < UDP_BATCH ? n - done : UDP_BATCH;
        for (int i = 0; i < k; i++) {
            struct udp_out *o = &out[done + i];
            memset(&m[i].msg_hdr, 0, sizeof(m[i].msg_hdr));
            m[i].msg_hdr.msg_name = (void *)&o->dest->in;
            m[i].msg_hdr.msg_namelen = sizeof(o->dest->in);
            m[i].msg_hdr.msg_iov = o->iov;
            m[i].msg_hdr.msg_iovlen = (size_t)o->niov;
        }
        int r = sendmmsg(udp.fd, m, (unsigned)k, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
                break;
            /* ECONNREFUSED and friends: an ICMP error for an earlier
             * datagram (read it from the error queue); this one is lost
             * like any other. */
            udp_link_errors();
            done++;
            continue;
        }
        done += r;
        if (r < k)
            break;
    }
    return done;
}

/*
 * Up to `max` segments.  With GRO a message may hold several segments of
 * the same flow back to back, each gso_size bytes but the last (the
 * UDP_GRO control message says how long); they are split here, so the
 * protocol above sees datagrams either way.
 */
int udp_link_recv(struct udp_in *in, int max)
{
    static struct mmsghdr m[UDP_BATCH];
    static struct iovec iov[UDP_BATCH];
    static char ctl[UDP_BATCH][CMSG_SPACE(sizeof(int))];
    int vlen = UDP_BATCH;
    if (udp.conf.gso) {
        /* Room for the worst case: every message a full run (the kernel
         * coalesces at most 64 segments, UDP_GSO_SEGS). */
        int per = UDP_GSO_SEGS;
        vlen = max / per < UDP_BATCH ? max / per : UDP_BATCH;
        if (vlen < 1)
            vlen = 1;
    } else if (vlen > max) {
        vlen = max;
    }
    for (int i = 0; i < vlen; i++) {
        iov[i].iov_base = udp.rxbuf + (size_t)i * udp.rxbuf_each;
        iov[i].iov_len = udp.rxbuf_each;
        memset(&m[i].msg_hdr, 0, sizeof(m[i].msg_hdr));
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
        if (udp.conf.gso) {
            m[i].msg_hdr.msg_control = ctl[i];
            m[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
        }
    }
    int r;
    for (int refused = 0;;) {
        r = recvmmsg(udp.fd, m, (unsigned)vlen, MSG_DONTWAIT, NULL);
        if (r >= 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        if (errno == EINTR)
            continue;
        /* The kernel reports a pending ICMP error ahead of the datagrams
         * already queued, and this call used it up: note the error, then
         * read again, so what a peer sent before it died is not left
         * behind the news of its death. */
        udp_link_errors();
        if (++refused > 4)
            break;
    }
    udp.rx_more = r == vlen;
    if (r < 0)
        return 0;
    int n = 0;
    for (int i = 0; i < r && n < max; i++) {
        unsigned char *buf = iov[i].iov_base;
        size_t len = (m[i].msg_hdr.msg_flags & MSG_TRUNC) ? 0 : m[i].msg_len;
        size_t seg = len;
        for (struct cmsghdr *c = udp.conf.gso ? CMSG_FIRSTHDR(&m[i].msg_hdr) : NULL; c;
             c = CMSG_NXTHDR(&m[i].msg_hdr, c)) {
            int g;
            if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                memcpy(&g, CMSG_DATA(c), sizeof(g));
                if (g > 0)
                    seg = (size_t)g;
            }
        }
        if (!len) {
            in[n++] = (struct udp_in){ buf, 0 };
            continue;
        }
        for (size_t off = 0; off < len && n < max; off += seg)
            in[n++] = (struct udp_in){ buf + off, len - off < seg ? len - off : seg };
    }
    return n;
}

/*
 * Send `nseg` segments, described by iov[0..niov), to `d` as one offloaded
 * datagram run (UDP_SEGMENT): every segment `seg` bytes but the last.
 * Returns nseg when sent (or lost, like any datagram), 0 when the socket
 * is full, -1 when the kernel refuses offload (the caller then stops using
 * it).
 */
int udp_link_send_run(const struct udp_dest *d, struct iovec *iov, int niov, int nseg, size_t seg)
{
    char ctl[CMSG_SPACE(sizeof(uint16_t))];
    struct msghdr mh = { .msg_name = (void *)&d->in, .msg_namelen = sizeof(d->in), .msg_iov = iov,
                         .msg_iovlen = (size_t)niov };
    int n = nseg;
    if (n > 1) {
        memset(ctl, 0, sizeof(ctl));
        mh.msg_control = ctl;
        mh.msg_controllen = sizeof(ctl);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t s16 = (uint16_t)seg;
        memcpy(CMSG_DATA(c), &s16, sizeof(s16));
    }
    for (;;) {
        if (sendmsg(udp.fd, &mh, MSG_DONTWAIT) >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
            return 0;
        if (n > 1 && (errno == EINVAL || errno == EIO || errno == EOPNOTSUPP || errno == ENOPROTOOPT))
            return -1;
        udp_link_errors();      /* an ICMP error for an earlier datagram; this run is lost */
        return n;
    }
}

size_t udp_link_rx_queued(void)
{
    uint32_t info[SK_MEMINFO_VARS];
    socklen_t len = sizeof(info);
    if (getsockopt(udp.fd, SOL_SOCKET, SO_MEMINFO, info, &len) != 0)
        return 0;
    return info[SK_MEMINFO_RMEM_ALLOC];
}

/* The peer whose datagrams go to `to`, or NULL. */
static struct udp_peer *peer_at(const struct sockaddr_in *to)
{
    for (int i = 0; i < udp.nlive; i++) {
        struct udp_peer *p = udp.live[i];
        if (p->dest.in.sin_port == to->sin_port && p->dest.in.sin_addr.s_addr == to->sin_addr.s_addr)
            return p;
    }
    return NULL;
}

/*
 * Read the ICMP errors the kernel queued for our datagrams.  "Port
 * unreachable" from a peer's address means no socket is bound to its port
 * any more: the process has exited (its port was bound before its card was
 * published), so it is declared dead (by udp_reap_gone, at the end of the
 * progress call) instead of after UZURA_UDP_PEER_TIMEOUT.  Silence, not an ICMP error, is what a peer
 * that is merely busy computing produces, so this cannot misjudge it.
 */
void udp_link_errors(void)
{
    for (int guard = 0; guard < 64; guard++) {
        struct sockaddr_in to;
        char ctl[512];
        char byte;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov,
                             .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
        if (recvmsg(udp.fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            return;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != IPPROTO_IP || c->cmsg_type != IP_RECVERR)
                continue;
            const struct sock_extended_err *ee = (const void *)CMSG_DATA(c);
            udp.stats.icmp_errors++;
            if (ee->ee_origin != SO_EE_ORIGIN_ICMP || ee->ee_type != 3 /* unreachable */ ||
                ee->ee_code != 3 /* port */ || mh.msg_namelen < sizeof(to))
                continue;
            /* Only marked here: we may be inside a send that is walking
             * this peer's window, which declaring it dead frees. */
            struct udp_peer *p = peer_at(&to);
            if (p && !p->dead) {
                p->gone = 1;
                udp.gone_pending = 1;
            }
        }
    }
}
