/*
 * pmi2_client_test.c — the PMI-2 backend (src/pmi/pmi2_backend.c) against
 * a scripted fake of Slurm's pmi2 plugin.
 *
 * Each scenario forks: the child is the client, with the environment srun
 * --mpi=pmi2 gives (PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID, SLURM_STEP_ID),
 * and checks what each uz_pmi_* call returns and says; the parent plays the
 * server from a script of expected requests and replies.  A crash or hang
 * of the client (an alarm fires) fails the scenario.
 */
#include "pmi/pmi.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int client_failures;

static void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "    FAIL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    client_failures++;
}

static void expect_error(const char *call, int got, int want_err, const char *want_text)
{
    const char *message = uz_pmi_last_error();
    if (got != want_err || !strstr(message, want_text))
        fail("%s returned %d (want %d) with message '%s' (want it to contain '%s')", call,
             got, want_err, message, want_text);
}

static void expect_ok(const char *call, int got)
{
    if (got != 0)
        fail("%s failed: %s", call, uz_pmi_last_error());
}

/* ------------------------------------------------------------ the fake server */

struct step {
    const char *expect;   /* the request starts with this (NULL: read nothing) */
    const char *reply;    /* a PMI-2 command, sent with its length prefix... */
    const char *raw;      /* ...or these bytes as they are */
};

#define INIT_LINE "cmd=init pmi_version=2 pmi_subversion=0"
#define INIT_OK "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
#define FULLINIT_OK "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;" \
                    "size=4;appnum=-1;debugged=FALSE;pmiverbose=FALSE;"

static const struct step init_steps[] = {
    {INIT_LINE, NULL, INIT_OK},
    {"cmd=fullinit;pmijobid=7.0;pmirank=1;", FULLINIT_OK},
    {"cmd=info-getjobattr;key=universeSize;",
     "cmd=info-getjobattr-response;rc=0;found=TRUE;value=8;"},
    {"cmd=info-getjobattr;key=PMI_process_mapping;",
     "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));"},
    {NULL},
};

/* One request: a PMI-1 line for the first, length-prefixed after that. */
static int server_read(int fd, char *buf, size_t cap, int first)
{
    size_t n = 0, want = first ? cap - 1 : 6;
    while (n < want) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0 || read(fd, buf + n, 1) != 1)
            return -1;
        if (first && buf[n] == '\n')
            break;
        if (!first && n == 5) {
            buf[6] = '\0';
            want = 6 + (size_t)atoi(buf);
            if (want >= cap)
                return -1;
        }
        n++;
    }
    buf[n] = '\0';
    if (!first)
        memmove(buf, buf + 6, n - 5);
    return 0;
}

static void server_send(int fd, const struct step *s)
{
    char out[1024];
    if (s->raw) {
        if (write(fd, s->raw, strlen(s->raw)) < 0)
            return;
    } else if (s->reply) {
        int n = snprintf(out, sizeof out, "%-6zu%s", strlen(s->reply), s->reply);
        if (write(fd, out, (size_t)n) < 0)
            return;
    }
}

/* 0 when the client sent what the script expects, step by step. */
static int server_run(int fd, const struct step *steps, int *first)
{
    char request[4096];
    for (const struct step *s = steps; s->expect || s->reply || s->raw; s++) {
        if (s->expect) {
            if (server_read(fd, request, sizeof request, *first) < 0) {
                fprintf(stderr, "    server: no request where '%s' was expected\n", s->expect);
                return -1;
            }
            *first = 0;
            if (strncmp(request, s->expect, strlen(s->expect)) != 0) {
                fprintf(stderr, "    server: got '%s', expected '%s'\n", request, s->expect);
                return -1;
            }
        }
        server_send(fd, s);
    }
    return 0;
}

struct scenario {
    const char *name;
    int with_init;
    const struct step *steps;
    void (*client)(void);
    int killed_by_server;     /* the script ends by killing the client */
    int close_after;          /* the server hangs up when its script ends */
};

static int scenario_run(const struct scenario *sc)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -1;
    fflush(stdout);   /* the child's abort flushes whatever stdio holds */
    pid_t pid = fork();
    if (pid == 0) {
        char fd_text[16];
        close(sv[0]);
        snprintf(fd_text, sizeof fd_text, "%d", sv[1]);
        setenv("PMI_FD", fd_text, 1);
        setenv("PMI_RANK", "1", 1);
        setenv("PMI_SIZE", "4", 1);
        setenv("PMI_JOBID", "7.0", 1);
        setenv("SLURM_STEP_ID", "0", 1);
        alarm(20);
        sc->client();
        _exit(client_failures ? 1 : 0);
    }
    close(sv[1]);
    int first = 1, bad = 0;
    if (sc->with_init)
        bad = server_run(sv[0], init_steps, &first);
    if (!bad)
        bad = server_run(sv[0], sc->steps, &first);
    if (sc->killed_by_server && !bad)
        kill(pid, SIGKILL);
    int status;
    if (!sc->killed_by_server && !sc->close_after) {
        /* Let the client see EOF once the script is over. */
        struct pollfd p = {.fd = sv[0], .events = POLLIN};
        while (poll(&p, 1, 15000) > 0) {
            char sink[256];
            if (read(sv[0], sink, sizeof sink) <= 0)
                break;
        }
    }
    close(sv[0]);
    waitpid(pid, &status, 0);
    int ok = !bad && (sc->killed_by_server
                          ? WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL
                          : WIFEXITED(status) && WEXITSTATUS(status) == 0);
    printf("%-28s %s\n", sc->name, ok ? "ok" : "FAILED");
    if (!ok && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
        printf("    client killed by signal %d\n", WTERMSIG(status));
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ scenarios */

static void client_happy(void)
{
    struct uz_pmi_info info;
    char value[64];
    expect_ok("init", uz_pmi_init(&info));
    if (info.rank != 1 || info.size != 4 || info.universe_size != 8 || info.appnum != 0 ||
        info.singleton || info.local_rank != 1 || info.local_size != 2 || info.node_id != 0 ||
        info.num_nodes != 2 || strcmp(info.protocol, "PMI-2") != 0 ||
        !strstr(info.kvsname, "7.0"))
        fail("info: rank %d size %d universe %d appnum %d local %d/%d node %d/%d '%s' '%s'",
             info.rank, info.size, info.universe_size, info.appnum, info.local_rank,
             info.local_size, info.node_id, info.num_nodes, info.protocol, info.kvsname);
    expect_ok("put", uz_pmi_put("uz-card-1", "host;net=tcp,100%"));
    expect_ok("fence", uz_pmi_fence());
    expect_ok("get", uz_pmi_get("uz-card-2", value, sizeof value));
    if (strcmp(value, "other;net=udp") != 0)
        fail("get gave '%s', want 'other;net=udp'", value);
    expect_error("get of a missing key", uz_pmi_get("nothing-here", value, sizeof value),
                 -ENOENT, "not found");
    expect_error("get into a small buffer", uz_pmi_get("uz-card-2", value, 4), -ENOBUFS,
                 "4-byte buffer");
    expect_ok("finalize", uz_pmi_finalize());
}

static const struct step happy_steps[] = {
    {"cmd=kvs-put;key=uz-card-1;value=host%3Bnet=tcp,100%25;", "cmd=kvs-put-response;rc=0;"},
    {"cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;"},
    {"cmd=kvs-get;srcid=-1;key=uz-card-2;",
     "cmd=kvs-get-response;rc=0;found=TRUE;value=other%3Bnet=udp;"},
    {"cmd=kvs-get;srcid=-1;key=nothing-here;", "cmd=kvs-get-response;rc=0;found=FALSE;"},
    {"cmd=kvs-get;srcid=-1;key=uz-card-2;",
     "cmd=kvs-get-response;rc=0;found=TRUE;value=other%3Bnet=udp;"},
    {"cmd=finalize;", "cmd=finalize-response;rc=0;"},
    {NULL},
};

static void client_init_fails(const char *want_text, int want_err)
{
    struct uz_pmi_info info;
    expect_error("init", uz_pmi_init(&info), want_err, want_text);
}

static void client_refused(void)
{
    client_init_fails("server refused 'fullinit': no such task", -EIO);
}

static const struct step refused_steps[] = {
    {INIT_LINE, NULL, INIT_OK},
    {"cmd=fullinit;", "cmd=fullinit-response;rc=-1;errmsg=no such task;"},
    {NULL},
};

static void client_version_one(void)
{
    client_init_fails("does not speak PMI version 2", -EPROTONOSUPPORT);
}

static const struct step version_one_steps[] = {
    {INIT_LINE, NULL, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"},
    {NULL},
};

static void client_wrong_rank(void)
{
    client_init_fails("the server says rank 2 of 4, the environment rank 1 of 4", -EPROTO);
}

static const struct step wrong_rank_steps[] = {
    {INIT_LINE, NULL, INIT_OK},
    {"cmd=fullinit;", "cmd=fullinit-response;rc=0;rank=2;size=4;"},
    {NULL},
};

static void client_no_size(void)
{
    client_init_fails("lacks 'size='", -EPROTO);
}

static const struct step no_size_steps[] = {
    {INIT_LINE, NULL, INIT_OK},
    {"cmd=fullinit;", "cmd=fullinit-response;rc=0;rank=1;"},
    {NULL},
};

static void client_bad_prefix(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    expect_error("fence", uz_pmi_fence(), -EPROTO, "length prefix that is not a number");
    expect_error("put after", uz_pmi_put("k", "v"), -EPIPE, "lost earlier");
}

static const struct step bad_prefix_steps[] = {
    {"cmd=kvs-fence;", NULL, "cmd=kvs-fence-response;rc=0;"},
    {NULL},
};

static void client_wrong_reply(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    expect_error("fence", uz_pmi_fence(), -EPROTO, "instead of 'cmd=kvs-fence-response'");
}

static const struct step wrong_reply_steps[] = {
    {"cmd=kvs-fence;", "cmd=kvs-put-response;rc=0;"},
    {NULL},
};

static void client_malformed(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    expect_error("fence", uz_pmi_fence(), -EPROTO, "without its closing ';'");
}

static const struct step malformed_steps[] = {
    {"cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0"},
    {NULL},
};

static void client_eof_mid_reply(void)
{
    struct uz_pmi_info info;
    char value[32];
    expect_ok("init", uz_pmi_init(&info));
    expect_error("get", uz_pmi_get("k", value, sizeof value), -ECONNRESET,
                 "in the middle of its reply to 'kvs-get'");
    expect_error("fence after", uz_pmi_fence(), -EPIPE, "lost earlier");
}

static const struct step eof_mid_reply_steps[] = {
    {"cmd=kvs-get;", NULL, "40    cmd=kvs-get-resp"},
    {NULL},
};

static void client_eof_at_fence(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    expect_error("fence", uz_pmi_fence(), -ECONNRESET, "before its reply to 'kvs-fence'");
}

static const struct step eof_at_fence_steps[] = {
    {"cmd=kvs-fence;"},
    {NULL},
};

static void client_value_too_long(void)
{
    struct uz_pmi_info info;
    char value[1100];
    expect_ok("init", uz_pmi_init(&info));
    /* 1000 bytes fit in PMI-2's 1023, but not once every ';' is encoded. */
    memset(value, ';', 1000);
    value[1000] = '\0';
    expect_error("put", uz_pmi_put("k", value), -EINVAL, "once its '%' and ';' are encoded");
    memset(value, 'x', 1030);
    value[1030] = '\0';
    expect_error("put", uz_pmi_put("k", value), -EINVAL, "longer than 1023 bytes");
}

static void client_abort(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    uz_pmi_abort(5, "boom; done");
}

static const struct step abort_steps[] = {
    {"cmd=abort;isworld=TRUE;msg=boom;; done;"},
    {NULL},
};

static const struct step no_steps[] = {{NULL}};

static const struct scenario scenarios[] = {
    {"happy path", 1, happy_steps, client_happy, 0},
    {"fullinit refused", 0, refused_steps, client_refused, 0},
    {"server speaks PMI-1 only", 0, version_one_steps, client_version_one, 0},
    {"fullinit names another rank", 0, wrong_rank_steps, client_wrong_rank, 0},
    {"fullinit lacks size", 0, no_size_steps, client_no_size, 0},
    {"bad length prefix", 1, bad_prefix_steps, client_bad_prefix, 0},
    {"reply to the wrong command", 1, wrong_reply_steps, client_wrong_reply, 0},
    {"malformed reply", 1, malformed_steps, client_malformed, 0},
    {"EOF in a reply", 1, eof_mid_reply_steps, client_eof_mid_reply, 0, 1},
    {"EOF at a fence", 1, eof_at_fence_steps, client_eof_at_fence, 0, 1},
    {"value too long", 1, no_steps, client_value_too_long, 0},
    {"abort", 1, abort_steps, client_abort, 1},
};

int main(void)
{
    int failed = 0;
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        failed += scenario_run(&scenarios[i]) != 0;
    printf("pmi2_client_test: %d of %zu scenarios failed\n", failed,
           sizeof scenarios / sizeof scenarios[0]);
    return failed != 0;
}
