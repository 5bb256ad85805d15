/*
 * runtime.h — process-wide state of the library: whether MPI is running,
 * who this process is in the job, and the thread level it was given.
 */
#ifndef UZ_BASE_RUNTIME_H
#define UZ_BASE_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/object.h"

enum uz_mpi_state {
    UZ_STATE_NOT_INITIALIZED = 0,
    UZ_STATE_RUNNING = 1,
    UZ_STATE_FINALIZED = 2,
};

struct uz_runtime {
    atomic_int state;           /* enum uz_mpi_state */
    int world_rank;
    int world_size;
    int appnum;
    int universe_size;
    int singleton;              /* started without a process manager */
    int local_rank;             /* among the ranks on this host */
    int local_size;
    int node_id;                /* which host of the job */
    int thread_level;           /* the level provided */
    int thread_multiple;        /* thread_level == MPI_THREAD_MULTIPLE */
    pthread_t main_thread;      /* the thread that called MPI_Init */
    char job_id[64];            /* UZURA_JOB_ID from mpiexec, or made up */
    char processor_name[MPI_MAX_PROCESSOR_NAME];
    int argc;                   /* as given to MPI_Init (for MPI_INFO_ENV) */
    char **argv;
};

extern struct uz_runtime uz_rt;

static inline int uz_is_running(void)
{
    return atomic_load_explicit(&uz_rt.state, memory_order_acquire) == UZ_STATE_RUNNING;
}

/* Register cleanup that must run even when the job aborts. */
void uz_runtime_on_abort(void (*hook)(void));

/* How to end every rank of the job (the process manager's abort); an
 * abort before this is set ends this process alone. */
void uz_runtime_set_job_abort(void (*abort_job)(int exit_code, const char *message));

/* Abort the whole job with this exit code; never returns. */
void uz_runtime_abort(int exit_code, const char *message) __attribute__((noreturn));

#endif /* UZ_BASE_RUNTIME_H */
