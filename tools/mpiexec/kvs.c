/*
 * kvs.c — the job's key-value space: what ranks put, and get back.
 *
 * A chained hash table that doubles when it fills.  Every rank puts a few
 * keys and gets every other rank's, so with N ranks there are O(N) keys and
 * O(N²) lookups: lookups must not be linear.
 */
#include "mpiexec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kvs_entry {
    struct kvs_entry *next;
    char *key;
    char *value;
};

struct kvs {
    size_t nbuckets;    /* a power of two */
    size_t count;
    struct kvs_entry **buckets;
};

/* FNV-1a: short keys, no adversary. */
static uint64_t key_hash(const char *key)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

struct kvs *kvs_create(void)
{
    struct kvs *kvs = calloc(1, sizeof *kvs);
    if (!kvs)
        return NULL;
    kvs->nbuckets = 64;
    kvs->buckets = calloc(kvs->nbuckets, sizeof *kvs->buckets);
    if (!kvs->buckets) {
        free(kvs);
        return NULL;
    }
    return kvs;
}

void kvs_destroy(struct kvs *kvs)
{
    if (!kvs)
        return;
    for (size_t b = 0; b < kvs->nbuckets; b++) {
        while (kvs->buckets[b]) {
            struct kvs_entry *e = kvs->buckets[b];
            kvs->buckets[b] = e->next;
            free(e->key);
            free(e->value);
            free(e);
        }
    }
    free(kvs->buckets);
    free(kvs);
}

static struct kvs_entry **bucket_of(const struct kvs *kvs, const char *key)
{
    return &kvs->buckets[key_hash(key) & (kvs->nbuckets - 1)];
}

static struct kvs_entry *entry_find(const struct kvs *kvs, const char *key)
{
    for (struct kvs_entry *e = *bucket_of(kvs, key); e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static void grow(struct kvs *kvs)
{
    size_t old_n = kvs->nbuckets;
    struct kvs_entry **old = kvs->buckets;
    struct kvs_entry **fresh = calloc(old_n * 2, sizeof *fresh);
    if (!fresh)
        return;     /* longer chains, still correct */
    kvs->buckets = fresh;
    kvs->nbuckets = old_n * 2;
    for (size_t b = 0; b < old_n; b++) {
        while (old[b]) {
            struct kvs_entry *e = old[b];
            old[b] = e->next;
            struct kvs_entry **head = bucket_of(kvs, e->key);
            e->next = *head;
            *head = e;
        }
    }
    free(old);
}

/* 0, or -1 when out of memory.  A second put of a key replaces its value. */
int kvs_put(struct kvs *kvs, const char *key, const char *value)
{
    char *copy = strdup(value);
    if (!copy)
        return -1;
    struct kvs_entry *e = entry_find(kvs, key);
    if (e) {
        free(e->value);
        e->value = copy;
        return 0;
    }
    e = malloc(sizeof *e);
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(copy);
        return -1;
    }
    e->value = copy;
    if (kvs->count >= kvs->nbuckets)
        grow(kvs);
    struct kvs_entry **head = bucket_of(kvs, key);
    e->next = *head;
    *head = e;
    kvs->count++;
    return 0;
}

const char *kvs_get(const struct kvs *kvs, const char *key)
{
    struct kvs_entry *e = entry_find(kvs, key);
    return e ? e->value : NULL;
}
