/*
 * comm_split_hw.h — hardware resource types for MPI_Comm_split_type
 * (MPI_COMM_TYPE_HW_GUIDED, _HW_UNGUIDED, _RESOURCE_GUIDED).
 */
#ifndef UZ_CORE_COMM_SPLIT_HW_H
#define UZ_CORE_COMM_SPLIT_HW_H

#include <mpi.h>

#include "base/hwtopo.h"

/* Levels, coarsest first; their names are the values of the info keys
 * "mpi_hw_resource_type".  The same levels as base/hwtopo.h's. */
enum uz_hw_level {
    UZ_HW_MACHINE = UZ_HWTOPO_MACHINE, UZ_HW_BOARD = UZ_HWTOPO_BOARD, UZ_HW_NUMANODE = UZ_HWTOPO_NUMANODE,
    UZ_HW_SOCKET = UZ_HWTOPO_SOCKET, UZ_HW_L3CACHE = UZ_HWTOPO_L3CACHE, UZ_HW_L2CACHE = UZ_HWTOPO_L2CACHE,
    UZ_HW_L1CACHE = UZ_HWTOPO_L1CACHE, UZ_HW_CORE = UZ_HWTOPO_CORE, UZ_HW_HWTHREAD = UZ_HWTOPO_HWTHREAD,
    UZ_HW_LEVELS = UZ_HWTOPO_LEVELS
};

const char *uz_hw_level_name(int level);
int uz_hw_level_of(const char *name);       /* -1 if unknown */

/* This process's colour at every level: the same value for processes on
 * the same instance (host included), MPI_UNDEFINED when the process may
 * run on CPUs of several instances. */
void uz_hw_colors(int colors[UZ_HW_LEVELS]);

/* The topology those colours come from (read at the first call), or NULL
 * when there is none. */
const struct uz_hwtopo *uz_hw_topology(void);

#endif /* UZ_CORE_COMM_SPLIT_HW_H */
