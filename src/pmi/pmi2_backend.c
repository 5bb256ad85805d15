/*
 * pmi2_backend.c — the PMI-2 wire protocol, as Slurm's pmi2 plugin serves
 * it (srun --mpi=pmi2: PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID).
 *
 * The conversation: one PMI-1 line "cmd=init pmi_version=2" (the server
 * learns from it which protocol follows), then length-prefixed commands
 * (pmi2_wire.c): fullinit, info-getjobattr for universeSize and
 * PMI_process_mapping, kvs-put / kvs-fence / kvs-get, spawn, finalize, abort.
 * Every command but abort has one reply, read before the next is sent
 * (pmi2_conn.c).
 *
 * Values are stored with '%' and ';' percent-encoded: a PMI-2 value may in
 * principle hold ';' (doubled on the wire), but a server that stores the
 * unescaped form and sends it back unescaped would cut it short, and
 * Uzura's cards contain ';'.  Only Uzura reads Uzura's keys.
 */
#include "pmi/pmi_backend.h"
#include "pmi/pmi2_conn.h"
#include "pmi/pmi2_wire.h"
#include "pmi/pmi_error.h"
#include "pmi/process_mapping.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PMI2_KEY_MAX = 64, PMI2_VALUE_MAX = 1024 };   /* Slurm's, '\0' included */

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
    if ((err = uz_pmi2_command("fullinit", pairs, n)) ||
        (err = uz_pmi2_reply_int("fullinit", "rank", &rank)) ||
        (err = uz_pmi2_reply_int("fullinit", "size", &size)))
        return err;
    if (rank != info->rank || size != info->size)
        return uz_pmi_fail(-EPROTO, "PMI-2: the server says rank %d of %d, the "
                           "environment rank %d of %d: '%s'", rank, size, info->rank,
                           info->size, uz_pmi2_reply_excerpt());
    /* Slurm answers appnum=-1 for a job of one program. */
    if (uz_pmi_line_int(uz_pmi2_reply(), "appnum", &appnum) == 0 && appnum > 0)
        info->appnum = appnum;
    /* A job started by another's spawn (Slurm: srun run by the spawner's). */
    const char *spawner = uz_pmi_line_value(uz_pmi2_reply(), "spawner-jobid");
    info->spawned = spawner && spawner[0];
    return 0;
}

/* A job attribute: 1 with its value copied, 0 when the server has none. */
static int job_attribute(const char *key, char *value, size_t cap)
{
    struct uz_pmi_field pair = {"key", key};
    int err = uz_pmi2_command("info-getjobattr", &pair, 1);
    if (err)
        return err;
    const char *found = uz_pmi_line_value(uz_pmi2_reply(), "found");
    const char *text = uz_pmi_line_value(uz_pmi2_reply(), "value");
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
    uz_pmi2_conn_open(fd);
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
    if ((err = uz_pmi2_announce_version()) || (err = fullinit(info)) || (err = job_attributes(info))) {
        uz_pmi2_conn_close();
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
    return uz_pmi2_command("kvs-put", pairs, 2);
}

static int pmi2_fence(void)
{
    return uz_pmi2_command("kvs-fence", NULL, 0);
}

static int pmi2_get(const char *key, char *value, size_t value_len)
{
    struct uz_pmi_field pairs[2] = {{"srcid", "-1"}, {"key", key}};
    int err = uz_pmi2_command("kvs-get", pairs, 2);
    if (err)
        return err;
    const char *found = uz_pmi_line_value(uz_pmi2_reply(), "found");
    const char *text = uz_pmi_line_value(uz_pmi2_reply(), "value");
    if (uz_pmi2_bool(found) == 0)
        return uz_pmi_fail(-ENOENT, "PMI-2: key '%s' not found", key);
    if (uz_pmi2_bool(found) != 1 || !text)
        return uz_pmi_fail(-EPROTO, "PMI-2: server reply to 'kvs-get' has no 'found=TRUE' "
                           "with a 'value=': '%s'", uz_pmi2_reply_excerpt());
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

/* ---------------------------------------------------------------- spawn */

/* PMI-2's "spawn" command, as MPICH's PMI2_Job_Spawn writes it and
 * Slurm's pmi2 plugin serves it (it runs `srun --mpi=pmi2 -n <maxprocs>`
 * for the new job in the same allocation, with the preput pair in the new
 * job's key-value space and "spawner-jobid" in its fullinit-response):
 *   ncmds, preputcount, ppkey0, ppval0, then per program subcmd, maxprocs,
 *   argc, argv0.., infokeycount, infokey0/infoval0..
 * The reply is spawn-response with rc (and, from Slurm, errcodes). */
static int spawn_fields_count(const struct uz_pmi_spawn_cmd *cmds, int ncmds)
{
    int n = 4;
    for (int i = 0; i < ncmds; i++) {
        int argc = 0;
        while (cmds[i].argv && cmds[i].argv[argc])
            argc++;
        n += 4 + argc + 2 * cmds[i].ninfo;
    }
    return n;
}

static int pmi2_spawn(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                      const char *preput_value, int *failed)
{
    int nfields = spawn_fields_count(cmds, ncmds);
    struct uz_pmi_field *f = calloc((size_t)nfields, sizeof *f);
    /* Field names and numbers: "argv12", "infokey3", the counts. */
    char (*names)[24] = calloc((size_t)nfields, sizeof *names);
    char (*nums)[16] = calloc((size_t)nfields, sizeof *nums);
    if (!f || !names || !nums) {
        free(f);
        free(names);
        free(nums);
        return uz_pmi_fail(-ENOMEM, "PMI-2: out of memory for a spawn request");
    }
    int n = 0, k = 0;
    snprintf(nums[k], sizeof nums[k], "%d", ncmds);
    f[n++] = (struct uz_pmi_field){"ncmds", nums[k++]};
    f[n++] = (struct uz_pmi_field){"preputcount", "1"};
    f[n++] = (struct uz_pmi_field){"ppkey0", preput_key};
    f[n++] = (struct uz_pmi_field){"ppval0", preput_value};
    for (int i = 0; i < ncmds; i++) {
        int argc = 0;
        while (cmds[i].argv && cmds[i].argv[argc])
            argc++;
        f[n++] = (struct uz_pmi_field){"subcmd", cmds[i].command};
        snprintf(nums[k], sizeof nums[k], "%d", cmds[i].maxprocs);
        f[n++] = (struct uz_pmi_field){"maxprocs", nums[k++]};
        snprintf(nums[k], sizeof nums[k], "%d", argc);
        f[n++] = (struct uz_pmi_field){"argc", nums[k++]};
        for (int a = 0; a < argc; a++) {
            snprintf(names[n], sizeof names[n], "argv%d", a);
            f[n] = (struct uz_pmi_field){names[n], cmds[i].argv[a]};
            n++;
        }
        snprintf(nums[k], sizeof nums[k], "%d", cmds[i].ninfo);
        f[n++] = (struct uz_pmi_field){"infokeycount", nums[k++]};
        for (int j = 0; j < cmds[i].ninfo; j++) {
            snprintf(names[n], sizeof names[n], "infokey%d", j);
            f[n] = (struct uz_pmi_field){names[n], cmds[i].info_keys[j]};
            n++;
            snprintf(names[n], sizeof names[n], "infoval%d", j);
            f[n] = (struct uz_pmi_field){names[n], cmds[i].info_values[j]};
            n++;
        }
    }
    int err = uz_pmi2_command("spawn", f, n);
    free(f);
    free(names);
    free(nums);
    if (err && failed)
        for (int i = 0; i < ncmds; i++)
            failed[i] = 1;
    return err;
}

/* ---------------------------------------------------------------- the end */

static int pmi2_finalize(void)
{
    int err = uz_pmi2_command("finalize", NULL, 0);
    uz_pmi2_conn_close();
    return err;
}

/* Slurm kills the whole step on an abort with isworld=TRUE. */
static void pmi2_abort(int exit_code, const char *message)
{
    char text[512];
    uz_pmi_abort_print(exit_code, message);
    if (uz_pmi2_conn_broken())
        return;
    snprintf(text, sizeof text, "%s", message && message[0] ? message : "MPI_Abort");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < ' ')
            *c = ' ';
    struct uz_pmi_field pairs[2] = {{"isworld", "TRUE"}, {"msg", text}};
    if (uz_pmi2_send("abort", pairs, 2) == 0)
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
    .spawn = pmi2_spawn,
};
