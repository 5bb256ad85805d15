/*
 * event_loop.c — mpiexec's one poll() loop.
 *
 * Signals (SIGCHLD above all) arrive through a signalfd, so the loop sleeps
 * in poll() until a rank writes, exits or a deadline (--timeout, the
 * SIGKILL after SIGTERM) comes: mpiexec uses no CPU while ranks compute,
 * which matters when the ranks outnumber the cores.
 *
 * Besides the ranks' descriptors it watches, in the front end of a
 * multi-host job, each proxy's stream (and mpiexec's stdin for a remote
 * rank 0); in a proxy, the stream to the front end (its stdin and stdout).
 */
#include "mpiexec.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int signals_take_over(sigset_t *original_mask)
{
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGQUIT);
    sigaddset(&handled, SIGCONT);
    sigaddset(&handled, SIGUSR1);       /* the hang diagnosis (hang_query.c) */
    if (sigprocmask(SIG_BLOCK, &handled, original_mask) < 0)
        return -1;
    /* A rank that dies must not kill mpiexec when it writes a reply. */
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void signals_read(struct job *job, int signal_fd)
{
    struct signalfd_siginfo info;
    while (read(signal_fd, &info, sizeof info) == (ssize_t)sizeof info)
        job_signal_received(job, (int)info.ssi_signo);
}

/* What each pollfd stands for. */
enum slot_kind {
    SLOT_SIGNALS, SLOT_PMI, SLOT_OUTPUT, SLOT_STDIN, SLOT_STDIN_PIPE,
    SLOT_PROXY_IN, SLOT_PROXY_OUT,          /* front end: proxy `rank` (its index) */
    SLOT_REMOTE_STDIN,                      /* front end: stdin for a remote rank 0 */
    SLOT_UPSTREAM_IN, SLOT_UPSTREAM_OUT,    /* proxy: the front end */
    SLOT_SPAWN_STATUS,                      /* a spawned job's launcher, by its fd (spawn.c) */
};

/* A proxy stops reading its ranks' output while this much waits to go to
 * the front end: the ranks then block in write, as they would on a slow
 * terminal, instead of the proxy's memory growing. */
enum { UPSTREAM_BACKLOG_MAX = 4 << 20 };

struct slot {
    enum slot_kind kind;
    int rank;
    int stream;
};

struct poll_set {
    struct pollfd *fds;
    struct slot *slots;
    int n;
};

static void poll_add(struct poll_set *set, int fd, short events, struct slot slot)
{
    set->fds[set->n] = (struct pollfd){.fd = fd, .events = events};
    set->slots[set->n++] = slot;
}

static void poll_add_remote(struct poll_set *set, const struct remote *remote)
{
    for (int i = 0; i < remote->nproxies; i++) {
        const struct frame_link *l = &remote->proxies[i].link;
        if (l->in_fd >= 0)
            poll_add(set, l->in_fd, POLLIN, (struct slot){SLOT_PROXY_IN, i});
        if (l->out_fd >= 0 && l->out_len)
            poll_add(set, l->out_fd, POLLOUT, (struct slot){SLOT_PROXY_OUT, i});
    }
    const struct remote_stdin *in = &remote->in;
    const struct frame_link *rank0 = &remote->proxies[in->node].link;
    if (in->open && in->in_flight < REMOTE_STDIN_WINDOW && rank0->out_len < REMOTE_STDIN_WINDOW &&
        stdin_in_foreground())
        poll_add(set, 0, POLLIN, (struct slot){SLOT_REMOTE_STDIN});
}

static void poll_add_upstream(struct poll_set *set, const struct upstream *up)
{
    if (up->link.in_fd >= 0)
        poll_add(set, up->link.in_fd, POLLIN, (struct slot){SLOT_UPSTREAM_IN});
    if (up->link.out_fd >= 0 && up->link.out_len)
        poll_add(set, up->link.out_fd, POLLOUT, (struct slot){SLOT_UPSTREAM_OUT});
}

static void poll_set_build(struct poll_set *set, const struct job *job, int signal_fd)
{
    set->n = 0;
    poll_add(set, signal_fd, POLLIN, (struct slot){SLOT_SIGNALS});
    int output_paused = job->up && job->up->link.out_len > UPSTREAM_BACKLOG_MAX;
    for (int i = 0; i < job->nranks; i++) {
        const struct rank *r = &job->ranks[i];
        if (r->pmi.fd >= 0)
            poll_add(set, r->pmi.fd, POLLIN | (r->pmi.out_len ? POLLOUT : 0),
                     (struct slot){SLOT_PMI, i});
        for (int s = 0; s < 2 && !output_paused; s++)
            if (r->out[s].fd >= 0)
                poll_add(set, r->out[s].fd, POLLIN, (struct slot){SLOT_OUTPUT, i, s});
    }
    if (job->remote)
        poll_add_remote(set, job->remote);
    if (job->up)
        poll_add_upstream(set, job->up);
    if (job->up && job->stdin_fwd.to_rank0 >= 0 && job->up->stdin_len)
        poll_add(set, job->stdin_fwd.to_rank0, POLLOUT, (struct slot){SLOT_STDIN_PIPE});
    for (int i = 0; i < spawn_launchers(); i++)
        if (spawn_launcher_status_fd(i) >= 0)
            poll_add(set, spawn_launcher_status_fd(i), POLLIN, (struct slot){SLOT_SPAWN_STATUS});
    short stdin_events, pipe_events;
    if (!job->up && stdin_forward_poll_events(&job->stdin_fwd, &stdin_events, &pipe_events)) {
        if (stdin_events)
            poll_add(set, 0, stdin_events, (struct slot){SLOT_STDIN});
        poll_add(set, job->stdin_fwd.to_rank0, pipe_events, (struct slot){SLOT_STDIN_PIPE});
    }
}

/* Milliseconds until the nearest deadline, -1 for none. */
static int poll_timeout_ms(const struct job *job)
{
    double next = 0, now = monotonic_now();
    double deadlines[] = {job->timeout_at, job->sigkill_at,
                          job->ranks_running == 0 ? job->drain_until : 0,
                          job->remote ? job->remote->launchers_kill_at : 0,
                          job->remote ? job->remote->give_up_at : 0,
                          hang_query_deadline(job)};
    for (size_t i = 0; i < sizeof deadlines / sizeof deadlines[0]; i++)
        if (deadlines[i] > 0 && (next == 0 || deadlines[i] < next))
            next = deadlines[i];
    if (next == 0)
        return -1;
    if (next <= now)
        return 0;
    return (int)ceil((next - now) * 1000.0);
}

static void slot_dispatch(struct job *job, const struct pollfd *p, const struct slot *slot,
                          int signal_fd)
{
    if (!p->revents)
        return;
    struct rank *r = slot->kind == SLOT_PMI || slot->kind == SLOT_OUTPUT
                         ? &job->ranks[slot->rank] : NULL;
    switch (slot->kind) {
    case SLOT_SIGNALS:
        signals_read(job, signal_fd);
        break;
    case SLOT_PMI:
        /* The fd may have been closed while handling an earlier slot. */
        if (r->pmi.fd != p->fd)
            break;
        if (p->revents & POLLOUT)
            pmi_channel_writable(job, r);
        if (p->revents & (POLLIN | POLLHUP | POLLERR))
            pmi_channel_readable(job, r);
        break;
    case SLOT_OUTPUT:
        if (r->out[slot->stream].fd == p->fd)
            output_stream_readable(job, r, slot->stream);
        break;
    case SLOT_STDIN:
        if (job->stdin_fwd.to_rank0 >= 0)
            stdin_forward_stdin_ready(&job->stdin_fwd);
        break;
    case SLOT_STDIN_PIPE:
        if (job->stdin_fwd.to_rank0 == p->fd && job->up)
            upstream_stdin_writable(job);
        else if (job->stdin_fwd.to_rank0 == p->fd)
            stdin_forward_pipe_ready(&job->stdin_fwd);
        if (!job->up && (p->revents & (POLLERR | POLLHUP)))
            stdin_forward_stop(&job->stdin_fwd);
        break;
    case SLOT_PROXY_IN:
        if (job->remote->proxies[slot->rank].link.in_fd == p->fd)
            remote_proxy_readable(job, &job->remote->proxies[slot->rank]);
        break;
    case SLOT_PROXY_OUT:
        frame_link_flush(&job->remote->proxies[slot->rank].link);
        break;
    case SLOT_REMOTE_STDIN:
        if (job->remote->in.open)
            remote_stdin_readable(job);
        break;
    case SLOT_UPSTREAM_IN:
        if (job->up->link.in_fd == p->fd)
            upstream_readable(job);
        break;
    case SLOT_UPSTREAM_OUT:
        frame_link_flush(&job->up->link);
        break;
    case SLOT_SPAWN_STATUS:
        /* Not by index: a SIGCHLD handled earlier in this round may have
         * reaped a launcher and moved the others (spawn_reap). */
        spawn_launcher_status_readable(job, p->fd);
        break;
    }
}

int event_loop_run(struct job *job, int signal_fd)
{
    size_t fixed = 8 + 3 * (size_t)job->nranks + 2 * (job->remote ? (size_t)job->remote->nproxies : 0);
    struct poll_set set = {0};
    size_t max = 0;
    /* Ranks may have exited before we first look. */
    job_reap(job);
    while (!job_is_done(job)) {
        /* Spawned jobs' launchers come and go; the rest is fixed. */
        if (fixed + (size_t)spawn_launchers() > max) {
            max = fixed + 2 * (size_t)spawn_launchers();
            struct pollfd *fds = realloc(set.fds, max * sizeof *set.fds);
            struct slot *slots = fds ? realloc(set.slots, max * sizeof *set.slots) : NULL;
            set.fds = fds ? fds : set.fds;
            set.slots = slots ? slots : set.slots;
            if (!fds || !slots) {
                job_fail(job, EXIT_LAUNCH_FAILED, "out of memory");
                break;
            }
        }
        poll_set_build(&set, job, signal_fd);
        int ready = poll(set.fds, (nfds_t)set.n, poll_timeout_ms(job));
        if (ready < 0 && errno != EINTR) {
            job_fail(job, EXIT_LAUNCH_FAILED, "poll: %s", strerror(errno));
            break;
        }
        for (int i = 0; ready > 0 && i < set.n; i++)
            slot_dispatch(job, &set.fds[i], &set.slots[i], signal_fd);
        job_check_deadlines(job, monotonic_now());
    }
    free(set.fds);
    free(set.slots);
    return 0;
}
