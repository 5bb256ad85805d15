/*
 * udp_raw.c — kernel UDP between two hosts with no protocol on top: the
 * ceiling for Uzura's udp transport (bench/udp_bench.sh runs it beside
 * tcp_raw).  No reliability at all: it only measures what the kernel's
 * datagram path costs at a given segment size, with the same offloads the
 * transport uses (UDP_SEGMENT runs on send, UDP_GRO on receive).
 *
 *   udp_raw server [port] [--seg BYTES] [--hdr BYTES [--alt]]       serve the client, then exit
 *   udp_raw client HOST [port] [--seg BYTES] [--hdr BYTES [--alt]]  measure, print, stop the server
 *
 * Prints "bytes MB/s" lines: ping-pong bandwidth like bench/p2p.c bw, for
 * 64 KiB .. 16 MiB ("# ... ping-pong"), then streaming bandwidth like
 * bench/tcp_raw.c stream and p2p rate (64 messages, then a 1-byte reply),
 * for 64 KiB .. 1 MiB ("# ... stream").  --seg is the payload of one datagram (default 1472:
 * an MTU of 1500 less IPv4 and UDP headers).  Both sides poll (nonblocking
 * reads in a loop), as an MPI rank does.  A lost datagram would hang the
 * ping-pong; the receive buffer is made large enough that on a veth pair
 * none is lost, and a side that waits two seconds for the rest of a
 * message (or for a reply) says so and exits 1 instead.
 *
 * --hdr B sends every datagram as two pieces of the iovec, B header bytes
 * from an array of headers and seg - B payload bytes from the message:
 * it measures what per-segment pieces cost the kernel against one piece
 * per run.  --alt (with --hdr) puts every other header last, as the udp
 * transport does: two payloads then sit side by side in the message and
 * two headers in the array, so a run is one piece per datagram, not two.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum { PORT = 47124, MAX = 16 << 20, RUN_SEGS = 64, RUN_BYTES = 65000, REPS = 5, WINDOW = 64 };
enum { STREAM_MAX = 1 << 20 };
static const uint64_t STREAM = 1ULL << 63;     /* in a command: stream, not ping-pong */

static int fd;
static size_t seg = 1472;
static size_t hdr;                 /* --hdr: header piece per datagram, 0: none */
static int alt;                    /* --alt: every other header last */
static unsigned char hdrbuf[RUN_SEGS * 256];
static unsigned char *buf, *rx;
static struct sockaddr_in peer;
static int have_peer;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* Append a piece, or lengthen the last one when this one continues it. */
static void add_piece(struct iovec *iov, size_t *niov, void *base, size_t len)
{
    struct iovec *last = *niov ? &iov[*niov - 1] : NULL;
    if (last && (unsigned char *)last->iov_base + last->iov_len == (unsigned char *)base)
        last->iov_len += len;
    else if (len)
        iov[(*niov)++] = (struct iovec){ base, len };
}

/* Send `bytes` as offloaded runs of segments. */
static void send_msg(size_t bytes)
{
    size_t per = RUN_BYTES / seg;
    if (per > RUN_SEGS)
        per = RUN_SEGS;
    if (per < 1)
        per = 1;
    size_t off = 0;
    do {
        size_t n = bytes - off < per * seg ? bytes - off : per * seg;
        struct iovec iov[2 * RUN_SEGS] = { { buf + off, n ? n : 1 } };
        size_t niov = 1;
        if (hdr && n > seg) {  /* the same bytes on the wire, gathered as header + payload pieces */
            niov = 0;
            unsigned char *payload = buf + off;
            for (size_t done = 0, k = 0; done < n; done += seg, k++) {
                size_t d = n - done < seg ? n - done : seg;
                size_t h = d < hdr ? d : hdr;
                if (alt && k % 2) {
                    add_piece(iov, &niov, payload, d - h);
                    add_piece(iov, &niov, hdrbuf + k * hdr, h);
                } else {
                    add_piece(iov, &niov, hdrbuf + k * hdr, h);
                    add_piece(iov, &niov, payload, d - h);
                }
                payload += d - h;
            }
        }
        char ctl[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
        struct msghdr mh = { .msg_name = &peer, .msg_namelen = sizeof(peer), .msg_iov = iov,
                             .msg_iovlen = niov };
        if (n > seg) {
            mh.msg_control = ctl;
            mh.msg_controllen = sizeof(ctl);
            struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t s16 = (uint16_t)seg;
            memcpy(CMSG_DATA(c), &s16, sizeof(s16));
        }
        while (sendmsg(fd, &mh, 0) < 0) {
            if (errno != EINTR && errno != EAGAIN && errno != ENOBUFS)
                die("sendmsg");
        }
        off += n;
    } while (off < bytes);
}

/* Receive datagrams until `bytes` have come (each into place, by arrival).
 * Waiting for a datagram of a message under way, two seconds of silence
 * mean one was lost; waiting for the client's next command (`patient`),
 * they do not. */
static void recv_any(size_t bytes, int patient)
{
    size_t got = 0;
    unsigned empty = 0;
    double since = 0;
    do {
        struct sockaddr_in from;
        struct iovec iov = { rx + (got < MAX ? got : 0), 65536 };
        struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
                             .msg_iovlen = 1 };
        ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                die("recvmsg");
            if (!patient && ++empty % 4096 == 0) {      /* a lost datagram would hang us */
                if (!since)
                    since = now();
                else if (now() - since > 2.0) {
                    fprintf(stderr, "udp_raw: nothing for 2 s, a datagram was lost\n");
                    exit(1);
                }
            }
            continue;
        }
        since = 0;
        if (!have_peer) {
            peer = from;
            have_peer = 1;
        }
        got += (size_t)(n ? n : 1);
    } while (got < (bytes ? bytes : 1));
}

static void recv_msg(size_t bytes)
{
    recv_any(bytes, 0);
}

static int iterations(size_t bytes)
{
    long it = 10000L * 4096 / (long)bytes;
    return it < 10 ? 10 : (int)it;
}

/* Rounds of a stream of WINDOW messages (tcp_raw's count for the same size). */
static int stream_rounds(size_t bytes)
{
    long it = 200L * 4096 / ((long)bytes * WINDOW);
    return it < 10 ? 10 : (int)it;
}

static void command(uint64_t cmd)
{
    memcpy(buf, &cmd, sizeof(cmd));
    send_msg(sizeof(cmd));
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client")) ||
        (!strcmp(argv[1], "client") && argc < 3)) {
        fprintf(stderr, "usage: udp_raw server [port] [--seg B] [--hdr B [--alt]] | udp_raw client HOST [port] [same options]\n");
        return 2;
    }
    int client = !strcmp(argv[1], "client");
    int port = PORT;
    for (int i = client ? 3 : 2; i < argc; i++) {
        if (!strcmp(argv[i], "--seg") && i + 1 < argc)
            seg = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--alt"))
            alt = 1;
        else if (!strcmp(argv[i], "--hdr") && i + 1 < argc)
            hdr = strtoul(argv[++i], NULL, 0);
        else
            port = atoi(argv[i]);
    }
    if (hdr > 256 || (hdr && hdr >= seg)) {
        fprintf(stderr, "udp_raw: --hdr must be below --seg and at most 256\n");
        return 2;
    }
    buf = malloc(MAX);
    rx = malloc(MAX + 65536);
    if (!buf || !rx)
        die("malloc");
    memset(buf, 1, MAX);
    memset(rx, 0, MAX + 65536);
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    int one = 1, big = 256 << 20;    /* a whole stream window, should the reader fall behind */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
    if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) != 0)
        perror("UDP_GRO");
    struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(client ? 0 : port)) };
    if (bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0)
        die("bind");
    if (client) {
        peer = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        if (inet_pton(AF_INET, argv[2], &peer.sin_addr) != 1)
            die("inet_pton");
        have_peer = 1;
    }
    uint64_t sizes[32];
    int nsizes = 0;
    for (uint64_t b = 65536; b <= MAX; b *= 2)
        sizes[nsizes++] = b;
    if (client) {
        printf("# udp_raw ping-pong bandwidth, %zu-byte segments%s (MB/s)\n", seg,
               hdr ? ", each gathered from a header and a payload piece" : "");
        for (int k = 0; k < nsizes; k++) {
            size_t bytes = sizes[k];
            command(bytes);
            double best = 1e30;
            int iters = iterations(bytes);
            for (int r = 0; r < REPS; r++) {
                double t0 = now();
                for (int i = 0; i < iters; i++) {
                    send_msg(bytes);
                    recv_msg(bytes);
                }
                double t = (now() - t0) / iters / 2;
                if (t < best)
                    best = t;
            }
            printf("%zu %.1f\n", bytes, bytes / best / 1e6);
            fflush(stdout);
        }
        printf("# udp_raw stream, %zu-byte segments%s (MB/s)\n", seg,
               hdr ? ", each gathered from a header and a payload piece" : "");
        for (size_t bytes = 65536; bytes <= STREAM_MAX; bytes *= 2) {
            command(bytes | STREAM);
            double best = 0;
            int rounds = stream_rounds(bytes);
            for (int r = 0; r < REPS; r++) {
                double t0 = now();
                for (int i = 0; i < rounds; i++) {
                    for (int w = 0; w < WINDOW; w++)
                        send_msg(bytes);
                    recv_msg(1);
                }
                double v = (double)bytes * WINDOW * rounds / (now() - t0) / 1e6;
                if (v > best)
                    best = v;
            }
            printf("%zu %.1f\n", bytes, best);
            fflush(stdout);
        }
        command(0);
        return 0;
    }
    for (;;) {
        recv_any(8, 1);
        uint64_t bytes;
        memcpy(&bytes, rx, sizeof(bytes));
        if (bytes & STREAM) {
            bytes &= ~STREAM;
            if (bytes > STREAM_MAX)
                return 0;
            for (int r = 0; r < REPS * stream_rounds(bytes); r++) {
                for (int w = 0; w < WINDOW; w++)
                    recv_msg(bytes);
                send_msg(1);
            }
            continue;
        }
        if (!bytes || bytes > MAX)
            return 0;
        for (int r = 0; r < REPS; r++) {
            for (int i = 0; i < iterations(bytes); i++) {
                recv_msg(bytes);
                send_msg(bytes);
            }
        }
    }
}
