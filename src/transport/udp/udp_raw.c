/*
 * udp_raw.c — the same protocol straight over Ethernet frames, with
 * Uzura's own EtherType (0x88B5, IEEE 802 local experimental), as GigaE PM
 * separates its traffic from the kernel's by the Ethernet type field.
 *
 * UZURA_UDP_ETHER=1 selects it; it needs CAP_NET_RAW (an AF_PACKET
 * socket), so without it MPI_Init fails with a clear message.  The packet
 * socket (SOCK_DGRAM: the kernel writes the Ethernet header) listens for
 * our EtherType on every interface: peers on other hosts are reached
 * through the interface of the first published address, by MAC; peers on
 * this host through loopback, where every rank of the host sees every
 * frame, so frames for another rank are passed over (the `dst` field).
 *
 * The card is "E<mac as 12 hex digits>/<mtu>".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "transport/udp/udp.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

static int lo_ifindex;

static int read_mac(int fd, const char *ifname, unsigned char mac[6])
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0)
        return -1;
    memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
    return 0;
}

int udp_raw_open(char *card, size_t cardlen, const struct uz_net_addrs *local)
{
    int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(UDP_ETHERTYPE));
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "udp: UZURA_UDP_ETHER=1 needs a raw packet socket, which "
                           "failed: %s (run with CAP_NET_RAW, or unset UZURA_UDP_ETHER)", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    udp_link_set_buffers(fd);
    udp.fd = fd;
    lo_ifindex = (int)if_nametoindex("lo");

    /* The interface of the first address that is not loopback. */
    char ifname[IF_NAMESIZE] = "lo";
    size_t mtu = udp.lo_mtu = 65536;
    for (int i = 0; i < local->n; i++) {
        char name[IF_NAMESIZE];
        size_t m;
        if (udp_iface_of(local->addr[i], name, sizeof(name), &m) != 0)
            continue;
        if (i == local->loopback_index) {
            udp.lo_mtu = m;
        } else if (strcmp(ifname, "lo") == 0) {
            snprintf(ifname, sizeof(ifname), "%s", name);
            mtu = m;
        }
    }
    udp.ifindex = (int)if_nametoindex(ifname);
    udp.if_mtu = mtu;
    if (!udp.ifindex || read_mac(fd, ifname, udp.mac) != 0) {
        close(fd);
        udp.fd = -1;
        return uz_err_make(MPI_ERR_OTHER, "udp: cannot find the MAC address of %s", ifname);
    }
    snprintf(card, cardlen, "E%02x%02x%02x%02x%02x%02x/%zu", udp.mac[0], udp.mac[1], udp.mac[2],
             udp.mac[3], udp.mac[4], udp.mac[5], mtu);
    return MPI_SUCCESS;
}

int udp_raw_dest(struct udp_dest *d, const char *card, int same_node, size_t *mtu)
{
    unsigned m[6];
    size_t their_mtu;
    if (sscanf(card, "E%2x%2x%2x%2x%2x%2x/%zu", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &their_mtu) != 7)
        return -1;
    memset(&d->ll, 0, sizeof(d->ll));
    d->ll.sll_family = AF_PACKET;
    d->ll.sll_protocol = htons(UDP_ETHERTYPE);
    d->ll.sll_halen = 6;
    if (same_node) {
        d->ll.sll_ifindex = lo_ifindex;         /* MAC 00:00:00:00:00:00 */
        *mtu = udp.lo_mtu;
    } else {
        d->ll.sll_ifindex = udp.ifindex;
        for (int i = 0; i < 6; i++)
            d->ll.sll_addr[i] = (unsigned char)m[i];
        *mtu = their_mtu < udp.if_mtu ? their_mtu : udp.if_mtu;
    }
    snprintf(d->text, sizeof(d->text), "%s%02x:%02x:%02x:%02x:%02x:%02x", same_node ? "lo/" : "",
             m[0], m[1], m[2], m[3], m[4], m[5]);
    return 0;
}

int udp_raw_send(struct udp_out *out, int n)
{
    struct mmsghdr mm[UDP_BATCH];
    int done = 0;
    while (done < n) {
        int k = n - done < UDP_BATCH ? n - done : UDP_BATCH;
        for (int i = 0; i < k; i++) {
            struct udp_out *o = &out[done + i];
            memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
            mm[i].msg_hdr.msg_name = (void *)&o->dest->ll;
            mm[i].msg_hdr.msg_namelen = sizeof(o->dest->ll);
            mm[i].msg_hdr.msg_iov = o->iov;
            mm[i].msg_hdr.msg_iovlen = (size_t)o->niov;
        }
        int r = sendmmsg(udp.fd, mm, (unsigned)k, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
                break;
            done++;             /* e.g. a frame too large: lost, like on the wire */
            continue;
        }
        done += r;
        if (r < k)
            break;
    }
    return done;
}

int udp_raw_recv(struct udp_in *in, int max)
{
    /* The same batch reader: a packet socket of type SOCK_DGRAM hands
     * over the frame's payload, our header first. */
    return udp_link_recv(in, max);
}
