/*
 * pmi_protocol_test.c — the PMI client against a scripted fake server that
 * misbehaves in every way we could think of.
 *
 * Each scenario forks: the child is the client (it sees PMI_FD, or PMI_PORT
 * + PMI_ID, and checks what each uz_pmi_* call returns and says), the parent
 * plays the server from a script of expected requests and canned replies.
 * A crash or a hang of the client (an alarm fires) fails the scenario, so
 * "never a crash or hang" is what is tested, along with the messages.
 */
#include "pmi/pmi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ client-side checks */

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

/* got must be want_err and the message must contain want_text. */
static void expect_error(const char *call, int got, int want_err, const char *want_text)
{
    const char *message = uz_pmi_last_error();
    if (got == want_err && strstr(message, want_text))
        return;
    fail("%s returned %d (want %d) with message '%s' (want it to contain '%s')", call, got,
         want_err, message, want_text);
}

static void expect_ok(const char *call, int got)
{
    if (got != 0)
        fail("%s failed: %s", call, uz_pmi_last_error());
}

static struct uz_pmi_info init_ok(void)
{
    struct uz_pmi_info info;
    expect_ok("init", uz_pmi_init(&info));
    return info;
}

/* ------------------------------------------------------------ server scripts */

struct step {
    const char *expect;     /* the request must start with this (NULL: read nothing) */
    const char *reply;      /* sent after it (NULL: nothing) */
    size_t reply_len;       /* 0: strlen(reply) */
    int trickle;            /* send the reply one byte at a time */
};

static const struct step init_steps[] = {
    {"cmd=init pmi_version=1 pmi_subversion=1",
     "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=2\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
    {"cmd=get_my_kvsname", "cmd=my_kvsname rc=0 kvsname=kvs_42_0\n"},
    {"cmd=get_appnum", "cmd=appnum rc=0 appnum=0\n"},
    {"cmd=get_universe_size", "cmd=universe_size rc=0 size=-1\n"},
    {NULL, NULL},
};

enum scenario_end {
    END_CLOSE,              /* close the connection after the script */
    END_KILL_ON_EOF,        /* keep it open until the client is done */
    END_ECHO,               /* answer every get with value=<key reversed> */
};

enum connection { OVER_FD, OVER_TCP, NO_SERVER };

struct scenario {
    const char *name;
    enum connection connection;
    int with_init;              /* the script starts with init_steps */
    const struct step *steps;   /* ends with an all-NULL step */
    enum scenario_end end;
    void (*client)(void);
    int killed_by;              /* the client must end by this signal (0: exit 0) */
};

/* Server side: read one request line (up to '\n'), with a deadline. */
static int server_read_line(int fd, char *line, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0)
            return -1;
        ssize_t got = read(fd, line + n, 1);
        if (got <= 0)
            return -1;
        if (line[n] == '\n') {
            line[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

static void server_send(int fd, const struct step *step)
{
    size_t len = step->reply_len ? step->reply_len : strlen(step->reply);
    for (size_t off = 0; off < len;) {
        size_t chunk = step->trickle ? 1 : len - off;
        ssize_t put = send(fd, step->reply + off, chunk, MSG_NOSIGNAL);
        if (put <= 0)
            return;
        off += (size_t)put;
        if (step->trickle)
            usleep(200);
    }
}

/* Returns the number of script mismatches. */
static int server_run_steps(int fd, const struct step *steps, pid_t client)
{
    char line[8192];
    for (const struct step *s = steps; s->expect || s->reply; s++) {
        if (s->expect) {
            if (server_read_line(fd, line, sizeof line) < 0) {
                fprintf(stderr, "    FAIL: server: no request, expected '%s'\n", s->expect);
                return 1;
            }
            if (strncmp(line, s->expect, strlen(s->expect)) != 0) {
                fprintf(stderr, "    FAIL: server: got '%s', expected '%s'\n", line, s->expect);
                return 1;
            }
            if (strncmp(line, "cmd=abort", 9) == 0) {
                kill(client, SIGTERM);      /* what a process manager does */
                return 0;
            }
        }
        if (s->reply)
            server_send(fd, s);
    }
    return 0;
}

static void reverse(char *s)
{
    for (size_t i = 0, j = strlen(s); i + 1 < j; i++, j--) {
        char c = s[i];
        s[i] = s[j - 1];
        s[j - 1] = c;
    }
}

/* Answers get requests until the client closes; for the threads scenario. */
static void server_echo(int fd)
{
    char line[8192], reply[8300];
    while (server_read_line(fd, line, sizeof line) == 0) {
        char *key = strstr(line, " key=");
        if (strncmp(line, "cmd=finalize", 12) == 0) {
            snprintf(reply, sizeof reply, "cmd=finalize_ack rc=0\n");
        } else if (key) {
            key += 5;
            reverse(key);
            snprintf(reply, sizeof reply, "cmd=get_result rc=0 value=%s\n", key);
        } else {
            break;
        }
        struct step s = {.reply = reply};
        server_send(fd, &s);
    }
}

/* ------------------------------------------------------------ running one scenario */

static int tcp_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 1) ||
        getsockname(fd, (struct sockaddr *)&a, &len)) {
        perror("pmi_protocol_test: listener");
        exit(1);
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static void client_environment(const struct scenario *sc, int fd, int port)
{
    char text[64];
    unsetenv("PMI_FD");
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    if (sc->connection == OVER_FD) {
        snprintf(text, sizeof text, "%d", fd);
        setenv("PMI_FD", text, 1);
        setenv("PMI_RANK", "1", 1);
        setenv("PMI_SIZE", "2", 1);
    } else if (sc->connection == OVER_TCP) {
        snprintf(text, sizeof text, "127.0.0.1:%d", port);
        setenv("PMI_PORT", text, 1);
        setenv("PMI_ID", "5", 1);
    }
}

static int client_status_ok(const struct scenario *sc, int status)
{
    if (sc->killed_by)
        return WIFSIGNALED(status) && WTERMSIG(status) == sc->killed_by;
    if (WIFSIGNALED(status))
        fprintf(stderr, "    FAIL: client killed by signal %d (%s)\n", WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? "it hung" : strsignal(WTERMSIG(status)));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int scenario_run(const struct scenario *sc)
{
    int pair[2] = {-1, -1}, listener = -1, port = 0;
    if (sc->connection == OVER_FD && socketpair(AF_UNIX, SOCK_STREAM, 0, pair))
        return perror("socketpair"), 1;
    if (sc->connection == OVER_TCP)
        listener = tcp_listener(&port);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        if (pair[0] >= 0)
            close(pair[0]);
        if (listener >= 0)
            close(listener);
        client_environment(sc, pair[1], port);
        sc->client();
        _exit(client_failures ? 1 : 0);
    }
    int fd = pair[0], mismatches = 0;
    if (pair[1] >= 0)
        close(pair[1]);
    if (listener >= 0) {
        fd = accept(listener, NULL, NULL);
        close(listener);
    }
    if (fd >= 0) {
        if (sc->with_init)
            mismatches += server_run_steps(fd, init_steps, pid);
        if (!mismatches && sc->steps)
            mismatches += server_run_steps(fd, sc->steps, pid);
        if (sc->end == END_ECHO)
            server_echo(fd);
        if (sc->end == END_KILL_ON_EOF) {
            char c;
            while (read(fd, &c, 1) > 0)
                ;
        }
        close(fd);
    }
    int status;
    waitpid(pid, &status, 0);
    int ok = !mismatches && client_status_ok(sc, status);
    printf("%s %s\n", ok ? "ok  " : "FAIL", sc->name);
    return ok ? 0 : 1;
}

/* ------------------------------------------------------------ the scenarios */

static void client_happy_path(void)
{
    struct uz_pmi_info info = init_ok();
    if (info.rank != 1 || info.size != 2 || info.universe_size != 2 || info.singleton ||
        strcmp(info.kvsname, "kvs_42_0") != 0)
        fail("init gave the wrong identity");
    char value[64];
    expect_ok("put", uz_pmi_put("card-1", "tcp://10.0.0.1:1234;shm=abc"));
    expect_ok("fence", uz_pmi_fence());
    expect_ok("get", uz_pmi_get("card-0", value, sizeof value));
    if (strcmp(value, "some=value=with=equals") != 0)
        fail("get returned '%s'", value);
    expect_error("get of a missing key", uz_pmi_get("nope", value, sizeof value), -ENOENT,
                 "key 'nope' not found");
    expect_ok("finalize", uz_pmi_finalize());
    expect_error("put after finalize", uz_pmi_put("k", "v"), -EINVAL, "after uz_pmi_finalize");
    expect_error("init after finalize", uz_pmi_init(&info), -EINVAL, "after uz_pmi_finalize");
}
static const struct step happy_steps[] = {
    {"cmd=put kvsname=kvs_42_0 key=card-1 value=tcp://10.0.0.1:1234;shm=abc",
     "cmd=put_result rc=0\n"},
    {"cmd=barrier_in", "cmd=barrier_out tag=0\n", 0, 1},
    {"cmd=get kvsname=kvs_42_0 key=card-0",
     "cmd=get_result   rc=0   value=some=value=with=equals\n", 0, 1},
    {"cmd=get kvsname=kvs_42_0 key=nope", "cmd=get_result rc=1\n"},
    {"cmd=finalize", "cmd=finalize_ack rc=0\n"},
    {NULL, NULL},
};

static void client_init_fails(const char *want_text, int want_err)
{
    struct uz_pmi_info info;
    expect_error("init", uz_pmi_init(&info), want_err, want_text);
    expect_error("put after failed init", uz_pmi_put("k", "v"), -EINVAL, "before uz_pmi_init");
}

static void client_maxes_missing_field(void)
{
    struct uz_pmi_info info;
    expect_error("init", uz_pmi_init(&info), -EPROTO,
                 "PMI: server reply to 'get_maxes' lacks 'vallen_max=': "
                 "'cmd=maxes rc=0 kvsname_max=256 keylen_max=64'");
}
static const struct step maxes_missing_field_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64\n"},
    {NULL, NULL},
};

static void client_init_wrong_cmd(void)
{
    client_init_fails("replied to 'init' with 'cmd=barrier_out' instead of "
                      "'cmd=response_to_init'", -EPROTO);
}
static const struct step init_wrong_cmd_steps[] = {
    {"cmd=init", "cmd=barrier_out\n"},
    {NULL, NULL},
};

static void client_init_refused(void)
{
    client_init_fails("server refused 'init' (rc=-1, version_mismatch)", -EIO);
}
static const struct step init_refused_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=-1 msg=version_mismatch\n"},
    {NULL, NULL},
};

static void client_init_version(void)
{
    client_init_fails("speaks PMI version 2", -EPROTONOSUPPORT);
}
static const struct step init_version_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"},
    {NULL, NULL},
};

static void client_init_eof(void)
{
    client_init_fails("closed the connection before replying to 'get_my_kvsname'",
                      -ECONNRESET);
}
static const struct step init_eof_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=0\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
    {"cmd=get_my_kvsname", NULL},
    {NULL, NULL},
};

static void client_bad_kvsname(void)
{
    client_init_fails("unusable kvsname", -EPROTO);
}
static const struct step bad_kvsname_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=0\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
    {"cmd=get_my_kvsname", "cmd=my_kvsname rc=0 kvsname=\n"},
    {NULL, NULL},
};

static void client_put_refused(void)
{
    init_ok();
    expect_error("put", uz_pmi_put("k", "v"), -EIO,
                 "PMI: server refused 'put' (rc=-1, duplicate_key): "
                 "'cmd=put_result rc=-1 msg=duplicate_key'");
    /* The stream is still in step: the next request works. */
    expect_ok("fence after a refused put", uz_pmi_fence());
}
static const struct step put_refused_steps[] = {
    {"cmd=put", "cmd=put_result rc=-1 msg=duplicate_key\n"},
    {"cmd=barrier_in", "cmd=barrier_out\n"},
    {NULL, NULL},
};

static void client_get_lacks_value(void)
{
    char value[32];
    init_ok();
    expect_error("get", uz_pmi_get("k", value, sizeof value), -EPROTO,
                 "PMI: server reply to 'get' lacks 'value=': 'cmd=get_result rc=0'");
}
static const struct step get_lacks_value_steps[] = {
    {"cmd=get kvsname=kvs_42_0 key=k", "cmd=get_result rc=0\n"},
    {NULL, NULL},
};

static void client_get_too_big(void)
{
    char value[4];
    init_ok();
    expect_error("get", uz_pmi_get("k", value, sizeof value), -ENOBUFS, "4-byte buffer");
}
static const struct step get_too_big_steps[] = {
    {"cmd=get", "cmd=get_result rc=0 value=abcdef\n"},
    {NULL, NULL},
};

static void client_truncated_reply(void)
{
    char value[32];
    init_ok();
    expect_error("get", uz_pmi_get("k", value, sizeof value), -ECONNRESET,
                 "closed the connection in the middle of its reply to 'get': 'cmd=get_res'");
    expect_error("fence after EOF", uz_pmi_fence(), -EPIPE, "lost earlier");
}
static const struct step truncated_reply_steps[] = {
    {"cmd=get", "cmd=get_res"},
    {NULL, NULL},
};

static char overlong_reply[6000];

static void client_overlong_reply(void)
{
    char value[32];
    init_ok();
    expect_error("get", uz_pmi_get("k", value, sizeof value), -EPROTO,
                 "server reply to 'get' is longer than 4096 bytes: 'cmd=get_result rc=0 "
                 "value=aaaa");
    expect_error("get after overlong", uz_pmi_get("k", value, sizeof value), -EPIPE,
                 "lost earlier");
}
static const struct step overlong_reply_steps[] = {
    {"cmd=get", overlong_reply},
    {NULL, NULL},
};

static void client_eof_at_fence(void)
{
    init_ok();
    expect_ok("put", uz_pmi_put("k", "v"));
    expect_error("fence", uz_pmi_fence(), -ECONNRESET,
                 "closed the connection before replying to 'barrier_in'");
    expect_error("finalize after EOF", uz_pmi_finalize(), -EPIPE, "lost earlier");
}
static const struct step eof_at_fence_steps[] = {
    {"cmd=put", "cmd=put_result rc=0\n"},
    {"cmd=barrier_in", NULL},
    {NULL, NULL},
};

static void client_garbage_bytes(void)
{
    init_ok();
    expect_error("fence", uz_pmi_fence(), -EPROTO,
                 "reply to 'barrier_in' contains a control character: "
                 "'\\x01\\xff\\xfegarbage\\x1b[0m'");
    expect_error("fence", uz_pmi_fence(), -EPROTO,
                 "reply to 'barrier_in' has a field without '=': 'hello world'");
    expect_error("fence", uz_pmi_fence(), -EPROTO,
                 "reply to 'barrier_in' does not start with 'cmd=': 'rc=0 cmd=barrier_out'");
    expect_error("fence", uz_pmi_fence(), -EPROTO, "reply to 'barrier_in' is empty: ''");
    expect_error("fence", uz_pmi_fence(), -EPROTO, "contains a NUL byte: 'cmd=barrier_out\\x00x'");
    expect_error("fence", uz_pmi_fence(), -EPROTO, "non-numeric 'rc=': 'cmd=barrier_out rc=zero'");
    expect_ok("fence", uz_pmi_fence());
}
static const struct step garbage_bytes_steps[] = {
    {"cmd=barrier_in", "\x01\xff\xfegarbage\x1b[0m\n"},
    {"cmd=barrier_in", "hello world\n"},
    {"cmd=barrier_in", "rc=0 cmd=barrier_out\n"},
    {"cmd=barrier_in", "\n"},
    {"cmd=barrier_in", "cmd=barrier_out\0x\n", 18},
    {"cmd=barrier_in", "cmd=barrier_out rc=zero\n"},
    {"cmd=barrier_in", "cmd=barrier_out\n"},
    {NULL, NULL},
};

static void client_bad_arguments(void)
{
    char value[8];
    struct uz_pmi_info info;
    expect_error("put before init", uz_pmi_put("k", "v"), -EINVAL, "before uz_pmi_init");
    expect_error("fence before init", uz_pmi_fence(), -EINVAL, "before uz_pmi_init");
    expect_ok("init", uz_pmi_init(&info));
    expect_ok("second init", uz_pmi_init(&info));
    expect_error("put key with space", uz_pmi_put("a b", "v"), -EINVAL, "key 'a b'");
    expect_error("put key with =", uz_pmi_put("a=b", "v"), -EINVAL, "key 'a=b'");
    expect_error("put empty key", uz_pmi_put("", "v"), -EINVAL, "key ''");
    expect_error("put value with space", uz_pmi_put("k", "a b"), -EINVAL, "value for key 'k'");
    expect_error("put value with newline", uz_pmi_put("k", "a\nb"), -EINVAL, "value for key");
    char long_key[80], long_value[1100];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    memset(long_value, 'v', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    expect_error("put long key", uz_pmi_put(long_key, "v"), -EINVAL, "longer than 63 bytes");
    expect_error("put long value", uz_pmi_put("k", long_value), -EINVAL,
                 "longer than 1023 bytes");
    expect_error("get bad key", uz_pmi_get("a b", value, sizeof value), -EINVAL, "key 'a b'");
    /* None of these reached the server: the script only expects finalize. */
    expect_ok("finalize", uz_pmi_finalize());
}
static const struct step finalize_steps[] = {
    {"cmd=finalize", "cmd=finalize_ack rc=0\n"},
    {NULL, NULL},
};

static void client_port_mode(void)
{
    struct uz_pmi_info info = init_ok();
    if (info.rank != 2 || info.size != 4 || info.universe_size != 4)
        fail("PMI_PORT init gave the wrong identity");
    expect_ok("fence", uz_pmi_fence());
    expect_ok("finalize", uz_pmi_finalize());
}
static const struct step port_mode_steps[] = {
    /* Hydra's answer, all four lines in one segment. */
    {"cmd=initack pmiid=5", "cmd=initack rc=0 rank=2 size=4 appnum=0 debug=0\n"
                            "cmd=set size=4\ncmd=set rank=2\ncmd=set debug=0\n"},
    {"cmd=init pmi_version=1", "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
    {"cmd=get_my_kvsname", "cmd=my_kvsname rc=0 kvsname=kvs_port\n"},
    {"cmd=get_appnum", "cmd=appnum rc=0 appnum=0\n"},
    {"cmd=get_universe_size", "cmd=universe_size rc=0 size=4\n"},
    {"cmd=barrier_in", "cmd=barrier_out\n"},
    {"cmd=finalize", "cmd=finalize_ack rc=0\n"},
    {NULL, NULL},
};

static void client_port_bad_set(void)
{
    client_init_fails("sets none of rank, size, debug", -EPROTO);
}
static const struct step port_bad_set_steps[] = {
    {"cmd=initack pmiid=5", "cmd=initack rc=0\ncmd=set size=4\ncmd=set color=blue\n"},
    {NULL, NULL},
};

static void client_port_bad_rank(void)
{
    client_init_fails("rank 7 of size 4 is impossible", -EINVAL);
}
static const struct step port_bad_rank_steps[] = {
    {"cmd=initack pmiid=5", "cmd=initack rc=0\ncmd=set size=4\ncmd=set rank=7\n"
                            "cmd=set debug=0\n"},
    {NULL, NULL},
};

static void client_bad_environment(void)
{
    struct uz_pmi_info info;
    setenv("PMI_FD", "987", 1);
    expect_error("init with a closed PMI_FD", uz_pmi_init(&info), -EBADF,
                 "PMI_FD=987 is not an open file descriptor");
    setenv("PMI_FD", "x1", 1);
    expect_error("init with PMI_FD=x1", uz_pmi_init(&info), -EINVAL, "PMI_FD='x1' is not a number");
    setenv("PMI_FD", "2", 1);
    expect_error("init without PMI_RANK", uz_pmi_init(&info), -EINVAL,
                 "PMI_FD is set but PMI_RANK is not");
    setenv("PMI_RANK", "3", 1);
    setenv("PMI_SIZE", "2", 1);
    expect_error("init with rank >= size", uz_pmi_init(&info), -EINVAL, "rank 3 of size 2");
    unsetenv("PMI_FD");
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_PORT", "nocolon", 1);
    expect_error("init with PMI_PORT=nocolon", uz_pmi_init(&info), -EINVAL, "not host:port");
    setenv("PMI_PORT", "127.0.0.1:1", 1);
    setenv("PMI_ID", "0", 1);
    expect_error("init with nobody listening", uz_pmi_init(&info), -ECONNREFUSED,
                 "cannot connect to PMI_PORT='127.0.0.1:1'");
}

static void client_singleton(void)
{
    char value[16];
    struct uz_pmi_info info = init_ok();
    if (!info.singleton || info.rank != 0 || info.size != 1 || info.universe_size != 1 ||
        !info.kvsname[0])
        fail("singleton init gave the wrong identity");
    expect_ok("put", uz_pmi_put("k", "v1"));
    expect_ok("put again", uz_pmi_put("k", "v2"));
    expect_ok("fence", uz_pmi_fence());
    expect_ok("get", uz_pmi_get("k", value, sizeof value));
    if (strcmp(value, "v2") != 0)
        fail("singleton get returned '%s'", value);
    expect_error("get missing", uz_pmi_get("x", value, sizeof value), -ENOENT, "'x' not found");
    expect_ok("finalize", uz_pmi_finalize());
}

static void client_singleton_abort(void)
{
    init_ok();
    uz_pmi_abort(7, "singleton gives up");
}

/* Runs the singleton abort in a grandchild: it must exit 7 having said why. */
static void client_singleton_abort_checked(void)
{
    int pipefd[2];
    if (pipe(pipefd))
        return fail("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        client_singleton_abort();
    }
    close(pipefd[1]);
    char text[256] = "";
    ssize_t got = read(pipefd[0], text, sizeof text - 1);
    text[got > 0 ? got : 0] = '\0';
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 7)
        fail("singleton abort did not exit 7");
    if (!strstr(text, "uzura: rank 0: aborting with code 7: singleton gives up"))
        fail("singleton abort said '%s'", text);
}

static void client_abort(void)
{
    init_ok();
    uz_pmi_abort(3, "bad input");
    fail("uz_pmi_abort returned");
}
static const struct step abort_steps[] = {
    {"cmd=abort exitcode=3", NULL},
    {NULL, NULL},
};

static void client_abort_with_message(void)
{
    init_ok();
    uz_pmi_abort(3, "50% done; giving up");
}
static const struct step abort_with_message_steps[] = {
    {"cmd=init", "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1 abort_message=1\n"},
    {"cmd=get_maxes", "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
    {"cmd=get_my_kvsname", "cmd=my_kvsname rc=0 kvsname=kvs_42_0\n"},
    {"cmd=get_appnum", "cmd=appnum rc=0 appnum=0\n"},
    {"cmd=get_universe_size", "cmd=universe_size rc=0 size=2\n"},
    {"cmd=abort exitcode=3 message=50%25%20done%3B%20giving%20up", NULL},
    {NULL, NULL},
};

/* Several threads share one connection: every reply must reach the thread
 * that asked. */
static void *get_many(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 200; i++) {
        char key[32], value[64] = "", want[32];
        snprintf(key, sizeof key, "t%ld-i%d-xyz", id, i);
        strcpy(want, key);
        reverse(want);
        if (uz_pmi_get(key, value, sizeof value) || strcmp(value, want) != 0) {
            fail("threaded get of %s returned '%s'", key, value);
            break;
        }
    }
    return NULL;
}

static void client_threads(void)
{
    pthread_t threads[4];
    init_ok();
    for (long t = 0; t < 4; t++)
        pthread_create(&threads[t], NULL, get_many, (void *)t);
    for (int t = 0; t < 4; t++)
        pthread_join(threads[t], NULL);
    expect_ok("finalize", uz_pmi_finalize());
}

static const struct scenario scenarios[] = {
    {"happy path (replies trickled byte by byte, extra spaces, '=' in value)", OVER_FD, 1,
     happy_steps, END_CLOSE, client_happy_path},
    {"get_maxes reply lacks a field", OVER_FD, 0, maxes_missing_field_steps, END_CLOSE,
     client_maxes_missing_field},
    {"init answered with the wrong command", OVER_FD, 0, init_wrong_cmd_steps, END_CLOSE,
     client_init_wrong_cmd},
    {"init refused with rc=-1", OVER_FD, 0, init_refused_steps, END_CLOSE, client_init_refused},
    {"server speaks PMI-2", OVER_FD, 0, init_version_steps, END_CLOSE, client_init_version},
    {"EOF during init", OVER_FD, 0, init_eof_steps, END_CLOSE, client_init_eof},
    {"empty kvsname", OVER_FD, 0, bad_kvsname_steps, END_CLOSE, client_bad_kvsname},
    {"put refused with rc=-1", OVER_FD, 1, put_refused_steps, END_CLOSE, client_put_refused},
    {"get reply lacks value=", OVER_FD, 1, get_lacks_value_steps, END_CLOSE,
     client_get_lacks_value},
    {"get value larger than the buffer", OVER_FD, 1, get_too_big_steps, END_CLOSE,
     client_get_too_big},
    {"truncated reply then EOF", OVER_FD, 1, truncated_reply_steps, END_CLOSE,
     client_truncated_reply},
    {"overly long reply line", OVER_FD, 1, overlong_reply_steps, END_KILL_ON_EOF,
     client_overlong_reply},
    {"EOF while waiting in a fence", OVER_FD, 1, eof_at_fence_steps, END_CLOSE,
     client_eof_at_fence},
    {"garbage bytes, missing '=', no cmd, empty line, NUL, bad rc", OVER_FD, 1,
     garbage_bytes_steps, END_CLOSE, client_garbage_bytes},
    {"invalid keys and values never reach the server", OVER_FD, 1, finalize_steps, END_CLOSE,
     client_bad_arguments},
    {"PMI_PORT + PMI_ID (Hydra -pmi-port handshake)", OVER_TCP, 0, port_mode_steps, END_CLOSE,
     client_port_mode},
    {"PMI_PORT: unexpected cmd=set", OVER_TCP, 0, port_bad_set_steps, END_CLOSE,
     client_port_bad_set},
    {"PMI_PORT: impossible rank", OVER_TCP, 0, port_bad_rank_steps, END_CLOSE,
     client_port_bad_rank},
    {"bad PMI_* environment", NO_SERVER, 0, NULL, END_CLOSE, client_bad_environment},
    {"singleton", NO_SERVER, 0, NULL, END_CLOSE, client_singleton},
    {"singleton abort exits with the code", NO_SERVER, 0, NULL, END_CLOSE,
     client_singleton_abort_checked},
    {"abort asks the server and waits to be killed", OVER_FD, 1, abort_steps, END_CLOSE,
     client_abort, SIGTERM},
    {"abort message reaches a server that shows it", OVER_FD, 0, abort_with_message_steps,
     END_CLOSE, client_abort_with_message, SIGTERM},
    {"four threads share the connection", OVER_FD, 1, NULL, END_ECHO, client_threads},
};

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    strcpy(overlong_reply, "cmd=get_result rc=0 value=");
    memset(overlong_reply + strlen(overlong_reply), 'a',
           sizeof overlong_reply - strlen(overlong_reply) - 2);
    overlong_reply[sizeof overlong_reply - 2] = '\n';
    int failed = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        failed += scenario_run(&scenarios[i]);
    printf("%d of %zu scenarios failed\n", failed, sizeof scenarios / sizeof scenarios[0]);
    return failed ? 1 : 0;
}
