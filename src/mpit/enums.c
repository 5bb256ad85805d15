/*
 * enums.c — MPI_T enumerations: the words of each enum-typed tunable (the
 * collectives' algorithms, UZURA_SHM_CMA) and the transports, which the
 * performance variables name.  A handle is the address of an entry of
 * one table, so a stray pointer is told from a handle by its place.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpit/mpit.h"
#include "transport/transport_registry.h"

enum { MAX_ENUMS = 64 };
static struct uz_mpit_enum enums[MAX_ENUMS];
static int nenums;
static int transport_enum = -1;
/* enums[] entry of each tunable, -1 when it has none. */
static int *param_enum;

static int choice_item(const struct uz_mpit_enum *e, int i, const char **word)
{
    const struct uz_param_choice *c = (const struct uz_param_choice *)e->source + i;
    *word = c->word;
    return c->value;
}

static int transport_item(const struct uz_mpit_enum *e, int i, const char **word)
{
    (void)e;
    *word = uz_transport_table[i]->name;
    return i;
}

int uz_mpit_enums_build(void)
{
    static int built;
    if (built)
        return 0;
    param_enum = malloc(sizeof(int) * (size_t)uz_nparams);
    if (!param_enum)
        return -1;
    for (int i = 0; i < uz_nparams; i++) {
        const struct uz_param *p = &uz_params[i];
        param_enum[i] = -1;
        if (!p->choices || nenums == MAX_ENUMS - 1)
            continue;
        struct uz_mpit_enum *e = &enums[nenums];
        snprintf(e->name, sizeof(e->name), "UZURA_%s", p->name);
        while (p->choices[e->nitems].word)
            e->nitems++;
        e->item = choice_item;
        e->source = p->choices;
        param_enum[i] = nenums++;
    }
    struct uz_mpit_enum *t = &enums[nenums];
    snprintf(t->name, sizeof(t->name), "uzura_transports");
    t->nitems = uz_ntransports;
    t->item = transport_item;
    transport_enum = nenums++;
    built = 1;
    return 0;
}

const struct uz_mpit_enum *uz_mpit_param_enum(int param_index)
{
    if (!param_enum || param_index < 0 || param_index >= uz_nparams || param_enum[param_index] < 0)
        return NULL;
    return &enums[param_enum[param_index]];
}

const struct uz_mpit_enum *uz_mpit_transport_enum(void)
{
    return transport_enum >= 0 ? &enums[transport_enum] : NULL;
}

MPI_T_enum uz_mpit_enum_handle(const struct uz_mpit_enum *e)
{
    return e ? (MPI_T_enum)(uintptr_t)e : MPI_T_ENUM_NULL;
}

/* The entry a handle names, or NULL. */
static const struct uz_mpit_enum *enum_of(MPI_T_enum h)
{
    uintptr_t a = (uintptr_t)h, first = (uintptr_t)&enums[0];
    if (a < first || a >= first + sizeof(enums[0]) * (size_t)nenums || (a - first) % sizeof(enums[0]))
        return NULL;
    return (const struct uz_mpit_enum *)h;
}

int uz_mpi_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct uz_mpit_enum *e = enum_of(enumtype);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = e->nitems;
    uz_mpit_copy_string(e->name, name, name_len);
    return MPI_SUCCESS;
}

int uz_mpi_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct uz_mpit_enum *e = enum_of(enumtype);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= e->nitems)
        return MPI_T_ERR_INVALID_ITEM;
    const char *word;
    int v = e->item(e, index, &word);
    if (value)
        *value = v;
    uz_mpit_copy_string(word, name, name_len);
    return MPI_SUCCESS;
}
