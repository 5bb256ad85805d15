/*
 * proxy.c — `mpiexec --proxy`: one host's share of a multi-host job.
 *
 * Started by the front end through a remote shell (remote_launch.c), with
 * the shell's stdin and stdout as its link to the front end.  It greets,
 * reads what to run (FRAME_SETUP), then starts its ranks exactly as
 * mpiexec does on one host (proxy_local.c) and serves their PMI
 * (pmi_server.c).  Everything the front end needs to judge the job goes up
 * as frames: init and finalize, puts and barrier entries, aborts, failures
 * it finds (a malformed PMI line, a program it cannot run), exits, and the
 * ranks' stdout and stderr.  Down come barrier_out (with the pairs the
 * ranks may now get), kills, and rank 0's stdin.
 *
 * The proxy never decides the job's fate, with one exception: when its
 * stdin closes before it has said FRAME_DONE, the front end is gone, and
 * it stops its ranks (SIGTERM, then SIGKILL) and exits.  When its stdin
 * closes after FRAME_DONE, the job is over: it removes the job's /dev/shm
 * files on this host (job_finish) and exits.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What FRAME_SETUP says, parsed. */
struct proxy_setup {
    char *payload;              /* the frame's payload; strings point into it */
    struct mpiexec_options opt;
    int *ranks;
    int nranks;
    int node, nodes;
    const char *host, *id, *key;
    char **kvs;                 /* "key=value" */
    int nkvs;
    char **argv;                /* every program's arguments, each ended by NULL */
    int nargv;
    struct app *apps;           /* MPMD: one per "app" entry, none for one program */
};

/* ------------------------------------------------------------ setup */

/* "0,3,6" */
static int ranks_parse(const char *text, struct proxy_setup *s)
{
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    s->ranks = malloc((size_t)n * sizeof *s->ranks);
    if (!s->ranks)
        return -1;
    for (const char *c = text; *c;) {
        char *end;
        long rank = strtol(c, &end, 10);
        if (end == c || rank < 0 || rank >= s->opt.nprocs || (*end && *end != ','))
            return -1;
        s->ranks[s->nranks++] = (int)rank;
        c = *end ? end + 1 : end;
    }
    return s->nranks > 0 ? 0 : -1;
}

static int setup_entry(struct proxy_setup *s, char *name, char *value)
{
    struct mpiexec_options *opt = &s->opt;
    if (strcmp(name, "env") == 0) {
        char *eq = strchr(value, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        opt->env[opt->nenv++] = (struct env_assignment){value, eq + 1};
    } else if (strcmp(name, "kvs") == 0) {
        s->kvs[s->nkvs++] = value;
    } else if (strcmp(name, "app") == 0) {
        /* The next program of an MPMD job: its ranks follow the previous one's. */
        if (s->nargv)
            s->argv[s->nargv++] = NULL;
        s->apps[opt->napps++] = (struct app){s->argv + s->nargv, atoi(value)};
    } else if (strcmp(name, "arg") == 0) {
        s->argv[s->nargv++] = value;
    } else if (strcmp(name, "host") == 0) {
        s->host = value;
    } else if (strcmp(name, "id") == 0) {
        s->id = value;
    } else if (strcmp(name, "key") == 0) {
        s->key = value;
    } else if (strcmp(name, "wdir") == 0) {
        opt->wdir = value;
    } else if (strcmp(name, "node") == 0) {
        s->node = atoi(value);
    } else if (strcmp(name, "nodes") == 0) {
        s->nodes = atoi(value);
    } else if (strcmp(name, "size") == 0) {
        opt->nprocs = atoi(value);
    } else if (strcmp(name, "verbose") == 0) {
        opt->verbose = atoi(value);
    } else if (strcmp(name, "bind") == 0) {
        return strcmp(value, "default") == 0 ? 0 : binding_parse_bind_to(value, &opt->bind_to);
    } else if (strcmp(name, "map") == 0) {
        return strcmp(value, "default") == 0 ? 0 : binding_parse_map_by(value, &opt->map_by);
    } else if (strcmp(name, "report_bindings") == 0) {
        opt->report_bindings = atoi(value);
    } else if (strcmp(name, "ranks") == 0) {
        return ranks_parse(value, s);
    }
    /* version and anything newer: nothing to do */
    return 0;
}

static int setup_parse(struct proxy_setup *s, char *payload, size_t len)
{
    size_t entries = 0;
    for (size_t i = 0; i < len; i++)
        entries += payload[i] == '\0';
    *s = (struct proxy_setup){.payload = payload,
                              .opt = {.nprocs = 0, .bind_to = BIND_DEFAULT, .map_by = MAP_DEFAULT}};
    s->opt.env = calloc(entries + 1, sizeof *s->opt.env);
    s->kvs = calloc(entries + 1, sizeof *s->kvs);
    s->argv = calloc(2 * entries + 1, sizeof *s->argv);
    s->apps = calloc(entries + 1, sizeof *s->apps);
    if (!s->opt.env || !s->kvs || !s->argv || !s->apps || len == 0 || payload[len - 1] != '\0')
        return -1;
    /* "size" comes before "ranks", which is checked against it. */
    for (char *e = payload, *next; e < payload + len; e = next) {
        next = e + strlen(e) + 1;
        char *eq = strchr(e, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        if (setup_entry(s, e, eq + 1) < 0)
            return -1;
    }
    s->opt.program_argv = s->argv;
    if (s->opt.napps)
        s->opt.apps = s->apps;
    for (int a = 0; a < s->opt.napps; a++)
        if (!s->apps[a].argv[0] || s->apps[a].nprocs < 1)
            return -1;
    return s->argv[0] && s->nranks && s->id && s->key && s->host ? 0 : -1;
}

static void setup_free(struct proxy_setup *s)
{
    free(s->opt.env);
    free(s->kvs);
    free(s->argv);
    free(s->apps);
    free(s->ranks);
    free(s->payload);
}

/* Wait for FRAME_SETUP on stdin (blocking: there is nothing else to do). */
static int setup_receive(struct frame_link *l, struct proxy_setup *s)
{
    struct frame f;
    int status;
    while ((status = frame_next(l, &f)) == 0)
        if (frame_link_read(l) < 0)
            return -1;      /* the front end went away before saying anything */
    if (status < 0 || f.type != FRAME_SETUP) {
        fputs("mpiexec --proxy: the first frame is not the setup\n", stderr);
        return -1;
    }
    char *payload = malloc(f.len + 1);
    if (!payload)
        return -1;
    memcpy(payload, f.payload, f.len);
    if (setup_parse(s, payload, f.len) < 0) {
        fputs("mpiexec --proxy: malformed setup frame\n", stderr);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------- upstream */

static void text_append(char **buf, size_t *len, size_t *cap, const char *a, const char *b)
{
    size_t need = strlen(a) + 1 + strlen(b) + 1;
    if (*len + need > *cap) {
        size_t grown = *cap ? *cap : 4096;
        while (grown < *len + need)
            grown *= 2;
        char *p = realloc(*buf, grown);
        if (!p)
            return;     /* the pair is lost; the job's fence will show it */
        *buf = p;
        *cap = grown;
    }
    *len += (size_t)sprintf(*buf + *len, "%s=%s\n", a, b);
}

void upstream_rank_state(struct job *job, const struct rank *r)
{
    const char *state = r->pmi.state == RANK_PMI_FINALIZED ? "finalize" : "init";
    frame_send(&job->up->link, FRAME_STATE, r->rank, 0, state, strlen(state));
}

void upstream_put(struct job *job, const char *key, const char *value)
{
    struct upstream *up = job->up;
    text_append(&up->puts, &up->puts_len, &up->puts_cap, key, value);
}

void upstream_barrier_in(struct job *job, const struct rank *r)
{
    struct upstream *up = job->up;
    if (up->puts_len) {
        frame_send(&up->link, FRAME_PUTS, -1, 0, up->puts, up->puts_len);
        up->puts_len = 0;
    }
    frame_send(&up->link, FRAME_BARRIER_IN, r->rank, 0, NULL, 0);
}

void upstream_abort(struct job *job, const struct rank *r, int code, const char *message)
{
    frame_sendf(&job->up->link, FRAME_ABORT, r->rank, "%d %s", code, message);
}

void upstream_fail(struct job *job, int code, const char *message)
{
    frame_sendf(&job->up->link, FRAME_FAIL, -1, "%d %s", code, message);
}

void upstream_rank_exited(struct job *job, const struct rank *r)
{
    frame_sendf(&job->up->link, FRAME_EXIT, r->rank, "%d %d %d", (int)r->pid, r->exit_code,
                r->term_signal);
}

void upstream_output(struct job *job, const struct rank *r, int stream, const char *data,
                     size_t len)
{
    frame_send(&job->up->link, FRAME_OUTPUT, r->rank, stream, data, len);
}

/* MPI_Comm_spawn is the front end's to run (spawn.c): it knows the hosts and
 * the launcher; we pass the request on line by line. */
void upstream_spawn_line(struct job *job, const struct rank *r, const char *line)
{
    frame_send(&job->up->link, FRAME_SPAWN, r->rank, 0, line, strlen(line));
}

/* The front end's answer to a spawn request: to the rank that asked. */
static void spawn_result(struct job *job, const struct frame *f)
{
    for (int i = 0; i < job->nranks; i++) {
        struct rank *r = &job->ranks[i];
        if (r->rank != f->rank)
            continue;
        char *line = malloc(f->len + 2);
        if (!line)
            return;
        memcpy(line, f->payload, f->len);
        memcpy(line + f->len, "\n", 2);
        pmi_channel_send(job, r, line);
        free(line);
        return;
    }
}

int upstream_is_done(struct job *job, int ranks_done)
{
    struct upstream *up = job->up;
    if (ranks_done && !up->done_sent) {
        frame_send(&up->link, FRAME_DONE, -1, 0, NULL, 0);
        up->done_sent = 1;
    }
    return up->done_sent && up->link.in_fd < 0;
}

/* ------------------------------------------------- rank 0's stdin */

static void stdin_close(struct job *job)
{
    struct upstream *up = job->up;
    stdin_forward_stop(&job->stdin_fwd);
    up->stdin_len = 0;
}

void upstream_stdin_writable(struct job *job)
{
    struct upstream *up = job->up;
    size_t done = 0;
    while (job->stdin_fwd.to_rank0 >= 0 && done < up->stdin_len) {
        ssize_t put = write(job->stdin_fwd.to_rank0, up->stdin_buf + done, up->stdin_len - done);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN)
            break;
        if (put < 0) {
            /* Rank 0 closed its stdin or exited: no more, please. */
            stdin_close(job);
            frame_sendf(&up->link, FRAME_STDIN_ACK, -1, "-1");
            return;
        }
        done += (size_t)put;
    }
    if (done) {
        up->stdin_len -= done;
        memmove(up->stdin_buf, up->stdin_buf + done, up->stdin_len);
        frame_sendf(&up->link, FRAME_STDIN_ACK, -1, "%zu", done);
    }
    if (up->stdin_eof && up->stdin_len == 0)
        stdin_close(job);
}

static void stdin_data(struct job *job, const struct frame *f)
{
    struct upstream *up = job->up;
    if (job->stdin_fwd.to_rank0 < 0) {
        if (f->len)
            frame_sendf(&up->link, FRAME_STDIN_ACK, -1, "-1");
        return;
    }
    if (f->len == 0) {
        up->stdin_eof = 1;
    } else if (up->stdin_len + f->len > up->stdin_cap) {
        size_t cap = up->stdin_cap ? up->stdin_cap : 65536;
        while (cap < up->stdin_len + f->len)
            cap *= 2;
        char *grown = realloc(up->stdin_buf, cap);
        if (!grown) {
            stdin_close(job);
            return;
        }
        up->stdin_buf = grown;
        up->stdin_cap = cap;
    }
    if (f->len) {
        memcpy(up->stdin_buf + up->stdin_len, f->payload, f->len);
        up->stdin_len += f->len;
    }
    upstream_stdin_writable(job);
}

/* ------------------------------------------------------- downstream */

/* "key=value\n" pairs of the barrier, then let the ranks out. */
static void barrier_out(struct job *job, const struct frame *f)
{
    const char *p = f->payload, *end = f->payload + f->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *pair = strndup(p, len);
        char *eq = pair ? strchr(pair, '=') : NULL;
        if (eq) {
            *eq = '\0';
            kvs_put(job->kvs, pair, eq + 1);
        }
        free(pair);
        p += len + 1;
    }
    for (int i = 0; i < job->nranks; i++) {
        struct rank *r = &job->ranks[i];
        if (r->pmi.in_barrier) {
            r->pmi.in_barrier = 0;
            pmi_channel_send(job, r, "cmd=barrier_out rc=0\n");
        }
    }
}

static void frame_handle(struct job *job, const struct frame *f)
{
    switch (f->type) {
    case FRAME_BARRIER_OUT:
        if (!job->ending)
            barrier_out(job, f);
        break;
    case FRAME_KILL: {
        char digits[16] = "";
        memcpy(digits, f->payload, f->len < sizeof digits - 1 ? f->len : sizeof digits - 1);
        int signo = digits[0] ? atoi(digits) : SIGTERM;
        if (signo == SIGKILL)
            job_kill_now(job);
        else if (!job->ending)
            job_kill_all(job);
        break;
    }
    case FRAME_STDIN:
        stdin_data(job, f);
        break;
    case FRAME_SPAWN_RESULT:
        spawn_result(job, f);
        break;
    case FRAME_HANG_QUERY:
        hang_query_proxy_answer(job);
        break;
    default:
        fprintf(stderr, "mpiexec proxy on %s: unknown frame type %d from the front end\n",
                job->host, f->type);
        job_kill_all(job);
    }
}

/* Handle the frames that have arrived; -1 if the stream is broken. */
static int frames_dispatch(struct job *job)
{
    struct frame f;
    int status;
    while ((status = frame_next(&job->up->link, &f)) > 0)
        frame_handle(job, &f);
    return status;
}

void upstream_readable(struct job *job)
{
    struct upstream *up = job->up;
    int got = frame_link_read(&up->link);
    if (frames_dispatch(job) < 0) {
        fprintf(stderr, "mpiexec proxy on %s: the front end sent something that is not a "
                "frame\n", job->host);
        frame_link_close_in(&up->link);
        got = -1;
    }
    if (got < 0 && !up->done_sent && !job->ending) {
        /* The front end is gone while our ranks run: they go too. */
        job->exit_code = EXIT_LAUNCH_FAILED;
        job_kill_all(job);
    }
}

/* -------------------------------------------------------------- main */

static struct job *job_init_from_setup(struct job *job, struct proxy_setup *s,
                                       struct upstream *up)
{
    if (job_init(job, &s->opt, s->ranks, s->nranks) < 0)
        return NULL;
    job->up = up;
    job->host = s->host;
    job->node_id = s->node;
    job->num_nodes = s->nodes;
    job->pipe_output = 1;
    snprintf(job->id, sizeof job->id, "%s", s->id);
    snprintf(job->key, sizeof job->key, "%s", s->key);
    snprintf(job->kvsname, sizeof job->kvsname, "uzura_%s", job->id);
    for (int i = 0; i < s->nkvs; i++) {
        char *eq = strchr(s->kvs[i], '=');
        if (eq) {
            *eq = '\0';
            kvs_put(job->kvs, s->kvs[i], eq + 1);
        }
    }
    return job;
}

int proxy_main(void)
{
    if (isatty(0)) {
        fputs("mpiexec --proxy: this is how mpiexec starts itself on each host of a "
              "multi-host job; it is not meant to be run by hand\n", stderr);
        return EXIT_USAGE;
    }
    static const char greeting[] = FRAME_GREETING;
    if (write(1, greeting, sizeof greeting - 1) != (ssize_t)sizeof greeting - 1)
        return EXIT_LAUNCH_FAILED;
    struct upstream up = {0};
    struct proxy_setup setup;
    frame_link_init(&up.link, 0, 1, 1);
    if (setup_receive(&up.link, &setup) < 0)
        return EXIT_LAUNCH_FAILED;
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    descriptor_limit_raise(setup.nranks);
    sigset_t original_mask;
    int signal_fd = signals_take_over(&original_mask);
    struct job job;
    if (signal_fd < 0 || !job_init_from_setup(&job, &setup, &up)) {
        fputs("mpiexec --proxy: cannot set up\n", stderr);
        return EXIT_LAUNCH_FAILED;
    }
    proxy_local_start(&job, &original_mask);
    /* Frames that came with the setup (stdin, a kill) are read already. */
    frames_dispatch(&job);
    event_loop_run(&job, signal_fd);
    int status = job_finish(&job);
    frame_link_free(&up.link);
    free(up.puts);
    free(up.stdin_buf);
    setup_free(&setup);
    return status;
}
