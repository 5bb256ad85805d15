/*
 * tcp_raw.c — kernel TCP between two hosts with nothing on top: the yard-
 * stick for Uzura's tcp transport (bench/net_compare.sh runs both).
 *
 *   tcp_raw server [port]                  serve one client, then exit
 *   tcp_raw client HOST [port] [--spin]    measure, print, tell the server to stop
 *
 * One connection with TCP_NODELAY, blocking calls (--spin: nonblocking
 * reads polled in a loop, as an MPI rank that polls would).  The client
 * prints the same "bytes value" tables as bench/p2p.c, with the same
 * iteration counts and best-of-5 rule:
 *   latency  one-way time of a ping-pong, µs, 1 B .. 64 KiB
 *   bw       ping-pong bandwidth (bytes / one-way time), MB/s, 1 KiB .. 16 MiB
 *   stream   one-way streaming bandwidth (64 messages, then a 1-byte ack), MB/s,
 *            1 KiB .. 1 MiB (bench/p2p.c rate is the same pattern over MPI)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { PORT = 47123, REPS = 5, WINDOW = 64, MAX = 16 << 20 };
enum { CMD_PINGPONG = 1, CMD_STREAM = 2, CMD_QUIT = 3 };

struct cmd {
    uint32_t what, iters;
    uint64_t bytes;
};

static int spin;
static char *buf;

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

static void send_all(int fd, const void *p, size_t len)
{
    const char *c = p;
    while (len) {
        ssize_t n = send(fd, c, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("send");
        c += n;
        len -= (size_t)n;
    }
}

static void recv_all(int fd, void *p, size_t len)
{
    char *c = p;
    while (len) {
        ssize_t n = recv(fd, c, len, spin ? MSG_DONTWAIT : 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            die("recv");
        c += n;
        len -= (size_t)n;
    }
}

static void nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ----------------------------------------------------------------- server */

static int serve(int port)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(lfd, 1) != 0)
        die("listen");
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        die("accept");
    close(lfd);
    nodelay(fd);
    for (;;) {
        struct cmd c;
        recv_all(fd, &c, sizeof(c));
        if (c.what == CMD_QUIT || c.bytes > MAX)
            break;
        for (uint32_t i = 0; i < c.iters; i++) {
            if (c.what == CMD_PINGPONG) {
                recv_all(fd, buf, c.bytes);
                send_all(fd, buf, c.bytes);
            } else {
                for (int w = 0; w < WINDOW; w++)
                    recv_all(fd, buf, c.bytes);
                send_all(fd, buf, 1);
            }
        }
    }
    close(fd);
    return 0;
}

/* ----------------------------------------------------------------- client */

static int iterations(size_t bytes, int base)
{
    if (bytes <= 4096)
        return base;
    long it = (long)base * 4096 / (long)bytes;
    return it < 10 ? 10 : (int)it;
}

/* Seconds for `iters` rounds of `what` with messages of `bytes`. */
static double run(int fd, uint32_t what, size_t bytes, int iters)
{
    struct cmd c = { what, (uint32_t)iters, bytes };
    send_all(fd, &c, sizeof(c));
    double t0 = now();
    for (int i = 0; i < iters; i++) {
        if (what == CMD_PINGPONG) {
            send_all(fd, buf, bytes);
            recv_all(fd, buf, bytes);
        } else {
            for (int w = 0; w < WINDOW; w++)
                send_all(fd, buf, bytes);
            recv_all(fd, buf, 1);
        }
    }
    return now() - t0;
}

static void table(int fd, const char *mode, size_t lo, size_t hi)
{
    printf("# kernel TCP %s%s\n", mode, spin ? " (polling reads)" : "");
    for (size_t bytes = lo; bytes <= hi; bytes *= 2) {
        double best = 0;
        for (int rep = 0; rep < REPS; rep++) {
            double v;
            if (strcmp(mode, "latency") == 0) {
                int it = iterations(bytes, 10000);
                v = run(fd, CMD_PINGPONG, bytes, it) / (2.0 * it) * 1e6;
                best = rep == 0 || v < best ? v : best;
            } else if (strcmp(mode, "bw") == 0) {
                int it = iterations(bytes, 10000);
                v = bytes / (run(fd, CMD_PINGPONG, bytes, it) / (2.0 * it)) / 1e6;
                best = v > best ? v : best;
            } else {
                int it = iterations(bytes * WINDOW, 200);
                v = (double)bytes * WINDOW * it / run(fd, CMD_STREAM, bytes, it) / 1e6;
                best = v > best ? v : best;
            }
        }
        printf("%zu %.3f\n", bytes, best);
        fflush(stdout);
    }
}

static int client(const char *host, int port)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    if (getaddrinfo(host, service, &hints, &ai) != 0) {
        fprintf(stderr, "tcp_raw: cannot resolve %s\n", host);
        return 1;
    }
    int fd = -1;
    for (int attempt = 0; attempt < 50; attempt++) {        /* the server may still be starting */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
        usleep(100000);
    }
    freeaddrinfo(ai);
    if (fd < 0)
        die("connect");
    nodelay(fd);
    table(fd, "latency", 1, 65536);
    table(fd, "bw", 1024, MAX);
    table(fd, "stream", 1024, MAX / 16);
    struct cmd quit = { CMD_QUIT, 0, 0 };
    send_all(fd, &quit, sizeof(quit));
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "client") == 0 && argc < 3)) {
        fprintf(stderr, "usage: tcp_raw server [port] | tcp_raw client HOST [port] [--spin]\n");
        return 2;
    }
    int port = PORT;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--spin") == 0)
            spin = 1;
        else if (atoi(argv[i]) > 0 && !(strcmp(argv[1], "client") == 0 && i == 2))
            port = atoi(argv[i]);
    }
    buf = malloc(MAX);
    memset(buf, 'a', MAX);
    return strcmp(argv[1], "server") == 0 ? serve(port) : client(argv[2], port);
}
