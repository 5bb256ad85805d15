/*
 * init.c — the World model: MPI_Init, MPI_Init_thread, MPI_Finalize,
 * MPI_Abort and the queries about them.
 *
 * The runtime underneath (process manager, transports, built-in objects)
 * is shared with sessions and started by whichever comes first
 * (runtime_start.c).  The World model's own state is kept here: the
 * standard makes MPI_Initialized and MPI_Finalized answer about MPI_Init
 * and MPI_Finalize alone, sessions do not change them, and MPI_Init after
 * MPI_Finalize stays an error even when sessions may start the runtime
 * again.
 */
#include <stdio.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/comm.h"
#include "core/dpm.h"
#include "core/info.h"
#include "core/runtime_start.h"
#include "datatype/datatype.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* enum uz_mpi_state of the World model (uz_rt.state is the runtime's). */
static atomic_int world_state;
static int world_thread_level;

static int init_common(int *argc, char ***argv, int required, int *provided)
{
    int state = atomic_load(&world_state);
    if (state != UZ_STATE_NOT_INITIALIZED)
        return uz_err_make(MPI_ERR_OTHER, state == UZ_STATE_RUNNING ? "MPI is already initialized"
                           : "MPI cannot be initialized again after MPI_Finalize");
    /* Every level up to MPI_THREAD_MULTIPLE is provided: the request layer
     * serialises on a lock when (and only when) MULTIPLE is asked for. */
    int level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
              : required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
    uz_rt.argc = argc ? *argc : 0;
    uz_rt.argv = argv ? *argv : NULL;
    int err = uz_runtime_acquire(level);
    if (err)
        return err;
    uz_rt.main_thread = pthread_self();
    uz_info_env_init();         /* a session may have started the runtime without argv */
    if ((err = uz_dpm_init_parent()))   /* a spawned job connects to its parents */
        return err;
    world_thread_level = level;
    *provided = level;
    atomic_store(&world_state, UZ_STATE_RUNNING);
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
    if (atomic_load(&world_state) != UZ_STATE_RUNNING)
        return uz_err_make(MPI_ERR_OTHER, "MPI_Finalize without MPI_Init (sessions end with "
                           "MPI_Session_finalize)");
    /* MPI_COMM_SELF's attribute delete callbacks run first, while MPI is
     * still fully usable (MPI-4.1 §11.2.2); then those of the objects that
     * are never freed: MPI_COMM_WORLD and the predefined datatypes. */
    if ((err = uz_comm_finalize_attrs()) || (err = uz_datatype_finalize_attrs()))
        return err;
    pthread_mutex_lock(&init_lock);
    atomic_store(&world_state, UZ_STATE_FINALIZED);
    err = uz_runtime_release();
    pthread_mutex_unlock(&init_lock);
    return err;
}

int uz_mpi_Initialized(int *flag)
{
    *flag = atomic_load(&world_state) != UZ_STATE_NOT_INITIALIZED;
    return MPI_SUCCESS;
}

int uz_mpi_Finalized(int *flag)
{
    *flag = atomic_load(&world_state) == UZ_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int uz_mpi_Abort(uz_comm *comm, int errorcode)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) called", comm->name[0] ? comm->name : "comm",
             errorcode);
    uz_runtime_abort(errorcode, msg);
}

/* The World model's level while it runs; with sessions alone, the level
 * the runtime provides (the highest any of them asked for). */
int uz_mpi_Query_thread(int *provided)
{
    *provided = atomic_load(&world_state) == UZ_STATE_RUNNING ? world_thread_level
              : uz_rt.thread_level;
    return MPI_SUCCESS;
}

/* The thread that called MPI_Init or MPI_Init_thread; before either, the
 * one that started the runtime (its first MPI_Session_init). */
int uz_mpi_Is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), uz_rt.main_thread);
    return MPI_SUCCESS;
}
