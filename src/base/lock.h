/*
 * lock.h — the coarse lock that makes the library safe under
 * MPI_THREAD_MULTIPLE.
 *
 * One mutex guards every queue and transport of the process; it is taken
 * only when the application asked for MPI_THREAD_MULTIPLE, so the other
 * thread levels pay one predictable branch.  A waiting thread drops it
 * between polls so that other threads can post and progress.  A finer
 * scheme can replace this without touching callers.
 */
#ifndef UZ_BASE_LOCK_H
#define UZ_BASE_LOCK_H

#include <pthread.h>

#include "base/runtime.h"

extern pthread_mutex_t uz_big_lock;

static inline void uz_lock(void)
{
    if (UZ_UNLIKELY(uz_rt.thread_multiple))
        pthread_mutex_lock(&uz_big_lock);
}

static inline void uz_unlock(void)
{
    if (UZ_UNLIKELY(uz_rt.thread_multiple))
        pthread_mutex_unlock(&uz_big_lock);
}

#endif /* UZ_BASE_LOCK_H */
