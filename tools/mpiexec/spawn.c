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
 * Info "host" and "hostfile" may name this host only.  Spawning from a
 * multi-host job is refused for now.
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

static struct spawn_request *requests;  /* [job->nranks], made on first use */
static pid_t *launchers;                /* the mpiexecs we started */
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

/* Hosts a program may run on: this one only, by any name. */
static int hostfile_local(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        char *c = line + strspn(line, " \t");
        c[strcspn(c, "#\n")] = '\0';
        c[strcspn(c, " \t:")] = '\0';
        if (*c && !host_is_local(c))
            ok = 0;
    }
    fclose(f);
    return ok;
}

static int hosts_allowed(struct job *job, struct rank *r, const struct spawn_prog *p, int i)
{
    char idx[16];
    snprintf(idx, sizeof idx, "%d", i);
    if (p->host && !host_is_local(p->host)) {
        refuse(job, r, idx, "info host=%s: this mpiexec starts spawned processes on its own host only", p->host);
        return 0;
    }
    if (p->hostfile && !hostfile_local(p->hostfile)) {
        refuse(job, r, idx, "info hostfile=%s: cannot be read, or names a host other than this one "
               "(this mpiexec starts spawned processes on its own host only)", p->hostfile);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ starting */

static int launcher_add(pid_t pid)
{
    if (nlaunchers == launchers_cap) {
        int cap = launchers_cap ? 2 * launchers_cap : 8;
        pid_t *l = realloc(launchers, sizeof(pid_t) * (size_t)cap);
        if (!l)
            return -1;
        launchers = l;
        launchers_cap = cap;
    }
    launchers[nlaunchers++] = pid;
    return 0;
}

/* The new mpiexec's command line: pointers into the request, `progs`
 * (the programs as found), `nums` (room for each -n) and `self`. */
static char **launcher_argv(struct job *job, struct spawn_request *q, char (*progs)[PATH_MAX],
                            char (*nums)[16], char *self)
{
    int n = 20;
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
    if (job->remote || job->up) {
        refuse(job, r, "", "MPI_Comm_spawn from a job on several hosts is not supported by this mpiexec yet");
        return;
    }
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
        if (!hosts_allowed(job, r, &q->progs[i], i)) {
            free(progs);
            free(nums);
            return;
        }
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
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    char **argv = len > 0 ? launcher_argv(job, q, progs, nums, self) : NULL;
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
        execv(self, argv);
        _exit(EXIT_NOT_FOUND);
    }
    free(argv);
    free(progs);
    free(nums);
    if (pid < 0 || launcher_add(pid) != 0) {
        refuse(job, r, "", "cannot start mpiexec for the spawned job: %s", strerror(errno));
        return;
    }
    reply_line(job, r, "cmd=spawn_result rc=0");
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

void spawn_reap(void)
{
    for (int i = 0; i < nlaunchers;) {
        int status;
        pid_t got = waitpid(launchers[i], &status, WNOHANG);
        if (got == launchers[i] || (got < 0 && errno == ECHILD))
            launchers[i] = launchers[--nlaunchers];
        else
            i++;
    }
}

int spawn_all_done(void)
{
    return nlaunchers == 0;
}

void spawn_signal(int signo)
{
    for (int i = 0; i < nlaunchers; i++)
        kill(launchers[i], signo);
}
