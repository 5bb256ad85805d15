/*
 * remote.c — the front end's side of the proxies: the facts they report
 * (frames, see frame.c) become the state of the job's ranks, to which the
 * rules of job.c apply as on one host; decisions go back as frames.
 *
 * The key-value space lives here.  A proxy sends the puts of its ranks
 * when one of them enters the barrier; once every rank of the job is in,
 * each proxy gets barrier_out with every pair put since the last barrier,
 * and from then on answers its ranks' gets by itself.
 *
 * How a job ends: a proxy says FRAME_DONE once all its ranks are gone and
 * their output has been sent.  When every proxy has (or is lost), we close
 * their stdin, which tells them to clean up and exit; the job is over when
 * every launcher has exited and its stream is closed.  To stop the job we
 * send FRAME_KILL (SIGTERM, then SIGKILL); launchers that are still there
 * a few seconds later are killed, and a little after that we stop waiting.
 */
#include "mpiexec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
    LAUNCHER_GRACE_SECONDS = 3,     /* after SIGKILL to the ranks, before SIGKILL to launchers */
    GIVE_UP_SECONDS = 2,            /* after that, before giving up on them */
};

static int proxy_finished(const struct proxy *p)
{
    return p->link.in_fd < 0 && p->reaped;
}

/* Every proxy is done or gone: let them exit. */
static void proxies_release_if_done(struct job *job)
{
    struct remote *remote = job->remote;
    if (remote->inputs_closed)
        return;
    for (int i = 0; i < remote->nproxies; i++)
        if (!remote->proxies[i].done && !proxy_finished(&remote->proxies[i]))
            return;
    remote->inputs_closed = 1;
    remote->in.open = 0;
    for (int i = 0; i < remote->nproxies; i++)
        frame_link_close_out(&remote->proxies[i].link);
}

/* "exited with code 255", "was killed by signal 9 (Killed)" */
static const char *launcher_status(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "exited with code %d", WEXITSTATUS(status));
    return buf;
}

/* Once both its stream has ended and its launcher has exited: was that
 * the end we expected? */
static void proxy_check_lost(struct job *job, struct proxy *p)
{
    if (!proxy_finished(p))
        return;
    char how[96];
    launcher_status(p->wait_status, how, sizeof how);
    if (!p->done && !p->link.greeted)
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot start the proxy on host %s: the launcher %s%s",
                 p->host, how,
                 WIFEXITED(p->wait_status) && WEXITSTATUS(p->wait_status) == 127
                     ? " (is mpiexec installed at the same path there?)" : "");
    else if (!p->done)
        job_fail(job, EXIT_LAUNCH_FAILED, "lost the proxy on host %s: it %s", p->host, how);
    proxies_release_if_done(job);
}

/* The proxy breaks the protocol: nothing it says can be trusted now. */
static void proxy_broken(struct job *job, struct proxy *p, const char *why)
{
    job_fail(job, EXIT_LAUNCH_FAILED, "the proxy on host %s %s", p->host, why);
    frame_link_close_in(&p->link);
    if (p->pid > 0 && !p->reaped)
        kill(p->pid, SIGKILL);
}

/* ------------------------------------------------------------ frames */

/* The payload as a string (frames are small, except puts and output). */
static char *payload_string(const struct frame *f)
{
    char *s = malloc(f->len + 1);
    if (s) {
        memcpy(s, f->payload, f->len);
        s[f->len] = '\0';
    }
    return s;
}

/* "key=value\n" lines: into the key-value space, and into the pairs the
 * next barrier_out carries. */
static int puts_apply(struct job *job, const struct frame *f)
{
    struct remote *remote = job->remote;
    char *text = payload_string(f);
    if (!text)
        return -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        kvs_put(job->kvs, line, eq + 1);
        *eq = '=';
    }
    free(text);
    if (f->len == 0)
        return 0;
    size_t need = remote->epoch_len + f->len;
    if (need > remote->epoch_cap) {
        size_t cap = remote->epoch_cap ? remote->epoch_cap : 4096;
        while (cap < need)
            cap *= 2;
        char *grown = realloc(remote->epoch_puts, cap);
        if (!grown)
            return -1;
        remote->epoch_puts = grown;
        remote->epoch_cap = cap;
    }
    memcpy(remote->epoch_puts + remote->epoch_len, f->payload, f->len);
    remote->epoch_len = need;
    return 0;
}

/* "code message" */
static void code_and_message(const struct frame *f, int *code, char *message, size_t len)
{
    char *text = payload_string(f);
    char *rest = NULL;
    *code = text ? (int)strtol(text, &rest, 10) : EXIT_LAUNCH_FAILED;
    snprintf(message, len, "%s", rest && *rest == ' ' ? rest + 1 : "");
    free(text);
}

static void on_exit_frame(struct job *job, struct rank *r, const struct frame *f)
{
    char *text = payload_string(f);
    int pid = 0, code = 0, signo = 0;
    if (text)
        sscanf(text, "%d %d %d", &pid, &code, &signo);
    free(text);
    r->pid = pid;
    r->exit_code = code;
    r->term_signal = signo;
    r->exited = r->reaped = 1;
    job_rank_ended(job, r);
}

static void on_output(struct job *job, struct rank *r, const struct frame *f)
{
    if (f->stream != 1 && f->stream != 2)
        return;
    struct output_stream *s = &r->out[f->stream - 1];
    if (!job->opt->tag_output)
        output_write_raw(f->stream, f->payload, f->len);
    else if (f->len == 0)
        output_stream_finish(s, r->rank);
    else
        output_stream_feed(s, r->rank, f->payload, f->len);
}

static void on_stdin_ack(struct job *job, const struct frame *f)
{
    struct remote_stdin *in = &job->remote->in;
    char *text = payload_string(f);
    long n = text ? strtol(text, NULL, 10) : -1;
    free(text);
    if (n < 0)
        in->open = 0;
    else
        in->in_flight -= (size_t)n <= in->in_flight ? (size_t)n : in->in_flight;
}

/* A frame about one of p's ranks: that rank, or NULL after complaining. */
static struct rank *frame_rank(struct job *job, struct proxy *p, const struct frame *f)
{
    if (f->rank >= 0 && f->rank < job->size && job->remote->rank_node[f->rank] == p->node)
        return &job->ranks[f->rank];
    char why[96];
    snprintf(why, sizeof why, "sent a frame ('%c') about rank %d, which is not one of its own",
             f->type, f->rank);
    proxy_broken(job, p, why);
    return NULL;
}

static void frame_handle(struct job *job, struct proxy *p, const struct frame *f)
{
    char message[UZ_PMI_LINE_MAX + 64];
    int code;
    struct rank *r = NULL;
    if (f->type && strchr("SBAXOW", f->type) && !(r = frame_rank(job, p, f)))
        return;
    switch (f->type) {
    case FRAME_STATE:
        r->pmi.state = f->len == 8 && memcmp(f->payload, "finalize", 8) == 0
                           ? RANK_PMI_FINALIZED : RANK_PMI_INITIALIZED;
        job_check_barrier(job);
        break;
    case FRAME_PUTS:
        if (!job->ending && puts_apply(job, f) < 0)
            job_fail(job, EXIT_LAUNCH_FAILED, "out of memory storing PMI puts");
        break;
    case FRAME_BARRIER_IN:
        if (job->ending)
            break;
        if (r->pmi.in_barrier) {
            proxy_broken(job, p, "reported a rank entering the barrier twice");
            break;
        }
        r->pmi.in_barrier = 1;
        job_barrier_entered(job);
        break;
    case FRAME_ABORT:
        code_and_message(f, &code, message, sizeof message);
        r->pmi.state = RANK_PMI_ABORTED;
        job_rank_aborted(job, r, code, message);
        break;
    case FRAME_FAIL:
        code_and_message(f, &code, message, sizeof message);
        job_fail(job, code, "%s: %s", p->host, message);
        break;
    case FRAME_EXIT:
        on_exit_frame(job, r, f);
        break;
    case FRAME_OUTPUT:
        on_output(job, r, f);
        break;
    case FRAME_STDIN_ACK:
        on_stdin_ack(job, f);
        break;
    case FRAME_SPAWN: {
        /* A rank's MPI_Comm_spawn: we run it, as on one host (spawn.c). */
        char *line = payload_string(f);
        if (!line)
            job_fail(job, EXIT_LAUNCH_FAILED, "out of memory reading a spawn request");
        else if (!job->ending)
            spawn_line(job, r, line);
        free(line);
        break;
    }
    case FRAME_HANG_STATE:
        if (frame_rank(job, p, f))
            hang_query_answer(job, f->rank, f->payload, f->len);
        break;
    case FRAME_DONE:
        p->done = 1;
        proxies_release_if_done(job);
        break;
    default:
        snprintf(message, sizeof message, "sent a frame of unknown type %d", f->type);
        proxy_broken(job, p, message);
    }
}

/* Every launcher reached its host and ran mpiexec there: a spawned job has
 * started as far as its spawner needs to know (spawn_status.c). */
static int proxies_all_greeted(const struct remote *remote)
{
    for (int i = 0; i < remote->nproxies; i++)
        if (!remote->proxies[i].link.greeted)
            return 0;
    return 1;
}

void remote_proxy_readable(struct job *job, struct proxy *p)
{
    int got = frame_link_read(&p->link);
    struct frame f;
    int status = 0;
    while (p->link.in_fd >= 0 && (status = frame_next(&p->link, &f)) > 0)
        frame_handle(job, p, &f);
    if (status < 0)
        proxy_broken(job, p, "sent something that is not a frame");
    if (got < 0 || p->link.in_fd < 0)
        proxy_check_lost(job, p);
    if (!job->ending && proxies_all_greeted(job->remote))
        spawn_status_started();
}

/* ------------------------------------------------------------ control */

void remote_reap(struct job *job)
{
    struct remote *remote = job->remote;
    for (int i = 0; i < remote->nproxies; i++) {
        struct proxy *p = &remote->proxies[i];
        if (p->pid <= 0 || p->reaped)
            continue;
        pid_t got;
        while ((got = waitpid(p->pid, &p->wait_status, WNOHANG)) < 0 && errno == EINTR)
            ;
        if (got == p->pid || (got < 0 && errno == ECHILD)) {
            p->reaped = 1;
            proxy_check_lost(job, p);
        }
    }
}

void remote_signal_ranks(struct job *job, int signo)
{
    struct remote *remote = job->remote;
    remote->in.open = 0;
    if (!remote->launchers_kill_at)
        remote->launchers_kill_at = monotonic_now() + SIGKILL_GRACE_SECONDS +
                                    LAUNCHER_GRACE_SECONDS;
    for (int i = 0; i < remote->nproxies; i++)
        if (!remote->proxies[i].done)
            frame_sendf(&remote->proxies[i].link, FRAME_KILL, -1, "%d", signo);
}

void remote_barrier_release(struct job *job)
{
    struct remote *remote = job->remote;
    for (int i = 0; i < remote->nproxies; i++)
        frame_send(&remote->proxies[i].link, FRAME_BARRIER_OUT, -1, 0, remote->epoch_puts,
                   remote->epoch_len);
    remote->epoch_len = 0;
}

void remote_check_deadlines(struct job *job, double now)
{
    struct remote *remote = job->remote;
    if (remote->launchers_kill_at && now >= remote->launchers_kill_at) {
        remote->launchers_kill_at = 0;
        remote->give_up_at = now + GIVE_UP_SECONDS;
        for (int i = 0; i < remote->nproxies; i++)
            if (remote->proxies[i].pid > 0 && !remote->proxies[i].reaped)
                kill(remote->proxies[i].pid, SIGKILL);
    }
}

int remote_is_done(struct job *job)
{
    struct remote *remote = job->remote;
    if (remote->give_up_at && monotonic_now() >= remote->give_up_at)
        return 1;
    for (int i = 0; i < remote->nproxies; i++)
        if (!proxy_finished(&remote->proxies[i]))
            return 0;
    return 1;
}

void remote_finish(struct job *job)
{
    struct remote *remote = job->remote;
    for (int i = 0; i < remote->nproxies; i++) {
        struct proxy *p = &remote->proxies[i];
        frame_link_free(&p->link);
        if (p->pid > 0 && !p->reaped) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, NULL, 0);
        }
    }
    free(remote->proxies);
    free(remote->rank_node);
    free(remote->epoch_puts);
    free(remote);
    job->remote = NULL;
}

/* The answer to rank r's spawn request, through the proxy that serves it. */
void remote_spawn_result(struct job *job, const struct rank *r, const char *line)
{
    struct proxy *p = &job->remote->proxies[job->remote->rank_node[r->rank]];
    frame_send(&p->link, FRAME_SPAWN_RESULT, r->rank, 0, line, strlen(line));
}

/* mpiexec's stdin, for rank 0 on its host: up to REMOTE_STDIN_WINDOW bytes
 * travel unacknowledged, so a rank 0 that does not read holds us back
 * instead of filling the proxy's memory. */
void remote_stdin_readable(struct job *job)
{
    struct remote_stdin *in = &job->remote->in;
    struct frame_link *l = &job->remote->proxies[in->node].link;
    char buf[4096];
    size_t room = REMOTE_STDIN_WINDOW - in->in_flight;
    ssize_t got = read(0, buf, room < sizeof buf ? room : sizeof buf);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0) {
        in->open = 0;
        got = 0;        /* an empty frame: end of input */
    }
    in->in_flight += (size_t)got;
    frame_send(l, FRAME_STDIN, -1, 0, buf, (size_t)got);
}
