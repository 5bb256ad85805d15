/*
 * dpm_join.c — MPI_Comm_join: two processes that share a connected socket
 * make an intercommunicator of the two of them.  They swap descriptors over
 * the socket (dpm_meet.c) and go on as accept/connect do over MPI_COMM_SELF;
 * the socket is only read and written, never closed or changed.
 */
#include "base/errors.h"
#include "core/dpm.h"

static int meet_join(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    return uz_meet_join(*(const int *)arg, mine, theirs, tag);
}

int uz_mpi_Comm_join(int fd, MPI_Comm *intercomm)
{
    if (fd < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid fd %d", fd);
    return uz_dpm_meet_collective(&uz_comm_self, 0, meet_join, &fd, intercomm);
}
