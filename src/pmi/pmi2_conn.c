/*
 * pmi2_conn.c — the client's end of the PMI-2 connection (see pmi2_conn.h):
 * whole messages out, length-prefixed replies in, each reply checked for
 * shape (it parses, it answers the command sent, rc=0) so that callers only
 * read the fields they want, and every complaint quotes the reply.
 *
 * Once framing is lost (EOF, an I/O error, a bad length prefix) every later
 * call fails at once rather than read a reply out of step.
 */
#include "pmi/pmi2_conn.h"
#include "pmi/pmi2_wire.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct {
    int fd;
    int broken;                               /* framing lost: fail at once */
    char out[UZ_PMI2_COMMAND_MAX + 8];
    char in[UZ_PMI2_COMMAND_MAX + 1];
    struct uz_pmi_line reply;
    char excerpt[UZ_PMI_EXCERPT_MAX + 8];
} conn = {.fd = -1};

void uz_pmi2_conn_open(int fd)
{
    conn.fd = fd;
    conn.broken = 0;
}

void uz_pmi2_conn_close(void)
{
    if (conn.fd >= 0)
        close(conn.fd);
    conn.fd = -1;
    conn.broken = 1;
}

int uz_pmi2_conn_broken(void)
{
    return conn.broken;
}

const struct uz_pmi_line *uz_pmi2_reply(void)
{
    return &conn.reply;
}

const char *uz_pmi2_reply_excerpt(void)
{
    return conn.excerpt;
}

static int io_fail(const char *what, const char *doing, int err)
{
    conn.broken = 1;
    return uz_pmi_fail(-err, "PMI-2: %s '%s' failed: %s", doing, what, strerror(err));
}

static int send_all(const char *text, size_t len, const char *what)
{
    if (conn.broken)
        return uz_pmi_fail(-EPIPE, "PMI-2: cannot send '%s': the connection to the "
                           "process manager was lost earlier", what);
    while (len > 0) {
        ssize_t done = send(conn.fd, text, len, MSG_NOSIGNAL);
        if (done < 0 && errno == ENOTSOCK)
            done = write(conn.fd, text, len);
        if (done < 0 && errno == EINTR)
            continue;
        if (done < 0)
            return io_fail(what, "sending", errno);
        text += done;
        len -= (size_t)done;
    }
    return 0;
}

static int recv_exact(char *buf, size_t len, const char *what)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(conn.fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(what, "reading the reply to", errno);
        if (n == 0) {
            conn.broken = 1;
            return uz_pmi_fail(-ECONNRESET, "PMI-2: the process manager closed the "
                               "connection %s its reply to '%s'",
                               got ? "in the middle of" : "before", what);
        }
        got += (size_t)n;
    }
    return 0;
}

/* Read one reply into conn.reply and check that it is reply_cmd with rc=0. */
static int recv_reply(const char *what, const char *reply_cmd)
{
    char prefix[UZ_PMI2_LENGTH_DIGITS];
    const char *why;
    size_t len;
    int err, rc;
    if (conn.broken)
        return uz_pmi_fail(-EPIPE, "PMI-2: cannot wait for the reply to '%s': the "
                           "connection to the process manager was lost earlier", what);
    if ((err = recv_exact(prefix, sizeof prefix, what)))
        return err;
    if (uz_pmi2_length_parse(prefix, UZ_PMI2_COMMAND_MAX, &len, &why)) {
        conn.broken = 1;
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s: '%s'", what, why,
                           uz_pmi_excerpt(prefix, sizeof prefix, conn.excerpt));
    }
    if ((err = recv_exact(conn.in, len, what)))
        return err;
    conn.in[len] = '\0';
    uz_pmi_excerpt(conn.in, len, conn.excerpt);
    if (memchr(conn.in, '\0', len))
        why = "contains a NUL byte";
    else if (uz_pmi2_parse(conn.in, &conn.reply, &why) == 0)
        why = NULL;
    if (why)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s: '%s'", what, why,
                           conn.excerpt);
    if (strcmp(uz_pmi_line_cmd(&conn.reply), reply_cmd) != 0)
        return uz_pmi_fail(-EPROTO, "PMI-2: server replied to '%s' with 'cmd=%s' instead "
                           "of 'cmd=%s': '%s'", what, uz_pmi_line_cmd(&conn.reply),
                           reply_cmd, conn.excerpt);
    err = uz_pmi_line_int(&conn.reply, "rc", &rc);
    if (err == -EINVAL || (err == 0 && rc != 0)) {
        const char *msg = uz_pmi_line_value(&conn.reply, "errmsg");
        return uz_pmi_fail(-EIO, "PMI-2: server refused '%s'%s%s: '%s'", what,
                           msg ? ": " : "", msg ? msg : "", conn.excerpt);
    }
    return 0;
}

int uz_pmi2_send(const char *cmd, const struct uz_pmi_field *pairs, int npairs)
{
    int len = uz_pmi2_format(conn.out, sizeof conn.out, cmd, pairs, npairs);
    if (len < 0)
        return uz_pmi_fail(len, "PMI-2: cannot format '%s' (%s)", cmd,
                           len == -ENOBUFS ? "too long" : "control character");
    return send_all(conn.out, (size_t)len, cmd);
}

int uz_pmi2_command(const char *cmd, const struct uz_pmi_field *pairs, int npairs)
{
    char reply_cmd[64];
    snprintf(reply_cmd, sizeof reply_cmd, "%s-response", cmd);
    int err = uz_pmi2_send(cmd, pairs, npairs);
    return err ? err : recv_reply(cmd, reply_cmd);
}

int uz_pmi2_reply_int(const char *what, const char *name, int *out)
{
    int err = uz_pmi_line_int(&conn.reply, name, out);
    if (err)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s '%s=': '%s'", what,
                           err == -ENOENT ? "lacks" : "has a non-numeric", name,
                           conn.excerpt);
    return 0;
}

/* The PMI-1 line that announces version 2, and its PMI-1 reply. */
int uz_pmi2_announce_version(void)
{
    static const char line[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    char reply[UZ_PMI_LINE_MAX];
    size_t n = 0;
    int err = send_all(line, sizeof line - 1, "init");
    while (!err && (n == 0 || reply[n - 1] != '\n')) {
        if (n == sizeof reply - 1)
            return uz_pmi_fail(-EPROTO, "PMI-2: the reply to 'init' is too long");
        err = recv_exact(reply + n, 1, "init");   /* byte by byte: nothing may be read ahead */
        n++;
    }
    if (err)
        return err;
    reply[n - 1] = '\0';
    struct uz_pmi_line parsed;
    const char *why;
    int version, rc;
    uz_pmi_excerpt(reply, n - 1, conn.excerpt);
    if (uz_pmi_line_parse(reply, &parsed, &why))
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to 'init' %s: '%s'", why,
                           conn.excerpt);
    if (strcmp(uz_pmi_line_cmd(&parsed), "response_to_init") != 0 ||
        uz_pmi_line_int(&parsed, "rc", &rc) || rc != 0 ||
        uz_pmi_line_int(&parsed, "pmi_version", &version) || version != 2)
        return uz_pmi_fail(-EPROTONOSUPPORT, "PMI-2: the process manager does not speak "
                           "PMI version 2: '%s'", conn.excerpt);
    return 0;
}
