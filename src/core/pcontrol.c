/*
 * pcontrol.c — MPI_Pcontrol.  The library itself does no profiling; the
 * call exists for a profiling layer (PMPI) to intercept, so Uzura's own
 * version accepts every level and does nothing.
 */
#include "base/errors.h"

int uz_mpi_Pcontrol(const int level)
{
    (void)level;
    return MPI_SUCCESS;
}
