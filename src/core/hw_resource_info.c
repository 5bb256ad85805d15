/*
 * hw_resource_info.c — MPI_Get_hw_resource_info: the hardware resources the
 * calling process is confined to, as an info object the caller frees.
 *
 * One key per level of comm_split_hw.c where every CPU the process may run
 * on belongs to one instance, named like the values MPI_Comm_split_type
 * takes for "mpi_hw_resource_type" ("core", "L2cache", ...); the value is
 * "true".  A level the process straddles is left out, which is also what
 * tells MPI_COMM_TYPE_RESOURCE_GUIDED splits on it to give MPI_COMM_NULL.
 * The levels come from hwloc's objects when it loads, else from /sys
 * (comm_split_hw.c), and follow the binding: a rank that mpiexec bound to
 * one core has "core" (and every coarser level that core is in).
 */
#include "base/errors.h"
#include "core/comm_split_hw.h"
#include "core/info.h"

int uz_mpi_Get_hw_resource_info(MPI_Info *hw_info)
{
    int colors[UZ_HW_LEVELS];
    uz_hw_colors(colors);
    uz_info *info = uz_info_new();
    if (!info)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating the hardware info");
    for (int level = 0; level < UZ_HW_LEVELS; level++) {
        if (colors[level] != MPI_UNDEFINED && uz_info_set(info, uz_hw_level_name(level), "true")) {
            uz_info_free(info);
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory filling the hardware info");
        }
    }
    *hw_info = (MPI_Info)info;
    return MPI_SUCCESS;
}
