/*
 * job.c — the life and end of a job: noticing ranks exit, deciding that the
 * job failed and why, stopping every rank, and the exit status.
 *
 * The first failure decides the exit status and is the one reported;
 * whatever happens to the other ranks after that (they are being killed) is
 * a consequence, not news.  Stopping is SIGTERM to the ranks' process group,
 * then SIGKILL a second later for ranks that do not go.
 *
 * The first rank started here leads the process group.  Its exit status is
 * read without reaping it (WNOWAIT) until every rank is gone, so that its
 * pid, which names the group, cannot be reused while we may still signal
 * the group.
 *
 * Judging belongs to whoever sees the whole job: mpiexec on one host, the
 * front end of a multi-host job.  A proxy only reports facts (upstream_*)
 * and controls its own ranks; the front end applies the same rules to the
 * facts that arrive (job_rank_ended) and stops the job through the proxies.
 */
#include "mpiexec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OUTPUT_DRAIN_SECONDS = 2 };

/* rank_numbers: the job's ranks that ranks[] holds (NULL: 0..nranks-1). */
int job_init(struct job *job, const struct mpiexec_options *opt, const int *rank_numbers,
             int nranks)
{
    *job = (struct job){.opt = opt, .size = opt->nprocs, .nranks = nranks, .num_nodes = 1,
                        .pipe_output = opt->tag_output};
    job->stdin_fwd.to_rank0 = -1;
    job->ranks = calloc((size_t)nranks, sizeof *job->ranks);
    job->kvs = kvs_create();
    if (!job->ranks || !job->kvs) {
        fputs("mpiexec: out of memory\n", stderr);
        return -1;
    }
    for (int i = 0; i < nranks; i++) {
        struct rank *r = &job->ranks[i];
        r->rank = rank_numbers ? rank_numbers[i] : i;
        pmi_channel_init(&r->pmi, -1);
        output_stream_init(&r->out[0], -1, 1);
        output_stream_init(&r->out[1], -1, 2);
    }
    /* What Hydra tells MPICH ranks about placement: one node holding all
     * ranks, so that MPICH programs run under this mpiexec too. */
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->size);
    if (kvs_put(job->kvs, "PMI_process_mapping", mapping) < 0)
        return -1;
    if (opt->preput) {                  /* -preput KEY=VALUE (a spawned job's parent port) */
        char key[UZ_PMI_KEY_MAX];
        const char *eq = strchr(opt->preput, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - opt->preput), opt->preput);
        if (kvs_put(job->kvs, key, eq + 1) < 0)
            return -1;
    }
    if (opt->timeout_seconds > 0)
        job->timeout_at = monotonic_now() + opt->timeout_seconds;
    return job_id_generate(job);
}

static void group_signal(const struct job *job, int signo)
{
    /* pgid 0 would mean our own group. */
    if (job->pgid > 0)
        killpg(job->pgid, signo);
}

/* Signal every rank of the job: here, or through the proxies. */
static void ranks_signal(struct job *job, int signo)
{
    if (job->remote)
        remote_signal_ranks(job, signo);
    else
        group_signal(job, signo);
}

void job_kill_all(struct job *job)
{
    job->ending = 1;
    stdin_forward_stop(&job->stdin_fwd);
    if (job->ranks_running > 0 || job->remote) {
        ranks_signal(job, SIGTERM);
        job->sigkill_at = monotonic_now() + SIGKILL_GRACE_SECONDS;
    }
    spawn_signal(SIGTERM);              /* the jobs our ranks spawned end with ours */
}

/* No more grace: SIGKILL to every rank. */
void job_kill_now(struct job *job)
{
    job->ending = 1;
    stdin_forward_stop(&job->stdin_fwd);
    ranks_signal(job, SIGKILL);
    spawn_signal(SIGKILL);
    job->sigkill_at = 0;
}

void job_fail(struct job *job, int exit_code, const char *fmt, ...)
{
    if (job->ending)
        return;
    char message[UZ_PMI_LINE_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (job->up)
        upstream_fail(job, exit_code, message);
    else
        fprintf(stderr, "mpiexec: %s\n", message);
    spawn_status_failed(message);       /* a spawned job: the spawning rank learns why */
    job->exit_code = exit_code;
    job_kill_all(job);
}

/* The status of a process that aborted with code: only the low 8 bits reach
 * a parent, and a code like 256 must not come out as success. */
static int abort_exit_code(int code)
{
    return (code & 255) || code == 0 ? code & 255 : 1;
}

void job_rank_aborted(struct job *job, struct rank *r, int code, const char *message)
{
    if (job->ending)
        return;
    if (job->up) {
        upstream_abort(job, r, code, message);
        job->exit_code = abort_exit_code(code);
        job_kill_all(job);
        return;
    }
    fprintf(stderr, "mpiexec: rank %d aborted the job with code %d%s%s\n", r->rank, code,
            message[0] ? ": " : "", message);
    job->exit_code = abort_exit_code(code);
    job_kill_all(job);
}

void job_signal_received(struct job *job, int signo)
{
    if (signo == SIGCHLD) {
        job_reap(job);
    } else if (signo == SIGCONT) {
        /* only wakes the loop: stdin forwarding may resume */
    } else if (signo == SIGUSR1) {
        /* Print what each rank waits in; the job goes on.  A proxy is
         * asked by its front end instead. */
        if (!job->up && !job->ending)
            hang_query_start(job, 0);
    } else if (!job->ending) {
        /* A proxy is told by signal only when its front end is gone (or by
         * someone by hand): the front end reports what its ranks do then. */
        if (!job->up)
            fprintf(stderr, "mpiexec: received signal %d (%s); ending the job\n", signo,
                    strsignal(signo));
        job->exit_code = 128 + signo;
        job_kill_all(job);
    } else {
        job_kill_now(job);      /* asked twice: no more grace */
    }
}

void job_check_deadlines(struct job *job, double now)
{
    if (job->timeout_at && now >= job->timeout_at) {
        job->timeout_at = 0;
        /* What each rank waits in first; the job is killed after it. */
        hang_query_start(job, 1);
    }
    hang_query_check(job, now);
    if (job->sigkill_at && now >= job->sigkill_at) {
        job->sigkill_at = 0;
        ranks_signal(job, SIGKILL);
    }
    if (job->remote)
        remote_check_deadlines(job, now);
}

/* A rank waiting in a PMI barrier waits for every rank; if each rank that is
 * not there has finalized or exited, it would wait for ever. */
void job_check_barrier(struct job *job)
{
    if (job->ending || job->ranks_in_barrier == 0 || job->up)
        return;
    int gone = 0, first_gone = -1;
    for (int i = 0; i < job->nranks; i++) {
        const struct rank *r = &job->ranks[i];
        if (!r->pmi.in_barrier && (r->exited || r->pmi.state == RANK_PMI_FINALIZED)) {
            gone++;
            if (first_gone < 0)
                first_gone = i;
        }
    }
    if (job->ranks_in_barrier + gone < job->size)
        return;
    const struct rank *r = &job->ranks[first_gone];
    job_fail(job, EXIT_LAUNCH_FAILED, "ranks wait in a PMI barrier (fence) that rank %d will "
             "never enter: it has %s", r->rank,
             r->pmi.state == RANK_PMI_FINALIZED ? "finalized" : "exited");
}

/* A rank has entered the barrier (here, or reported by its proxy): when
 * all are in, let them all out. */
void job_barrier_entered(struct job *job)
{
    if (++job->ranks_in_barrier < job->size) {
        job_check_barrier(job);
        return;
    }
    job->ranks_in_barrier = 0;
    for (int i = 0; i < job->nranks; i++)
        job->ranks[i].pmi.in_barrier = 0;
    if (job->remote)
        remote_barrier_release(job);
    else
        for (int i = 0; i < job->nranks; i++)
            pmi_channel_send(job, &job->ranks[i], "cmd=barrier_out rc=0\n");
}

/* "pid 4711", and on another host "pid 4711 on node7". */
static const char *rank_where(const struct job *job, const struct rank *r, char *buf,
                              size_t len)
{
    if (job->remote)
        snprintf(buf, len, "pid %d on %s", (int)r->pid,
                 job->remote->proxies[job->remote->rank_node[r->rank]].host);
    else
        snprintf(buf, len, "pid %d", (int)r->pid);
    return buf;
}

/* Report how a rank ended, if that makes the job a failure. */
static void rank_exit_judge(struct job *job, const struct rank *r)
{
    char where[320];
    if (job->ending)
        return;
    rank_where(job, r, where, sizeof where);
    if (r->term_signal)
        job_fail(job, 128 + r->term_signal, "rank %d (%s) killed by signal %d (%s)",
                 r->rank, where, r->term_signal, strsignal(r->term_signal));
    else if (r->exit_code != 0)
        job_fail(job, r->exit_code, "rank %d (%s) exited with code %d", r->rank, where,
                 r->exit_code);
    else if (r->pmi.state == RANK_PMI_INITIALIZED)
        job_fail(job, EXIT_LAUNCH_FAILED, "rank %d (%s) exited without calling "
                 "MPI_Finalize", r->rank, where);
}

/* The rules for a rank that has ended, wherever it ran. */
void job_rank_ended(struct job *job, struct rank *r)
{
    rank_exit_judge(job, r);
    job_check_barrier(job);
}

/* All ranks are gone: kill whatever they left in their process group,
 * reap it (we are its subreaper, see proxy_local.c), and only then let the
 * group's name (rank 0's pid) go. */
static void last_rank_gone(struct job *job)
{
    group_signal(job, SIGKILL);
    job->sigkill_at = 0;
    if (job->pgid > 0) {
        for (;;) {
            pid_t got = waitpid(-job->pgid, NULL, 0);
            if (got < 0 && errno != EINTR)
                break;          /* ECHILD: none of the group is left */
        }
    }
    job->ranks[0].reaped = 1;
    job->drain_until = monotonic_now() + OUTPUT_DRAIN_SECONDS;
}

static void rank_exited(struct job *job, struct rank *r)
{
    r->exited = 1;
    job->ranks_running--;
    /* It may have written finalize or abort just before exiting. */
    pmi_channel_drain(job, r);
    if (job->up)
        upstream_rank_exited(job, r);
    else
        job_rank_ended(job, r);
    if (job->ranks_running == 0)
        last_rank_gone(job);
}

/* Has rank r ended?  Fills in how, reaping it unless it leads the group. */
static int rank_poll_exit(const struct job *job, struct rank *r)
{
    siginfo_t info = {0};
    int options = WEXITED | WNOHANG | (r->pid == job->pgid ? WNOWAIT : 0);
    while (waitid(P_PID, (id_t)r->pid, &info, options) < 0)
        if (errno != EINTR)
            return 0;
    if (info.si_pid == 0)
        return 0;
    if (info.si_code == CLD_EXITED)
        r->exit_code = info.si_status;
    else
        r->term_signal = info.si_status;
    r->reaped = r->pid != job->pgid;
    return 1;
}

void job_reap(struct job *job)
{
    spawn_reap();
    if (job->remote) {
        remote_reap(job);
        return;
    }
    for (int i = 0; i < job->nranks; i++) {
        struct rank *r = &job->ranks[i];
        if (r->pid > 0 && !r->exited && rank_poll_exit(job, r))
            rank_exited(job, r);
    }
}

static int output_open(const struct job *job)
{
    for (int i = 0; i < job->nranks; i++)
        if (job->ranks[i].out[0].fd >= 0 || job->ranks[i].out[1].fd >= 0)
            return 1;
    return 0;
}

int job_is_done(struct job *job)
{
    if (job->remote)
        return remote_is_done(job) && spawn_all_done();
    /* Spawned jobs are waited for too: they may still be talking to
     * each other after our ranks are gone. */
    int ranks_done = job->ranks_running == 0 && spawn_all_done() &&
                     (!output_open(job) || monotonic_now() >= job->drain_until);
    return job->up ? upstream_is_done(job, ranks_done) : ranks_done;
}

int job_finish(struct job *job)
{
    hang_query_end(job);
    if (job->remote)
        remote_finish(job);
    for (int i = 0; i < job->nranks; i++) {
        struct rank *r = &job->ranks[i];
        pmi_channel_close(&r->pmi);
        for (int s = 0; s < 2; s++)
            output_stream_finish(&r->out[s], r->rank);
    }
    stdin_forward_stop(&job->stdin_fwd);
    shm_cleanup(job);
    if (job->alive_fd > 0)
        close(job->alive_fd);
    kvs_destroy(job->kvs);
    free(job->ranks);
    return job->exit_code;
}
