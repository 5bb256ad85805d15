/*
 * output.c — forwarding the ranks' stdout and stderr with -l, each line
 * prefixed by "[rank] ".
 *
 * A line is written with one writev so that lines of different ranks never
 * mix inside a line.  A line longer than the buffer goes out in pieces, the
 * prefix only before the first.  Whatever a rank wrote before it died is
 * still in its pipe and is forwarded: nothing is lost when a rank is killed.
 * Without -l the ranks write to mpiexec's own stdout and stderr directly.
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

void output_stream_readable(struct output_stream *s, int rank)
{
    ssize_t got = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        output_stream_finish(s, rank);
        return;
    }
    s->len += (size_t)got;
    emit_complete_lines(s, rank);
}
