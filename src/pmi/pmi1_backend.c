/*
 * pmi1_backend.c — the PMI-1 wire protocol ("simple PMI"): Uzura's own
 * mpiexec, MPICH's Hydra (PMI_FD, or PMI_PORT + PMI_ID), and Slurm's pmi2
 * plugin when asked in PMI-1.
 *
 * Lines of space-separated name=value fields (wire_format.c) over one
 * socket (wire_conn.c); pmi_request.c checks each reply's shape.
 */
#include "pmi/pmi_backend.h"
#include "pmi/pmi_connect.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct uz_pmi_conn conn;
    char kvsname[UZ_PMI_KVSNAME_MAX];
    int server_prints_abort_message;   /* Uzura's mpiexec: it shows our abort message */
} pmi1 = {.conn = {.fd = -1}};

/* Announced maxima count the terminating '\0', as in MPICH. */
static size_t clamp_max(int announced, size_t ours)
{
    return announced > 1 && (size_t)announced - 1 < ours ? (size_t)announced - 1 : ours;
}

static int handshake_maxes(size_t *key_max, size_t *value_max)
{
    struct uz_pmi_reply reply;
    int err, kvsname_max, server_key_max, server_value_max;
    if ((err = uz_pmi_request(&pmi1.conn, "get_maxes", "cmd=get_maxes\n", "maxes",
                              UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "kvsname_max", &kvsname_max)) ||
        (err = uz_pmi_reply_int(&reply, "keylen_max", &server_key_max)) ||
        (err = uz_pmi_reply_int(&reply, "vallen_max", &server_value_max)))
        return err;
    *key_max = clamp_max(server_key_max, *key_max);
    *value_max = clamp_max(server_value_max, *value_max);
    (void)kvsname_max; /* our kvsname buffer is already the PMI-1 maximum */
    return 0;
}

static int handshake(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    struct uz_pmi_reply reply;
    int err, version;
    const char *kvsname;

    err = uz_pmi_request(&pmi1.conn, "init", "cmd=init pmi_version=1 pmi_subversion=1\n",
                         "response_to_init", UZ_PMI_RC_MUST_BE_ZERO, &reply);
    if (err)
        return err;
    if (uz_pmi_line_int(&reply.line, "pmi_version", &version) == 0 && version != 1)
        return uz_pmi_fail(-EPROTONOSUPPORT, "PMI: server speaks PMI version %d, not 1: '%s'",
                           version, reply.excerpt);
    pmi1.server_prints_abort_message = uz_pmi_line_value(&reply.line, "abort_message") != NULL;

    if ((err = handshake_maxes(key_max, value_max)))
        return err;

    if ((err = uz_pmi_request(&pmi1.conn, "get_my_kvsname", "cmd=get_my_kvsname\n",
                              "my_kvsname", UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_string(&reply, "kvsname", &kvsname)))
        return err;
    if (!uz_pmi_token_ok(kvsname, sizeof info->kvsname - 1, 0) || !kvsname[0])
        return uz_pmi_fail(-EPROTO, "PMI: server gave an unusable kvsname: '%s'",
                           reply.excerpt);
    strcpy(info->kvsname, kvsname);
    strcpy(pmi1.kvsname, kvsname);

    if ((err = uz_pmi_request(&pmi1.conn, "get_appnum", "cmd=get_appnum\n", "appnum",
                              UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "appnum", &info->appnum)))
        return err;

    if ((err = uz_pmi_request(&pmi1.conn, "get_universe_size", "cmd=get_universe_size\n",
                              "universe_size", UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "size", &info->universe_size)))
        return err;
    /* Hydra answers -1 when it does not know; the job itself is a lower bound. */
    if (info->universe_size < info->size)
        info->universe_size = info->size;
    return 0;
}

static int pmi1_init(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    struct uz_pmi_identity id;
    int err = uz_pmi_connect(&pmi1.conn, &id);
    if (err)
        return err;
    if (id.singleton)   /* the launcher check sends only PMI_FD / PMI_PORT here */
        return uz_pmi_fail(-EINVAL, "PMI: neither PMI_FD nor PMI_PORT is set");
    info->rank = id.rank;
    info->size = id.size;
    info->universe_size = id.size;
    if ((err = handshake(info, key_max, value_max)))
        uz_pmi_conn_close(&pmi1.conn);
    return err;
}

static int pmi1_put(const char *key, const char *value)
{
    char request[UZ_PMI_LINE_MAX];
    struct uz_pmi_reply reply;
    snprintf(request, sizeof request, "cmd=put kvsname=%s key=%s value=%s\n",
             pmi1.kvsname, key, value);
    return uz_pmi_request(&pmi1.conn, "put", request, "put_result", UZ_PMI_RC_MUST_BE_ZERO,
                          &reply);
}

static int pmi1_fence(void)
{
    struct uz_pmi_reply reply;
    return uz_pmi_request(&pmi1.conn, "barrier_in", "cmd=barrier_in\n", "barrier_out",
                          UZ_PMI_RC_MUST_BE_ZERO, &reply);
}

static int pmi1_get(const char *key, char *value, size_t value_len)
{
    char request[UZ_PMI_LINE_MAX];
    struct uz_pmi_reply reply;
    const char *found;
    int rc, err;
    snprintf(request, sizeof request, "cmd=get kvsname=%s key=%s\n", pmi1.kvsname, key);
    if ((err = uz_pmi_request(&pmi1.conn, "get", request, "get_result",
                              UZ_PMI_RC_LEFT_TO_CALLER, &reply)) ||
        (err = uz_pmi_reply_rc(&reply, &rc)))
        return err;
    if (rc != 0)
        return uz_pmi_fail(-ENOENT, "PMI: key '%s' not found (server rc=%d)", key, rc);
    if ((err = uz_pmi_reply_string(&reply, "value", &found)))
        return err;
    size_t len = strlen(found);
    if (len >= value_len)
        return uz_pmi_fail(-ENOBUFS, "PMI: value of key '%s' is %zu bytes, more than the "
                           "%zu-byte buffer", key, len + 1, value_len);
    memcpy(value, found, len + 1);
    return 0;
}

static int pmi1_finalize(void)
{
    struct uz_pmi_reply reply;
    int err = uz_pmi_request(&pmi1.conn, "finalize", "cmd=finalize\n", "finalize_ack",
                             UZ_PMI_RC_MUST_BE_ZERO, &reply);
    uz_pmi_conn_close(&pmi1.conn);
    return err;
}

/* Ask the server to end the job; it kills us, so wait for that rather than
 * exit and race its reading of the request. */
static void pmi1_abort(int exit_code, const char *message)
{
    char request[UZ_PMI_LINE_MAX], encoded[1024];
    int shows = pmi1.server_prints_abort_message && !pmi1.conn.broken;
    if (!shows)
        uz_pmi_abort_print(exit_code, message);
    if (pmi1.conn.broken)
        return;
    uz_pmi_percent_encode(message ? message : "", encoded, sizeof encoded);
    snprintf(request, sizeof request, "cmd=abort exitcode=%d%s%s\n", exit_code,
             shows && encoded[0] ? " message=" : "", shows ? encoded : "");
    if (uz_pmi_conn_send(&pmi1.conn, request, "abort") == 0)
        uz_pmi_abort_wait();
}

/* ------------------------------------------------------------ spawn */

/* Append "key=value\n" to a block; -1 when it does not fit. */
static int block_add(char *block, size_t cap, size_t *used, const char *key, const char *value)
{
    int n = snprintf(block + *used, cap - *used, "%s=%s\n", key, value);
    if (n < 0 || (size_t)n >= cap - *used || strchr(value, '\n'))
        return -1;
    *used += (size_t)n;
    return 0;
}

/* One "mcmd=spawn" block per program, as MPICH's simple PMI writes them
 * and Hydra (and Uzura's mpiexec) read them; the server answers once,
 * after the last (spawnssofar == totspawns).  Uzura's mpiexec adds
 * failed=<indices> to a refusal, saying which programs caused it. */
static int pmi1_spawn(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                      const char *preput_value, int *failed)
{
    enum { BLOCK = 4 * UZ_PMI_LINE_MAX };
    char *block = malloc(BLOCK), num[32], key[32];
    if (!block)
        return uz_pmi_fail(-ENOMEM, "PMI: out of memory for a spawn request");
    int err = 0;
    for (int i = 0; i < ncmds && !err; i++) {
        size_t used = 0;
        int argc = 0, bad = 0;
        while (cmds[i].argv && cmds[i].argv[argc])
            argc++;
        bad |= block_add(block, BLOCK, &used, "mcmd", "spawn");
        snprintf(num, sizeof num, "%d", cmds[i].maxprocs);
        bad |= block_add(block, BLOCK, &used, "nprocs", num);
        bad |= block_add(block, BLOCK, &used, "execname", cmds[i].command);
        snprintf(num, sizeof num, "%d", ncmds);
        bad |= block_add(block, BLOCK, &used, "totspawns", num);
        snprintf(num, sizeof num, "%d", i + 1);
        bad |= block_add(block, BLOCK, &used, "spawnssofar", num);
        snprintf(num, sizeof num, "%d", argc);
        bad |= block_add(block, BLOCK, &used, "argcnt", num);
        for (int a = 0; a < argc; a++) {
            snprintf(key, sizeof key, "arg%d", a + 1);
            bad |= block_add(block, BLOCK, &used, key, cmds[i].argv[a]);
        }
        bad |= block_add(block, BLOCK, &used, "preput_num", "1");
        bad |= block_add(block, BLOCK, &used, "preput_key_0", preput_key);
        bad |= block_add(block, BLOCK, &used, "preput_val_0", preput_value);
        snprintf(num, sizeof num, "%d", cmds[i].ninfo);
        bad |= block_add(block, BLOCK, &used, "info_num", num);
        for (int k = 0; k < cmds[i].ninfo; k++) {
            snprintf(key, sizeof key, "info_key_%d", k);
            bad |= block_add(block, BLOCK, &used, key, cmds[i].info_keys[k]);
            snprintf(key, sizeof key, "info_val_%d", k);
            bad |= block_add(block, BLOCK, &used, key, cmds[i].info_values[k]);
        }
        if (used + sizeof("endcmd\n") <= BLOCK)
            memcpy(block + used, "endcmd\n", sizeof("endcmd\n"));
        else
            bad = -1;
        if (bad)
            err = uz_pmi_fail(-E2BIG, "PMI: the spawn request for '%.80s' does not fit in %d bytes, or an "
                              "argument holds a newline", cmds[i].command, BLOCK);
        else if (i + 1 < ncmds)
            err = uz_pmi_conn_send(&pmi1.conn, block, "spawn");
    }
    struct uz_pmi_reply reply;
    int rc = 0;
    if (!err)
        err = uz_pmi_request(&pmi1.conn, "spawn", block, "spawn_result", UZ_PMI_RC_LEFT_TO_CALLER, &reply);
    free(block);
    if (!err)
        err = uz_pmi_reply_rc(&reply, &rc);
    if (err || rc == 0)
        return err;
    const char *which = uz_pmi_line_value(&reply.line, "failed");
    for (int i = 0; failed && i < ncmds; i++)
        failed[i] = 0;
    for (const char *c = which; c && *c && failed;) {
        char *end;
        long idx = strtol(c, &end, 10);
        if (end == c)
            break;
        if (idx >= 0 && idx < ncmds)
            failed[idx] = 1;
        c = *end == ',' ? end + 1 : end;
    }
    const char *msg = uz_pmi_line_value(&reply.line, "msg");
    char text[512];
    snprintf(text, sizeof text, "%s", msg ? msg : "no reason given");
    uz_pmi_percent_decode(text);
    return uz_pmi_fail(-ECHILD, "the process manager could not start the processes: %s", text);
}

const struct uz_pmi_backend uz_pmi1_backend = {
    .name = "PMI-1",
    .init = pmi1_init,
    .put = pmi1_put,
    .fence = pmi1_fence,
    .get = pmi1_get,
    .finalize = pmi1_finalize,
    .abort = pmi1_abort,
    .spawn = pmi1_spawn,
};
