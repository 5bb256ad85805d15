/*
 * mpit_init.c — MPI_T_init_thread and MPI_T_finalize: a count of
 * initializations, so that a tool and the application (or two tools) can
 * each open and close the interface, before MPI_Init, between it and
 * MPI_Finalize, or after.
 */
#include <stdatomic.h>
#include <string.h>

#include "base/params.h"
#include "base/runtime.h"
#include "mpit/mpit.h"

pthread_mutex_t uz_mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int init_count;
static int tables_built;

int uz_mpit_initialized(void)
{
    return atomic_load_explicit(&init_count, memory_order_acquire) > 0;
}

void uz_mpit_copy_string(const char *src, char *buf, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(src) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need <= *len ? need : *len;
    memcpy(buf, src, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

static int valid_thread_level(int level)
{
    return level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED || level == MPI_THREAD_SERIALIZED ||
           level == MPI_THREAD_MULTIPLE;
}

int uz_mpi_T_init_thread(int required, int *provided)
{
    if (!valid_thread_level(required))
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc = MPI_SUCCESS;
    if (atomic_load_explicit(&init_count, memory_order_relaxed) == 0) {
        /* Before MPI_Init (or after MPI_Finalize) nobody has read the
         * environment yet: the control variables show what it says.  A
         * value a tool writes now is put into the environment too, so
         * that MPI_Init reads it again (cvars.c). */
        if (!uz_is_running()) {
            char err[256];
            if (uz_params_load(err, sizeof(err), NULL) != 0)
                rc = MPI_T_ERR_CANNOT_INIT;
        }
        if (rc == MPI_SUCCESS && !tables_built) {
            if (uz_mpit_enums_build() != 0 || uz_mpit_categories_build() != 0 || uz_mpit_pvars_build() != 0)
                rc = MPI_T_ERR_MEMORY;
            else
                tables_built = 1;
        }
        if (rc == MPI_SUCCESS)
            uz_mpit_events_install();
    }
    if (rc == MPI_SUCCESS) {
        atomic_fetch_add_explicit(&init_count, 1, memory_order_release);
        if (provided)
            *provided = required;   /* every level: MPI_T state is under uz_mpit_lock */
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

int uz_mpi_T_finalize(void)
{
    pthread_mutex_lock(&uz_mpit_lock);
    int rc = MPI_SUCCESS;
    int left = atomic_load_explicit(&init_count, memory_order_relaxed);
    if (left == 0) {
        rc = MPI_T_ERR_NOT_INITIALIZED;
    } else if (left == 1) {
        /* The last one out frees what tools still hold: handles end with
         * the interface (MPI-4.1 15.3.3). */
        uz_mpit_events_free_all();
        uz_mpit_pvar_sessions_free_all();
        uz_mpit_cvar_free_all();
    }
    if (rc == MPI_SUCCESS)
        atomic_fetch_sub_explicit(&init_count, 1, memory_order_release);
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}
