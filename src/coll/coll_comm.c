/*
 * coll_comm.c — a communicator's collective state: set up on first use
 * (or by uz_coll_comm_init when the communicator is made) and freed with
 * the communicator.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "coll/coll.h"
#include "coll/coll_shm.h"
#include "coll/sched.h"

int uz_coll_next_tag(uz_comm *comm)
{
    return (int)(comm->coll_seq++ & UZ_COLL_TAG_SEQ);
}

int uz_coll_next_persistent_tag(uz_comm *comm)
{
    struct uz_coll_state *cs = uz_coll_state_of(comm);
    uint32_t seq = cs ? cs->persistent_seq++ : 0;
    return (int)(seq & UZ_COLL_TAG_SEQ) | UZ_COLL_TAG_PERSISTENT;
}

int uz_coll_comm_init(uz_comm *comm)
{
    if (comm->coll)
        return MPI_SUCCESS;
    struct uz_coll_state *cs = calloc(1, sizeof(*cs));
    if (!cs)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting up collectives on a communicator");
    comm->coll = cs;
    return MPI_SUCCESS;
}

void uz_coll_comm_destroy(uz_comm *comm)
{
    struct uz_coll_state *cs = comm->coll;
    if (!cs)
        return;
    uz_sched_fini(&cs->blocking);
    uz_coll_shm_free(cs->shm);
    free(cs);
    comm->coll = NULL;
}
