/*
 * pmi_server.c — answering the PMI-1 requests of the ranks.
 *
 * The commands of MPICH's simple PMI that a single-host job needs: init,
 * get_maxes, get_appnum, get_universe_size, get_my_kvsname, put, get,
 * barrier_in, finalize and abort.  Anything malformed or unknown is a broken
 * rank, and the job ends with a message naming it: guessing at a reply
 * would only move the failure somewhere harder to understand.
 *
 * In a proxy the same server answers the host's ranks; what only the front
 * end can decide (the barrier, which sees every rank) or must know (puts,
 * init and finalize) is also reported upstream.  Gets are answered here,
 * from the pairs the front end sent with the last barrier_out.
 */
#include "mpiexec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((format(printf, 3, 4)))
reply(struct job *job, struct rank *r, const char *fmt, ...)
{
    char line[UZ_PMI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line - 1)
        len = (int)strlen(line);
    line[len] = '\n';
    line[len + 1] = '\0';
    pmi_channel_send(job, r, line);
}

/* why completes "a PMI line that ...", as the phrases of uz_pmi_line_parse do. */
static void malformed(struct job *job, struct rank *r, const char *why, const char *excerpt)
{
    job_fail(job, EXIT_LAUNCH_FAILED, "rank %d sent a PMI line that %s: '%s'", r->rank, why,
             excerpt);
}

/* A field the command cannot do without. */
static const char *required(struct job *job, struct rank *r, const struct uz_pmi_line *line,
                            const char *name, const char *excerpt)
{
    const char *value = uz_pmi_line_value(line, name);
    if (!value) {
        char why[64];
        snprintf(why, sizeof why, "lacks '%s='", name);
        malformed(job, r, why, excerpt);
    }
    return value;
}

/* A kvsname other than ours: answered as an error, as Hydra does. */
static int kvsname_wrong(const struct job *job, const struct uz_pmi_line *line)
{
    const char *kvsname = uz_pmi_line_value(line, "kvsname");
    return kvsname && strcmp(kvsname, job->kvsname) != 0;
}

/* ------------------------------------------------------------ commands */

struct request {
    struct job *job;
    struct rank *rank;
    const struct uz_pmi_line *line;
    const char *excerpt;        /* the line as received, for messages */
};

static void on_init(const struct request *q)
{
    int version;
    if (uz_pmi_line_int(q->line, "pmi_version", &version) == 0 && version != 1) {
        reply(q->job, q->rank, "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1");
        return;
    }
    q->rank->pmi.state = RANK_PMI_INITIALIZED;
    if (q->job->up)
        upstream_rank_state(q->job, q->rank);
    /* abort_message=1: we print the message a rank passes with abort, so
     * the client need not print it itself (see uz_pmi_abort). */
    reply(q->job, q->rank, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1 "
                           "abort_message=1");
}

static void on_get_maxes(const struct request *q)
{
    reply(q->job, q->rank, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d",
          UZ_PMI_KVSNAME_MAX, UZ_PMI_KEY_MAX, UZ_PMI_VALUE_MAX);
}

static void on_get_appnum(const struct request *q)
{
    int appnum;
    options_program_of(q->job->opt, q->rank->rank, &appnum);
    reply(q->job, q->rank, "cmd=appnum rc=0 appnum=%d", appnum);
}

/* -usize, else this host's processors (the slots a spawn may fill), but
 * never fewer than the job has.  A job on several hosts says its size:
 * how many more its hosts could take is not known here. */
static void on_get_universe_size(const struct request *q)
{
    int size = q->job->opt->universe_size;
    if (size <= 0 && (q->job->up || q->job->remote))
        size = q->job->size;
    if (size <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        size = cpus > 0 && cpus < 1000000 ? (int)cpus : 1;
    }
    reply(q->job, q->rank, "cmd=universe_size rc=0 size=%d", size > q->job->size ? size : q->job->size);
}

static void on_get_my_kvsname(const struct request *q)
{
    reply(q->job, q->rank, "cmd=my_kvsname rc=0 kvsname=%s", q->job->kvsname);
}

static void on_put(const struct request *q)
{
    const char *key = required(q->job, q->rank, q->line, "key", q->excerpt);
    const char *value = key ? required(q->job, q->rank, q->line, "value", q->excerpt) : NULL;
    if (!value)
        return;
    if (kvsname_wrong(q->job, q->line))
        reply(q->job, q->rank, "cmd=put_result rc=-1 msg=unknown_kvsname");
    else if (strlen(key) >= UZ_PMI_KEY_MAX)
        reply(q->job, q->rank, "cmd=put_result rc=-1 msg=key_too_long");
    else if (strlen(value) >= UZ_PMI_VALUE_MAX)
        reply(q->job, q->rank, "cmd=put_result rc=-1 msg=value_too_long");
    else if (kvs_put(q->job->kvs, key, value) < 0)
        reply(q->job, q->rank, "cmd=put_result rc=-1 msg=out_of_memory");
    else {
        if (q->job->up)
            upstream_put(q->job, key, value);
        reply(q->job, q->rank, "cmd=put_result rc=0");
    }
}

static void on_get(const struct request *q)
{
    const char *key = required(q->job, q->rank, q->line, "key", q->excerpt);
    if (!key)
        return;
    const char *value = kvsname_wrong(q->job, q->line) ? NULL : kvs_get(q->job->kvs, key);
    if (value)
        reply(q->job, q->rank, "cmd=get_result rc=0 value=%s", value);
    else
        reply(q->job, q->rank, "cmd=get_result rc=-1 msg=key_not_found");
}

static void on_barrier_in(const struct request *q)
{
    struct job *job = q->job;
    if (q->rank->pmi.in_barrier) {
        malformed(job, q->rank, "enters the barrier a second time", q->excerpt);
        return;
    }
    q->rank->pmi.in_barrier = 1;
    if (job->up)
        upstream_barrier_in(job, q->rank);
    else
        job_barrier_entered(job);
}

static void on_finalize(const struct request *q)
{
    q->rank->pmi.state = RANK_PMI_FINALIZED;
    if (q->job->up)
        upstream_rank_state(q->job, q->rank);
    reply(q->job, q->rank, "cmd=finalize_ack rc=0");
    job_check_barrier(q->job);
}

static void on_abort(const struct request *q)
{
    int code;
    if (uz_pmi_line_int(q->line, "exitcode", &code) < 0) {
        malformed(q->job, q->rank, "lacks a numeric 'exitcode='", q->excerpt);
        return;
    }
    char message[UZ_PMI_LINE_MAX] = "";
    const char *encoded = uz_pmi_line_value(q->line, "message");
    if (encoded) {
        snprintf(message, sizeof message, "%s", encoded);
        uz_pmi_percent_decode(message);
    }
    q->rank->pmi.state = RANK_PMI_ABORTED;
    job_rank_aborted(q->job, q->rank, code, message);
}

/* MPI's name service is not offered; saying so lets MPI_Publish_name fail
 * cleanly instead of ending the job. */
static void on_name_service(const struct request *q)
{
    const char *cmd = uz_pmi_line_cmd(q->line);
    char result[32];
    snprintf(result, sizeof result, "%.*s_result", (int)strcspn(cmd, "_"), cmd);
    reply(q->job, q->rank, "cmd=%s rc=-1 msg=name_service_not_supported", result);
}

static const struct {
    const char *cmd;
    void (*handle)(const struct request *q);
} commands[] = {
    {"init", on_init},
    {"get_maxes", on_get_maxes},
    {"get_appnum", on_get_appnum},
    {"get_universe_size", on_get_universe_size},
    {"get_my_kvsname", on_get_my_kvsname},
    {"put", on_put},
    {"get", on_get},
    {"barrier_in", on_barrier_in},
    {"finalize", on_finalize},
    {"abort", on_abort},
    {"publish_name", on_name_service},
    {"unpublish_name", on_name_service},
    {"lookup_name", on_name_service},
};

void pmi_server_handle(struct job *job, struct rank *r, char *text, size_t len)
{
    char excerpt[UZ_PMI_EXCERPT_MAX + 8];
    uz_pmi_excerpt(text, len, excerpt);
    if (job->opt->verbose)
        fprintf(stderr, "mpiexec: rank %d -> %s\n", r->rank, excerpt);
    if (strncmp(text, "mcmd=", 5) == 0 || spawn_in_progress(job, r)) {
        if (strncmp(text, "mcmd=", 5) == 0 && strcmp(text, "mcmd=spawn") != 0)
            job_fail(job, EXIT_LAUNCH_FAILED, "rank %d sent an unknown PMI command '%s'", r->rank, excerpt);
        else
            spawn_line(job, r, text);
        return;
    }
    struct uz_pmi_line line;
    const char *why;
    if (strlen(text) != len) {
        malformed(job, r, "contains a NUL byte", excerpt);
        return;
    }
    if (uz_pmi_line_parse(text, &line, &why) < 0) {
        malformed(job, r, why, excerpt);
        return;
    }
    struct request q = {job, r, &line, excerpt};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(uz_pmi_line_cmd(&line), commands[i].cmd) == 0) {
            commands[i].handle(&q);
            return;
        }
    }
    job_fail(job, EXIT_LAUNCH_FAILED, "rank %d sent an unknown PMI command '%s'", r->rank,
             uz_pmi_line_cmd(&line));
}
