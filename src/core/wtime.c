/*
 * wtime.c — MPI_Wtime and MPI_Wtick: a monotonic clock with nanosecond
 * ticks, counted from the first call so that doubles keep full precision.
 */
#include <time.h>

#include <mpi.h>

static struct timespec epoch;
static int epoch_set;

double uz_mpi_Wtime(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!__atomic_load_n(&epoch_set, __ATOMIC_ACQUIRE)) {
        /* A race here only picks one of two nearly equal epochs. */
        epoch = now;
        __atomic_store_n(&epoch_set, 1, __ATOMIC_RELEASE);
    }
    return (double)(now.tv_sec - epoch.tv_sec) + 1e-9 * (double)(now.tv_nsec - epoch.tv_nsec);
}

double uz_mpi_Wtick(void)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    return (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
}
