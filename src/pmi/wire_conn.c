/*
 * wire_conn.c — line framing on the client's PMI-1 socket.
 *
 * The server may send several lines in one segment (Hydra answers initack
 * with four) or one line in many, so bytes past the first '\n' are kept for
 * the next call.  Once framing is lost (EOF, error, a line too long) every
 * later call fails at once instead of reading a reply out of step.
 */
#include "pmi/wire_conn.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void uz_pmi_conn_open(struct uz_pmi_conn *conn, int fd)
{
    conn->fd = fd;
    conn->broken = 0;
    conn->buffered = 0;
}

void uz_pmi_conn_close(struct uz_pmi_conn *conn)
{
    if (conn->fd >= 0)
        close(conn->fd);
    conn->fd = -1;
    conn->broken = 1;
}

static int conn_broken_error(const char *what)
{
    return uz_pmi_fail(-EPIPE, "PMI: cannot send '%s': the connection to the process "
                       "manager was lost earlier", what);
}

/* send() with MSG_NOSIGNAL so that a vanished server is an error return, not
 * SIGPIPE; write() for a PMI_FD that is a pipe rather than a socket. */
static ssize_t write_some(int fd, const char *p, size_t n)
{
    ssize_t done = send(fd, p, n, MSG_NOSIGNAL);
    if (done < 0 && errno == ENOTSOCK)
        done = write(fd, p, n);
    return done;
}

int uz_pmi_conn_send(struct uz_pmi_conn *conn, const char *text, const char *what)
{
    if (conn->broken)
        return conn_broken_error(what);
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t done = write_some(conn->fd, text, len);
        if (done < 0 && errno == EINTR)
            continue;
        if (done < 0) {
            int err = errno;
            conn->broken = 1;
            return uz_pmi_fail(-err, "PMI: sending '%s' to the process manager failed: %s",
                               what, strerror(err));
        }
        text += done;
        len -= (size_t)done;
    }
    return 0;
}

/* Move the first complete line out of the buffer; its length, or -1 when
 * no whole line has arrived yet. */
static ssize_t take_line(struct uz_pmi_conn *conn, char *line)
{
    char *nl = memchr(conn->buf, '\n', conn->buffered);
    if (!nl)
        return -1;
    size_t len = (size_t)(nl - conn->buf);
    memcpy(line, conn->buf, len);
    line[len] = '\0';
    conn->buffered -= len + 1;
    memmove(conn->buf, nl + 1, conn->buffered);
    return (ssize_t)len;
}

static int eof_error(struct uz_pmi_conn *conn, const char *what)
{
    char excerpt[UZ_PMI_EXCERPT_MAX + 8];
    conn->broken = 1;
    if (conn->buffered == 0)
        return uz_pmi_fail(-ECONNRESET, "PMI: the process manager closed the connection "
                           "before replying to '%s'", what);
    return uz_pmi_fail(-ECONNRESET, "PMI: the process manager closed the connection in "
                       "the middle of its reply to '%s': '%s'", what,
                       uz_pmi_excerpt(conn->buf, conn->buffered, excerpt));
}

int uz_pmi_conn_recv(struct uz_pmi_conn *conn, char *line, const char *what)
{
    if (conn->broken)
        return uz_pmi_fail(-EPIPE, "PMI: cannot wait for the reply to '%s': the "
                           "connection to the process manager was lost earlier", what);
    ssize_t len;
    while ((len = take_line(conn, line)) < 0) {
        if (conn->buffered == sizeof conn->buf) {
            char excerpt[UZ_PMI_EXCERPT_MAX + 8];
            conn->broken = 1;
            return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' is longer than %d "
                               "bytes: '%s'", what, UZ_PMI_LINE_MAX,
                               uz_pmi_excerpt(conn->buf, conn->buffered, excerpt));
        }
        ssize_t got = read(conn->fd, conn->buf + conn->buffered,
                           sizeof conn->buf - conn->buffered);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int err = errno;
            conn->broken = 1;
            return uz_pmi_fail(-err, "PMI: reading the reply to '%s' failed: %s",
                               what, strerror(err));
        }
        if (got == 0)
            return eof_error(conn, what);
        conn->buffered += (size_t)got;
    }
    if (memchr(line, '\0', (size_t)len)) {
        char excerpt[UZ_PMI_EXCERPT_MAX + 8];
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' contains a NUL byte: '%s'",
                           what, uz_pmi_excerpt(line, (size_t)len, excerpt));
    }
    return 0;
}
