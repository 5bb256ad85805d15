/*
 * layers.c — the communication layers' start-up and shut-down.  Nothing
 * below the MPI core exists yet beyond the process manager; the request
 * layer and its transports register here as they arrive.
 */
#include <mpi.h>

#include "core/layers.h"

int uz_layers_init(void)
{
    return MPI_SUCCESS;
}

int uz_layers_finalize(void)
{
    return MPI_SUCCESS;
}
