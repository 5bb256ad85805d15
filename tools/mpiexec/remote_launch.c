/*
 * remote_launch.c — the front end of a multi-host job starts one proxy per
 * host.
 *
 * A proxy is this same program, run on its host as
 *
 *     <launcher words...> <host> <path of this mpiexec> --proxy
 *
 * (`ssh -x -o BatchMode=yes host /path/mpiexec --proxy` by default,
 * `ip netns exec uzh1 /path/mpiexec --proxy` with -launcher-exec 'ip netns
 * exec', just `/path/mpiexec --proxy` with -launcher fork and for the proxy
 * of this machine, whatever its name in the host list: reaching ourselves
 * through ssh would need an sshd here, see local_host.c).  Its stdin and
 * stdout are pipes to us; its stderr is ours, so whatever the remote shell
 * or the proxy has to say reaches the user unchanged.  Nothing else is on
 * the command line: what to run arrives in the first frame (FRAME_SETUP),
 * so no argument needs quoting for a remote shell except the path itself.
 *
 * Each launcher runs in a process group of its own, so a Ctrl-C at the
 * terminal reaches only us (we then stop the job in order), and with
 * PR_SET_PDEATHSIG=SIGTERM, so that if we are killed outright the launchers
 * go too: a proxy started directly (-launcher fork, ip netns exec) gets the
 * SIGTERM itself, a remote one sees its stdin close when ssh exits; either
 * way it stops its ranks and removes the job's files on its host.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------- command line */

/* A remote shell runs its command through the user's shell there. */
static int launcher_is_shell(const char *first_word)
{
    const char *base = strrchr(first_word, '/');
    base = base ? base + 1 : first_word;
    return strcmp(base, "ssh") == 0 || strcmp(base, "rsh") == 0;
}

/* path in single quotes for a remote shell, when it needs them. */
static char *shell_quote(const char *path)
{
    if (!path[strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                           "0123456789_./+-,:@%=")])
        return strdup(path);
    size_t len = 2;
    for (const char *c = path; *c; c++)
        len += *c == '\'' ? 4 : 1;
    char *quoted = malloc(len + 1), *q = quoted;
    if (!quoted)
        return NULL;
    *q++ = '\'';
    for (const char *c = path; *c; c++) {
        if (*c == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else {
            *q++ = *c;
        }
    }
    *q++ = '\'';
    *q = '\0';
    return quoted;
}

/* The launcher's words, the host and the proxy command; NULL-terminated,
 * every string malloc'd.  Only the proxy command when it is forked here. */
static char **launcher_argv(const struct mpiexec_options *opt, const struct proxy *p,
                            const char *self)
{
    size_t n = 0, cap = 8;
    int forked = opt->launcher_fork || p->local;
    char **argv = malloc(cap * sizeof *argv);
    char *words = forked ? NULL : strdup(opt->launcher);
    char *save = NULL;
    if (!argv || (!forked && !words)) {
        free(argv);
        free(words);
        return NULL;
    }
    for (char *w = words ? strtok_r(words, " \t", &save) : NULL; w;
         w = strtok_r(NULL, " \t", &save)) {
        if (n + 4 >= cap) {
            char **grown = realloc(argv, (cap *= 2) * sizeof *argv);
            if (!grown)
                break;
            argv = grown;
        }
        argv[n++] = strdup(w);
    }
    if (!forked)
        argv[n++] = strdup(p->host);
    int through_shell = n > 1 && launcher_is_shell(argv[0]);
    argv[n++] = through_shell ? shell_quote(self) : strdup(self);
    argv[n++] = strdup("--proxy");
    argv[n] = NULL;
    free(words);
    for (size_t i = 0; i < n; i++)
        if (!argv[i]) {
            for (size_t j = 0; j < n; j++)
                free(argv[j]);
            free(argv);
            return NULL;
        }
    return argv;
}

static void argv_free(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* --------------------------------------------------------------- setup */

struct text {
    char *buf;
    size_t len, cap;
};

/* Append "name=value\0". */
static int text_entry(struct text *t, const char *name, const char *value)
{
    size_t need = strlen(name) + 1 + strlen(value) + 1;
    if (t->len + need > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + need)
            cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (!grown)
            return -1;
        t->buf = grown;
        t->cap = cap;
    }
    t->len += (size_t)sprintf(t->buf + t->len, "%s=%s", name, value) + 1;
    return 0;
}

static int text_entry_int(struct text *t, const char *name, long value)
{
    char digits[24];
    snprintf(digits, sizeof digits, "%ld", value);
    return text_entry(t, name, digits);
}

/* "0,3,6": the ranks on node. */
static char *ranks_list(const struct remote *remote, int size, int node)
{
    size_t cap = 64, len = 0;
    char *list = malloc(cap);
    for (int rank = 0; list && rank < size; rank++) {
        if (remote->rank_node[rank] != node)
            continue;
        if (len + 16 > cap) {
            char *grown = realloc(list, cap *= 2);
            if (!grown) {
                free(list);
                return NULL;
            }
            list = grown;
        }
        len += (size_t)sprintf(list + len, "%s%d", len ? "," : "", rank);
    }
    return list;
}

/* Where remote ranks run: -wdir (made absolute here), else our own
 * directory; NULL if we do not know ours. */
static char *remote_wdir(const struct mpiexec_options *opt)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return opt->wdir && opt->wdir[0] == '/' ? strdup(opt->wdir) : NULL;
    if (!opt->wdir)
        return strdup(cwd);
    if (opt->wdir[0] == '/')
        return strdup(opt->wdir);
    char *joined;
    return asprintf(&joined, "%s/%s", cwd, opt->wdir) < 0 ? NULL : joined;
}

/* The FRAME_SETUP payload for the proxy of node: every entry is
 * "name=value\0"; env, kvs and arg entries repeat, in order (an MPMD job's
 * programs each start with "app=<its ranks>"). */
static int setup_build(const struct job *job, int node, char **env, const char *wdir,
                       const char *mapping, struct text *t)
{
    const struct remote *remote = job->remote;
    char *ranks = ranks_list(remote, job->size, node);
    int err = !ranks;
    err = err || text_entry_int(t, "version", 1);
    err = err || text_entry(t, "host", remote->proxies[node].host);
    err = err || text_entry_int(t, "node", node);
    err = err || text_entry_int(t, "nodes", remote->nproxies);
    err = err || text_entry_int(t, "size", job->size);
    err = err || text_entry(t, "id", job->id);
    err = err || text_entry(t, "key", job->key);
    err = err || text_entry(t, "ranks", ranks);
    err = err || text_entry_int(t, "verbose", job->opt->verbose);
    /* Each proxy binds its own host's ranks (binding.c). */
    err = err || text_entry(t, "bind", binding_level_word(job->opt->bind_to));
    err = err || text_entry(t, "map", binding_level_word(job->opt->map_by));
    err = err || text_entry_int(t, "report_bindings", job->opt->report_bindings);
    err = err || (wdir && text_entry(t, "wdir", wdir));
    char *pair = NULL;
    err = err || asprintf(&pair, "PMI_process_mapping=%s", mapping) < 0;
    err = err || text_entry(t, "kvs", pair);
    free(pair);
    /* -preput: what a spawning rank put for its children (the parents' port). */
    err = err || (job->opt->preput && text_entry(t, "kvs", job->opt->preput));
    for (char **e = env; !err && *e; e++)
        err = text_entry(t, "env", *e);
    if (job->opt->napps > 1) {
        /* MPMD: "app=N" before each program's arguments. */
        for (int i = 0; !err && i < job->opt->napps; i++) {
            err = text_entry_int(t, "app", job->opt->apps[i].nprocs);
            for (char **a = job->opt->apps[i].argv; !err && *a; a++)
                err = text_entry(t, "arg", *a);
        }
    } else {
        for (char **a = job->opt->program_argv; !err && *a; a++)
            err = text_entry(t, "arg", *a);
    }
    free(ranks);
    return err ? -1 : 0;
}

/* ------------------------------------------------------------- starting */

/* Why the launcher could not be run, from child to parent. */
struct launch_failure {
    int err;
};

static void __attribute__((noreturn))
child_become_launcher(char **argv, int to_proxy, int from_proxy, const sigset_t *original_mask,
                      pid_t parent, int report_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(EXIT_LAUNCH_FAILED);
    dup2(to_proxy, 0);
    dup2(from_proxy, 1);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, original_mask, NULL);
    execvp(argv[0], argv);
    struct launch_failure failure = {errno};
    ssize_t ignored = write(report_fd, &failure, sizeof failure);
    (void)ignored;
    _exit(EXIT_NOT_FOUND);
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Start the launcher for proxy p.  Returns 0, or an errno value. */
static int launcher_start(struct proxy *p, char **argv, const sigset_t *original_mask)
{
    /* down: our frames to the proxy's stdin; up: its stdout to us; report:
     * errno of a failed exec. */
    int fds[6] = {-1, -1, -1, -1, -1, -1}, *down = fds, *up = fds + 2, *report = fds + 4;
    if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
        int err = errno;
        close_all(fds, 6);
        return err;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child_become_launcher(argv, down[0], up[1], original_mask, parent, report[1]);
    int err = pid < 0 ? errno : 0;
    struct launch_failure failure;
    ssize_t got = 0;
    close(report[1]);
    report[1] = -1;
    if (pid > 0)
        while ((got = read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR)
            ;
    if (got > 0) {
        waitpid(pid, NULL, 0);
        err = failure.err;
    }
    if (err) {
        close_all(fds, 6);
        return err;
    }
    close(down[0]);
    close(up[1]);
    close(report[0]);
    fcntl(down[1], F_SETFL, O_NONBLOCK);
    fcntl(up[0], F_SETFL, O_NONBLOCK);
    p->pid = pid;
    frame_link_init(&p->link, up[0], down[1], 0);
    return 0;
}

static struct remote *remote_create(struct job *job, const struct placement *pl)
{
    struct remote *remote = calloc(1, sizeof *remote);
    if (!remote)
        return NULL;
    remote->nproxies = pl->nnodes;
    remote->proxies = calloc((size_t)pl->nnodes, sizeof *remote->proxies);
    remote->rank_node = malloc((size_t)job->size * sizeof *remote->rank_node);
    if (!remote->proxies || !remote->rank_node) {
        free(remote->proxies);
        free(remote->rank_node);
        free(remote);
        return NULL;
    }
    memcpy(remote->rank_node, pl->rank_node, (size_t)job->size * sizeof *remote->rank_node);
    for (int node = 0; node < pl->nnodes; node++) {
        struct proxy *p = &remote->proxies[node];
        p->host = pl->node_host[node];
        p->local = pl->node_local[node];
        p->node = node;
        frame_link_init(&p->link, -1, -1, 0);
    }
    remote->in = (struct remote_stdin){.open = 1, .node = remote->rank_node[0]};
    return remote;
}

/* Start proxy node and queue its setup frame.  0, or -1 (job failed). */
static int proxy_start(struct job *job, int node, char **env, const char *wdir,
                       const char *mapping, const char *self, const sigset_t *original_mask)
{
    struct proxy *p = &job->remote->proxies[node];
    struct text setup = {0};
    char **argv = launcher_argv(job->opt, p, self);
    int err = !argv || setup_build(job, node, env, wdir, mapping, &setup) < 0 ? ENOMEM : 0;
    if (!err)
        err = launcher_start(p, argv, original_mask);
    if (err == 0)
        frame_send(&p->link, FRAME_SETUP, -1, 0, setup.buf, setup.len);
    else if (argv)
        job_fail(job, err == ENOENT ? EXIT_NOT_FOUND : EXIT_LAUNCH_FAILED,
                 "cannot start the proxy on host %s: cannot run '%s': %s", p->host, argv[0],
                 strerror(err));
    else
        job_fail(job, EXIT_LAUNCH_FAILED, "out of memory starting the proxies");
    p->reaped = err != 0;
    argv_free(argv);
    free(setup.buf);
    return err ? -1 : 0;
}

void remote_start(struct job *job, const sigset_t *original_mask)
{
    struct placement pl;
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || placement_compute(job->opt, &pl) < 0) {
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot find mpiexec's own path or place the ranks");
        return;
    }
    self[len] = '\0';
    job->remote = remote_create(job, &pl);
    job->num_nodes = pl.nnodes;
    char *mapping = placement_process_mapping(&pl, job->size);
    char **env = environment_propagated(job->opt);
    char *wdir = remote_wdir(job->opt);
    if (!job->remote || !env) {
        job_fail(job, EXIT_LAUNCH_FAILED, "out of memory starting the proxies");
    } else {
        /* An empty mapping tells MPICH's ranks to work it out themselves. */
        kvs_put(job->kvs, "PMI_process_mapping", mapping ? mapping : "");
        for (int node = 0; node < pl.nnodes; node++)
            if (proxy_start(job, node, env, wdir, mapping ? mapping : "", self,
                            original_mask) < 0)
                break;
        /* Proxies not started count as finished. */
        for (int node = 0; node < pl.nnodes; node++)
            if (!job->remote->proxies[node].pid)
                job->remote->proxies[node].reaped = 1;
    }
    if (env)
        environment_base_free(env);
    free(mapping);
    free(wdir);
    placement_free(&pl);
}
