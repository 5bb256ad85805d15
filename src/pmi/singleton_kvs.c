/*
 * singleton_kvs.c — the backend of a process started without a process
 * manager: rank 0 of 1, with its key-value space in a table of its own.
 *
 * A singleton publishes a handful of keys at most (its own business card),
 * so a list searched from the front is enough.  Callers hold the PMI lock.
 */
#include "pmi/singleton_kvs.h"
#include "pmi/pmi_backend.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct singleton_entry {
    struct singleton_entry *next;
    char *key;
    char *value;
};

static struct singleton_entry *entries;

static struct singleton_entry *entry_find(const char *key)
{
    for (struct singleton_entry *e = entries; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

int uz_pmi_singleton_put(const char *key, const char *value)
{
    struct singleton_entry *e = entry_find(key);
    char *copy = strdup(value);
    if (!copy)
        return uz_pmi_fail(-ENOMEM, "PMI: out of memory storing key '%s'", key);
    if (e) {
        free(e->value);
        e->value = copy;
        return 0;
    }
    e = calloc(1, sizeof *e);
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(copy);
        return uz_pmi_fail(-ENOMEM, "PMI: out of memory storing key '%s'", key);
    }
    e->value = copy;
    e->next = entries;
    entries = e;
    return 0;
}

int uz_pmi_singleton_get(const char *key, char *value, size_t value_len)
{
    struct singleton_entry *e = entry_find(key);
    if (!e)
        return uz_pmi_fail(-ENOENT, "PMI: key '%s' not found", key);
    size_t len = strlen(e->value);
    if (len >= value_len)
        return uz_pmi_fail(-ENOBUFS, "PMI: value of key '%s' is %zu bytes, more than "
                           "the %zu-byte buffer", key, len + 1, value_len);
    memcpy(value, e->value, len + 1);
    return 0;
}

void uz_pmi_singleton_clear(void)
{
    while (entries) {
        struct singleton_entry *e = entries;
        entries = e->next;
        free(e->key);
        free(e->value);
        free(e);
    }
}

/* ---------------------------------------------------------------- backend */

static int singleton_init(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    info->rank = 0;
    info->size = info->universe_size = 1;
    info->singleton = 1;
    info->local_rank = info->node_id = 0;
    info->local_size = info->num_nodes = 1;
    snprintf(info->kvsname, sizeof info->kvsname, "uzura_singleton_%d", (int)getpid());
    return 0;
}

static int singleton_fence(void)
{
    return 0;
}

static int singleton_finalize(void)
{
    uz_pmi_singleton_clear();
    return 0;
}

static void singleton_abort(int exit_code, const char *message)
{
    uz_pmi_abort_print(exit_code, message);
}

const struct uz_pmi_backend uz_singleton_backend = {
    .name = "singleton",
    .init = singleton_init,
    .put = uz_pmi_singleton_put,
    .fence = singleton_fence,
    .get = uz_pmi_singleton_get,
    .finalize = singleton_finalize,
    .abort = singleton_abort,
};
