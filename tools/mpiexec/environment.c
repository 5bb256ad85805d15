/*
 * environment.c — the environment each rank starts with.
 *
 * mpiexec's own environment, minus anything a process manager above us set
 * for *our* process (so that a launch nested under Hydra or srun cannot
 * leak that manager's PMI_* into our ranks), plus -genv/-env/-x in
 * command-line order, plus what this job tells its ranks.  The last group
 * always wins so that a user cannot break wire-up by accident.
 *
 * On another host "mpiexec's own environment" is the proxy's (what the
 * remote shell gives it); the front end sends along, as if by -genv, its
 * PATH, LD_LIBRARY_PATH and UZURA_* (all of it with -genvall) and the
 * -genv/-env/-x assignments with their values resolved on the front end
 * (environment_propagated).
 */
#include "mpiexec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Set per rank; they come first in a rank's array and are the only strings
 * it owns. */
static const char *const rank_var_names[] = {
    "PMI_FD", "PMI_RANK", "UZURA_LOCAL_RANK", "MPI_LOCALRANKID",
};
enum { RANK_VARS = sizeof rank_var_names / sizeof rank_var_names[0] };

struct env_list {
    char **vars;        /* "NAME=VALUE", malloc'd */
    size_t count, cap;
};

static const char *const stale_prefixes[] = {
    "PMI_", "PMIX_", "UZURA_JOB_", "UZURA_LOCAL_", "UZURA_NODE_ID=", "UZURA_NUM_NODES=",
    "MPI_LOCALRANKID=", "MPI_LOCALNRANKS=",
};

static int is_stale(const char *var)
{
    for (size_t i = 0; i < sizeof stale_prefixes / sizeof stale_prefixes[0]; i++)
        if (strncmp(var, stale_prefixes[i], strlen(stale_prefixes[i])) == 0)
            return 1;
    return 0;
}

/* Before any rank runs, so there is nothing to clean up yet. */
static void __attribute__((noreturn)) out_of_memory(void)
{
    fputs("mpiexec: out of memory building the environment\n", stderr);
    exit(EXIT_LAUNCH_FAILED);
}

static char *var_make(const char *name, const char *value)
{
    char *var;
    if (asprintf(&var, "%s=%s", name, value) < 0)
        out_of_memory();
    return var;
}

static char *var_copy(const char *var)
{
    char *copy = strdup(var);
    if (!copy)
        out_of_memory();
    return copy;
}

static void list_append(struct env_list *list, char *var)
{
    if (list->count + 1 >= list->cap) {
        list->cap = list->cap ? list->cap * 2 : 64;
        list->vars = realloc(list->vars, list->cap * sizeof *list->vars);
        if (!list->vars)
            out_of_memory();
    }
    list->vars[list->count++] = var;
    list->vars[list->count] = NULL;
}

static void list_set(struct env_list *list, const char *name, const char *value)
{
    size_t len = strlen(name);
    char *var = var_make(name, value);
    for (size_t i = 0; i < list->count; i++) {
        if (strncmp(list->vars[i], name, len) == 0 && list->vars[i][len] == '=') {
            free(list->vars[i]);
            list->vars[i] = var;
            return;
        }
    }
    list_append(list, var);
}

static void list_unset(struct env_list *list, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < list->count; i++) {
        if (strncmp(list->vars[i], name, len) == 0 && list->vars[i][len] == '=') {
            free(list->vars[i]);
            memmove(&list->vars[i], &list->vars[i + 1], (list->count - i) * sizeof *list->vars);
            list->count--;
            return;
        }
    }
}

static void list_set_int(struct env_list *list, const char *name, int value)
{
    char text[16];
    snprintf(text, sizeof text, "%d", value);
    list_set(list, name, text);
}

char **environment_base(const struct job *job)
{
    struct env_list list = {0};
    for (char **e = environ; *e; e++)
        if (!is_stale(*e))
            list_append(&list, var_copy(*e));
    for (int i = 0; i < job->opt->nenv; i++) {
        const struct env_assignment *a = &job->opt->env[i];
        const char *value = a->value ? a->value : getenv(a->name);
        if (value)
            list_set(&list, a->name, value);
    }
    list_set_int(&list, "PMI_SIZE", job->size);
    list_set(&list, "UZURA_JOB_ID", job->id);
    list_set(&list, "UZURA_JOB_KEY", job->key);
    list_set_int(&list, "UZURA_LOCAL_SIZE", job->nranks);
    list_set_int(&list, "UZURA_NODE_ID", job->node_id);
    list_set_int(&list, "UZURA_NUM_NODES", job->up ? job->num_nodes : 1);
    list_set_int(&list, "MPI_LOCALNRANKS", job->nranks);
    if (job->binding)
        list_set_int(&list, "UZURA_LOCAL_CPUS", job->binding->allowed_cpus);
    for (int i = 0; i < RANK_VARS; i++)
        list_unset(&list, rank_var_names[i]);     /* e.g. -genv PMI_RANK 7 */
    return list.vars;
}

char **environment_for_rank(char **base, int rank, int local_rank, int pmi_fd)
{
    size_t nbase = 0;
    while (base[nbase])
        nbase++;
    char **env = malloc((RANK_VARS + nbase + 1) * sizeof *env);
    if (!env)
        out_of_memory();
    char values[RANK_VARS][16];
    snprintf(values[0], sizeof values[0], "%d", pmi_fd);
    snprintf(values[1], sizeof values[1], "%d", rank);
    snprintf(values[2], sizeof values[2], "%d", local_rank);
    snprintf(values[3], sizeof values[3], "%d", local_rank);
    for (int i = 0; i < RANK_VARS; i++)
        env[i] = var_make(rank_var_names[i], values[i]);
    memcpy(env + RANK_VARS, base, (nbase + 1) * sizeof *env);
    return env;
}

const char *environment_lookup(char **env, const char *name)
{
    size_t len = strlen(name);
    for (char **e = env; *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

/* Whether the front end passes its own value of var on to remote ranks. */
static int propagates(const char *var, int all)
{
    if (is_stale(var))
        return 0;
    return all || strncmp(var, "PATH=", 5) == 0 || strncmp(var, "LD_LIBRARY_PATH=", 16) == 0 ||
           strncmp(var, "UZURA_", 6) == 0;
}

/* "NAME=VALUE" for every variable remote ranks get from the front end, in
 * the order they are to be set: mpiexec's own first, then -genv/-env/-x. */
char **environment_propagated(const struct mpiexec_options *opt)
{
    struct env_list list = {0};
    list_append(&list, NULL);   /* so that an empty list is an array too */
    list.count = 0;
    for (char **e = environ; *e; e++)
        if (propagates(*e, opt->genvall))
            list_append(&list, var_copy(*e));
    for (int i = 0; i < opt->nenv; i++) {
        const struct env_assignment *a = &opt->env[i];
        const char *value = a->value ? a->value : getenv(a->name);
        if (value)
            list_append(&list, var_make(a->name, value));
    }
    return list.vars;
}

void environment_base_free(char **base)
{
    for (char **e = base; *e; e++)
        free(*e);
    free(base);
}

void environment_free(char **env)
{
    for (int i = 0; i < RANK_VARS; i++)
        free(env[i]);
    free(env);
}
