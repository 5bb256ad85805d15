/*
 * pmi_client.c — the uz_pmi_* calls of pmi.h over the PMI-1 wire protocol.
 *
 * One connection per process, shared by all threads: each request and its
 * reply happen under one lock so that replies cannot be taken by the wrong
 * thread.  A process started without a process manager is a singleton and
 * never touches the wire.
 */
#include "pmi/pmi.h"
#include "pmi/pmi_connect.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_request.h"
#include "pmi/singleton_kvs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum client_state { CLIENT_UNINITIALIZED, CLIENT_READY, CLIENT_FINALIZED };

static pthread_mutex_t client_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    enum client_state state;
    struct uz_pmi_info info;
    struct uz_pmi_conn conn;
    size_t key_max;                 /* longest key and value the server takes */
    size_t value_max;
    int server_prints_abort_message; /* Uzura's mpiexec: it shows our abort message */
} client = {.conn = {.fd = -1}};

/* ---------------------------------------------------------------- init */

static int clamp_max(int announced, int ours)
{
    /* Announced maxima count the terminating '\0', as in MPICH. */
    return announced > 1 && announced < ours ? announced - 1 : ours - 1;
}

static int server_handshake(void)
{
    struct uz_pmi_reply reply;
    int err, version, kvsname_max, key_max, value_max;
    const char *kvsname;

    err = uz_pmi_request(&client.conn, "init", "cmd=init pmi_version=1 pmi_subversion=1\n",
                         "response_to_init", UZ_PMI_RC_MUST_BE_ZERO, &reply);
    if (err)
        return err;
    if (uz_pmi_line_int(&reply.line, "pmi_version", &version) == 0 && version != 1)
        return uz_pmi_fail(-EPROTONOSUPPORT, "PMI: server speaks PMI version %d, not 1: '%s'",
                           version, reply.excerpt);
    client.server_prints_abort_message = uz_pmi_line_value(&reply.line, "abort_message") != NULL;

    if ((err = uz_pmi_request(&client.conn, "get_maxes", "cmd=get_maxes\n", "maxes",
                              UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "kvsname_max", &kvsname_max)) ||
        (err = uz_pmi_reply_int(&reply, "keylen_max", &key_max)) ||
        (err = uz_pmi_reply_int(&reply, "vallen_max", &value_max)))
        return err;
    client.key_max = (size_t)clamp_max(key_max, UZ_PMI_KEY_MAX);
    client.value_max = (size_t)clamp_max(value_max, UZ_PMI_VALUE_MAX);

    if ((err = uz_pmi_request(&client.conn, "get_my_kvsname", "cmd=get_my_kvsname\n",
                              "my_kvsname", UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_string(&reply, "kvsname", &kvsname)))
        return err;
    if (!uz_pmi_token_ok(kvsname, sizeof client.info.kvsname - 1, 0) || !kvsname[0])
        return uz_pmi_fail(-EPROTO, "PMI: server gave an unusable kvsname: '%s'",
                           reply.excerpt);
    strcpy(client.info.kvsname, kvsname);

    if ((err = uz_pmi_request(&client.conn, "get_appnum", "cmd=get_appnum\n", "appnum",
                              UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "appnum", &client.info.appnum)))
        return err;

    if ((err = uz_pmi_request(&client.conn, "get_universe_size", "cmd=get_universe_size\n",
                              "universe_size", UZ_PMI_RC_MUST_BE_ZERO, &reply)) ||
        (err = uz_pmi_reply_int(&reply, "size", &client.info.universe_size)))
        return err;
    /* Hydra answers -1 when it does not know; the job itself is a lower bound. */
    if (client.info.universe_size < client.info.size)
        client.info.universe_size = client.info.size;
    (void)kvsname_max; /* our kvsname buffer is already the PMI-1 maximum */
    return 0;
}

static int client_init(void)
{
    struct uz_pmi_identity id;
    int err = uz_pmi_connect(&client.conn, &id);
    if (err)
        return err;
    memset(&client.info, 0, sizeof client.info);
    client.info.rank = id.rank;
    client.info.size = id.size;
    client.info.universe_size = id.size;
    client.info.singleton = id.singleton;
    if (id.singleton) {
        snprintf(client.info.kvsname, sizeof client.info.kvsname, "uzura_singleton_%d",
                 (int)getpid());
        client.key_max = UZ_PMI_KEY_MAX - 1;
        client.value_max = UZ_PMI_VALUE_MAX - 1;
        return 0;
    }
    if ((err = server_handshake()))
        uz_pmi_conn_close(&client.conn);
    return err;
}

int uz_pmi_init(struct uz_pmi_info *info)
{
    int err = 0;
    pthread_mutex_lock(&client_lock);
    if (client.state == CLIENT_FINALIZED)
        err = uz_pmi_fail(-EINVAL, "PMI: uz_pmi_init called after uz_pmi_finalize");
    else if (client.state == CLIENT_UNINITIALIZED && !(err = client_init()))
        client.state = CLIENT_READY;
    if (!err)
        *info = client.info;
    pthread_mutex_unlock(&client_lock);
    return err;
}

/* ---------------------------------------------------------------- key-value space */

static int require_ready(const char *call)
{
    if (client.state == CLIENT_READY)
        return 0;
    return uz_pmi_fail(-EINVAL, "PMI: %s called %s", call,
                       client.state == CLIENT_UNINITIALIZED ? "before uz_pmi_init"
                                                            : "after uz_pmi_finalize");
}

static int key_check(const char *key)
{
    if (!key[0] || !uz_pmi_token_ok(key, client.key_max, 1))
        return uz_pmi_fail(-EINVAL, "PMI: key '%.80s' is empty, longer than %zu bytes, or "
                           "contains spaces, '=' or control characters", key, client.key_max);
    return 0;
}

static int value_check(const char *key, const char *value)
{
    if (!uz_pmi_token_ok(value, client.value_max, 0))
        return uz_pmi_fail(-EINVAL, "PMI: value for key '%s' is longer than %zu bytes or "
                           "contains spaces or control characters", key, client.value_max);
    return 0;
}

static int server_put(const char *key, const char *value)
{
    char request[UZ_PMI_LINE_MAX];
    struct uz_pmi_reply reply;
    snprintf(request, sizeof request, "cmd=put kvsname=%s key=%s value=%s\n",
             client.info.kvsname, key, value);
    return uz_pmi_request(&client.conn, "put", request, "put_result", UZ_PMI_RC_MUST_BE_ZERO,
                          &reply);
}

int uz_pmi_put(const char *key, const char *value)
{
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_put");
    if (!err && !(err = key_check(key)) && !(err = value_check(key, value)))
        err = client.info.singleton ? uz_pmi_singleton_put(key, value)
                                    : server_put(key, value);
    pthread_mutex_unlock(&client_lock);
    return err;
}

int uz_pmi_fence(void)
{
    struct uz_pmi_reply reply;
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_fence");
    if (!err && !client.info.singleton)
        err = uz_pmi_request(&client.conn, "barrier_in", "cmd=barrier_in\n", "barrier_out",
                             UZ_PMI_RC_MUST_BE_ZERO, &reply);
    pthread_mutex_unlock(&client_lock);
    return err;
}

static int server_get(const char *key, char *value, size_t value_len)
{
    char request[UZ_PMI_LINE_MAX];
    struct uz_pmi_reply reply;
    const char *found;
    int rc, err;
    snprintf(request, sizeof request, "cmd=get kvsname=%s key=%s\n", client.info.kvsname, key);
    if ((err = uz_pmi_request(&client.conn, "get", request, "get_result",
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

int uz_pmi_get(const char *key, char *value, size_t value_len)
{
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_get");
    if (!err && !(err = key_check(key)))
        err = client.info.singleton ? uz_pmi_singleton_get(key, value, value_len)
                                    : server_get(key, value, value_len);
    pthread_mutex_unlock(&client_lock);
    return err;
}

/* ---------------------------------------------------------------- the end */

int uz_pmi_finalize(void)
{
    struct uz_pmi_reply reply;
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_finalize");
    if (!err && !client.info.singleton) {
        err = uz_pmi_request(&client.conn, "finalize", "cmd=finalize\n", "finalize_ack",
                             UZ_PMI_RC_MUST_BE_ZERO, &reply);
        uz_pmi_conn_close(&client.conn);
    }
    if (!err || client.state == CLIENT_READY) {
        uz_pmi_singleton_clear();
        client.state = CLIENT_FINALIZED;
    }
    pthread_mutex_unlock(&client_lock);
    return err;
}

/* The status a process that aborts with code leaves: never 0 unless asked
 * for 0, since only the low 8 bits reach the parent. */
static int abort_status(int code)
{
    return (code & 255) || code == 0 ? code & 255 : 1;
}

/* Ask the server to end the job; it kills us, so wait for that rather than
 * exit and race its reading of the request. */
static void abort_through_server(int exit_code, const char *message)
{
    char request[UZ_PMI_LINE_MAX], encoded[1024];
    uz_pmi_percent_encode(message ? message : "", encoded, sizeof encoded);
    snprintf(request, sizeof request, "cmd=abort exitcode=%d%s%s\n", exit_code,
             client.server_prints_abort_message && encoded[0] ? " message=" : "",
             client.server_prints_abort_message ? encoded : "");
    if (uz_pmi_conn_send(&client.conn, request, "abort"))
        return;
    for (int i = 0; i < 30; i++)
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
}

int uz_pmi_abort(int exit_code, const char *message)
{
    /* Another thread may hold the lock while it waits in a fence; aborting
     * must not wait for it, and only sends, so it goes ahead without. */
    int locked = pthread_mutex_trylock(&client_lock) == 0;
    int via_server = client.state == CLIENT_READY && !client.info.singleton &&
                     !client.conn.broken;
    if (message && message[0] && (!via_server || !client.server_prints_abort_message))
        fprintf(stderr, "uzura: rank %d: aborting with code %d: %s\n", client.info.rank,
                exit_code, message);
    fflush(NULL);
    if (via_server)
        abort_through_server(exit_code, message);
    if (locked)
        pthread_mutex_unlock(&client_lock);
    _exit(abort_status(exit_code));
}
