/*
 * init.c — starting and ending MPI: MPI_Init, MPI_Init_thread,
 * MPI_Finalize, MPI_Abort and the queries about them.
 *
 * Start-up order: tunables, built-in objects, the process manager (who am
 * I, how many are we), then the communication layers, then the built-in
 * communicators.  Finalize undoes it in reverse after a job-wide fence, so
 * that no rank tears down its transports while a peer may still talk to it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/runtime.h"
#include "coll/op.h"
#include "core/comm.h"
#include "core/dpm.h"
#include "core/info.h"
#include "core/startup_report.h"
#include "datatype/datatype.h"
#include "pmi/pmi.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* Communication layers hook in here (see core/layers.h). */
#include "core/layers.h"

static int pmi_error(const char *what)
{
    return uz_err_make(MPI_ERR_OTHER, "%s: %s", what, uz_pmi_last_error());
}

/* Every rank of a job must agree on its id: it names the job's shared
 * memory.  mpiexec hands one out; under another process manager the PMI
 * key-value space name is unique per job and known to every rank. */
static void make_job_id(const struct uz_pmi_info *pmi)
{
    if (uz_config.job_id && uz_config.job_id[0]) {
        snprintf(uz_rt.job_id, sizeof(uz_rt.job_id), "%s", uz_config.job_id);
        return;
    }
    if (!pmi->singleton && pmi->kvsname[0]) {
        /* Keep it a valid file name component. */
        size_t n = 0;
        for (const char *c = pmi->kvsname; *c && n < sizeof(uz_rt.job_id) - 1; c++)
            uz_rt.job_id[n++] = (isalnum((unsigned char)*c) || *c == '_' || *c == '-') ? *c : '_';
        uz_rt.job_id[n] = '\0';
        return;
    }
    uint64_t r = 0;
    if (getrandom(&r, sizeof(r), 0) != sizeof(r))
        r = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    snprintf(uz_rt.job_id, sizeof(uz_rt.job_id), "s%016llx", (unsigned long long)r);
}

/* The runtime's job-wide abort, through the process manager. */
static void abort_job_through_pmi(int exit_code, const char *message)
{
    uz_pmi_abort(exit_code, message);
}

static int init_common(int *argc, char ***argv, int required, int *provided)
{
    char msg[256];
    int err;

    if (atomic_load(&uz_rt.state) != UZ_STATE_NOT_INITIALIZED)
        return uz_err_make(MPI_ERR_OTHER, atomic_load(&uz_rt.state) == UZ_STATE_RUNNING
                           ? "MPI is already initialized" : "MPI cannot be initialized again after MPI_Finalize");

    if (uz_params_load(msg, sizeof(msg), uz_pmi_env_rank() > 0 ? NULL : stderr) != 0)
        return uz_err_make(MPI_ERR_OTHER, "%s", msg);

    uz_rt.argc = argc ? *argc : 0;
    uz_rt.argv = argv ? *argv : NULL;
    uz_rt.main_thread = pthread_self();
    /* Every level up to MPI_THREAD_MULTIPLE is provided: the request layer
     * serialises on a lock when (and only when) MULTIPLE is asked for. */
    uz_rt.thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                       : required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
    uz_rt.thread_multiple = uz_rt.thread_level == MPI_THREAD_MULTIPLE;
    if (gethostname(uz_rt.processor_name, sizeof(uz_rt.processor_name) - 1) != 0)
        strcpy(uz_rt.processor_name, "localhost");

    uz_datatype_init_builtins();
    uz_op_init_builtins();

    struct uz_pmi_info pmi;
    uz_runtime_set_job_abort(abort_job_through_pmi);
    if (uz_pmi_init(&pmi) != 0)
        return pmi_error("no usable process manager");
    uz_rt.world_rank = pmi.rank;
    uz_rt.world_size = pmi.size;
    uz_rt.appnum = pmi.appnum;
    uz_rt.universe_size = pmi.universe_size > 0 ? pmi.universe_size : pmi.size;
    uz_rt.singleton = pmi.singleton;
    make_job_id(&pmi);
    /* The process manager knows which ranks share a node (Slurm's
     * PMI_process_mapping, PMIx's job data): take its word unless the
     * user or our own mpiexec set UZURA_NODE_ID. */
    if (uz_config.node_id < 0 && pmi.node_id >= 0)
        uz_config.node_id = pmi.node_id;

    if ((err = uz_comm_init_builtins()))
        return err;
    if ((err = uz_layers_init()))
        return err;
    uz_startup_report();
    uz_info_env_init();
    if ((err = uz_dpm_init_parent()))   /* a spawned job connects to its parents */
        return err;

    *provided = uz_rt.thread_level;
    atomic_store(&uz_rt.state, UZ_STATE_RUNNING);
    return MPI_SUCCESS;
}

int uz_mpi_Init(int *argc, char ***argv)
{
    int provided;
    pthread_mutex_lock(&init_lock);
    int err = init_common(argc, argv, MPI_THREAD_SINGLE, &provided);
    pthread_mutex_unlock(&init_lock);
    return err;
}

int uz_mpi_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        return uz_err_make(MPI_ERR_ARG, "invalid thread level %d (argument required)", required);
    pthread_mutex_lock(&init_lock);
    int err = init_common(argc, argv, required, provided);
    pthread_mutex_unlock(&init_lock);
    return err;
}

int uz_mpi_Finalize(void)
{
    int err;
    /* MPI_COMM_SELF's attribute delete callbacks run first, while MPI is
     * still fully usable (MPI-4.1 §11.2.2); then those of the objects that
     * are never freed: MPI_COMM_WORLD and the predefined datatypes. */
    if ((err = uz_comm_finalize_attrs()) || (err = uz_datatype_finalize_attrs()))
        return err;
    pthread_mutex_lock(&init_lock);
    if ((err = uz_layers_finalize())) {
        pthread_mutex_unlock(&init_lock);
        return err;
    }
    uz_comm_finalize_builtins();
    atomic_store(&uz_rt.state, UZ_STATE_FINALIZED);
    int rc = uz_pmi_finalize();
    pthread_mutex_unlock(&init_lock);
    return rc == 0 ? MPI_SUCCESS : pmi_error("MPI_Finalize could not tell the process manager");
}

int uz_mpi_Initialized(int *flag)
{
    *flag = atomic_load(&uz_rt.state) != UZ_STATE_NOT_INITIALIZED;
    return MPI_SUCCESS;
}

int uz_mpi_Finalized(int *flag)
{
    *flag = atomic_load(&uz_rt.state) == UZ_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int uz_mpi_Abort(uz_comm *comm, int errorcode)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) called", comm->name[0] ? comm->name : "comm",
             errorcode);
    uz_runtime_abort(errorcode, msg);
}

int uz_mpi_Query_thread(int *provided)
{
    *provided = uz_rt.thread_level;
    return MPI_SUCCESS;
}

int uz_mpi_Is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), uz_rt.main_thread);
    return MPI_SUCCESS;
}
