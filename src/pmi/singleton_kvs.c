/*
 * singleton_kvs.c — put/get for a singleton (see singleton_kvs.h).
 *
 * A singleton publishes a handful of keys at most (its own business card),
 * so a list searched from the front is enough.  Callers hold the PMI lock.
 */
#include "pmi/singleton_kvs.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
