/*
 * pmi_connect.c — from environment variables to an open PMI-1 connection.
 *
 * Two ways in, both from MPICH's simple PMI: a socket inherited across exec
 * whose number is in PMI_FD (Uzura's mpiexec, Hydra's default), or a TCP
 * address in PMI_PORT plus a PMI_ID that the server maps to a rank (Hydra
 * -pmi-port).  The second starts with an "initack" exchange before init.
 */
#include "pmi/pmi_connect.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_request.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* An integer environment variable: 0, -ENOENT when unset, -EINVAL (with a
 * message) when set to something that is not a whole number. */
static int env_int(const char *name, int *out)
{
    const char *text = getenv(name);
    if (!text)
        return -ENOENT;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < INT_MIN || v > INT_MAX)
        return uz_pmi_fail(-EINVAL, "PMI: %s='%s' is not a number", name, text);
    *out = (int)v;
    return 0;
}

static int env_int_required(const char *name, const char *because, int *out)
{
    int err = env_int(name, out);
    if (err == -ENOENT)
        return uz_pmi_fail(-EINVAL, "PMI: %s is set but %s is not", because, name);
    return err;
}

static int identity_check(const struct uz_pmi_identity *id)
{
    if (id->size < 1 || id->rank < 0 || id->rank >= id->size)
        return uz_pmi_fail(-EINVAL, "PMI: rank %d of size %d is impossible", id->rank,
                           id->size);
    return 0;
}

static int connect_fd(struct uz_pmi_conn *conn, struct uz_pmi_identity *id)
{
    int fd = -1, err;
    if ((err = env_int("PMI_FD", &fd)))
        return err;
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        return uz_pmi_fail(-EBADF, "PMI: PMI_FD=%d is not an open file descriptor", fd);
    if ((err = env_int_required("PMI_RANK", "PMI_FD", &id->rank)) ||
        (err = env_int_required("PMI_SIZE", "PMI_FD", &id->size)) ||
        (err = identity_check(id)))
        return err;
    /* Programs this rank starts must not inherit (and hold open) its PMI socket. */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    uz_pmi_conn_open(conn, fd);
    return 0;
}

/* Split "host:port" (host may be "[v6 address]") into its two parts. */
static int port_address_split(const char *address, char *host, size_t host_cap,
                              const char **port)
{
    const char *colon = strrchr(address, ':');
    if (!colon || colon == address || !colon[1])
        return uz_pmi_fail(-EINVAL, "PMI: PMI_PORT='%s' is not host:port", address);
    const char *start = address, *end = colon;
    if (*start == '[' && end[-1] == ']') {
        start++;
        end--;
    }
    if ((size_t)(end - start) >= host_cap)
        return uz_pmi_fail(-EINVAL, "PMI: PMI_PORT='%s' has a host name too long", address);
    memcpy(host, start, (size_t)(end - start));
    host[end - start] = '\0';
    *port = colon + 1;
    return 0;
}

static int tcp_connect(const char *address)
{
    char host[256];
    const char *port = NULL;
    int err = port_address_split(address, host, sizeof host, &port);
    if (err)
        return err;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *list;
    int gai = getaddrinfo(host, port, &hints, &list);
    if (gai)
        return uz_pmi_fail(-EHOSTUNREACH, "PMI: cannot resolve PMI_PORT='%s': %s", address,
                           gai_strerror(gai));
    int fd = -1, last_errno = 0;
    for (struct addrinfo *a = list; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        while ((err = connect(fd, a->ai_addr, a->ai_addrlen)) < 0 && errno == EINTR)
            ;
        if (err < 0) {
            last_errno = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    if (fd < 0)
        return uz_pmi_fail(-last_errno, "PMI: cannot connect to PMI_PORT='%s': %s",
                           address, strerror(last_errno));
    return fd;
}

/* After connecting, a client names itself by PMI_ID; the server answers
 * cmd=initack and then three cmd=set lines giving size, rank and debug. */
static int initack_exchange(struct uz_pmi_conn *conn, int pmi_id, struct uz_pmi_identity *id)
{
    struct uz_pmi_reply reply;
    char request[64];
    snprintf(request, sizeof request, "cmd=initack pmiid=%d\n", pmi_id);
    int err = uz_pmi_request(conn, "initack", request, "initack", UZ_PMI_RC_MUST_BE_ZERO,
                             &reply);
    int have_rank = 0, have_size = 0, have_debug = 0;
    while (!err && !(have_rank && have_size && have_debug)) {
        int ignored;
        err = uz_pmi_request(conn, "initack", NULL, "set", UZ_PMI_RC_MUST_BE_ZERO, &reply);
        if (err)
            break;
        if (uz_pmi_line_value(&reply.line, "rank"))
            have_rank = !(err = uz_pmi_reply_int(&reply, "rank", &id->rank));
        else if (uz_pmi_line_value(&reply.line, "size"))
            have_size = !(err = uz_pmi_reply_int(&reply, "size", &id->size));
        else if (uz_pmi_line_value(&reply.line, "debug"))
            have_debug = !(err = uz_pmi_reply_int(&reply, "debug", &ignored));
        else
            err = uz_pmi_fail(-EPROTO, "PMI: server's 'cmd=set' after initack sets none of "
                              "rank, size, debug: '%s'", reply.excerpt);
    }
    return err ? err : identity_check(id);
}

static int connect_port(struct uz_pmi_conn *conn, struct uz_pmi_identity *id)
{
    int pmi_id = -1, err = env_int("PMI_ID", &pmi_id);
    if (err && err != -ENOENT)
        return err;
    int has_id = !err;
    if (!has_id && ((err = env_int_required("PMI_RANK", "PMI_PORT without PMI_ID", &id->rank)) ||
                    (err = env_int_required("PMI_SIZE", "PMI_PORT without PMI_ID", &id->size)) ||
                    (err = identity_check(id))))
        return err;
    int fd = tcp_connect(getenv("PMI_PORT"));
    if (fd < 0)
        return fd;
    uz_pmi_conn_open(conn, fd);
    if (has_id && (err = initack_exchange(conn, pmi_id, id)))
        uz_pmi_conn_close(conn);
    return err;
}

int uz_pmi_connect(struct uz_pmi_conn *conn, struct uz_pmi_identity *id)
{
    *id = (struct uz_pmi_identity){0};
    uz_pmi_conn_open(conn, -1);
    if (getenv("PMI_FD"))
        return connect_fd(conn, id);
    if (getenv("PMI_PORT"))
        return connect_port(conn, id);
    id->singleton = 1;
    id->size = 1;
    return 0;
}
