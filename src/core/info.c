/*
 * info.c — MPI_Info objects and MPI_INFO_ENV.
 *
 * MPI_INFO_ENV's contents come from info_env.c.
 *
 * An info is a small ordered list: hints rarely exceed a dozen keys, so a
 * linear search beats any index and keeps MPI_Info_get_nthkey trivial.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/info.h"

uz_info uz_info_env = { .obj = { .magic = UZ_MAGIC_INFO, .builtin = 1, .refcount = 1 } };

uz_info *uz_info_new(void)
{
    uz_info *info = uz_object_alloc(sizeof(*info));
    if (info)
        uz_object_init(&info->obj, UZ_MAGIC_INFO);
    return info;
}

static struct uz_info_entry *find(const uz_info *info, const char *key)
{
    if (!info)
        return NULL;
    for (int i = 0; i < info->nentries; i++)
        if (strcmp(info->entries[i].key, key) == 0)
            return &info->entries[i];
    return NULL;
}

const char *uz_info_lookup(const uz_info *info, const char *key)
{
    struct uz_info_entry *e = find(info, key);
    return e ? e->value : NULL;
}

/* Returns 0 or -1 (out of memory). */
int uz_info_set(uz_info *info, const char *key, const char *value)
{
    struct uz_info_entry *e = find(info, key);
    char *v = strdup(value);
    if (!v)
        return -1;
    if (e) {
        free(e->value);
        e->value = v;
        return 0;
    }
    if (info->nentries == info->capacity) {
        int cap = info->capacity ? 2 * info->capacity : 8;
        struct uz_info_entry *n = realloc(info->entries, cap * sizeof(*n));
        if (!n) {
            free(v);
            return -1;
        }
        info->entries = n;
        info->capacity = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    info->entries[info->nentries].key = k;
    info->entries[info->nentries].value = v;
    info->nentries++;
    return 0;
}

uz_info *uz_info_dup(const uz_info *src)
{
    uz_info *info = uz_info_new();
    if (!info || !src)
        return info;
    for (int i = 0; i < src->nentries; i++) {
        if (uz_info_set(info, src->entries[i].key, src->entries[i].value) != 0) {
            uz_info_free(info);
            return NULL;
        }
    }
    return info;
}

void uz_info_clear(uz_info *info)
{
    for (int i = 0; i < info->nentries; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    info->entries = NULL;
    info->nentries = info->capacity = 0;
}

void uz_info_free(uz_info *info)
{
    if (!info || info->obj.builtin)
        return;
    uz_info_clear(info);
    uz_object_free(info, sizeof(*info));
}

/* --------------------------------------------------- MPI procedures */

static int check_key(const char *key)
{
    size_t n = strlen(key);
    if (n == 0)
        return uz_err_make(MPI_ERR_INFO_KEY, "info key is empty");
    if (n >= MPI_MAX_INFO_KEY)
        return uz_err_make(MPI_ERR_INFO_KEY, "info key of %zu characters is longer than "
                           "MPI_MAX_INFO_KEY - 1 (%d)", n, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int no_memory(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory in an info object");
}

int uz_mpi_Info_create(MPI_Info *info)
{
    uz_info *i = uz_info_new();
    if (!i)
        return no_memory();
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

int uz_mpi_Info_set(uz_info *info, const char *key, const char *value)
{
    int err = check_key(key);
    if (err)
        return err;
    if (strlen(value) >= MPI_MAX_INFO_VAL)
        return uz_err_make(MPI_ERR_INFO_VALUE, "info value of %zu characters is longer than "
                           "MPI_MAX_INFO_VAL - 1 (%d)", strlen(value), MPI_MAX_INFO_VAL - 1);
    if (info->obj.builtin)
        return uz_err_make(MPI_ERR_INFO, "MPI_INFO_ENV cannot be modified");
    return uz_info_set(info, key, value) == 0 ? MPI_SUCCESS : no_memory();
}

int uz_mpi_Info_delete(uz_info *info, const char *key)
{
    int err = check_key(key);
    if (err)
        return err;
    if (info->obj.builtin)
        return uz_err_make(MPI_ERR_INFO, "MPI_INFO_ENV cannot be modified");
    struct uz_info_entry *e = find(info, key);
    if (!e)
        return uz_err_make(MPI_ERR_INFO_NOKEY, "info key \"%s\" is not set", key);
    free(e->key);
    free(e->value);
    int idx = (int)(e - info->entries);
    memmove(e, e + 1, (info->nentries - idx - 1) * sizeof(*e));
    info->nentries--;
    return MPI_SUCCESS;
}

static void copy_out(char *dst, const char *src, int len)
{
    /* The standard's `valuelen` excludes the terminating NUL (MPI_Info_get
     * writes at most valuelen characters plus the NUL). */
    strncpy(dst, src, len);
    dst[len] = '\0';
}

int uz_mpi_Info_get(uz_info *info, const char *key, int valuelen, char *value, int *flag)
{
    int err = check_key(key);
    if (err)
        return err;
    if (valuelen < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid argument valuelen = %d", valuelen);
    const char *v = uz_info_lookup(info, key);
    *flag = v != NULL;
    if (v)
        copy_out(value, v, valuelen);
    return MPI_SUCCESS;
}

int uz_mpi_Info_get_string(uz_info *info, const char *key, int *buflen, char *value, int *flag)
{
    int err = check_key(key);
    if (err)
        return err;
    const char *v = uz_info_lookup(info, key);
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    int need = (int)strlen(v) + 1;
    if (*buflen > 0) {
        int n = need < *buflen ? need - 1 : *buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = need;
    return MPI_SUCCESS;
}

int uz_mpi_Info_get_valuelen(uz_info *info, const char *key, int *valuelen, int *flag)
{
    int err = check_key(key);
    if (err)
        return err;
    const char *v = uz_info_lookup(info, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

int uz_mpi_Info_get_nkeys(uz_info *info, int *nkeys)
{
    *nkeys = info->nentries;
    return MPI_SUCCESS;
}

int uz_mpi_Info_get_nthkey(uz_info *info, int n, char *key)
{
    if (n < 0 || n >= info->nentries)
        return uz_err_make(MPI_ERR_ARG, "invalid key index %d for an info with %d keys",
                           n, info->nentries);
    strcpy(key, info->entries[n].key);
    return MPI_SUCCESS;
}

int uz_mpi_Info_dup(uz_info *info, MPI_Info *newinfo)
{
    uz_info *copy = uz_info_dup(info);
    if (!copy)
        return no_memory();
    *newinfo = (MPI_Info)copy;
    return MPI_SUCCESS;
}

int uz_mpi_Info_free(MPI_Info *info)
{
    if (*info == MPI_INFO_ENV)
        return uz_err_make(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be freed");
    uz_info *i = uz_info_get(*info);
    if (!i)
        return uz_err_make(MPI_ERR_INFO, "invalid info object (argument info)");
    uz_info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* The same keys before MPI_Init as after it (info_env.c); argc 0 means
 * "not given": the process's own command line is used. */
int uz_mpi_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    uz_info *i = uz_info_new();
    if (!i || uz_info_env_fill(i, argc, argv) != 0) {
        uz_info_free(i);
        return no_memory();
    }
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}
