/*
 * runtime_start.c — starting and tearing down the runtime that the World
 * model and sessions share: tunables, built-in objects, the process
 * manager (who am I, how many are we), the communication layers and the
 * job-wide communicators the library uses inside (MPI_COMM_WORLD's context
 * carries the group-based constructors' bootstrap even when the program
 * never calls MPI_Init).
 *
 * Users are counted: the World model is one from MPI_Init to MPI_Finalize,
 * each session one from MPI_Session_init to MPI_Session_finalize.  The
 * first user starts the runtime; when the last leaves it is torn down
 * after a job-wide fence, and a later MPI_Session_init starts it again.
 * Each start is a generation of its own: keys in the process manager's
 * key-value space and the names of shared-memory objects carry it, so that
 * nothing left of an earlier generation is mistaken for this one's.
 *
 * The connection to the process manager is made once and kept until the
 * process exits, as MPICH does: PMI cannot say "finalized, but I may come
 * back".  The finalize message goes from an exit handler, and only when
 * every user has finished, so that the launcher still reports a process
 * that exits with MPI in use as one that never finalized.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/profile.h"
#include "base/runtime.h"
#include "coll/op.h"
#include "core/comm.h"
#include "core/info.h"
#include "core/layers.h"
#include "core/runtime_start.h"
#include "core/startup_report.h"
#include "core/wait_state.h"
#include "datatype/datatype.h"
#include "pmi/pmi.h"

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static int users;
static unsigned generation;

unsigned uz_runtime_generation(void)
{
    return generation;
}

static int pmi_error(const char *what)
{
    return uz_err_make(MPI_ERR_OTHER, "%s: %s", what, uz_pmi_last_error());
}

/* Every rank of a job must agree on its id: it names the job's shared
 * memory.  mpiexec hands one out; under another process manager the PMI
 * key-value space name is unique per job and known to every rank.  A
 * restarted runtime adds its generation, which every rank counts alike. */
static void make_job_id(const struct uz_pmi_info *pmi)
{
    char base[sizeof(uz_rt.job_id)];
    if (uz_config.job_id && uz_config.job_id[0]) {
        snprintf(base, sizeof(base), "%s", uz_config.job_id);
    } else if (!pmi->singleton && pmi->kvsname[0]) {
        /* Keep it a valid file name component. */
        size_t n = 0;
        for (const char *c = pmi->kvsname; *c && n < sizeof(base) - 1; c++)
            base[n++] = (isalnum((unsigned char)*c) || *c == '_' || *c == '-') ? *c : '_';
        base[n] = '\0';
    } else {
        uint64_t r = 0;
        if (getrandom(&r, sizeof(r), 0) != sizeof(r))
            r = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
        snprintf(base, sizeof(base), "s%016llx", (unsigned long long)r);
    }
    if (generation > 1)
        snprintf(uz_rt.job_id, sizeof(uz_rt.job_id), "%.40s-g%u", base, generation);
    else
        snprintf(uz_rt.job_id, sizeof(uz_rt.job_id), "%s", base);
}

/* The runtime's job-wide abort, through the process manager. */
static void abort_job_through_pmi(int exit_code, const char *message)
{
    uz_pmi_abort(exit_code, message);
}

/* The process that connected: a child it forks shares the connection
 * but must not finalize it when it exits. */
static pid_t connected_pid;

/* Tell the process manager this process is done, if every user finished
 * (see the top of this file). */
static void finalize_pmi_at_exit(void)
{
    if (getpid() == connected_pid && atomic_load(&uz_rt.state) == UZ_STATE_FINALIZED)
        uz_pmi_finalize();
}

/* What is made once per process: the tunables (the environment does not
 * change between generations), the predefined datatypes and operations. */
static int start_once(void)
{
    static int done;
    char msg[256];
    if (done)
        return MPI_SUCCESS;
    if (uz_params_load(msg, sizeof(msg), uz_pmi_env_rank() > 0 ? NULL : stderr) != 0)
        return uz_err_make(MPI_ERR_OTHER, "%s", msg);
    if (gethostname(uz_rt.processor_name, sizeof(uz_rt.processor_name) - 1) != 0)
        strcpy(uz_rt.processor_name, "localhost");
    uz_datatype_init_builtins();
    uz_op_init_builtins();
    uz_runtime_set_job_abort(abort_job_through_pmi);
    done = 1;
    return MPI_SUCCESS;
}

static int connect_process_manager(void)
{
    static int exit_hook;
    struct uz_pmi_info pmi;
    if (uz_pmi_init(&pmi) != 0)
        return pmi_error("no usable process manager");
    if (!exit_hook && atexit(finalize_pmi_at_exit) == 0) {
        exit_hook = 1;
        connected_pid = getpid();
    }
    uz_pmi_key_epoch(generation - 1);
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
    return MPI_SUCCESS;
}

static int start(void)
{
    int err;
    if ((err = start_once()))
        return err;
    generation++;
    if ((err = connect_process_manager()))
        return err;
    uz_wait_state_open();
    if ((err = uz_comm_init_builtins()))
        return err;
    if ((err = uz_layers_init()))
        return err;
    if (generation == 1)
        uz_startup_report();
    uz_info_env_init();
    /* Counting starts after the start-up traffic, so that the profile shows
     * the program's own.  PMI_SPAWNED: see dpm_spawn.c. */
    const char *spawned = getenv("PMI_SPAWNED");
    uz_profile_start(uz_rt.world_rank, uz_rt.world_size,
                     spawned && strcmp(spawned, "1") == 0 ? uz_rt.job_id : NULL);
    atomic_store(&uz_rt.state, UZ_STATE_RUNNING);
    return MPI_SUCCESS;
}

/* Undo start(): the layers first (their fence makes sure no peer still
 * talks to us), then the built-in communicators. */
static int stop(void)
{
    uz_profile_stop();          /* before the shutdown traffic */
    int err = uz_layers_finalize();
    uz_comm_finalize_builtins();
    atomic_store(&uz_rt.state, UZ_STATE_FINALIZED);
    return err;
}

static void raise_thread_level(int level)
{
    if (level <= uz_rt.thread_level)
        return;
    /* Only the calling thread is inside MPI now (a lower level promised
     * that), so the lock may start being taken from here on. */
    uz_rt.thread_level = level;
    uz_rt.thread_multiple = level == MPI_THREAD_MULTIPLE;
}

int uz_runtime_acquire(int thread_level)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&runtime_lock);
    if (users == 0) {
        uz_rt.thread_level = MPI_THREAD_SINGLE;
        uz_rt.thread_multiple = 0;
        uz_rt.main_thread = pthread_self();
        raise_thread_level(thread_level);
        err = start();
    } else {
        raise_thread_level(thread_level);
    }
    if (!err)
        users++;
    pthread_mutex_unlock(&runtime_lock);
    return err;
}

int uz_runtime_release(void)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&runtime_lock);
    if (users > 0 && --users == 0)
        err = stop();
    pthread_mutex_unlock(&runtime_lock);
    return err;
}
