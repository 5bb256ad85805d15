/*
 * sources.c — MPI_T event sources: one, the monotonic clock of this
 * process in nanoseconds, which stamps every event where it happens (so a
 * tool sees events of one process in order).
 */
#include <stdint.h>
#include <time.h>

#include "core/info.h"
#include "mpit/mpit.h"

MPI_Count uz_mpit_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int uz_mpi_T_source_get_num(int *num_sources)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_sources)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}

int uz_mpi_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                             MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                             MPI_Info *info)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    uz_mpit_copy_string("monotonic_clock", name, name_len);
    uz_mpit_copy_string("This process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds; stamps every event",
                        desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    if (info) {
        uz_info *made = uz_info_new();
        if (!made)
            return MPI_T_ERR_MEMORY;
        *info = uz_info_handle(made);
    }
    return MPI_SUCCESS;
}

int uz_mpi_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp)
        return MPI_T_ERR_INVALID;
    *timestamp = uz_mpit_now();
    return MPI_SUCCESS;
}
