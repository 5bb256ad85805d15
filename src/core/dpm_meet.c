/*
 * dpm_meet.c — the roots of two jobs meet over a TCP socket and swap the
 * descriptors of their processes (pt2pt/proc_table.h): the first step of
 * MPI_Comm_accept / MPI_Comm_connect and of MPI_Comm_join.
 *
 * Both directions carry the same frame, {magic, secret, count, tag,
 * status}, followed by `count` descriptors.  The connecting root sends
 * first, with the port's secret; the accepting root reads exactly one
 * frame from whoever connects, compares the secret in constant time and
 * closes the socket of anyone without it, then goes on waiting: a stranger
 * learns nothing and holds the port up for at most UZURA_PORT_TIMEOUT.
 *
 * Every wait has a deadline (UZURA_PORT_TIMEOUT) except the acceptor's
 * wait for a connection, which MPI leaves unbounded; while a root waits it
 * keeps the request layer progressing, so its own job's traffic to it
 * flows.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "core/dpm.h"
#include "pt2pt/proc_table.h"
#include "pt2pt/pt2pt.h"

enum {
    MEET_MAX_PROCS = 1 << 20,           /* more in one frame is a malformed frame */
    MEET_SLICE_MS = 20,                 /* how often a waiting root progresses */
};

static const char magic_port[8] = "UZMEET1";
static const char magic_join[8] = "UZJOIN1";

struct meet_frame {
    char magic[8];
    uint8_t secret[UZ_PORT_SECRET_BYTES];
    uint32_t count;                     /* network byte order, as the rest */
    uint32_t tag;
    uint32_t status;                    /* 0: welcome */
    uint32_t root;                      /* the sender's root: its index among the
                                           descriptors (0 from older versions) */
};

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long deadline_after_timeout(void)
{
    double s = uz_config.port_timeout > 0 ? uz_config.port_timeout : 60;
    return now_ns() + (long)(s * 1e9);
}

static void progress_once(void)
{
    uz_lock();
    uz_progress();
    uz_unlock();
}

/* Wait for `events` on fd until the deadline, progressing meanwhile:
 * 1 ready, 0 timed out, -1 error (errno). */
static int wait_fd(int fd, short events, long deadline)
{
    for (;;) {
        long left = deadline - now_ns();
        if (left <= 0)
            return 0;
        int ms = left / 1000000L < MEET_SLICE_MS ? (int)(left / 1000000L) + 1 : MEET_SLICE_MS;
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, ms);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
        progress_once();
    }
}

/* Move exactly len bytes: 0 done, else an errno value (ETIMEDOUT, EPIPE
 * for a peer that closed). */
static int move_all(int fd, void *buf, size_t len, int writing, long deadline)
{
    char *c = buf;
    while (len) {
        ssize_t n = writing ? send(fd, c, len, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, c, len, MSG_DONTWAIT);
        if (n > 0) {
            c += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0)
            return EPIPE;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return errno;
        int w = wait_fd(fd, writing ? POLLOUT : POLLIN, deadline);
        if (w == 0)
            return ETIMEDOUT;
        if (w < 0)
            return errno;
    }
    return 0;
}

static int same_secret(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t diff = 0;
    for (int i = 0; i < UZ_PORT_SECRET_BYTES; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

static void frame_fill(struct meet_frame *f, const char *magic, const uint8_t *secret,
                       const struct uz_meet_side *side, int tag)
{
    int count = side->n;
    memset(f, 0, sizeof(*f));
    memcpy(f->magic, magic, sizeof(f->magic));
    if (secret)
        memcpy(f->secret, secret, UZ_PORT_SECRET_BYTES);
    f->count = htonl((uint32_t)count);
    f->tag = htonl((uint32_t)tag);
    f->root = htonl((uint32_t)side->root);
}

static int send_side(int fd, const struct meet_frame *f, const struct uz_meet_side *side, long deadline)
{
    int e = move_all(fd, (void *)f, sizeof(*f), 1, deadline);
    if (!e)
        e = move_all(fd, side->descs, (size_t)side->n * UZ_PROC_DESC_MAX, 1, deadline);
    return e;
}

/* Read the descriptors a frame announced. */
static int read_descs(int fd, const struct meet_frame *f, struct uz_meet_side *side, long deadline)
{
    uint32_t n = ntohl(f->count), root = ntohl(f->root);
    if (n == 0 || n > MEET_MAX_PROCS || root >= n)
        return EPROTO;
    /* The other side's root is who its root talks to for the context
     * agreement: its rank need not be 0 (MPI_Comm_spawn's root argument). */
    side->root = (int)root;
    side->descs = malloc((size_t)n * UZ_PROC_DESC_MAX);
    if (!side->descs)
        return ENOMEM;
    side->n = (int)n;
    int e = move_all(fd, side->descs, (size_t)n * UZ_PROC_DESC_MAX, 0, deadline);
    if (e) {
        free(side->descs);
        side->descs = NULL;
        return e;
    }
    for (uint32_t i = 0; i < n; i++)
        side->descs[(size_t)(i + 1) * UZ_PROC_DESC_MAX - 1] = '\0';
    return 0;
}

/* ------------------------------------------------------------ accepting */

/* One connection to the port: 0 when it was a process with the secret and
 * the sides are swapped; else it is dropped and the wait goes on. */
static int admit(int fd, const uint8_t *secret, const struct uz_meet_side *mine, struct uz_meet_side *theirs,
                 int *tag)
{
    long deadline = deadline_after_timeout();
    struct meet_frame f;
    if (move_all(fd, &f, sizeof(f), 0, deadline) != 0 || memcmp(f.magic, magic_port, sizeof(f.magic)) != 0)
        return -1;
    if (!same_secret(f.secret, secret))
        return -1;
    if (read_descs(fd, &f, theirs, deadline) != 0)
        return -1;
    uint32_t t = 0;
    if (getrandom(&t, sizeof(t), 0) != (ssize_t)sizeof(t))
        t = (uint32_t)now_ns();
    *tag = (int)(t & 0x3fffffff);
    struct meet_frame r;
    frame_fill(&r, magic_port, NULL, mine, *tag);
    if (send_side(fd, &r, mine, deadline) != 0) {
        free(theirs->descs);
        theirs->descs = NULL;
        return -1;
    }
    return 0;
}

int uz_meet_accept(int listen_fd, const uint8_t *secret, const struct uz_meet_side *mine,
                   struct uz_meet_side *theirs, int *tag)
{
    return uz_meet_accept_until(listen_fd, secret, mine, theirs, tag, 0);
}

int uz_meet_accept_until(int listen_fd, const uint8_t *secret, const struct uz_meet_side *mine,
                         struct uz_meet_side *theirs, int *tag, long deadline)
{
    for (;;) {
        if (deadline && now_ns() > deadline)
            return uz_err_make(MPI_ERR_SPAWN, "the spawned processes did not connect back "
                               "within %g s (UZURA_PORT_TIMEOUT): they failed to start or died in MPI_Init",
                               uz_config.port_timeout);
        struct pollfd p = { .fd = listen_fd, .events = POLLIN };
        int n = poll(&p, 1, MEET_SLICE_MS);
        if (n < 0 && errno != EINTR)
            return uz_err_make(MPI_ERR_PORT, "waiting on the port failed: %s", strerror(errno));
        if (n <= 0) {
            progress_once();
            continue;
        }
        if (p.revents & (POLLERR | POLLNVAL))
            return uz_err_make(MPI_ERR_PORT, "the port was closed while waiting on it");
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            continue;
        int ok = admit(fd, secret, mine, theirs, tag);
        close(fd);
        if (ok == 0)
            return MPI_SUCCESS;
    }
}

/* ------------------------------------------------------------ connecting */

/* Connect to "a.b.c.d:port": the socket, or -1 with *error set. */
static int connect_one(const char *entry, long deadline, int *error)
{
    char host[64];
    const char *colon = strrchr(entry, ':');
    struct sockaddr_in sin = { .sin_family = AF_INET };
    if (!colon || colon - entry >= (long)sizeof(host)) {
        *error = EINVAL;
        return -1;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - entry), entry);
    long port = strtol(colon + 1, NULL, 10);
    if (port <= 0 || port > 65535 || inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
        *error = EINVAL;
        return -1;
    }
    sin.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = errno;
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 && errno != EINPROGRESS) {
        *error = errno;
        close(fd);
        return -1;
    }
    int w = wait_fd(fd, POLLOUT, deadline), so = 0;
    socklen_t len = sizeof(so);
    if (w <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) != 0 || so) {
        *error = w == 0 ? ETIMEDOUT : so ? so : errno;
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

int uz_meet_connect(const struct uz_port_addr *port, const struct uz_meet_side *mine,
                    struct uz_meet_side *theirs, int *tag)
{
    long deadline = deadline_after_timeout();
    char list[MPI_MAX_PORT_NAME];
    snprintf(list, sizeof(list), "%s", port->addrs);
    int error = ENOENT;
    for (char *save = NULL, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        int fd = connect_one(a, deadline, &error);
        if (fd < 0)
            continue;
        struct meet_frame f;
        frame_fill(&f, magic_port, port->secret, mine, 0);
        int e = send_side(fd, &f, mine, deadline);
        if (!e)
            e = move_all(fd, &f, sizeof(f), 0, deadline);
        if (!e && (memcmp(f.magic, magic_port, sizeof(f.magic)) != 0 || f.status))
            e = EPROTO;
        if (!e)
            e = read_descs(fd, &f, theirs, deadline);
        close(fd);
        if (!e) {
            *tag = (int)ntohl(f.tag);
            return MPI_SUCCESS;
        }
        error = e;
        if (e == ETIMEDOUT)
            break;
    }
    if (error == ETIMEDOUT)
        return uz_err_make(MPI_ERR_PORT, "nobody accepted on the port within %g s "
                           "(UZURA_PORT_TIMEOUT)", uz_config.port_timeout);
    return uz_err_make(MPI_ERR_PORT, "cannot reach the port at %.200s: %s (is the port "
                       "closed, or its process gone?)", port->addrs,
                       error == EPIPE ? "the connection was closed during the handshake" : strerror(error));
}

/* ------------------------------------------------------------ joining */

int uz_meet_join(int fd, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    long deadline = deadline_after_timeout();
    int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0)
        return uz_err_make(MPI_ERR_ARG, "fd %d is not an open descriptor", fd);
    /* Every call passes MSG_DONTWAIT: the user's descriptor keeps its flags. */
    struct meet_frame f;
    frame_fill(&f, magic_join, NULL, mine, 0);
    int e = send_side(dup, &f, mine, deadline);
    if (!e)
        e = move_all(dup, &f, sizeof(f), 0, deadline);
    if (!e && memcmp(f.magic, magic_join, sizeof(f.magic)) != 0)
        e = EPROTO;
    if (!e)
        e = read_descs(dup, &f, theirs, deadline);
    close(dup);
    if (e)
        return uz_err_make(MPI_ERR_OTHER, "the exchange over fd %d failed: %s", fd,
                           e == EPIPE ? "the other side closed it" : strerror(e));
    /* Both draw the same tag from the two descriptors, in an order both see alike. */
    const char *a = mine->descs, *b = theirs->descs;
    if (strcmp(a, b) > 0) {
        const char *t = a;
        a = b;
        b = t;
    }
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)a; *c; c++)
        h = (h ^ *c) * 16777619u;
    for (const unsigned char *c = (const unsigned char *)b; *c; c++)
        h = (h ^ *c) * 16777619u;
    *tag = (int)(h & 0x3fffffff);
    return MPI_SUCCESS;
}
