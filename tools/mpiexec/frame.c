/*
 * frame.c — the byte stream between a proxy and the front end, cut into
 * frames.
 *
 * A proxy talks to the front end over the remote shell's standard input and
 * output only (so the launching host needs no open port: it works wherever
 * ssh works).  Everything shares that one stream: PMI events, the ranks'
 * stdout and stderr, exits, kills.  So every message is a frame, a 12-byte
 * header and a payload:
 *
 *     u32 payload length | u8 type | u8 stream | u16 0 | i32 rank | payload
 *
 * integers big-endian.  Before its first frame a proxy writes
 * FRAME_GREETING; the front end drops whatever comes before it, since a
 * remote login shell may print a banner on stdout.
 *
 * Both ends are non-blocking and go through the poll loop: output queues in
 * memory until the descriptor takes it, input accumulates until a whole
 * frame is there.
 */
#include "mpiexec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void frame_link_init(struct frame_link *l, int in_fd, int out_fd, int greeted)
{
    *l = (struct frame_link){.in_fd = in_fd, .out_fd = out_fd, .greeted = greeted};
}

void frame_link_close_in(struct frame_link *l)
{
    if (l->in_fd >= 0 && l->in_fd != l->out_fd)
        close(l->in_fd);
    l->in_fd = -1;
}

void frame_link_close_out(struct frame_link *l)
{
    if (l->out_fd >= 0 && l->out_fd != l->in_fd)
        close(l->out_fd);
    l->out_fd = -1;
    l->out_len = 0;
}

void frame_link_free(struct frame_link *l)
{
    frame_link_close_in(l);
    frame_link_close_out(l);
    free(l->in);
    free(l->out);
    l->in = l->out = NULL;
}

/* Make room for need more bytes after len in a growing buffer. */
static int reserve(char **buf, size_t *cap, size_t len, size_t need)
{
    if (len + need <= *cap)
        return 0;
    size_t grown = *cap ? *cap : 65536;
    while (grown < len + need)
        grown *= 2;
    char *p = realloc(*buf, grown);
    if (!p)
        return -1;
    *buf = p;
    *cap = grown;
    return 0;
}

void frame_link_flush(struct frame_link *l)
{
    size_t done = 0;
    while (l->out_fd >= 0 && done < l->out_len) {
        ssize_t put = write(l->out_fd, l->out + done, l->out_len - done);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN)
            break;
        if (put < 0) {
            /* The other end is gone; reading will tell. */
            frame_link_close_out(l);
            return;
        }
        done += (size_t)put;
    }
    if (done) {
        l->out_len -= done;
        memmove(l->out, l->out + done, l->out_len);
    }
}

void frame_send(struct frame_link *l, int type, int rank, int stream, const void *payload,
                size_t len)
{
    if (l->out_fd < 0)
        return;
    if (reserve(&l->out, &l->out_cap, l->out_len, FRAME_HEADER + len) < 0) {
        fputs("mpiexec: out of memory queueing a frame; dropping the link\n", stderr);
        frame_link_close_out(l);
        return;
    }
    unsigned char *h = (unsigned char *)l->out + l->out_len;
    put_u32(h, (uint32_t)len);
    h[4] = (unsigned char)type;
    h[5] = (unsigned char)stream;
    h[6] = h[7] = 0;
    put_u32(h + 8, (uint32_t)rank);
    if (len)
        memcpy(h + FRAME_HEADER, payload, len);
    l->out_len += FRAME_HEADER + len;
    frame_link_flush(l);
}

void frame_sendf(struct frame_link *l, int type, int rank, const char *fmt, ...)
{
    char text[UZ_PMI_LINE_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    if ((size_t)len >= sizeof text)
        len = (int)sizeof text - 1;
    frame_send(l, type, rank, 0, text, (size_t)len);
}

/* Drop everything up to and including the greeting, once it is there. */
static void greeting_find(struct frame_link *l)
{
    static const char greeting[] = FRAME_GREETING;
    size_t glen = sizeof greeting - 1;
    char *at = memmem(l->in + l->in_pos, l->in_len - l->in_pos, greeting, glen);
    if (at) {
        l->in_pos = (size_t)(at - l->in) + glen;
        l->greeted = 1;
    } else if (l->in_len - l->in_pos >= glen) {
        l->in_pos = l->in_len - (glen - 1);   /* keep what may be its start */
    }
}

/* One read.  1: got bytes; 0: nothing now; -1: end of stream or error
 * (the input side is then closed). */
int frame_link_read(struct frame_link *l)
{
    if (l->in_fd < 0)
        return -1;
    if (l->in_pos) {
        l->in_len -= l->in_pos;
        memmove(l->in, l->in + l->in_pos, l->in_len);
        l->in_pos = 0;
    }
    size_t want = 65536;
    if (l->in_len >= FRAME_HEADER) {
        size_t frame_len = FRAME_HEADER + get_u32((unsigned char *)l->in);
        if (frame_len <= FRAME_HEADER + (size_t)FRAME_PAYLOAD_MAX && frame_len > l->in_len)
            want = frame_len - l->in_len;
    }
    if (reserve(&l->in, &l->in_cap, l->in_len, want) < 0) {
        frame_link_close_in(l);
        return -1;
    }
    ssize_t got = read(l->in_fd, l->in + l->in_len, l->in_cap - l->in_len);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (got <= 0) {
        frame_link_close_in(l);
        return -1;
    }
    l->in_len += (size_t)got;
    if (!l->greeted)
        greeting_find(l);
    return 1;
}

/* The next whole frame read: 1 and *f, 0 when none is complete, -1 when
 * the stream is not made of frames (a length beyond any frame's). */
int frame_next(struct frame_link *l, struct frame *f)
{
    size_t avail = l->in_len - l->in_pos;
    const unsigned char *h = (const unsigned char *)l->in + l->in_pos;
    if (!l->greeted || avail < FRAME_HEADER)
        return 0;
    uint32_t len = get_u32(h);
    if (len > FRAME_PAYLOAD_MAX)
        return -1;
    if (avail < FRAME_HEADER + (size_t)len)
        return 0;
    f->type = h[4];
    f->stream = h[5];
    f->rank = (int)(int32_t)get_u32(h + 8);
    f->payload = (const char *)h + FRAME_HEADER;
    f->len = len;
    l->in_pos += FRAME_HEADER + len;
    return 1;
}
