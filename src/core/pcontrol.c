/*
 * pcontrol.c — MPI_Pcontrol.  The call exists for a profiling layer (PMPI)
 * to intercept; Uzura's own traffic profile (UZURA_PROFILE,
 * docs/profile.md) honours it too: level 0 pauses counting, any other
 * level resumes it.  Every level is accepted.
 */
#include "base/errors.h"
#include "base/profile.h"

int uz_mpi_Pcontrol(const int level)
{
    uz_profile_control(level);
    return MPI_SUCCESS;
}
