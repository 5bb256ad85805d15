/*
 * layers.c — the communication layers' start-up and shut-down, called by
 * MPI_Init and MPI_Finalize: the request layer, which brings up the
 * transports it needs.
 */
#include <mpi.h>

#include "core/comm.h"
#include "core/layers.h"
#include "pt2pt/pt2pt.h"

int uz_layers_init(void)
{
    /* Requests keep their communicator alive by the core's own counting. */
    static const struct uz_pt2pt_comm_refs comm_refs = { uz_comm_retain, uz_comm_release };
    return uz_pt2pt_init(&comm_refs);
}

/* Includes a job-wide fence: after it no peer sends to us any more. */
int uz_layers_finalize(void)
{
    return uz_pt2pt_finalize();
}
