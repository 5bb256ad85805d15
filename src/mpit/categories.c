/*
 * categories.c — MPI_T categories: "uzura" holds every other one; each
 * layer or transport has one, holding its tunables (by the name's prefix,
 * which already says what a tunable belongs to), its performance
 * variables and its events.  Members are found by looking at each
 * variable's category when asked, so no list of members is kept twice.
 */
#include <stdio.h>
#include <string.h>

#include "mpit/mpit.h"

enum { MAX_CATEGORIES = 32, ROOT = 0 };
static struct {
    char name[48];
    char desc[160];
} cats[MAX_CATEGORIES];
static int ncats;

/* Tunables by the start of their name (first match wins); "=" marks a
 * whole name. */
static const struct {
    const char *prefix;
    const char *category;
} by_prefix[] = {
    { "=VERBOSE", "general" },
    { "EAGER_LIMIT", "pt2pt" }, { "NET_EAGER_LIMIT", "pt2pt" }, { "WAIT_", "pt2pt" },
    { "ASYNC_PROGRESS", "rma" },
    { "IO_", "io" },
    { "=NET", "network" }, { "=NET_IF", "network" },
    { "SHM", "shm" }, { "TCP_", "tcp" }, { "OFI_", "ofi" }, { "UDP_", "udp" },
    { "COLL_", "coll" },
    { "HWLOC", "topology" }, { "BIND_TO", "topology" }, { "MAP_BY", "topology" },
};

static const struct {
    const char *name, *desc;
} fixed[] = {
    { "uzura", "Everything Uzura lets a tool see: every other category" },
    { "general", "What the library reports about itself" },
    { "pt2pt", "The request layer: eager and rendezvous protocols, matching queues, waiting" },
    { "rma", "One-sided communication" },
    { "io", "MPI-IO and its collective buffering" },
    { "network", "Choice of network transports between hosts" },
    { "coll", "Collective algorithms and where the automatic choice switches" },
    { "topology", "The machine's topology and process binding" },
    { "launcher", "Values mpiexec gives each rank" },
    { "self", "The transport of a rank to itself" },
    { "shm", "The shared-memory transport between ranks of one host" },
    { "tcp", "The tcp transport: one connection per peer pair" },
    { "udp", "The udp transport: the GigaE PM reliable-datagram protocol" },
    { "ofi", "The ofi transport: libfabric" },
};

int uz_mpit_category_of(const char *name, const char *desc)
{
    for (int i = 0; i < ncats; i++)
        if (strcmp(cats[i].name, name) == 0)
            return i;
    if (ncats == MAX_CATEGORIES)
        return ROOT;
    snprintf(cats[ncats].name, sizeof(cats[ncats].name), "%s", name);
    snprintf(cats[ncats].desc, sizeof(cats[ncats].desc), "%s", desc);
    return ncats++;
}

int uz_mpit_categories_build(void)
{
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        uz_mpit_category_of(fixed[i].name, fixed[i].desc);
    return 0;
}

int uz_mpit_param_category(int param_index)
{
    const struct uz_param *p = &uz_params[param_index];
    if (p->scope == UZ_PARAM_LAUNCHER)
        return uz_mpit_category_of("launcher", "");
    for (size_t i = 0; i < sizeof(by_prefix) / sizeof(by_prefix[0]); i++) {
        const char *pre = by_prefix[i].prefix;
        int match = pre[0] == '=' ? strcmp(p->name, pre + 1) == 0 : strncmp(p->name, pre, strlen(pre)) == 0;
        if (match)
            return uz_mpit_category_of(by_prefix[i].category, "");
    }
    return uz_mpit_category_of("general", "");
}

/* ------------------------------------------------------------ members */

enum member { CVARS, PVARS, EVENTS, SUBCATEGORIES };

static int member_category(enum member m, int i)
{
    switch (m) {
    case CVARS: return uz_mpit_param_category(i);
    case PVARS: return uz_mpit_pvar_at(i)->category;
    case EVENTS: return uz_mpit_event_category(i);
    case SUBCATEGORIES: return i == ROOT ? -1 : ROOT;
    }
    return -1;
}

static int member_total(enum member m)
{
    switch (m) {
    case CVARS: return uz_nparams;
    case PVARS: return uz_mpit_pvar_count();
    case EVENTS: return uz_mpit_event_count();
    case SUBCATEGORIES: return ncats;
    }
    return 0;
}

/* Writes up to `len` members of category `cat` into `out` (may be NULL
 * with len 0) and returns how many it has. */
static int members(enum member m, int cat, int len, int *out)
{
    int n = 0, total = member_total(m);
    for (int i = 0; i < total; i++) {
        if (member_category(m, i) != cat)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

static int check(int cat)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cat < 0 || cat >= ncats)
        return MPI_T_ERR_INVALID_INDEX;
    return MPI_SUCCESS;
}

int uz_mpi_T_category_get_num(int *num_cat)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = ncats;
    return MPI_SUCCESS;
}

int uz_mpi_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                               int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = check(cat_index);
    if (rc)
        return rc;
    uz_mpit_copy_string(cats[cat_index].name, name, name_len);
    uz_mpit_copy_string(cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = members(CVARS, cat_index, 0, NULL);
    if (num_pvars)
        *num_pvars = members(PVARS, cat_index, 0, NULL);
    if (num_categories)
        *num_categories = members(SUBCATEGORIES, cat_index, 0, NULL);
    return MPI_SUCCESS;
}

int uz_mpi_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = check(cat_index);
    if (rc)
        return rc;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = members(EVENTS, cat_index, 0, NULL);
    return MPI_SUCCESS;
}

int uz_mpi_T_category_get_index(const char *name, int *cat_index)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < ncats; i++) {
        if (strcmp(cats[i].name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

static int get_members(enum member m, int cat_index, int len, int indices[])
{
    int rc = check(cat_index);
    if (rc)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    members(m, cat_index, len, indices);
    return MPI_SUCCESS;
}

int uz_mpi_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(CVARS, cat_index, len, indices);
}

int uz_mpi_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(PVARS, cat_index, len, indices);
}

int uz_mpi_T_category_get_events(int cat_index, int len, int indices[])
{
    return get_members(EVENTS, cat_index, len, indices);
}

int uz_mpi_T_category_get_categories(int cat_index, int len, int indices[])
{
    return get_members(SUBCATEGORIES, cat_index, len, indices);
}

/* The categories are made once, by the first MPI_T_init_thread, and never
 * change afterwards: the number tools compare stays the same. */
int uz_mpi_T_category_changed(int *update_number)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = ncats;
    return MPI_SUCCESS;
}
