/*
 * pmi_client.c — the uz_pmi_* calls of pmi.h: checks, locking, and the one
 * backend (PMI-1, PMI-2, PMIx or singleton, see pmi_backend.h) chosen from
 * the environment at init.
 *
 * One connection per process, shared by all threads: each request and its
 * reply happen under one lock so that replies cannot be taken by the wrong
 * thread.
 */
#include "pmi/pmi.h"
#include "pmi/pmi_backend.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_launcher.h"
#include "pmi/wire_format.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum client_state { CLIENT_UNINITIALIZED, CLIENT_READY, CLIENT_FINALIZED };

static pthread_mutex_t client_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    enum client_state state;
    const struct uz_pmi_backend *backend;
    struct uz_pmi_info info;
    size_t key_max;                 /* longest key and value the server takes */
    size_t value_max;
} client;

/* ---------------------------------------------------------------- init */

static int client_init(void)
{
    const struct uz_pmi_backend *backend;
    int err = uz_pmi_launcher_choose(&backend);
    if (err)
        return err;
    memset(&client.info, 0, sizeof client.info);
    client.info.local_rank = client.info.local_size = -1;
    client.info.node_id = client.info.num_nodes = -1;
    snprintf(client.info.protocol, sizeof client.info.protocol, "%s", backend->name);
    client.key_max = UZ_PMI_KEY_MAX - 1;
    client.value_max = UZ_PMI_VALUE_MAX - 1;
    if ((err = backend->init(&client.info, &client.key_max, &client.value_max)))
        return err;
    if (client.info.size < 1 || client.info.rank < 0 || client.info.rank >= client.info.size)
        return uz_pmi_fail(-EPROTO, "PMI: %s server gave rank %d of size %d",
                           backend->name, client.info.rank, client.info.size);
    /* Uzura's mpiexec and Hydra say it in the environment (PMI-1). */
    const char *spawned = getenv("PMI_SPAWNED");
    if (spawned && strcmp(spawned, "1") == 0)
        client.info.spawned = 1;
    client.backend = backend;
    return 0;
}

int uz_pmi_spawned(void)
{
    pthread_mutex_lock(&client_lock);
    int spawned = client.state == CLIENT_READY && client.info.spawned;
    pthread_mutex_unlock(&client_lock);
    return spawned;
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

static unsigned key_epoch;

void uz_pmi_key_epoch(unsigned epoch)
{
    pthread_mutex_lock(&client_lock);
    key_epoch = epoch;
    pthread_mutex_unlock(&client_lock);
}

/* The key as the server sees it (uz_pmi_key_epoch). */
static const char *epoch_key(const char *key, char *buf, size_t len)
{
    if (key_epoch == 0)
        return key;
    snprintf(buf, len, "%s.e%u", key, key_epoch);
    return buf;
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

int uz_pmi_put(const char *key, const char *value)
{
    char buf[UZ_PMI_KEY_MAX + 16];
    pthread_mutex_lock(&client_lock);
    key = epoch_key(key, buf, sizeof buf);
    int err = require_ready("uz_pmi_put");
    if (!err && !(err = key_check(key)) && !(err = value_check(key, value)))
        err = client.backend->put(key, value);
    pthread_mutex_unlock(&client_lock);
    return err;
}

int uz_pmi_fence(void)
{
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_fence");
    if (!err)
        err = client.backend->fence();
    pthread_mutex_unlock(&client_lock);
    return err;
}

int uz_pmi_get(const char *key, char *value, size_t value_len)
{
    char buf[UZ_PMI_KEY_MAX + 16];
    pthread_mutex_lock(&client_lock);
    key = epoch_key(key, buf, sizeof buf);
    int err = require_ready("uz_pmi_get");
    if (!err && !(err = key_check(key)))
        err = client.backend->get(key, value, value_len);
    pthread_mutex_unlock(&client_lock);
    return err;
}

int uz_pmi_spawn(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                 const char *preput_value, int *failed)
{
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_spawn");
    if (!err && !client.backend->spawn)
        err = client.info.singleton
            ? uz_pmi_fail(-ENOTSUP, "no process manager to start processes: run the program with mpiexec")
            : uz_pmi_fail(-ENOTSUP, "the process manager (%s, reached through %s) offers no spawn that "
                          "Uzura speaks yet; run under Uzura's mpiexec or MPICH's Hydra (PMI-1)",
                          getenv("SLURM_JOB_ID") ? "Slurm" : getenv("PMIX_NAMESPACE") ? "a PMIx server"
                          : "the launcher", client.backend->name);
    if (!err)
        err = client.backend->spawn(cmds, ncmds, preput_key, preput_value, failed);
    pthread_mutex_unlock(&client_lock);
    return err;
}

/* ---------------------------------------------------------------- the end */

int uz_pmi_finalize(void)
{
    pthread_mutex_lock(&client_lock);
    int err = require_ready("uz_pmi_finalize");
    if (!err) {
        err = client.backend->finalize();
        client.state = CLIENT_FINALIZED;
    }
    pthread_mutex_unlock(&client_lock);
    return err;
}

void uz_pmi_abort_print(int exit_code, const char *message)
{
    if (message && message[0])
        fprintf(stderr, "uzura: rank %d: aborting with code %d: %s\n", client.info.rank,
                exit_code, message);
}

void uz_pmi_abort_wait(void)
{
    fflush(NULL);
    for (int i = 0; i < 30; i++)
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
}

/* The status a process that aborts with code leaves: never 0 unless asked
 * for 0, since only the low 8 bits reach the parent. */
static int abort_status(int code)
{
    return (code & 255) || code == 0 ? code & 255 : 1;
}

int uz_pmi_abort(int exit_code, const char *message)
{
    /* Another thread may hold the lock while it waits in a fence; aborting
     * must not wait for it, and only sends, so it goes ahead without. */
    int locked = pthread_mutex_trylock(&client_lock) == 0;
    if (client.state == CLIENT_READY)
        client.backend->abort(exit_code, message);
    else
        uz_pmi_abort_print(exit_code, message);
    fflush(NULL);
    if (locked)
        pthread_mutex_unlock(&client_lock);
    _exit(abort_status(exit_code));
}
