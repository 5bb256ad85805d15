/*
 * proxy_local.c — starting this host's ranks: the local proxy.
 *
 * Each rank gets one end of a socketpair for PMI (the number is in PMI_FD),
 * pipes for stdout/stderr when output is tagged, stdin from mpiexec for rank
 * 0 and /dev/null for the others, and joins one process group separate from
 * mpiexec's so that the whole job can be signalled at once and a Ctrl-C at
 * the terminal reaches mpiexec alone (which then ends the job in order).
 *
 * fork+exec rather than posix_spawn, to set PR_SET_PDEATHSIG: ranks die
 * with mpiexec even when it is killed with SIGKILL (say, by a test harness's
 * timeout) and cannot clean up.  The child reports a failed exec (or chdir)
 * back through a pipe, so a missing program is one clear message and not N
 * children each complaining.
 *
 * Each child binds itself to the CPUs binding.c planned for it (or not),
 * between fork and exec.
 *
 * The same code starts a proxy's share of the ranks on its host (proxy.c):
 * there the ranks' output is always piped (the proxy's stdout is the stream
 * to the front end) and rank 0's stdin is a pipe the proxy fills with what
 * the front end forwards; every other rank reads /dev/null.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Descriptors one rank is started with; parent ends are kept, child ends
 * closed in mpiexec once the rank runs. */
struct rank_fds {
    int pmi[2];         /* [0] ours, [1] the rank's */
    int out[2][2];      /* stdout and stderr pipes, [0] ours */
    int in[2];          /* rank 0's stdin pipe, [1] ours */
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void rank_fds_close_child_ends(struct rank_fds *f)
{
    close_fd(&f->pmi[1]);
    close_fd(&f->out[0][1]);
    close_fd(&f->out[1][1]);
    close_fd(&f->in[0]);
}

static void rank_fds_close_all(struct rank_fds *f)
{
    rank_fds_close_child_ends(f);
    close_fd(&f->pmi[0]);
    close_fd(&f->out[0][0]);
    close_fd(&f->out[1][0]);
    close_fd(&f->in[1]);
}

static int set_flags(int fd, int cloexec, int nonblock)
{
    if (cloexec && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    if (nonblock && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

/* Does rank get its stdin through a pipe from us?  In a proxy rank 0
 * always does (the proxy's own stdin is the stream from the front end). */
static int stdin_pipe_wanted(const struct job *job, int rank)
{
    return rank == 0 && (job->up || stdin_forward_wanted());
}

/* The rank's end of the PMI socket is the only descriptor created here
 * without close-on-exec: it must survive into the rank.  It is closed in
 * mpiexec before the next rank starts, so no other rank inherits it. */
static int rank_fds_open(struct job *job, int rank, struct rank_fds *f)
{
    *f = (struct rank_fds){{-1, -1}, {{-1, -1}, {-1, -1}}, {-1, -1}};
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, f->pmi) < 0 || set_flags(f->pmi[0], 1, 1) < 0)
        return -1;
    for (int s = 0; job->pipe_output && s < 2; s++)
        if (pipe2(f->out[s], O_CLOEXEC) < 0 || set_flags(f->out[s][0], 0, 1) < 0)
            return -1;
    if (stdin_pipe_wanted(job, rank) &&
        (pipe2(f->in, O_CLOEXEC) < 0 || set_flags(f->in[1], 0, 1) < 0))
        return -1;
    return 0;
}

/* Why a child could not become the rank, sent back over a close-on-exec
 * pipe: the parent reads EOF when the exec worked. */
struct exec_failure {
    enum { FAILED_FORK, FAILED_CHDIR, FAILED_BIND, FAILED_EXEC } stage;
    int err;
};

static void child_report(int report_fd, int stage)
{
    struct exec_failure failure = {stage, errno};
    ssize_t ignored = write(report_fd, &failure, sizeof failure);
    (void)ignored;
    _exit(EXIT_NOT_FOUND);
}

/* In the child, between fork and exec.  index: in job->ranks (the first
 * one started here leads the process group). */
static void __attribute__((noreturn))
child_become_rank(const struct job *job, int index, const struct rank_fds *f, char **env,
                  const sigset_t *original_mask, pid_t mpiexec_pid, int report_fd)
{
    int rank = job->ranks[index].rank;
    setpgid(0, index == 0 ? 0 : job->pgid);
    /* If mpiexec dies without cleaning up (SIGKILL, a crash), its ranks must
     * not live on unseen in their own process group. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != mpiexec_pid)
        _exit(EXIT_LAUNCH_FAILED);
    for (int s = 0; job->pipe_output && s < 2; s++)
        dup2(f->out[s][1], s + 1);
    if (rank > 0 || (job->up && f->in[0] < 0)) {
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0 && null_fd != 0) {
            dup2(null_fd, 0);
            close(null_fd);
        }
    } else if (f->in[0] >= 0) {
        dup2(f->in[0], 0);
    }
    if (job->opt->wdir && chdir(job->opt->wdir) < 0)
        child_report(report_fd, FAILED_CHDIR);
    /* Here, not in mpiexec: the binding holds for any program (binding.c). */
    int bind_err = binding_apply(job->binding, index);
    if (bind_err) {
        errno = bind_err;
        child_report(report_fd, FAILED_BIND);
    }
    /* Default actions for what mpiexec (or a shell that started it in the
     * background) ignores, and mpiexec's mask from before its signalfd. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, original_mask, NULL);
    /* execvpe searches the PATH of this process, not of env: make them the
     * same, so that a PATH given with -genv (or by the front end) counts. */
    const char *path = environment_lookup(env, "PATH");
    if (path)
        setenv("PATH", path, 1);
    int appnum;
    char **program = options_program_of(job->opt, rank, &appnum);
    execvpe(program[0], program, env);
    child_report(report_fd, FAILED_EXEC);
    _exit(EXIT_NOT_FOUND);
}

/* index: of the rank in job->ranks; the first one's failure is the
 * program's, the others' (it worked for the first) are the rank's. */
static void spawn_failed(struct job *job, int index, const struct exec_failure *failure)
{
    int rank = job->ranks[index].rank, appnum;
    const char *program = options_program_of(job->opt, rank, &appnum)[0];
    int code = failure->err == ENOENT ? EXIT_NOT_FOUND : EXIT_EXEC_FAILED;
    if (failure->stage == FAILED_FORK)
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot start rank %d: %s", rank,
                 strerror(failure->err));
    else if (failure->stage == FAILED_BIND)
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot bind rank %d to its CPUs: %s", rank,
                 strerror(failure->err));
    else if (failure->stage == FAILED_CHDIR)
        job_fail(job, EXIT_USAGE, "cannot run in directory '%s': %s", job->opt->wdir,
                 strerror(failure->err));
    else if (index == 0)
        job_fail(job, code, "cannot run '%s': %s", program, strerror(failure->err));
    else
        job_fail(job, code, "cannot start rank %d ('%s'): %s", rank, program,
                 strerror(failure->err));
}

/* Fork, and wait until the child has exec'd the program (or failed to). */
static pid_t fork_rank(struct job *job, int index, const struct rank_fds *f, char **env,
                       const sigset_t *original_mask, struct exec_failure *failure)
{
    int report[2];
    pid_t mpiexec_pid = getpid();
    *failure = (struct exec_failure){FAILED_FORK, 0};
    if (pipe2(report, O_CLOEXEC) < 0) {
        failure->err = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        child_become_rank(job, index, f, env, original_mask, mpiexec_pid, report[1]);
    close(report[1]);
    if (pid < 0) {
        failure->err = errno;
    } else {
        /* Also here, so the group exists before the next rank joins it. */
        setpgid(pid, index == 0 ? pid : job->pgid);
        ssize_t got;
        while ((got = read(report[0], failure, sizeof *failure)) < 0 && errno == EINTR)
            ;
        if (got > 0) {
            waitpid(pid, NULL, 0);
            pid = -1;
        }
    }
    close(report[0]);
    return pid;
}

static int spawn_rank(struct job *job, int index, char **base_env,
                      const sigset_t *original_mask)
{
    struct rank_fds f;
    struct exec_failure failure;
    struct rank *r = &job->ranks[index];
    int rank = r->rank;
    if (rank_fds_open(job, rank, &f) < 0) {
        int err = errno;
        rank_fds_close_all(&f);
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot create descriptors for rank %d: %s", rank,
                 strerror(err));
        return -1;
    }
    char **env = environment_for_rank(base_env, rank, index, f.pmi[1]);
    pid_t pid = fork_rank(job, index, &f, env, original_mask, &failure);
    environment_free(env);
    rank_fds_close_child_ends(&f);
    if (pid < 0) {
        rank_fds_close_all(&f);
        spawn_failed(job, index, &failure);
        return -1;
    }
    r->pid = pid;
    if (index == 0)
        job->pgid = pid;
    job->ranks_running++;
    pmi_channel_init(&r->pmi, f.pmi[0]);
    for (int s = 0; s < 2; s++)
        output_stream_init(&r->out[s], f.out[s][0], s + 1);
    if (rank == 0)
        job->stdin_fwd.to_rank0 = f.in[1];
    return 0;
}

static int wdir_check(struct job *job)
{
    struct stat st;
    const char *dir = job->opt->wdir;
    int err = 0;
    if (!dir)
        return 0;
    if (stat(dir, &st) < 0)
        err = errno;
    else if (!S_ISDIR(st.st_mode))
        err = ENOTDIR;
    else if (access(dir, X_OK) < 0)
        err = errno;
    if (err)
        job_fail(job, EXIT_USAGE, "cannot run in directory '%s': %s", dir, strerror(err));
    return err ? -1 : 0;
}

void proxy_local_start(struct job *job, sigset_t *original_mask)
{
    if (wdir_check(job) < 0)
        return;
    /* What a rank leaves behind when it exits (a helper it forked, a
     * sanitizer's tracer) becomes our child instead of init's, so that the
     * job's end can reap it rather than leave a zombie for an init that
     * may be slow to collect it. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* What jobs killed outright left in /dev/shm goes first; then ours is
     * marked alive for as long as this process lives (job_id.c). */
    shm_sweep_dead_jobs();
    job_alive_hold(job);
    job->binding = binding_plan_make(job);
    if (!job->binding)
        return;
    char **base_env = environment_base(job);
    for (int i = 0; i < job->nranks && !job->ending; i++)
        if (spawn_rank(job, i, base_env, original_mask) < 0)
            break;
    environment_base_free(base_env);
    binding_plan_free(job->binding);
    job->binding = NULL;
}
