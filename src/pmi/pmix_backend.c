/*
 * pmix_backend.c — PMIx through the PMIx library itself (srun --mpi=pmix,
 * Open MPI 5's mpirun/prterun, any PMIx server).
 *
 * PMIx's wire protocol is the library's own business and changes between
 * versions; its client library is what every PMIx server is tested against,
 * and it negotiates with servers of other versions.  So Uzura uses it, but
 * loads it with dlopen("libpmix.so.2") at run time: the MPI library builds
 * and runs where PMIx is absent, and says so only when a PMIx launcher
 * started it.  The headers (libpmix-dev) are needed at build time for the
 * types and constants; without them this file compiles to a backend that
 * only explains what is missing (UZ_HAVE_PMIX, set by src/pmi/pmi.cmake).
 *
 * Mapping of pmi.h onto PMIx:
 *   init      PMIx_Init; rank from it; PMIX_JOB_SIZE, PMIX_UNIV_SIZE,
 *             PMIX_LOCAL_SIZE, PMIX_NUM_NODES (job), PMIX_LOCAL_RANK,
 *             PMIX_NODEID, PMIX_APPNUM (this process)
 *   put       PMIx_Put(PMIX_GLOBAL, key, string)
 *   fence     PMIx_Commit, then PMIx_Fence over the namespace with
 *             PMIX_COLLECT_DATA, so that every get afterwards is local
 *   get       PMIx_Get from the rank that published the key.  pmi.h's keys
 *             do not name it; Uzura's end in "-<rank>" ("uz-card-3") or
 *             come from rank 0 ("uz-key"), so that rank is asked first:
 *             with PMIX_OPTIONAL (only the data the fence brought here, no
 *             wait), then without (the server answers: needed under PRRTE,
 *             whose PMIx 5 server's collected data does not reach a
 *             libpmix 4.2 client's local store), then every other rank
 *             with PMIX_OPTIONAL.  A key nobody published costs the
 *             server's wait for it (PMIx's timeout, about 2 s) before
 *             -ENOENT.  PMIX_RANK_UNDEF ("any rank") would be simpler, but
 *             libpmix 4.2 never finds it locally and asks the server, which
 *             costs that wait on every miss.
 *   abort     PMIx_Abort for the whole namespace
 *   spawn     PMIx_Spawn, when the library has it; the spawner's pair
 *             (the parents' port) goes in the children's environment
 */
#include "pmi/pmi_backend.h"
#include "pmi/pmi_error.h"
#include "pmi/pmi_launcher.h"

#include <errno.h>

#ifndef UZ_HAVE_PMIX

int uz_pmix_load(void)
{
    return uz_pmi_fail(-EPROTONOSUPPORT, "this Uzura was built without PMIx support "
                       "(libpmix-dev's pmix.h was not found when it was configured); "
                       "install libpmix-dev and rebuild");
}

static int pmix_unavailable(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    return uz_pmix_load();
}

const struct uz_pmi_backend uz_pmix_backend = {
    .name = "PMIx",
    .init = pmix_unavailable,
};

#else

#include <dlfcn.h>
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a spawned job finds the pairs its spawner put (pmix_spawn). */
#define PREPUT_ENV "UZ_PREPUT_"

/* The soname of PMIx 2.x to 5.x; -DUZ_PMIX_LIBRARY=... names another. */
#ifndef UZ_PMIX_LIBRARY
#define UZ_PMIX_LIBRARY "libpmix.so.2"
#endif

static struct {
    void *lib;
    char load_error[300];
    pmix_status_t (*init)(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo);
    pmix_status_t (*finalize)(const pmix_info_t info[], size_t ninfo);
    pmix_status_t (*put)(pmix_scope_t scope, const char key[], pmix_value_t *val);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo);
    pmix_status_t (*get)(const pmix_proc_t *proc, const char key[], const pmix_info_t info[],
                         size_t ninfo, pmix_value_t **val);
    pmix_status_t (*abort)(int status, const char msg[], pmix_proc_t procs[], size_t nprocs);
    const char *(*error_string)(pmix_status_t status);
    const char *(*get_version)(void);
    void (*value_destruct)(pmix_value_t *val);
    /* Optional (a library without it: no spawn). */
    pmix_status_t (*spawn)(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                           size_t napps, pmix_nspace_t nspace);
    pmix_proc_t me;
    int initialized;
} px;

static int job_size;

/* ---------------------------------------------------------------- loading */

static int symbol(const char *name, void *slot)
{
    void *p = dlsym(px.lib, name);
    if (!p) {
        snprintf(px.load_error, sizeof px.load_error, "%s has no %s: not a PMIx library "
                 "this Uzura can use", UZ_PMIX_LIBRARY, name);
        return -1;
    }
    memcpy(slot, &p, sizeof p);
    return 0;
}

static int load_once(void)
{
    /* RTLD_GLOBAL: PMIx's own plugins resolve the library's symbols. */
    px.lib = dlopen(UZ_PMIX_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!px.lib) {
        snprintf(px.load_error, sizeof px.load_error, "cannot load %s (%s); install the "
                 "PMIx library (Debian: apt-get install libpmix2) or put its directory in "
                 "LD_LIBRARY_PATH", UZ_PMIX_LIBRARY, dlerror());
        return -1;
    }
    if (symbol("PMIx_Init", &px.init) || symbol("PMIx_Finalize", &px.finalize) ||
        symbol("PMIx_Put", &px.put) || symbol("PMIx_Commit", &px.commit) ||
        symbol("PMIx_Fence", &px.fence) || symbol("PMIx_Get", &px.get) ||
        symbol("PMIx_Abort", &px.abort) || symbol("PMIx_Error_string", &px.error_string) ||
        symbol("PMIx_Get_version", &px.get_version) ||
        symbol("PMIx_Value_destruct", &px.value_destruct)) {
        dlclose(px.lib);
        px.lib = NULL;
        return -1;
    }
    void *spawn = dlsym(px.lib, "PMIx_Spawn");
    memcpy(&px.spawn, &spawn, sizeof spawn);
    return 0;
}

int uz_pmix_load(void)
{
    static int tried, failed;
    if (!tried) {
        tried = 1;
        failed = load_once();
    }
    return failed ? uz_pmi_fail(-ELIBACC, "%s", px.load_error) : 0;
}

/* ---------------------------------------------------------------- helpers */

static int pmix_fail(pmix_status_t rc, const char *what)
{
    return uz_pmi_fail(rc == PMIX_ERR_NOT_FOUND ? -ENOENT : -EIO, "PMIx: %s failed: %s (%d)",
                       what, px.error_string(rc), (int)rc);
}

static void info_flag(pmix_info_t *info, const char *key)
{
    memset(info, 0, sizeof *info);
    snprintf(info->key, sizeof info->key, "%s", key);
    info->value.type = PMIX_BOOL;
    info->value.data.flag = true;
}

static pmix_proc_t proc_of(pmix_rank_t rank)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof p);
    memcpy(p.nspace, px.me.nspace, sizeof p.nspace);
    p.rank = rank;
    return p;
}

/* A whole number, whatever integer type the server chose for it. */
static int value_number(const pmix_value_t *v, long *out)
{
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT64: *out = (long)v->data.uint64; return 0;
    case PMIX_UINT: *out = (long)v->data.uint; return 0;
    case PMIX_INT: *out = v->data.integer; return 0;
    case PMIX_INT32: *out = v->data.int32; return 0;
    case PMIX_INT16: *out = v->data.int16; return 0;
    case PMIX_INT64: *out = (long)v->data.int64; return 0;
    case PMIX_SIZE: *out = (long)v->data.size; return 0;
    case PMIX_PROC_RANK: *out = (long)v->data.rank; return 0;
    default: return -1;
    }
}

/* A number the server knows about rank (PMIX_RANK_WILDCARD: the job);
 * -ENOENT when it has none.  PMIX_OPTIONAL: never wait for one. */
static int attribute(pmix_rank_t rank, const char *key, long *out)
{
    pmix_proc_t p = proc_of(rank);
    pmix_info_t optional;
    pmix_value_t *v = NULL;
    info_flag(&optional, PMIX_OPTIONAL);
    pmix_status_t rc = px.get(&p, key, &optional, 1, &v);
    if (rc != PMIX_SUCCESS || !v)
        return rc == PMIX_SUCCESS ? -ENOENT : pmix_fail(rc, key);
    int bad = value_number(v, out);
    px.value_destruct(v);
    free(v);
    if (bad)
        return uz_pmi_fail(-EPROTO, "PMIx: %s is not a number", key);
    return 0;
}

/* ---------------------------------------------------------------- init */

static int job_attributes(struct uz_pmi_info *info)
{
    long n;
    int err = attribute(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &n);
    if (err)
        return err == -ENOENT ? uz_pmi_fail(-EPROTO, "PMIx: the server gives no %s",
                                            PMIX_JOB_SIZE) : err;
    info->size = job_size = (int)n;
    info->universe_size =
        attribute(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &n) == 0 && n > info->size ? (int)n
                                                                                 : info->size;
    if (attribute(px.me.rank, PMIX_APPNUM, &n) == 0)
        info->appnum = (int)n;
    if (attribute(px.me.rank, PMIX_LOCAL_RANK, &n) == 0)
        info->local_rank = (int)n;
    if (attribute(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &n) == 0)
        info->local_size = (int)n;
    if (attribute(px.me.rank, PMIX_NODEID, &n) == 0)
        info->node_id = (int)n;
    if (attribute(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, &n) == 0)
        info->num_nodes = (int)n;
    return 0;
}

static int pmix_init(struct uz_pmi_info *info, size_t *key_max, size_t *value_max)
{
    int err = uz_pmix_load();
    if (err)
        return err;
    pmix_status_t rc = px.init(&px.me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return uz_pmi_fail(-EIO, "PMIx: PMIx_Init failed: %s (%d): the launcher's PMIx "
                           "server (PMIX_SERVER_URI*) could not be reached or refused this "
                           "client (library: %s)", px.error_string(rc), (int)rc,
                           px.get_version());
    px.initialized = 1;
    info->rank = (int)px.me.rank;
    /* Slurm's namespace (slurm.pmix.<job>.<step>) repeats when a fresh
     * slurmctld counts jobs from 1 again, or in another cluster on this
     * machine; the name must be unique among the jobs running here, since it
     * names the job's shared memory.  srun's port tells such jobs apart. */
    const char *srun_port = getenv("SLURM_STEP_LAUNCHER_PORT");
    int n = snprintf(info->kvsname, sizeof info->kvsname, "%.200s", px.me.nspace);
    if (srun_port)
        snprintf(info->kvsname + n, sizeof info->kvsname - (size_t)n, "-%.16s", srun_port);
    if ((err = job_attributes(info))) {
        px.finalize(NULL, 0);
        px.initialized = 0;
    }
    return err;
}

/* ---------------------------------------------------------------- key-value space */

static int pmix_put(const char *key, const char *value)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value;   /* PMIx_Put copies it */
    pmix_status_t rc = px.put(PMIX_GLOBAL, key, &v);
    return rc == PMIX_SUCCESS ? 0 : pmix_fail(rc, "PMIx_Put");
}

static int pmix_fence(void)
{
    pmix_info_t collect;
    pmix_status_t rc = px.commit();
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "PMIx_Commit");
    info_flag(&collect, PMIX_COLLECT_DATA);
    rc = px.fence(NULL, 0, &collect, 1);
    return rc == PMIX_SUCCESS ? 0 : pmix_fail(rc, "PMIx_Fence");
}

/* Which rank probably published key: Uzura's keys end in "-<rank>"
 * ("uz-card-3"); others (the job key) come from rank 0. */
static int publisher_hint(const char *key)
{
    const char *dash = strrchr(key, '-');
    char *end;
    long r = dash && dash[1] ? strtol(dash + 1, &end, 10) : 0;
    return dash && dash[1] && !*end && r >= 0 && r < job_size ? (int)r : 0;
}

/* key as published by rank: with optional, only from the data the last
 * fence brought here (never ask the server, never wait); without, asking
 * the server when it is not here. */
static pmix_status_t get_from(pmix_rank_t rank, const char *key, int optional,
                              pmix_value_t **v)
{
    pmix_proc_t p = proc_of(rank);
    pmix_info_t info;
    info_flag(&info, PMIX_OPTIONAL);
    *v = NULL;
    pmix_status_t rc = px.get(&p, key, optional ? &info : NULL, optional ? 1 : 0, v);
    if (rc == PMIX_SUCCESS && !*v)
        return PMIX_ERR_NOT_FOUND;
    return rc == PMIX_ERR_TIMEOUT ? PMIX_ERR_NOT_FOUND : rc;
}

/* Where to look, cheapest first (see the top of the file). */
static pmix_status_t find(const char *key, pmix_value_t **v)
{
    int hint = publisher_hint(key);
    pmix_status_t rc = get_from((pmix_rank_t)hint, key, 1, v);
    if (rc == PMIX_ERR_NOT_FOUND)
        rc = get_from((pmix_rank_t)hint, key, 0, v);
    for (int r = 0; r < job_size && rc == PMIX_ERR_NOT_FOUND; r++)
        if (r != hint)
            rc = get_from((pmix_rank_t)r, key, 1, v);
    return rc;
}

/* A pair the spawning job put for us (pmix_spawn): PMIx has no "preput",
 * so it came in the environment. */
static int preput_get(const char *key, char *value, size_t value_len)
{
    char name[128];
    snprintf(name, sizeof name, "%s%s", PREPUT_ENV, key);
    const char *text = getenv(name);
    if (!text)
        return uz_pmi_fail(-ENOENT, "PMIx: key '%s' not found", key);
    if (strlen(text) >= value_len)
        return uz_pmi_fail(-ENOBUFS, "PMIx: value of key '%s' is %zu bytes, more than the "
                           "%zu-byte buffer", key, strlen(text) + 1, value_len);
    strcpy(value, text);
    return 0;
}

static int pmix_get(const char *key, char *value, size_t value_len)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = find(key, &v);
    if (rc == PMIX_ERR_NOT_FOUND)
        return preput_get(key, value, value_len);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "PMIx_Get");
    int err = 0;
    if (v->type != PMIX_STRING || !v->data.string)
        err = uz_pmi_fail(-EPROTO, "PMIx: key '%s' holds type %d, not a string", key,
                          (int)v->type);
    else if (strlen(v->data.string) >= value_len)
        err = uz_pmi_fail(-ENOBUFS, "PMIx: value of key '%s' is %zu bytes, more than the "
                          "%zu-byte buffer", key, strlen(v->data.string) + 1, value_len);
    else
        strcpy(value, v->data.string);
    px.value_destruct(v);
    free(v);
    return err;
}

/* ---------------------------------------------------------------- spawn */

/* PMIx_Spawn: one pmix_app_t per program.  PMIx has no "preput", so the
 * pair travels in the new processes' environment (PREPUT_ENV<key>, read
 * back by pmix_get), with PMI_SPAWNED=1 saying to look for it.  PRRTE
 * serves the call (it starts the job in its own DVM); Slurm's PMIx plugin
 * does not, and its refusal comes back with the server's words. */
static int pmix_spawn(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                      const char *preput_value, int *failed)
{
    if (!px.spawn)
        return uz_pmi_fail(-ENOTSUP, "PMIx: %s has no PMIx_Spawn", UZ_PMIX_LIBRARY);
    pmix_app_t *apps = calloc((size_t)ncmds, sizeof *apps);
    char *pair = NULL;
    char *env[3] = {"PMI_SPAWNED=1", NULL, NULL};
    if (!apps || asprintf(&pair, "%s%s=%s", PREPUT_ENV, preput_key, preput_value) < 0) {
        free(apps);
        return uz_pmi_fail(-ENOMEM, "PMIx: out of memory for a spawn request");
    }
    env[1] = pair;
    int err = 0;
    for (int i = 0; i < ncmds && !err; i++) {
        int argc = 0;
        while (cmds[i].argv && cmds[i].argv[argc])
            argc++;
        /* PMIx's argv starts with the program, as main() sees it. */
        char **argv = calloc((size_t)argc + 2, sizeof *argv);
        pmix_info_t *info = cmds[i].ninfo ? calloc((size_t)cmds[i].ninfo, sizeof *info) : NULL;
        if (!argv || (cmds[i].ninfo && !info)) {
            free(argv);
            free(info);
            err = uz_pmi_fail(-ENOMEM, "PMIx: out of memory for a spawn request");
            break;
        }
        argv[0] = (char *)cmds[i].command;
        for (int a = 0; a < argc; a++)
            argv[a + 1] = cmds[i].argv[a];
        size_t ninfo = 0;
        for (int j = 0; j < cmds[i].ninfo; j++) {
            /* MPI's reserved keys, as PMIx names them; "wdir" is the app's cwd. */
            const char *k = cmds[i].info_keys[j], *v = cmds[i].info_values[j];
            const char *pk = strcmp(k, "host") == 0 ? PMIX_HOST : strcmp(k, "hostfile") == 0
                                 ? PMIX_HOSTFILE : strcmp(k, "path") == 0 ? PMIX_PREFIX : NULL;
            if (strcmp(k, "wdir") == 0)
                apps[i].cwd = (char *)v;
            if (!pk)
                continue;
            snprintf(info[ninfo].key, sizeof info[ninfo].key, "%s", pk);
            info[ninfo].value.type = PMIX_STRING;
            info[ninfo].value.data.string = (char *)v;
            ninfo++;
        }
        apps[i].cmd = (char *)cmds[i].command;
        apps[i].argv = argv;
        apps[i].env = env;
        apps[i].maxprocs = cmds[i].maxprocs;
        apps[i].info = info;
        apps[i].ninfo = ninfo;
    }
    pmix_nspace_t nspace;
    memset(nspace, 0, sizeof nspace);
    pmix_status_t rc = err ? PMIX_ERROR : px.spawn(NULL, 0, apps, (size_t)ncmds, nspace);
    for (int i = 0; i < ncmds; i++) {
        free(apps[i].argv);
        free(apps[i].info);
    }
    free(apps);
    free(pair);
    if (err)
        return err;
    if (rc == PMIX_SUCCESS)
        return 0;
    for (int i = 0; failed && i < ncmds; i++)
        failed[i] = 1;
    if (rc == PMIX_ERR_NOT_SUPPORTED)
        return uz_pmi_fail(-ENOTSUP, "PMIx: the launcher's PMIx server (%s) does not support "
                           "PMIx_Spawn: %s (%d); under Slurm use srun --mpi=pmi2, or Uzura's "
                           "mpiexec or Open MPI's mpirun/prterun",
                           getenv("SLURM_JOB_ID") ? "Slurm" : "not named", px.error_string(rc),
                           (int)rc);
    return pmix_fail(rc, "PMIx_Spawn");
}

/* ---------------------------------------------------------------- the end */

static int pmix_finalize(void)
{
    pmix_status_t rc = px.finalize(NULL, 0);
    px.initialized = 0;
    return rc == PMIX_SUCCESS ? 0 : pmix_fail(rc, "PMIx_Finalize");
}

static void pmix_abort(int exit_code, const char *message)
{
    uz_pmi_abort_print(exit_code, message);
    fflush(NULL);
    /* NULL procs: every process of our namespace.  Returns once the server
     * has the request; it then kills the job. */
    if (px.abort(exit_code, message && message[0] ? message : "MPI_Abort", NULL, 0) ==
        PMIX_SUCCESS)
        uz_pmi_abort_wait();
}

const struct uz_pmi_backend uz_pmix_backend = {
    .name = "PMIx",
    .init = pmix_init,
    .put = pmix_put,
    .fence = pmix_fence,
    .get = pmix_get,
    .finalize = pmix_finalize,
    .abort = pmix_abort,
    .spawn = pmix_spawn,
};

#endif /* UZ_HAVE_PMIX */
