/*
 * output.c — forwarding the ranks' stdout and stderr with -l, each line
 * prefixed by "[rank] ".
 *
 * A line is written with one writev so that lines of different ranks never
 * mix inside a line.  A line longer than the buffer goes out in pieces, the
 * prefix only before the first.  Whatever a rank wrote before it died is
 * still in its pipe and is forwarded: nothing is lost when a rank is killed.
 * Without -l the ranks write to mpiexec's own stdout and stderr directly.
 *
 * Across hosts a proxy reads its ranks' pipes and sends the bytes as they
 * come to the front end, which prefixes lines here (output_stream_feed) or,
 * without -l, writes them out as they are (output_write_raw).
 */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Set when a destination (1 or 2) stops taking output, e.g. "| head". */
static int dest_closed[3];

void output_stream_init(struct output_stream *s, int fd, int dest)
{
    s->fd = fd;
    s->dest = dest;
    s->mid_line = 0;
    s->len = 0;
}

/* writev all of iov to dest, waiting if dest is non-blocking and full. */
static void write_fully(int dest, struct iovec *iov, int n)
{
    while (n > 0 && !dest_closed[dest]) {
        ssize_t put = writev(dest, iov, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN) {
            poll(&(struct pollfd){.fd = dest, .events = POLLOUT}, 1, -1);
            continue;
        }
        if (put < 0) {
            dest_closed[dest] = 1;
            return;
        }
        while (n > 0 && (size_t)put >= iov->iov_len) {
            put -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + put;
            iov->iov_len -= (size_t)put;
        }
    }
}

/* Write data (a whole line, or a piece of one) with the rank's prefix
 * when it starts a line; end_line adds a newline the rank did not write. */
static void emit(struct output_stream *s, int rank, const char *data, size_t len, int end_line)
{
    char prefix[24];
    struct iovec iov[3];
    int n = 0;
    if (!s->mid_line) {
        int plen = snprintf(prefix, sizeof prefix, "[%d] ", rank);
        iov[n++] = (struct iovec){prefix, (size_t)plen};
    }
    iov[n++] = (struct iovec){(void *)data, len};
    if (end_line)
        iov[n++] = (struct iovec){"\n", 1};
    write_fully(s->dest, iov, n);
    s->mid_line = !end_line && (len == 0 || data[len - 1] != '\n');
}

void output_write_raw(int dest, const char *data, size_t len)
{
    struct iovec iov = {(void *)data, len};
    write_fully(dest, &iov, 1);
}

static void emit_complete_lines(struct output_stream *s, int rank)
{
    size_t start = 0;
    char *nl;
    while ((nl = memchr(s->buf + start, '\n', s->len - start))) {
        size_t end = (size_t)(nl - s->buf) + 1;
        emit(s, rank, s->buf + start, end - start, 0);
        start = end;
    }
    s->len -= start;
    memmove(s->buf, s->buf + start, s->len);
    if (s->len == sizeof s->buf) {
        emit(s, rank, s->buf, s->len, 0);
        s->len = 0;
    }
}

void output_stream_finish(struct output_stream *s, int rank)
{
    if (s->len)
        emit(s, rank, s->buf, s->len, 1);
    s->len = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* Bytes of a rank's stream that arrived from its proxy. */
void output_stream_feed(struct output_stream *s, int rank, const char *data, size_t len)
{
    while (len > 0) {
        size_t take = sizeof s->buf - s->len < len ? sizeof s->buf - s->len : len;
        memcpy(s->buf + s->len, data, take);
        s->len += take;
        data += take;
        len -= take;
        emit_complete_lines(s, rank);
    }
}

/* A proxy passes what it reads on as it is. */
static void output_stream_relay(struct job *job, struct rank *r, int stream)
{
    static char chunk[65536];
    struct output_stream *s = &r->out[stream];
    ssize_t got = read(s->fd, chunk, sizeof chunk);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        close(s->fd);
        s->fd = -1;
        got = 0;        /* an empty frame: end of the stream */
    }
    upstream_output(job, r, s->dest, chunk, (size_t)got);
}

void output_stream_readable(struct job *job, struct rank *r, int stream)
{
    struct output_stream *s = &r->out[stream];
    if (job->up) {
        output_stream_relay(job, r, stream);
        return;
    }
    ssize_t got = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        output_stream_finish(s, r->rank);
        return;
    }
    s->len += (size_t)got;
    emit_complete_lines(s, r->rank);
}
