/*
 * dpm_spawn.c — MPI_Comm_spawn, MPI_Comm_spawn_multiple and
 * MPI_Comm_get_parent.
 *
 * Spawning is a port meeting whose other side the process manager starts:
 * the root opens a port, asks the process manager (uz_pmi_spawn: PMI-1's
 * mcmd=spawn, which Uzura's mpiexec and Hydra serve) to start the programs
 * as one new job with the port's name in its key-value space under
 * PARENT_ROOT_PORT_NAME (the key MPICH uses), and accepts on it.  Each
 * child, in MPI_Init, finds the key (PMI_SPAWNED=1 says to look) and
 * connects over its MPI_COMM_WORLD; that intercommunicator is its parent.
 * Everything after the launch is dpm_connect.c's.
 *
 * A child that dies before it connects must not hang the parents: the
 * accept waits at most UZURA_PORT_TIMEOUT and fails with MPI_ERR_SPAWN.
 * When the process manager refuses (a missing executable), nothing is
 * started and the error codes say, per process, whether its own program
 * was the cause.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "core/dpm.h"
#include "core/info.h"
#include "pmi/pmi.h"
#include "pt2pt/proc_table.h"

static const char parent_key[] = "PARENT_ROOT_PORT_NAME";

uz_comm *uz_dpm_parent;

/* What the root needs to start the programs, and what it learns. */
struct spawn_arg {
    int count;
    struct uz_pmi_spawn_cmd *cmds;
    int total;                          /* processes asked for */
    int *errcodes;                      /* [total] at the root */
};

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Every process of a refused spawn gets a code: its own program's fault
 * or another's.  The processes of one program share one code, and those of
 * every program not at fault share another: a message lives in a ring of
 * recent ones (base/errors.c), and a code made per process pushed the first
 * processes' messages out of it once a spawn asked for more processes than
 * the ring holds, leaving them the bare class text. */
static void refused_codes(const struct spawn_arg *a, const int *failed)
{
    int innocent = MPI_SUCCESS;
    for (int i = 0, p = 0; i < a->count; i++) {
        int code;
        if (failed[i])
            code = uz_err_make(MPI_ERR_SPAWN, "program '%s' could not be started: %s",
                               a->cmds[i].command, uz_pmi_last_error());
        else if (innocent != MPI_SUCCESS)
            code = innocent;
        else
            code = innocent = uz_err_make(MPI_ERR_SPAWN, "not started, because another program "
                                          "of the same spawn could not be");
        for (int k = 0; k < a->cmds[i].maxprocs; k++)
            a->errcodes[p++] = code;
    }
}

static int meet_spawn(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    struct spawn_arg *a = arg;
    char port[MPI_MAX_PORT_NAME];
    int err = uz_port_open(port);
    if (err)
        return err;
    int *failed = calloc((size_t)a->count, sizeof(int));
    if (!failed) {
        uz_port_close(port);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    }
    int rc = uz_pmi_spawn(a->cmds, a->count, parent_key, port, failed);
    if (rc) {
        refused_codes(a, failed);
        free(failed);
        uz_port_close(port);
        /* A process manager that offers no spawn is MPI_ERR_SPAWN too:
         * the message names it. */
        return uz_err_make(MPI_ERR_SPAWN, "%s", uz_pmi_last_error());
    }
    free(failed);
    const uint8_t *secret;
    uz_lock();
    int fd = uz_port_listener(port, &secret);
    uz_unlock();
    double s = uz_config.port_timeout > 0 ? uz_config.port_timeout : 60;
    err = uz_meet_accept_until(fd, secret, mine, theirs, tag, now_ns() + (long)(s * 1e9));
    uz_port_close(port);
    if (!err && theirs->n != a->total) {
        free(theirs->descs);
        theirs->descs = NULL;
        err = uz_err_make(MPI_ERR_SPAWN, "%d processes connected back, %d were asked for",
                          theirs->n, a->total);
    }
    for (int p = 0; p < a->total; p++)
        a->errcodes[p] = err ? err : MPI_SUCCESS;
    return err;
}

/* One process's error code as it travels from the root. */
struct code_text {
    int errclass;
    char text[MPI_MAX_ERROR_STRING];
};

/* Process p's code, made from the text the root sent; the same as the
 * previous process's when the text is, for the reason refused_codes
 * shares codes. */
static int code_from_text(const struct code_text *t, int p, const int *codes)
{
    if (p > 0 && t[p].errclass == t[p - 1].errclass && strcmp(t[p].text, t[p - 1].text) == 0)
        return codes[p - 1];
    return uz_err_make(t[p].errclass, "%s", t[p].text);
}

/* A root whose arguments are wrong still takes part in the meeting, which
 * it fails, so that the others return too instead of waiting for it. */
static int meet_refuse(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    (void)mine;
    (void)theirs;
    (void)tag;
    return *(const int *)arg;
}

/* Collective part shared by both procedures: the meeting, then every
 * member gets the error codes. */
static int spawn_collective(struct spawn_arg *a, int root, uz_comm *comm, MPI_Comm *intercomm,
                            int *array_of_errcodes)
{
    int is_root = comm->rank == root;
    if (is_root && !(a->errcodes = calloc((size_t)(a->total > 0 ? a->total : 1), sizeof(int))))
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    *intercomm = MPI_COMM_NULL;
    int err = uz_dpm_meet_collective(comm, root, meet_spawn, a, intercomm);
    /* The codes reach every member: the number first, as only the root
     * knows how many processes were asked for.  An error code means
     * something only in the process that made it, so a failure travels as
     * each code's class and text, and the others make codes of their own. */
    uz_datatype *ints = uz_datatype_get(MPI_INT), *chars = uz_datatype_get(MPI_CHAR);
    int n[2] = { is_root ? a->total : 0, err != MPI_SUCCESS };
    int e2 = uz_coll_bcast(n, 2, ints, root, comm);
    struct code_text *t = !e2 && n[1] ? calloc((size_t)(n[0] > 0 ? n[0] : 1), sizeof(*t)) : NULL;
    for (int p = 0; t && is_root && p < n[0]; p++) {
        t[p].errclass = uz_err_class(a->errcodes[p]);
        uz_err_string(a->errcodes[p], t[p].text, (int)sizeof(t[p].text));
    }
    if (t)
        e2 = uz_coll_bcast(t, (MPI_Count)n[0] * (MPI_Count)sizeof(*t), chars, root, comm);
    for (int p = 0; !e2 && p < n[0] && array_of_errcodes != MPI_ERRCODES_IGNORE; p++)
        array_of_errcodes[p] = !n[1] ? MPI_SUCCESS : is_root ? a->errcodes[p]
                             : t ? code_from_text(t, p, array_of_errcodes) : MPI_ERR_SPAWN;
    free(t);
    free(a->errcodes);
    a->errcodes = NULL;
    return err ? err : e2;
}

/* ------------------------------------------------------------ the root's arguments */

static int check_maxprocs(int maxprocs)
{
    return maxprocs > 0 ? MPI_SUCCESS
                        : uz_err_make(MPI_ERR_SPAWN, "maxprocs %d: must be at least 1", maxprocs);
}

/* The info keys a process manager is handed (Uzura's mpiexec takes host,
 * hostfile, wdir and path; others it refuses by name). */
static void cmd_info(struct uz_pmi_spawn_cmd *c, const uz_info *info)
{
    c->ninfo = 0;
    c->info_keys = c->info_values = NULL;
    if (!info || !info->nentries)
        return;
    const char **k = malloc(sizeof(char *) * (size_t)info->nentries);
    const char **v = malloc(sizeof(char *) * (size_t)info->nentries);
    if (!k || !v) {
        free(k);
        free(v);
        return;
    }
    for (int i = 0; i < info->nentries; i++) {
        k[i] = info->entries[i].key;
        v[i] = info->entries[i].value;
    }
    c->ninfo = info->nentries;
    c->info_keys = k;
    c->info_values = v;
}

static void cmds_free(struct uz_pmi_spawn_cmd *cmds, int count)
{
    for (int i = 0; cmds && i < count; i++) {
        free((void *)cmds[i].info_keys);
        free((void *)cmds[i].info_values);
    }
    free(cmds);
}

int uz_mpi_Comm_spawn(const char *command, char *argv[], int maxprocs, uz_info *info, int root, uz_comm *comm,
                      MPI_Comm *intercomm, int array_of_errcodes[])
{
    struct spawn_arg a = { .count = 1 };
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "comm must be an intracommunicator");
    int err = MPI_SUCCESS;
    if (comm->rank == root) {
        if (!command || !*command)
            err = uz_err_make(MPI_ERR_SPAWN, "empty command");
        if (!err)
            err = check_maxprocs(maxprocs);
        if (!err && !(a.cmds = calloc(1, sizeof(*a.cmds))))
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory");
        if (!err) {
            a.cmds[0] = (struct uz_pmi_spawn_cmd){ .command = command, .argv = argv, .maxprocs = maxprocs };
            cmd_info(&a.cmds[0], info);
            a.total = maxprocs;
        }
    }
    int rc = err ? uz_dpm_meet_collective(comm, root, meet_refuse, &err, intercomm)
                 : spawn_collective(&a, root, comm, intercomm, array_of_errcodes);
    cmds_free(a.cmds, a.count);
    return err ? err : rc;
}

int uz_mpi_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                               const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                               uz_comm *comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    struct spawn_arg a = { .count = count };
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "comm must be an intracommunicator");
    int err = MPI_SUCCESS;
    if (comm->rank == root) {
        if (count <= 0)
            err = uz_err_make(MPI_ERR_ARG, "count %d: must be at least 1", count);
        if (!err && !(a.cmds = calloc((size_t)(count > 0 ? count : 1), sizeof(*a.cmds))))
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory");
        for (int i = 0; !err && i < count; i++) {
            if (!array_of_commands[i] || !*array_of_commands[i])
                err = uz_err_make(MPI_ERR_SPAWN, "command %d is empty", i);
            else if (!(err = check_maxprocs(array_of_maxprocs[i]))) {
                a.cmds[i] = (struct uz_pmi_spawn_cmd){
                    .command = array_of_commands[i],
                    .argv = array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv[i],
                    .maxprocs = array_of_maxprocs[i],
                };
                cmd_info(&a.cmds[i], array_of_info ? uz_info_get(array_of_info[i]) : NULL);
                a.total += array_of_maxprocs[i];
            }
        }
    }
    int rc = err ? uz_dpm_meet_collective(comm, root, meet_refuse, &err, intercomm)
                 : spawn_collective(&a, root, comm, intercomm, array_of_errcodes);
    cmds_free(a.cmds, comm->rank == root ? count : 0);
    return err ? err : rc;
}

/* ------------------------------------------------------------ the children */

int uz_dpm_init_parent(void)
{
    if (!uz_pmi_spawned())
        return MPI_SUCCESS;
    char port[MPI_MAX_PORT_NAME];
    if (uz_pmi_get(parent_key, port, sizeof(port)) != 0)
        return MPI_SUCCESS;             /* started as spawned by someone, but not by MPI_Comm_spawn */
    struct uz_port_addr addr;
    int err = uz_port_parse(port, &addr);
    MPI_Comm parent = MPI_COMM_NULL;
    if (!err)
        err = uz_dpm_connect(port, &uz_comm_world, 0, &parent);
    if (err)
        return err;
    uz_dpm_parent = uz_comm_get(parent);
    snprintf(uz_dpm_parent->name, sizeof(uz_dpm_parent->name), "MPI_COMM_PARENT");
    return MPI_SUCCESS;
}

void uz_dpm_forget(uz_comm *c)
{
    if (c == uz_dpm_parent)
        uz_dpm_parent = NULL;
}

int uz_mpi_Comm_get_parent(MPI_Comm *parent)
{
    *parent = uz_dpm_parent ? uz_comm_handle(uz_dpm_parent) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
