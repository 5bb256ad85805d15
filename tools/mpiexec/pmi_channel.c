/*
 * pmi_channel.c — mpiexec's end of one rank's PMI socket: cutting the byte
 * stream into request lines and queueing replies.
 *
 * Sockets are non-blocking and everything goes through the poll loop, so a
 * rank that stops reading its replies, or writes half a line and stalls,
 * cannot stall mpiexec (and with it --timeout and every other rank).
 */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A rank this far behind in reading its replies is not speaking PMI. */
enum { REPLY_BACKLOG_MAX = 1 << 20 };

void pmi_channel_init(struct pmi_channel *ch, int fd)
{
    *ch = (struct pmi_channel){.fd = fd, .state = RANK_PMI_NONE};
}

void pmi_channel_close(struct pmi_channel *ch)
{
    if (ch->fd >= 0)
        close(ch->fd);
    ch->fd = -1;
    free(ch->out);
    ch->out = NULL;
    ch->out_len = ch->out_cap = 0;
}

/* Hand every complete line in the input buffer to the server. */
static void lines_dispatch(struct job *job, struct rank *r)
{
    struct pmi_channel *ch = &r->pmi;
    char *nl;
    while (ch->fd >= 0 && (nl = memchr(ch->in, '\n', ch->in_len))) {
        size_t len = (size_t)(nl - ch->in);
        *nl = '\0';
        if (!job->ending)
            pmi_server_handle(job, r, ch->in, len);
        ch->in_len -= len + 1;
        memmove(ch->in, nl + 1, ch->in_len);
    }
    if (ch->in_len == sizeof ch->in) {
        char excerpt[UZ_PMI_EXCERPT_MAX + 8];
        job_fail(job, EXIT_LAUNCH_FAILED, "rank %d sent a PMI line longer than %d bytes: '%s'",
                 r->rank, UZ_PMI_LINE_MAX, uz_pmi_excerpt(ch->in, ch->in_len, excerpt));
        ch->in_len = 0;
    }
}

/* One read; 1 when there may be more to read now, 0 when not (or closed). */
static int channel_read_once(struct job *job, struct rank *r)
{
    struct pmi_channel *ch = &r->pmi;
    ssize_t got = read(ch->fd, ch->in + ch->in_len, sizeof ch->in - ch->in_len);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (got <= 0) {
        /* EOF (or reset): the rank closed its end; how it ended is decided
         * when its exit status arrives. */
        if (job->opt->verbose && ch->in_len)
            fprintf(stderr, "mpiexec: rank %d closed PMI mid-line\n", r->rank);
        pmi_channel_close(ch);
        return 0;
    }
    ch->in_len += (size_t)got;
    lines_dispatch(job, r);
    return ch->fd >= 0;
}

void pmi_channel_readable(struct job *job, struct rank *r)
{
    channel_read_once(job, r);
}

void pmi_channel_drain(struct job *job, struct rank *r)
{
    while (r->pmi.fd >= 0 && channel_read_once(job, r))
        ;
    pmi_channel_close(&r->pmi);
}

/* Write as much of the backlog as the socket takes now. */
static void backlog_flush(struct pmi_channel *ch)
{
    size_t done = 0;
    while (done < ch->out_len) {
        ssize_t put = send(ch->fd, ch->out + done, ch->out_len - done,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN)
            break;
        if (put < 0) {
            done = ch->out_len;     /* the rank is gone; its exit will tell */
            break;
        }
        done += (size_t)put;
    }
    ch->out_len -= done;
    memmove(ch->out, ch->out + done, ch->out_len);
}

void pmi_channel_writable(struct job *job, struct rank *r)
{
    (void)job;
    backlog_flush(&r->pmi);
}

void pmi_channel_send(struct job *job, struct rank *r, const char *line)
{
    struct pmi_channel *ch = &r->pmi;
    size_t len = strlen(line);
    if (ch->fd < 0)
        return;
    if (job->opt->verbose)
        fprintf(stderr, "mpiexec: rank %d <- %s", r->rank, line);
    if (ch->out_len + len > ch->out_cap) {
        size_t cap = ch->out_cap ? ch->out_cap : 4096;
        while (cap < ch->out_len + len)
            cap *= 2;
        char *grown = cap <= REPLY_BACKLOG_MAX ? realloc(ch->out, cap) : NULL;
        if (!grown) {
            job_fail(job, EXIT_LAUNCH_FAILED, "rank %d does not read its PMI replies "
                     "(backlog over %d bytes)", r->rank, REPLY_BACKLOG_MAX);
            return;
        }
        ch->out = grown;
        ch->out_cap = cap;
    }
    memcpy(ch->out + ch->out_len, line, len);
    ch->out_len += len;
    backlog_flush(ch);
}
