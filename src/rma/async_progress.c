/*
 * async_progress.c — the optional progress thread (UZURA_ASYNC_PROGRESS=1,
 * or a window made with the info key uzura_async_progress=true): it drives
 * the progress engine while the rank computes, so that one-sided requests
 * from ranks that reach this one by messages (other hosts) are served
 * without the program calling MPI.
 *
 * Starting it turns on the library lock (base/lock.h) for the rest of the
 * run, as MPI_THREAD_MULTIPLE does; it is started from window creation,
 * where the calling thread holds no lock.  It polls while there is work and
 * naps 20 µs between idle polls, so an idle rank costs little of a core.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/runtime.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma_am.h"

static pthread_t thread;
static atomic_int running;
static int users;               /* windows that asked for it */

static void *progress_main(void *arg)
{
    (void)arg;
    while (atomic_load_explicit(&running, memory_order_acquire)) {
        uz_lock();
        int work = uz_progress();
        uz_unlock();
        if (!work)
            nanosleep(&(struct timespec){ 0, 20000 }, NULL);
    }
    return NULL;
}

int uz_rma_async_progress_start(void)
{
    if (users++)
        return MPI_SUCCESS;
    uz_rt.thread_multiple = 1;
    atomic_store_explicit(&running, 1, memory_order_release);
    if (pthread_create(&thread, NULL, progress_main, NULL)) {
        users--;
        atomic_store(&running, 0);
        return uz_err_make(MPI_ERR_OTHER, "could not start the progress thread (UZURA_ASYNC_PROGRESS)");
    }
    return MPI_SUCCESS;
}

void uz_rma_async_progress_stop(void)
{
    if (!users || --users)
        return;
    atomic_store_explicit(&running, 0, memory_order_release);
    pthread_join(thread, NULL);
}
