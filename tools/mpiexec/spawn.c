/*
 * spawn.c — MPI_Comm_spawn through mpiexec: the PMI-1 "mcmd=spawn" request
 * (one block of "key=value" lines per program, ending with "endcmd", as
 * MPICH's simple PMI sends it and Hydra reads it) and starting the new job.
 *
 * The new job is run by a second mpiexec, forked from this one with the
 * same options that matter (timeout, tagged output) and
 *   -n N prog args [: -n M prog2 args ...]   the programs, MPMD;
 *   -preput KEY=VALUE                         what the spawning rank put
 *                                             (the parents' port name);
 *   -genv PMI_SPAWNED 1                       so the children look for it;
 *   -wdir, -usize                             from info and our own.
 * That mpiexec is a whole launcher for its job (its own KVS, key, shared
 * memory, exit rules), so nothing of ours changes; we only wait for it
 * before we end, and signal it when our job is killed.
 *
 * Before forking, every program is looked up (info "path" first, then
 * PATH; relative to info "wdir") so that a missing one is refused at once
 * with the programs at fault named (failed=<indices>), and nothing starts.
 *
 * Where the new job runs: info "host" (a -hosts list) or "hostfile" become
 * the new mpiexec's -hosts / -hostfile, with our launcher (-launcher-exec,
 * or -launcher fork), so that children on other hosts are started through
 * the same remote shell as our own ranks and reach their parents over the
 * network.  Without them, the children run where the spawning rank does.
 *
 * In a job on several hosts the ranks' PMI is served by the proxies, which
 * pass the request's lines up (FRAME_SPAWN); the front end runs the spawn
 * here and the answer goes back down (FRAME_SPAWN_RESULT).  Only the front
 * end knows the hosts and the launcher, and only its stdout is the user's.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct spawn_prog {
    int nprocs;
    char *execname;
    char **args;                /* [nargs + 1] */
    int nargs;
    char *preput;               /* "KEY=VALUE" or NULL */
    char *wdir, *path, *host, *hostfile;
    char info_key[64];          /* the info_key_<i> whose info_val_<i> comes next */
};

/* A request being read from one rank. */
struct spawn_request {
    struct spawn_prog *progs;
    int nprogs, total;          /* blocks read, blocks announced (totspawns) */
    struct spawn_prog cur;
    int in_block;
};

/* An mpiexec we started for a spawned job. */
struct launcher {
    pid_t pid;
    int status_fd;              /* its report (spawn_status.c), -1 once read */
    int rank_index;             /* the rank waiting for the answer, in job->ranks */
    size_t len;
    char report[UZ_PMI_LINE_MAX];
};

static struct spawn_request *requests;  /* [job->nranks], made on first use */
static struct launcher *launchers;
static int nlaunchers, launchers_cap;

/* ------------------------------------------------------------ state */

static void prog_free(struct spawn_prog *p)
{
    free(p->execname);
    for (int a = 0; a < p->nargs; a++)
        free(p->args[a]);
    free(p->args);
    free(p->preput);
    free(p->wdir);
    free(p->path);
    free(p->host);
    free(p->hostfile);
    memset(p, 0, sizeof(*p));
}

static void request_reset(struct spawn_request *q)
{
    for (int i = 0; i < q->nprogs; i++)
        prog_free(&q->progs[i]);
    free(q->progs);
    prog_free(&q->cur);
    memset(q, 0, sizeof(*q));
}

static struct spawn_request *request_of(struct job *job, struct rank *r)
{
    if (!requests && !(requests = calloc((size_t)job->nranks, sizeof(*requests))))
        return NULL;
    return &requests[r - job->ranks];
}

int spawn_in_progress(struct job *job, struct rank *r)
{
    return requests && requests[r - job->ranks].in_block;
}

/* ------------------------------------------------------------ replies */

static void reply_line(struct job *job, struct rank *r, const char *line)
{
    if (job->remote) {
        remote_spawn_result(job, r, line);
        return;
    }
    char buf[UZ_PMI_LINE_MAX + 2];
    snprintf(buf, sizeof buf, "%s\n", line);
    pmi_channel_send(job, r, buf);
}

static void refuse(struct job *job, struct rank *r, const char *failed, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void refuse(struct job *job, struct rank *r, const char *failed, const char *fmt, ...)
{
    char why[1024], enc[2048], line[UZ_PMI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    uz_pmi_percent_encode(why, enc, sizeof enc);
    snprintf(line, sizeof line, "cmd=spawn_result rc=-1%s%s msg=%s", failed[0] ? " failed=" : "", failed, enc);
    reply_line(job, r, line);
}

/* ------------------------------------------------------------ checks */

/* Is `dir/name` (or name, when dir is NULL) a program we may run?  The
 * full name goes to out. */
static int runnable(const char *dir, const char *name, char *out, size_t len)
{
    int n = dir ? snprintf(out, len, "%s/%s", dir, name) : snprintf(out, len, "%s", name);
    return n > 0 && (size_t)n < len && access(out, X_OK) == 0;
}

/* Find the program as the child will: a name with '/' relative to wdir,
 * else in info "path" (':'-separated), then PATH.  0 and the name to run
 * in out, or -1. */
static int program_find(const struct spawn_prog *p, const char *wdir, char *out, size_t len)
{
    if (strchr(p->execname, '/')) {
        if (p->execname[0] == '/' || !wdir)
            return runnable(NULL, p->execname, out, len) ? 0 : -1;
        return runnable(wdir, p->execname, out, len) ? 0 : -1;
    }
    const char *lists[2] = { p->path, getenv("PATH") };
    for (int l = 0; l < 2; l++) {
        if (!lists[l])
            continue;
        char *copy = strdup(lists[l]);
        for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
            if (runnable(d, p->execname, out, len)) {
                free(copy);
                return 0;
            }
        free(copy);
    }
    return -1;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Is text a host list (or path a host file) that mpiexec takes?  Parsed
 * as the new mpiexec will parse it, so that a bad one is refused here,
 * with mpiexec's own message on stderr, rather than children never
 * appearing. */
static int hosts_valid(const char *list, const char *file)
{
    struct mpiexec_options scratch = {0};
    int status = list ? hosts_parse_list(list, &scratch) : hosts_parse_file(file, &scratch);
    for (int h = 0; h < scratch.nhosts; h++)
        free(scratch.hosts[h].name);
    free(scratch.hosts);
    return status == 0;
}

/* Where the new job runs: *flag ("-hosts" / "-hostfile") and *value for
 * its mpiexec, or *flag NULL for this host.  Every program of a
 * spawn_multiple must name the same place: the new job is one mpiexec with
 * one host list.  0, or -1 after refusing. */
static int spawn_where(struct job *job, struct rank *r, const struct spawn_request *q,
                       const char **flag, const char **value)
{
    const struct spawn_prog *p = &q->progs[0];
    *flag = *value = NULL;
    for (int i = 1; i < q->nprogs; i++)
        if (!same_text(q->progs[i].host, p->host) || !same_text(q->progs[i].hostfile, p->hostfile)) {
            refuse(job, r, "", "info host/hostfile differ between the programs of "
                   "MPI_Comm_spawn_multiple: this mpiexec runs a spawned job on one list of hosts");
            return -1;
        }
    if (p->host && p->hostfile) {
        refuse(job, r, "0", "info host=%s and hostfile=%s: give one of them, not both", p->host,
               p->hostfile);
        return -1;
    }
    if (p->host || p->hostfile) {
        if (!hosts_valid(p->host, p->hostfile)) {
            refuse(job, r, "0", "info %s=%s: not a list of hosts that mpiexec can use (mpiexec said why)",
                   p->host ? "host" : "hostfile", p->host ? p->host : p->hostfile);
            return -1;
        }
        *flag = p->host ? "-hosts" : "-hostfile";
        *value = p->host ? p->host : p->hostfile;
        return 0;
    }
    if (job->remote) {
        /* No hint: on the spawning rank's host, as on one host. */
        const struct proxy *at = &job->remote->proxies[job->remote->rank_node[r->rank]];
        if (!at->local) {
            *flag = "-hosts";
            *value = at->host;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ starting */

static int launchers_grow(void)
{
    if (nlaunchers < launchers_cap)
        return 0;
    int cap = launchers_cap ? 2 * launchers_cap : 8;
    struct launcher *l = realloc(launchers, sizeof(*l) * (size_t)cap);
    if (!l)
        return -1;
    launchers = l;
    launchers_cap = cap;
    return 0;
}

/* The new mpiexec's command line: pointers into the request, `progs`
 * (the programs as found), `nums` (room for each -n) and `self`. */
static char **launcher_argv(struct job *job, struct spawn_request *q, char (*progs)[PATH_MAX],
                            char (*nums)[16], char *self, const char *where_flag,
                            const char *where)
{
    const struct mpiexec_options *opt = job->opt;
    int n = 24 + 3 * opt->nenv;
    for (int i = 0; i < q->nprogs; i++)
        n += 5 + q->progs[i].nargs;
    char **argv = calloc((size_t)n, sizeof(char *));
    if (!argv)
        return NULL;
    int a = 0;
    argv[a++] = self;
    argv[a++] = "-genv";
    argv[a++] = "PMI_SPAWNED";
    argv[a++] = "1";
    if (q->progs[0].preput) {
        argv[a++] = "-preput";
        argv[a++] = q->progs[0].preput;
    }
    const char *wdir = q->progs[0].wdir ? q->progs[0].wdir : job->opt->wdir;
    if (wdir) {
        argv[a++] = "-wdir";
        argv[a++] = (char *)wdir;
    }
    if (job->opt->universe_size > 0) {
        snprintf(nums[q->nprogs], sizeof nums[0], "%d", job->opt->universe_size);
        argv[a++] = "-usize";
        argv[a++] = nums[q->nprogs];
    }
    if (job->opt->timeout_text) {
        argv[a++] = "--timeout";
        argv[a++] = (char *)job->opt->timeout_text;
    }
    if (job->opt->tag_output)
        argv[a++] = "-l";
    if (where_flag) {
        /* Other hosts: through the remote shell our own ranks came by. */
        argv[a++] = (char *)where_flag;
        argv[a++] = (char *)where;
        argv[a++] = opt->launcher_fork ? "-launcher" : "-launcher-exec";
        argv[a++] = opt->launcher_fork ? "fork" : (char *)opt->launcher;
        if (opt->genvall)
            argv[a++] = "-genvall";
    }
    /* The children get the environment the parents were given. */
    for (int e = 0; e < opt->nenv; e++) {
        argv[a++] = opt->env[e].value ? "-genv" : "-x";
        argv[a++] = (char *)opt->env[e].name;
        if (opt->env[e].value)
            argv[a++] = (char *)opt->env[e].value;
    }
    for (int i = 0; i < q->nprogs; i++) {
        if (i)
            argv[a++] = ":";
        snprintf(nums[i], sizeof nums[0], "%d", q->progs[i].nprocs);
        argv[a++] = "-n";
        argv[a++] = nums[i];
        argv[a++] = progs[i];
        for (int k = 0; k < q->progs[i].nargs; k++)
            argv[a++] = q->progs[i].args[k];
    }
    argv[a] = NULL;
    return argv;
}

static void launch(struct job *job, struct rank *r, struct spawn_request *q)
{
    char failed[256] = "";
    const char *wdir = q->progs[0].wdir ? q->progs[0].wdir : job->opt->wdir;
    const char *where_flag, *where;
    if (spawn_where(job, r, q, &where_flag, &where) < 0)
        return;
    char (*progs)[PATH_MAX] = calloc((size_t)q->nprogs, PATH_MAX);
    char (*nums)[16] = calloc((size_t)q->nprogs + 1, 16);
    if (!progs || !nums) {
        free(progs);
        free(nums);
        refuse(job, r, "", "mpiexec is out of memory");
        return;
    }
    const char *missing = NULL;
    for (int i = 0; i < q->nprogs; i++) {
        if (program_find(&q->progs[i], wdir, progs[i], PATH_MAX) != 0) {
            size_t used = strlen(failed);
            snprintf(failed + used, sizeof failed - used, "%s%d", used ? "," : "", i);
            if (!missing)
                missing = q->progs[i].execname;
        }
    }
    if (missing) {
        refuse(job, r, failed, "program '%s' not found or not executable", missing);
        free(progs);
        free(nums);
        return;
    }
    char self[PATH_MAX], fd_text[16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    int status_pipe[2] = {-1, -1};
    char **argv = len > 0 && launchers_grow() == 0 && pipe2(status_pipe, O_CLOEXEC) == 0
                      ? launcher_argv(job, q, progs, nums, self, where_flag, where) : NULL;
    if (argv) {
        /* -spawn-status-fd goes first: options end at the first program. */
        int n = 0;
        while (argv[n])
            n++;
        memmove(argv + 3, argv + 1, sizeof(char *) * (size_t)n);
        snprintf(fd_text, sizeof fd_text, "%d", status_pipe[1]);
        argv[1] = "-spawn-status-fd";
        argv[2] = fd_text;
    }
    pid_t pid = argv ? fork() : -1;
    if (pid == 0) {
        /* The new mpiexec: ours is its parent; if we die, so does it. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd > 0) {
            dup2(null_fd, 0);
            close(null_fd);
        }
        fcntl(status_pipe[1], F_SETFD, 0);
        execv(self, argv);
        _exit(EXIT_NOT_FOUND);
    }
    int err = errno;
    free(argv);
    free(progs);
    free(nums);
    if (status_pipe[1] >= 0)
        close(status_pipe[1]);
    if (pid < 0) {
        if (status_pipe[0] >= 0)
            close(status_pipe[0]);
        refuse(job, r, "", "cannot start mpiexec for the spawned job: %s", strerror(err));
        return;
    }
    /* The answer waits for its report (spawn_launcher_status_readable). */
    fcntl(status_pipe[0], F_SETFL, O_NONBLOCK);
    launchers[nlaunchers++] = (struct launcher){.pid = pid, .status_fd = status_pipe[0],
                                                .rank_index = (int)(r - job->ranks)};
}

/* ------------------------------------------------------------ reading */

static int set_field(struct spawn_prog *p, const char *key, const char *value, int *total)
{
    char **slot = NULL;
    if (strcmp(key, "nprocs") == 0)
        p->nprocs = atoi(value);
    else if (strcmp(key, "execname") == 0)
        slot = &p->execname;
    else if (strcmp(key, "totspawns") == 0)
        *total = atoi(value);
    else if (strcmp(key, "argcnt") == 0) {
        int n = atoi(value);
        if (n < 0 || n > 4096 || !(p->args = calloc((size_t)n + 1, sizeof(char *))))
            return -1;
        p->nargs = n;
    } else if (strncmp(key, "arg", 3) == 0 && key[3] >= '1' && key[3] <= '9') {
        int i = atoi(key + 3);
        if (i < 1 || i > p->nargs)
            return -1;
        slot = &p->args[i - 1];
    } else if (strcmp(key, "preput_key_0") == 0) {
        free(p->preput);
        if (asprintf(&p->preput, "%s=", value) < 0)
            p->preput = NULL;
    } else if (strcmp(key, "preput_val_0") == 0 && p->preput) {
        char *both;
        if (asprintf(&both, "%s%s", p->preput, value) < 0)
            return -1;
        free(p->preput);
        p->preput = both;
    } else if (strncmp(key, "info_key_", 9) == 0) {
        snprintf(p->info_key, sizeof p->info_key, "%s", value);
    } else if (strncmp(key, "info_val_", 9) == 0) {
        const char *k = p->info_key;
        /* Other keys are hints this mpiexec does not take: MPI lets it ignore them. */
        slot = strcmp(k, "wdir") == 0 ? &p->wdir : strcmp(k, "path") == 0 ? &p->path
             : strcmp(k, "host") == 0 ? &p->host : strcmp(k, "hostfile") == 0 ? &p->hostfile : NULL;
        p->info_key[0] = '\0';
    }
    if (slot) {
        free(*slot);
        if (!(*slot = strdup(value)))
            return -1;
    }
    return 0;
}

/* One line of a spawn request ("mcmd=spawn", "key=value" or "endcmd").
 * A malformed request is refused, not fatal to the job: the rank gets an
 * error from MPI_Comm_spawn. */
void spawn_line(struct job *job, struct rank *r, const char *line)
{
    struct spawn_request *q = request_of(job, r);
    if (!q) {
        job_fail(job, EXIT_LAUNCH_FAILED, "out of memory");
        return;
    }
    if (job->up) {
        /* A proxy: the front end runs it; we only track where a block ends. */
        if (strcmp(line, "mcmd=spawn") == 0)
            q->in_block = 1;
        else if (strcmp(line, "endcmd") == 0)
            q->in_block = 0;
        upstream_spawn_line(job, r, line);
        return;
    }
    if (strcmp(line, "mcmd=spawn") == 0) {
        prog_free(&q->cur);
        q->in_block = 1;
        return;
    }
    if (strcmp(line, "endcmd") == 0) {
        struct spawn_prog *grown = realloc(q->progs, sizeof(*grown) * (size_t)(q->nprogs + 1));
        q->in_block = 0;
        if (!grown) {
            refuse(job, r, "", "mpiexec is out of memory");
            request_reset(q);
            return;
        }
        q->progs = grown;
        q->progs[q->nprogs++] = q->cur;
        memset(&q->cur, 0, sizeof(q->cur));
        if (q->nprogs < q->total)
            return;                     /* more blocks follow; the answer comes after the last */
        int bad = q->total < 1;
        for (int i = 0; i < q->nprogs; i++)
            bad |= q->progs[i].nprocs < 1 || !q->progs[i].execname
                || (q->progs[i].nargs && !q->progs[i].args[q->progs[i].nargs - 1]);
        if (bad)
            refuse(job, r, "", "malformed spawn request (a program without execname, nprocs or its arguments)");
        else
            launch(job, r, q);
        request_reset(q);
        return;
    }
    const char *eq = strchr(line, '=');
    char key[64];
    if (!eq || eq - line >= (long)sizeof key) {
        q->in_block = 0;
        refuse(job, r, "", "malformed spawn request line");
        request_reset(q);
        return;
    }
    snprintf(key, sizeof key, "%.*s", (int)(eq - line), line);
    if (set_field(&q->cur, key, eq + 1, &q->total) != 0) {
        q->in_block = 0;
        refuse(job, r, "", "malformed spawn request field '%s'", key);
        request_reset(q);
    }
}

/* ------------------------------------------------------------ the launchers */

/* The launcher whose report comes on fd, or NULL: a descriptor closed
 * since the poll set was built belongs to nobody. */
static struct launcher *launcher_of_status(int fd)
{
    for (int i = 0; fd >= 0 && i < nlaunchers; i++)
        if (launchers[i].status_fd == fd)
            return &launchers[i];
    return NULL;
}

/* The launcher's report: the spawning rank gets its answer, exactly once.
 * Looked up by descriptor rather than by the index the poll set was built
 * with: when a SIGCHLD earlier in the same poll round lets spawn_reap drop
 * a finished launcher, the last one moves into its place, and the stale
 * index then named a copy left behind past the end.  Reading that copy
 * answered the rank and closed the descriptor, while the moved entry kept
 * it as open; the next poll saw POLLNVAL, read nothing, and sent a second
 * answer, "ended before starting it", which the rank's next spawn took
 * for its own, so every later spawn got the answer meant for the one
 * before (a refused host reported as an ended mpiexec, the error codes of
 * a spawn_multiple naming the previous spawn's program). */
void spawn_launcher_status_readable(struct job *job, int fd)
{
    struct launcher *l = launcher_of_status(fd);
    if (!l)
        return;
    ssize_t got;
    while (l->len < sizeof l->report - 1
           && (got = read(l->status_fd, l->report + l->len, sizeof l->report - 1 - l->len)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return;             /* more to come */
        if (got < 0)
            break;
        l->len += (size_t)got;
    }
    l->report[l->len] = '\0';
    close(l->status_fd);
    l->status_fd = -1;
    struct rank *r = &job->ranks[l->rank_index];
    l->report[strcspn(l->report, "\n")] = '\0';
    if (strcmp(l->report, "ok") == 0)
        reply_line(job, r, "cmd=spawn_result rc=0");
    else if (strncmp(l->report, "fail ", 5) == 0)
        refuse(job, r, "", "the spawned job could not be started: %s", l->report + 5);
    else
        refuse(job, r, "", "the mpiexec of the spawned job ended before starting it");
}

int spawn_launchers(void)
{
    return nlaunchers;
}

int spawn_launcher_status_fd(int i)
{
    return launchers[i].status_fd;
}

void spawn_reap(void)
{
    for (int i = 0; i < nlaunchers;) {
        struct launcher *l = &launchers[i];
        if (l->pid > 0) {
            int status;
            pid_t got = waitpid(l->pid, &status, WNOHANG);
            if (got == l->pid || (got < 0 && errno == ECHILD))
                l->pid = 0;
        }
        /* Kept while its report is unread: the pipe's end says the rest. */
        if (l->pid == 0 && l->status_fd < 0)
            launchers[i] = launchers[--nlaunchers];
        else
            i++;
    }
}

int spawn_all_done(void)
{
    for (int i = 0; i < nlaunchers; i++)
        if (launchers[i].pid > 0 || launchers[i].status_fd >= 0)
            return 0;
    return 1;
}

void spawn_signal(int signo)
{
    for (int i = 0; i < nlaunchers; i++)
        if (launchers[i].pid > 0)
            kill(launchers[i].pid, signo);
}
