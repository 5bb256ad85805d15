/*
 * mpit_listing.c — uzura_info's listing of the MPI_T interface, read
 * through MPI_T_* like any tool (before MPI_Init: MPI_T needs no job).
 * When a control variable may be written comes from the tunables' table
 * (base/params.h `when`), which is also what the library's MPI_T scopes
 * are made from; defaults come from the table too, since MPI_T has none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "base/params.h"
#include "mpit_listing.h"

static const char *datatype_name(MPI_Datatype dt)
{
    if (dt == MPI_INT) return "int";
    if (dt == MPI_UNSIGNED_LONG_LONG) return "unsigned long long";
    if (dt == MPI_DOUBLE) return "double";
    if (dt == MPI_CHAR) return "char";
    if (dt == MPI_INT64_T) return "int64_t";
    return "?";
}

static const char *class_name(int c)
{
    switch (c) {
    case MPI_T_PVAR_CLASS_STATE: return "state";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_SIZE: return "size";
    case MPI_T_PVAR_CLASS_PERCENTAGE: return "percentage";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_LOWWATERMARK: return "lowwatermark";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_AGGREGATE: return "aggregate";
    case MPI_T_PVAR_CLASS_TIMER: return "timer";
    case MPI_T_PVAR_CLASS_GENERIC: return "generic";
    }
    return "?";
}

static const char *scope_name(int s)
{
    switch (s) {
    case MPI_T_SCOPE_CONSTANT: return "constant";
    case MPI_T_SCOPE_READONLY: return "readonly";
    case MPI_T_SCOPE_LOCAL: return "local";
    case MPI_T_SCOPE_GROUP: return "group";
    case MPI_T_SCOPE_GROUP_EQ: return "group_eq";
    case MPI_T_SCOPE_ALL: return "all";
    case MPI_T_SCOPE_ALL_EQ: return "all_eq";
    }
    return "?";
}

static const char *verbosity_name(int v)
{
    static const struct { int v; const char *name; } names[] = {
        { MPI_T_VERBOSITY_USER_BASIC, "user/basic" }, { MPI_T_VERBOSITY_USER_DETAIL, "user/detail" },
        { MPI_T_VERBOSITY_USER_ALL, "user/all" }, { MPI_T_VERBOSITY_TUNER_BASIC, "tuner/basic" },
        { MPI_T_VERBOSITY_TUNER_DETAIL, "tuner/detail" }, { MPI_T_VERBOSITY_TUNER_ALL, "tuner/all" },
        { MPI_T_VERBOSITY_MPIDEV_BASIC, "mpidev/basic" }, { MPI_T_VERBOSITY_MPIDEV_DETAIL, "mpidev/detail" },
        { MPI_T_VERBOSITY_MPIDEV_ALL, "mpidev/all" },
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].v == v)
            return names[i].name;
    return "?";
}

static const char *bind_name(int b)
{
    return b == MPI_T_BIND_NO_OBJECT ? "none" : b == MPI_T_BIND_MPI_COMM ? "communicator" : "other";
}

/* When a tool may write tunable `p`, in words. */
static const char *writable_when(const struct uz_param *p)
{
    if (p->scope == UZ_PARAM_LAUNCHER)
        return "never (set by mpiexec)";
    switch (p->when) {
    case UZ_PARAM_EVERY_USE: return "any time, this rank alone";
    case UZ_PARAM_EVERY_USE_ALL_EQ: return "any time, the same value on every rank";
    case UZ_PARAM_AT_INIT: break;
    }
    return "until MPI_Init, read-only after";
}

static const struct uz_param *table_row(const char *mpit_name)
{
    for (int i = 0; i < uz_nparams; i++)
        if (strcmp(uz_params[i].name, mpit_name + 6) == 0)
            return &uz_params[i];
    return NULL;
}

static int open_mpit(void)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "uzura_info: MPI_T_init_thread failed (a bad UZURA_* value? see --params)\n");
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- cvars */

struct cvar_info {
    char name[128], desc[1024];
    int verbosity, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
};

static void cvar_info(int i, struct cvar_info *c)
{
    int name_len = sizeof(c->name), desc_len = sizeof(c->desc);
    MPI_T_cvar_get_info(i, c->name, &name_len, &c->verbosity, &c->dt, &c->en, c->desc, &desc_len, &c->bind,
                        &c->scope);
}

static void cvar_value(int i, const struct cvar_info *c, char *out, size_t len)
{
    MPI_T_cvar_handle h;
    int count;
    char buf[1024];
    snprintf(out, len, "?");
    if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS || (size_t)count * 8 > sizeof(buf))
        return;
    if (MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
        if (c->dt == MPI_CHAR) {
            snprintf(out, len, "\"%.500s\"", buf);
        } else if (c->dt == MPI_DOUBLE) {
            snprintf(out, len, "%g", *(double *)buf);
        } else if (c->dt == MPI_UNSIGNED_LONG_LONG) {
            snprintf(out, len, "%llu", *(unsigned long long *)buf);
        } else {
            int v = *(int *)buf;
            snprintf(out, len, "%d", v);
            for (int k = 0, n = 0; c->en != MPI_T_ENUM_NULL && MPI_T_enum_get_info(c->en, &n, NULL, NULL) == 0 && k < n;
                 k++) {
                char word[64];
                int wlen = sizeof(word), value;
                if (MPI_T_enum_get_item(c->en, k, &value, word, &wlen) == MPI_SUCCESS && value == v)
                    snprintf(out, len, "%s (%d)", word, v);
            }
        }
    }
    MPI_T_cvar_handle_free(&h);
}

static void print_cvar(int i, int long_form)
{
    struct cvar_info c;
    char value[600];
    cvar_info(i, &c);
    cvar_value(i, &c, value, sizeof(value));
    const struct uz_param *p = table_row(c.name);
    printf("  %-30s %-18s %-9s %-13s value %s\n", c.name, datatype_name(c.dt), scope_name(c.scope),
           verbosity_name(c.verbosity), value);
    if (!long_form)
        return;
    printf("      %s\n", c.desc);
    if (p)
        printf("      default %s; written %s\n", p->default_value[0] ? p->default_value : "\"\"", writable_when(p));
    int n = 0;
    if (c.en != MPI_T_ENUM_NULL && MPI_T_enum_get_info(c.en, &n, NULL, NULL) == MPI_SUCCESS) {
        for (int k = 0; k < n; k++) {
            char word[64];
            int wlen = sizeof(word), v;
            MPI_T_enum_get_item(c.en, k, &v, word, &wlen);
            printf("        %d = %s\n", v, word);
        }
    }
}

int uz_info_print_cvars(void)
{
    if (open_mpit())
        return 1;
    int n = 0;
    MPI_T_cvar_get_num(&n);
    printf("MPI_T control variables (%d): name, type, scope, verbosity, value\n", n);
    for (int i = 0; i < n; i++)
        print_cvar(i, 1);
    MPI_T_finalize();
    return 0;
}

int uz_info_print_param(const char *name)
{
    if (open_mpit())
        return 1;
    char full[256];
    snprintf(full, sizeof(full), "%s%s", strncmp(name, "UZURA_", 6) == 0 ? "" : "UZURA_", name);
    int idx, rc = 0;
    if (MPI_T_cvar_get_index(full, &idx) != MPI_SUCCESS) {
        fprintf(stderr, "uzura_info: %s is not a control variable (see uzura_info --params)\n", full);
        rc = 1;
    } else {
        print_cvar(idx, 1);
    }
    MPI_T_finalize();
    return rc;
}

/* ---------------------------------------------------------------- pvars */

struct pvar_info {
    char name[128], desc[512];
    int verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype dt;
};

static void pvar_info(int i, struct pvar_info *v)
{
    int name_len = sizeof(v->name), desc_len = sizeof(v->desc);
    MPI_T_enum en;
    MPI_T_pvar_get_info(i, v->name, &name_len, &v->verbosity, &v->var_class, &v->dt, &en, v->desc, &desc_len,
                        &v->bind, &v->readonly, &v->continuous, &v->atomic);
}

int uz_info_print_pvars(void)
{
    if (open_mpit())
        return 1;
    int n = 0;
    MPI_T_pvar_get_num(&n);
    printf("MPI_T performance variables (%d): name, class, type, bound to, flags\n", n);
    for (int i = 0; i < n; i++) {
        struct pvar_info v;
        pvar_info(i, &v);
        printf("  %-34s %-13s %-18s %-12s %s%s%s\n      %s\n", v.name, class_name(v.var_class),
               datatype_name(v.dt), bind_name(v.bind), v.readonly ? "readonly " : "",
               v.continuous ? "continuous " : "", v.atomic ? "atomic" : "", v.desc);
    }
    MPI_T_finalize();
    return 0;
}

/* --------------------------------------------------------------- events */

int uz_info_print_events(void)
{
    if (open_mpit())
        return 1;
    int n = 0;
    MPI_T_event_get_num(&n);
    printf("MPI_T events (%d): name, elements\n", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int name_len = sizeof(name), desc_len = sizeof(desc), num = 0;
        MPI_T_event_get_info(i, name, &name_len, NULL, NULL, NULL, &num, NULL, NULL, desc, &desc_len, NULL);
        printf("  %-34s %d x int64_t\n      %s\n", name, num, desc);
    }
    MPI_T_finalize();
    return 0;
}

int uz_info_print_categories(void)
{
    if (open_mpit())
        return 1;
    int n = 0;
    MPI_T_category_get_num(&n);
    printf("MPI_T categories (%d): name, control variables, performance variables, events\n", n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int name_len = sizeof(name), desc_len = sizeof(desc), nc, np, nsub, ne;
        MPI_T_category_get_info(i, name, &name_len, desc, &desc_len, &nc, &np, &nsub);
        MPI_T_category_get_num_events(i, &ne);
        printf("  %-12s %3d %3d %3d  %s\n", name, nc, np, ne, desc);
    }
    MPI_T_finalize();
    return 0;
}

/* ------------------------------------------------------------- markdown */

/* A table cell: no '|' or newline may break the row. */
static void cell(const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){ *s, 0 }, stdout);
}

static void category_name_of(const char *kind, int index, char *out, size_t len)
{
    int n = 0;
    snprintf(out, len, "?");
    MPI_T_category_get_num(&n);
    for (int c = 0; c < n; c++) {
        int count = 0, *list;
        if (strcmp(kind, "cvar") == 0)
            MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &count, NULL, NULL);
        else if (strcmp(kind, "pvar") == 0)
            MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, NULL, &count, NULL);
        else
            MPI_T_category_get_num_events(c, &count);
        if (!count || !(list = malloc(sizeof(int) * (size_t)count)))
            continue;
        if (strcmp(kind, "cvar") == 0)
            MPI_T_category_get_cvars(c, count, list);
        else if (strcmp(kind, "pvar") == 0)
            MPI_T_category_get_pvars(c, count, list);
        else
            MPI_T_category_get_events(c, count, list);
        for (int k = 0; k < count; k++) {
            if (list[k] == index) {
                int nlen = (int)len;
                MPI_T_category_get_info(c, out, &nlen, NULL, NULL, NULL, NULL, NULL);
            }
        }
        free(list);
    }
}

int uz_info_print_markdown(void)
{
    if (open_mpit())
        return 1;
    int n = 0;
    char cat[64];
    MPI_T_cvar_get_num(&n);
    printf("## Control variables (%d)\n\n", n);
    printf("| name | category | type | default | written | verbosity | description |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        struct cvar_info c;
        cvar_info(i, &c);
        const struct uz_param *p = table_row(c.name);
        category_name_of("cvar", i, cat, sizeof(cat));
        printf("| `%s` | %s | %s%s | `%s` | %s | %s | ", c.name, cat, datatype_name(c.dt),
               c.en != MPI_T_ENUM_NULL ? " (enum)" : "", p && p->default_value[0] ? p->default_value : "\"\"",
               p ? writable_when(p) : "?", verbosity_name(c.verbosity));
        cell(c.desc);
        printf(" |\n");
    }
    MPI_T_pvar_get_num(&n);
    printf("\n## Performance variables (%d)\n\n", n);
    printf("| name | category | class | type | bound to | readonly | continuous | atomic | description |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        struct pvar_info v;
        pvar_info(i, &v);
        category_name_of("pvar", i, cat, sizeof(cat));
        printf("| `%s` | %s | %s | %s | %s | %s | %s | %s | ", v.name, cat, class_name(v.var_class),
               datatype_name(v.dt), bind_name(v.bind), v.readonly ? "yes" : "no", v.continuous ? "yes" : "no",
               v.atomic ? "yes" : "no");
        cell(v.desc);
        printf(" |\n");
    }
    MPI_T_event_get_num(&n);
    printf("\n## Events (%d)\n\n", n);
    printf("| name | category | elements | description |\n|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int name_len = sizeof(name), desc_len = sizeof(desc), num = 0;
        MPI_T_event_get_info(i, name, &name_len, NULL, NULL, NULL, &num, NULL, NULL, desc, &desc_len, NULL);
        category_name_of("event", i, cat, sizeof(cat));
        printf("| `%s` | %s | %d x int64_t | ", name, cat, num);
        cell(desc);
        printf(" |\n");
    }
    MPI_T_category_get_num(&n);
    printf("\n## Categories (%d)\n\n| name | description |\n|---|---|\n", n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int name_len = sizeof(name), desc_len = sizeof(desc);
        MPI_T_category_get_info(i, name, &name_len, desc, &desc_len, NULL, NULL, NULL);
        printf("| `%s` | ", name);
        cell(desc);
        printf(" |\n");
    }
    MPI_T_finalize();
    return 0;
}
