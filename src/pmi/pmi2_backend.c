/*
 * pmi2_backend.c — the PMI-2 wire protocol, as Slurm's pmi2 plugin serves
 * it (srun --mpi=pmi2: PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID).
 *
 * The conversation: one PMI-1 line "cmd=init pmi_version=2" (the server
 * learns from it which protocol follows), then length-prefixed commands
 * (pmi2_wire.c): fullinit, info-getjobattr for universeSize and
 * PMI_process_mapping, kvs-put / kvs-fence / kvs-get, finalize, abort.
 * Every command but abort has one reply, read before the next is sent.
 *
 * Values are stored with '%' and ';' percent-encoded: a PMI-2 value may in
 * principle hold ';' (doubled on the wire), but a server that stores the
 * unescaped form and sends it back unescaped would cut it short, and
 * Uzura's cards contain ';'.  Only Uzura reads Uzura's keys.
 */
#include "pmi/pmi_backend.h"
#include "pmi/pmi2_wire.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_request.h"
#include "pmi/process_mapping.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { PMI2_KEY_MAX = 64, PMI2_VALUE_MAX = 1024 };   /* Slurm's, '\0' included */

static struct {
    int fd;
    int broken;                               /* framing lost: fail at once */
    char out[UZ_PMI2_COMMAND_MAX + 8];
    char in[UZ_PMI2_COMMAND_MAX + 1];
    struct uz_pmi_line reply;
    char excerpt[UZ_PMI_EXCERPT_MAX + 8];
} pmi2 = {.fd = -1};

/* ---------------------------------------------------------------- I/O */

static int io_fail(const char *what, const char *doing, int err)
{
    pmi2.broken = 1;
    return uz_pmi_fail(-err, "PMI-2: %s '%s' failed: %s", doing, what, strerror(err));
}

static int send_all(const char *text, size_t len, const char *what)
{
    if (pmi2.broken)
        return uz_pmi_fail(-EPIPE, "PMI-2: cannot send '%s': the connection to the "
                           "process manager was lost earlier", what);
    while (len > 0) {
        ssize_t done = send(pmi2.fd, text, len, MSG_NOSIGNAL);
        if (done < 0 && errno == ENOTSOCK)
            done = write(pmi2.fd, text, len);
        if (done < 0 && errno == EINTR)
            continue;
        if (done < 0)
            return io_fail(what, "sending", errno);
        text += done;
        len -= (size_t)done;
    }
    return 0;
}

static int recv_exact(char *buf, size_t len, const char *what)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(pmi2.fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(what, "reading the reply to", errno);
        if (n == 0) {
            pmi2.broken = 1;
            return uz_pmi_fail(-ECONNRESET, "PMI-2: the process manager closed the "
                               "connection %s its reply to '%s'",
                               got ? "in the middle of" : "before", what);
        }
        got += (size_t)n;
    }
    return 0;
}

/* Read one reply into pmi2.reply and check that it is reply_cmd with rc=0. */
static int recv_reply(const char *what, const char *reply_cmd)
{
    char prefix[UZ_PMI2_LENGTH_DIGITS];
    const char *why;
    size_t len;
    int err, rc;
    if (pmi2.broken)
        return uz_pmi_fail(-EPIPE, "PMI-2: cannot wait for the reply to '%s': the "
                           "connection to the process manager was lost earlier", what);
    if ((err = recv_exact(prefix, sizeof prefix, what)))
        return err;
    if (uz_pmi2_length_parse(prefix, UZ_PMI2_COMMAND_MAX, &len, &why)) {
        pmi2.broken = 1;
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s: '%s'", what, why,
                           uz_pmi_excerpt(prefix, sizeof prefix, pmi2.excerpt));
    }
    if ((err = recv_exact(pmi2.in, len, what)))
        return err;
    pmi2.in[len] = '\0';
    uz_pmi_excerpt(pmi2.in, len, pmi2.excerpt);
    if (memchr(pmi2.in, '\0', len))
        why = "contains a NUL byte";
    else if (uz_pmi2_parse(pmi2.in, &pmi2.reply, &why) == 0)
        why = NULL;
    if (why)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s: '%s'", what, why,
                           pmi2.excerpt);
    if (strcmp(uz_pmi_line_cmd(&pmi2.reply), reply_cmd) != 0)
        return uz_pmi_fail(-EPROTO, "PMI-2: server replied to '%s' with 'cmd=%s' instead "
                           "of 'cmd=%s': '%s'", what, uz_pmi_line_cmd(&pmi2.reply),
                           reply_cmd, pmi2.excerpt);
    err = uz_pmi_line_int(&pmi2.reply, "rc", &rc);
    if (err == -EINVAL || (err == 0 && rc != 0)) {
        const char *msg = uz_pmi_line_value(&pmi2.reply, "errmsg");
        return uz_pmi_fail(-EIO, "PMI-2: server refused '%s'%s%s: '%s'", what,
                           msg ? ": " : "", msg ? msg : "", pmi2.excerpt);
    }
    return 0;
}

static int send_command(const char *cmd, const struct uz_pmi_field *pairs, int npairs)
{
    int len = uz_pmi2_format(pmi2.out, sizeof pmi2.out, cmd, pairs, npairs);
    if (len < 0)
        return uz_pmi_fail(len, "PMI-2: cannot format '%s' (%s)", cmd,
                           len == -ENOBUFS ? "too long" : "control character");
    return send_all(pmi2.out, (size_t)len, cmd);
}

static int command(const char *cmd, const struct uz_pmi_field *pairs, int npairs)
{
    char reply_cmd[64];
    snprintf(reply_cmd, sizeof reply_cmd, "%s-response", cmd);
    int err = send_command(cmd, pairs, npairs);
    return err ? err : recv_reply(cmd, reply_cmd);
}

static int reply_int(const char *what, const char *name, int *out)
{
    int err = uz_pmi_line_int(&pmi2.reply, name, out);
    if (err)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to '%s' %s '%s=': '%s'", what,
                           err == -ENOENT ? "lacks" : "has a non-numeric", name,
                           pmi2.excerpt);
    return 0;
}

/* ---------------------------------------------------------------- values */

/* '%' and ';' as %25 and %3B (see the top of the file). */
static int value_encode(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in; in++) {
        int escape = *in == '%' || *in == ';';
        if (o + (escape ? 3 : 1) >= cap)
            return -ENOBUFS;
        if (escape)
            o += (size_t)sprintf(out + o, "%%%02X", (unsigned char)*in);
        else
            out[o++] = *in;
    }
    out[o] = '\0';
    return 0;
}

static void value_decode(char *s)
{
    char *out = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '%' && p[1] == '3' && p[2] == 'B') {
            *out++ = ';';
            p += 2;
        } else if (p[0] == '%' && p[1] == '2' && p[2] == '5') {
            *out++ = '%';
            p += 2;
        } else {
            *out++ = *p;
        }
    }
    *out = '\0';
}

/* ---------------------------------------------------------------- init */

static int env_int(const char *name, int *out)
{
    const char *text = getenv(name);
    char *end;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text)
        return uz_pmi_fail(-EINVAL, "PMI-2: PMI_FD is set but %s is not", name);
    if (end == text || *end || v < INT_MIN || v > INT_MAX)
        return uz_pmi_fail(-EINVAL, "PMI-2: %s='%s' is not a number", name, text);
    *out = (int)v;
    return 0;
}

/* The PMI-1 line that announces version 2, and its PMI-1 reply. */
static int announce_version(void)
{
    static const char line[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    char reply[UZ_PMI_LINE_MAX];
    size_t n = 0;
    int err = send_all(line, sizeof line - 1, "init");
    while (!err && (n == 0 || reply[n - 1] != '\n')) {
        if (n == sizeof reply - 1)
            return uz_pmi_fail(-EPROTO, "PMI-2: the reply to 'init' is too long");
        err = recv_exact(reply + n, 1, "init");   /* byte by byte: nothing may be read ahead */
        n++;
    }
    if (err)
        return err;
    reply[n - 1] = '\0';
    struct uz_pmi_line parsed;
    const char *why;
    int version, rc;
    uz_pmi_excerpt(reply, n - 1, pmi2.excerpt);
    if (uz_pmi_line_parse(reply, &parsed, &why))
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to 'init' %s: '%s'", why,
                           pmi2.excerpt);
    if (strcmp(uz_pmi_line_cmd(&parsed), "response_to_init") != 0 ||
        uz_pmi_line_int(&parsed, "rc", &rc) || rc != 0 ||
        uz_pmi_line_int(&parsed, "pmi_version", &version) || version != 2)
        return uz_pmi_fail(-EPROTONOSUPPORT, "PMI-2: the process manager does not speak "
                           "PMI version 2: '%s'", pmi2.excerpt);
    return 0;
}

static int fullinit(struct uz_pmi_info *info)
{
    char rank_text[16];
    struct uz_pmi_field pairs[3];
    int n = 0, err, rank, size, appnum;
    snprintf(rank_text, sizeof rank_text, "%d", info->rank);
    /* Slurm finds the task by pmijobid + pmirank. */
    if (getenv("PMI_JOBID"))
        pairs[n++] = (struct uz_pmi_field){"pmijobid", getenv("PMI_JOBID")};
    pairs[n++] = (struct uz_pmi_field){"pmirank", rank_text};
    pairs[n++] = (struct uz_pmi_field){"threaded", "FALSE"};
    if ((err = command("fullinit", pairs, n)) ||
        (err = reply_int("fullinit", "rank", &rank)) ||
        (err = reply_int("fullinit", "size", &size)))
        return err;
    if (rank != info->rank || size != info->size)
        return uz_pmi_fail(-EPROTO, "PMI-2: the server says rank %d of %d, the "
                           "environment rank %d of %d: '%s'", rank, size, info->rank,
                           info->size, pmi2.excerpt);
    /* Slurm answers appnum=-1 for a job of one program. */
    if (uz_pmi_line_int(&pmi2.reply, "appnum", &appnum) == 0 && appnum > 0)
        info->appnum = appnum;
    return 0;
}

/* A job attribute: 1 with its value copied, 0 when the server has none. */
static int job_attribute(const char *key, char *value, size_t cap)
{
    struct uz_pmi_field pair = {"key", key};
    int err = command("info-getjobattr", &pair, 1);
    if (err)
        return err;
    const char *found = uz_pmi_line_value(&pmi2.reply, "found");
    const char *text = uz_pmi_line_value(&pmi2.reply, "value");
    if (uz_pmi2_bool(found) != 1 || !text)
        return 0;
    snprintf(value, cap, "%s", text);
    return 1;
}

static int job_attributes(struct uz_pmi_info *info)
{
    char text[UZ_PMI2_COMMAND_MAX];
    struct uz_pmi_placement where;
    int found;
    if ((found = job_attribute("universeSize", text, sizeof text)) < 0)
        return found;
    if (found && atoi(text) > info->size)
        info->universe_size = atoi(text);
    if ((found = job_attribute("PMI_process_mapping", text, sizeof text)) < 0)
        return found;
    if (found && uz_pmi_process_mapping(text, info->rank, info->size, &where) == 0) {
        info->local_rank = where.local_rank;
        info->local_size = where.local_size;
        info->node_id = where.node_id;
        info->num_nodes = where.num_nodes;
    }
    return 0;
}

static int pmi2_open(struct uz_pmi_info *info)
{
    int fd = -1, err;
    if ((err = env_int("PMI_FD", &fd)) || (err = env_int("PMI_RANK", &info->rank)) ||
        (err = env_int("PMI_SIZE", &info->size)))
        return err;
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        return uz_pmi_fail(-EBADF, "PMI-2: PMI_FD=%d is not an open file descriptor", fd);
    if (info->size < 1 || info->rank < 0 || info->rank >= info->size)
        return uz_pmi_fail(-EINVAL, "PMI-2: PMI_RANK=%d of PMI_SIZE=%d is impossible",
                           info->rank, info->size);
    fcntl(fd, F_SETFD, FD_CLOEXEC);   /* programs we start must not hold the socket */
    pmi2.fd = fd;
    pmi2.broken = 0;
    return 0;
}

static void make_kvsname(struct uz_pmi_info *info)
{
    const char *jobid = getenv("PMI_JOBID"), *cluster = getenv("SLURM_CLUSTER_NAME");
    const char *port = getenv("SLURM_STEP_LAUNCHER_PORT");
    /* The job id restarts with a fresh slurmctld; srun's port tells two
     * such jobs apart on one machine. */
    snprintf(info->kvsname, sizeof info->kvsname, "pmi2-%s-%s-%s", cluster ? cluster : "",
             jobid ? jobid : "", port ? port : "");
}

static int pmi2_init(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    int err;
    if ((err = pmi2_open(info)))
        return err;
    info->universe_size = info->size;
    if ((err = announce_version()) || (err = fullinit(info)) || (err = job_attributes(info))) {
        close(pmi2.fd);
        pmi2.fd = -1;
        return err;
    }
    make_kvsname(info);
    if (*key_max > PMI2_KEY_MAX - 1)
        *key_max = PMI2_KEY_MAX - 1;
    /* Encoding may grow a value; the check after encoding has the last word. */
    if (*value_max > PMI2_VALUE_MAX - 1)
        *value_max = PMI2_VALUE_MAX - 1;
    return 0;
}

/* ---------------------------------------------------------------- key-value space */

static int pmi2_put(const char *key, const char *value)
{
    char encoded[PMI2_VALUE_MAX];
    if (value_encode(value, encoded, sizeof encoded))
        return uz_pmi_fail(-EINVAL, "PMI-2: value for key '%s' is longer than %d bytes "
                           "once its '%%' and ';' are encoded", key, PMI2_VALUE_MAX - 1);
    struct uz_pmi_field pairs[2] = {{"key", key}, {"value", encoded}};
    return command("kvs-put", pairs, 2);
}

static int pmi2_fence(void)
{
    return command("kvs-fence", NULL, 0);
}

static int pmi2_get(const char *key, char *value, size_t value_len)
{
    struct uz_pmi_field pairs[2] = {{"srcid", "-1"}, {"key", key}};
    int err = command("kvs-get", pairs, 2);
    if (err)
        return err;
    const char *found = uz_pmi_line_value(&pmi2.reply, "found");
    const char *text = uz_pmi_line_value(&pmi2.reply, "value");
    if (uz_pmi2_bool(found) == 0)
        return uz_pmi_fail(-ENOENT, "PMI-2: key '%s' not found", key);
    if (uz_pmi2_bool(found) != 1 || !text)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to 'kvs-get' has no 'found=TRUE' "
                           "with a 'value=': '%s'", pmi2.excerpt);
    char decoded[PMI2_VALUE_MAX * 3];
    if (strlen(text) >= sizeof decoded)
        return uz_pmi_fail(-ENOBUFS, "PMI-2: value of key '%s' is %zu bytes, more than "
                           "Uzura ever puts", key, strlen(text));
    strcpy(decoded, text);
    value_decode(decoded);
    size_t len = strlen(decoded);
    if (len >= value_len)
        return uz_pmi_fail(-ENOBUFS, "PMI-2: value of key '%s' is %zu bytes, more than the "
                           "%zu-byte buffer", key, len + 1, value_len);
    memcpy(value, decoded, len + 1);
    return 0;
}

/* ---------------------------------------------------------------- the end */

static int pmi2_finalize(void)
{
    int err = command("finalize", NULL, 0);
    close(pmi2.fd);
    pmi2.fd = -1;
    pmi2.broken = 1;
    return err;
}

/* Slurm kills the whole step on an abort with isworld=TRUE. */
static void pmi2_abort(int exit_code, const char *message)
{
    char text[512];
    uz_pmi_abort_print(exit_code, message);
    if (pmi2.broken)
        return;
    snprintf(text, sizeof text, "%s", message && message[0] ? message : "MPI_Abort");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < ' ')
            *c = ' ';
    struct uz_pmi_field pairs[2] = {{"isworld", "TRUE"}, {"msg", text}};
    if (send_command("abort", pairs, 2) == 0)
        uz_pmi_abort_wait();
}

const struct uz_pmi_backend uz_pmi2_backend = {
    .name = "PMI-2",
    .init = pmi2_init,
    .put = pmi2_put,
    .fence = pmi2_fence,
    .get = pmi2_get,
    .finalize = pmi2_finalize,
    .abort = pmi2_abort,
};
