/*
 * cvars.c — MPI_T control variables: one for each row of the table of
 * tunables (base/params.c), under its environment name UZURA_<NAME>.
 *
 * When a tool may write one follows when the library reads it (the
 * table's `when`): a tunable read at MPI_Init is writable until then and
 * read-only while MPI runs (MPI_T_ERR_CVAR_SET_NOT_NOW); one read on every
 * use is writable at any time, the collectives' choices with the same value
 * on every rank (MPI_T_SCOPE_ALL_EQ); the launcher's never.  A value
 * written while MPI is not running also goes into the environment, which
 * MPI_Init parses again, so it takes effect there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "mpit/mpit.h"

enum { CVAR_STRING_MAX = 512 };     /* MPI_CHAR elements of a string variable */

struct MPI_T_cvar_handle_t {
    struct MPI_T_cvar_handle_t *next;
    int index;
};
static struct MPI_T_cvar_handle_t *cvar_handles;

/* ------------------------------------------------------------ describing */

int uz_mpit_cvar_scope(const struct uz_param *p)
{
    if (p->scope == UZ_PARAM_LAUNCHER)
        return MPI_T_SCOPE_CONSTANT;
    switch (p->when) {
    case UZ_PARAM_EVERY_USE: return MPI_T_SCOPE_LOCAL;
    case UZ_PARAM_EVERY_USE_ALL_EQ: return MPI_T_SCOPE_ALL_EQ;
    case UZ_PARAM_AT_INIT: break;
    }
    return uz_is_running() ? MPI_T_SCOPE_READONLY : MPI_T_SCOPE_LOCAL;
}

/* Users see what says what the library does; tuners the protocol's knobs;
 * the launcher's settings are for developers. */
int uz_mpit_cvar_verbosity(const struct uz_param *p)
{
    if (p->scope == UZ_PARAM_LAUNCHER)
        return MPI_T_VERBOSITY_MPIDEV_BASIC;
    if (strcmp(p->name, "VERBOSE") == 0)
        return MPI_T_VERBOSITY_USER_BASIC;
    static const char *const detail[] = { "UDP_", "TCP_", "OFI_", "SHM_" };
    for (size_t i = 0; i < sizeof(detail) / sizeof(detail[0]); i++)
        if (strncmp(p->name, detail[i], strlen(detail[i])) == 0)
            return MPI_T_VERBOSITY_TUNER_DETAIL;
    return MPI_T_VERBOSITY_TUNER_BASIC;
}

MPI_Datatype uz_mpit_cvar_datatype(const struct uz_param *p)
{
    switch (p->type) {
    case UZ_PARAM_SIZE: return MPI_UNSIGNED_LONG_LONG;
    case UZ_PARAM_DOUBLE: return MPI_DOUBLE;
    case UZ_PARAM_STRING: return MPI_CHAR;
    case UZ_PARAM_BOOL:
    case UZ_PARAM_INT:
    case UZ_PARAM_ENUM: break;
    }
    return MPI_INT;
}

int uz_mpit_cvar_count(const struct uz_param *p)
{
    return p->type == UZ_PARAM_STRING ? CVAR_STRING_MAX : 1;
}

static int valid_index(int i)
{
    return i >= 0 && i < uz_nparams;
}

int uz_mpi_T_cvar_get_num(int *num_cvar)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = uz_nparams;
    return MPI_SUCCESS;
}

int uz_mpi_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                           MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    const struct uz_param *p = &uz_params[cvar_index];
    char text[1024];
    snprintf(text, sizeof(text), "UZURA_%s", p->name);
    uz_mpit_copy_string(text, name, name_len);
    if (p->choices) {
        char words[512];
        uz_param_choice_words(p, words, sizeof(words));
        snprintf(text, sizeof(text), "%s; one of %s", p->help, words);
    } else {
        snprintf(text, sizeof(text), "%s", p->help);
    }
    uz_mpit_copy_string(text, desc, desc_len);
    if (verbosity)
        *verbosity = uz_mpit_cvar_verbosity(p);
    if (datatype)
        *datatype = uz_mpit_cvar_datatype(p);
    if (enumtype)
        *enumtype = uz_mpit_enum_handle(uz_mpit_param_enum(cvar_index));
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = uz_mpit_cvar_scope(p);
    return MPI_SUCCESS;
}

int uz_mpi_T_cvar_get_index(const char *name, int *cvar_index)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    if (strncmp(name, "UZURA_", 6) == 0) {
        for (int i = 0; i < uz_nparams; i++) {
            if (strcmp(uz_params[i].name, name + 6) == 0) {
                *cvar_index = i;
                return MPI_SUCCESS;
            }
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

/* --------------------------------------------------------------- handles */

int uz_mpi_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle;               /* every control variable is bound to no object */
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPI_T_cvar_handle_t *h = calloc(1, sizeof(*h));
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = cvar_index;
    pthread_mutex_lock(&uz_mpit_lock);
    h->next = cvar_handles;
    cvar_handles = h;
    pthread_mutex_unlock(&uz_mpit_lock);
    *handle = h;
    *count = uz_mpit_cvar_count(&uz_params[cvar_index]);
    return MPI_SUCCESS;
}

/* Is `h` a live handle?  Called with uz_mpit_lock held. */
static int live(const struct MPI_T_cvar_handle_t *h)
{
    for (const struct MPI_T_cvar_handle_t *x = cvar_handles; x; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

int uz_mpi_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!handle)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&uz_mpit_lock);
    for (struct MPI_T_cvar_handle_t **x = &cvar_handles; *x; x = &(*x)->next) {
        if (*x == *handle) {
            struct MPI_T_cvar_handle_t *h = *x;
            *x = h->next;
            free(h);
            pthread_mutex_unlock(&uz_mpit_lock);
            *handle = MPI_T_CVAR_HANDLE_NULL;
            return MPI_SUCCESS;
        }
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return MPI_T_ERR_INVALID_HANDLE;
}

void uz_mpit_cvar_free_all(void)
{
    while (cvar_handles) {
        struct MPI_T_cvar_handle_t *h = cvar_handles;
        cvar_handles = h->next;
        free(h);
    }
}

/* ------------------------------------------------------ reading, writing */

static void read_value(const struct uz_param *p, void *buf)
{
    const void *slot = (const char *)&uz_config + p->offset;
    switch (p->type) {
    case UZ_PARAM_BOOL:
    case UZ_PARAM_INT:
    case UZ_PARAM_ENUM: memcpy(buf, slot, sizeof(int)); break;
    case UZ_PARAM_SIZE: {
        unsigned long long v = *(const size_t *)slot;
        memcpy(buf, &v, sizeof(v));
        break;
    }
    case UZ_PARAM_DOUBLE: memcpy(buf, slot, sizeof(double)); break;
    case UZ_PARAM_STRING: {
        const char *s = *(char *const *)slot ? *(char *const *)slot : "";
        snprintf(buf, CVAR_STRING_MAX, "%s", s);
        break;
    }
    }
}

int uz_mpi_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_mutex_lock(&uz_mpit_lock);
    if (!live(handle)) {
        pthread_mutex_unlock(&uz_mpit_lock);
        return MPI_T_ERR_INVALID_HANDLE;
    }
    int rc = MPI_SUCCESS;
    if (!buf) {
        rc = MPI_T_ERR_INVALID;
    } else {
        uz_lock();
        read_value(&uz_params[handle->index], buf);
        uz_unlock();
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

/* The text the table's parser takes for a value given as the variable's
 * datatype; -1 when no text says it. */
static int value_text(const struct uz_param *p, const void *buf, char *text, size_t len)
{
    int i;
    switch (p->type) {
    case UZ_PARAM_BOOL:
        memcpy(&i, buf, sizeof(i));
        snprintf(text, len, "%d", i != 0);
        return 0;
    case UZ_PARAM_INT:
        memcpy(&i, buf, sizeof(i));
        snprintf(text, len, "%d", i);
        return 0;
    case UZ_PARAM_ENUM:
        memcpy(&i, buf, sizeof(i));
        for (const struct uz_param_choice *c = p->choices; c->word; c++) {
            if (c->value == i) {
                snprintf(text, len, "%s", c->word);
                return 0;
            }
        }
        return -1;
    case UZ_PARAM_SIZE: {
        unsigned long long v;
        memcpy(&v, buf, sizeof(v));
        snprintf(text, len, "%llu", v);
        return 0;
    }
    case UZ_PARAM_DOUBLE: {
        double d;
        memcpy(&d, buf, sizeof(d));
        snprintf(text, len, "%.17g", d);
        return 0;
    }
    case UZ_PARAM_STRING:
        if (!memchr(buf, '\0', CVAR_STRING_MAX) || strlen(buf) >= len)
            return -1;
        snprintf(text, len, "%s", (const char *)buf);
        return 0;
    }
    return -1;
}

static int write_value(const struct uz_param *p, const void *buf)
{
    if (p->scope == UZ_PARAM_LAUNCHER)
        return MPI_T_ERR_CVAR_SET_NEVER;
    int running = uz_is_running();
    if (p->when == UZ_PARAM_AT_INIT && running)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    char text[CVAR_STRING_MAX], err[256];
    if (value_text(p, buf, text, sizeof(text)) != 0)
        return MPI_T_ERR_INVALID;
    uz_lock();
    int bad = uz_param_set(p, text, err, sizeof(err));
    uz_unlock();
    if (bad)
        return MPI_T_ERR_INVALID;
    if (!running) {
        /* MPI_Init parses the environment again: let it find this value. */
        char var[128];
        snprintf(var, sizeof(var), "UZURA_%s", p->name);
        if (setenv(var, text, 1) != 0)
            return MPI_T_ERR_MEMORY;
    }
    return MPI_SUCCESS;
}

int uz_mpi_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc;
    if (!live(handle))
        rc = MPI_T_ERR_INVALID_HANDLE;
    else if (!buf)
        rc = MPI_T_ERR_INVALID;
    else
        rc = write_value(&uz_params[handle->index], buf);
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}
