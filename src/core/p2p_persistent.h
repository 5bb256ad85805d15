/*
 * p2p_persistent.h — what every inactive persistent request carries
 * (MPI_Send_init and friends, MPI_Psend_init/MPI_Precv_init).
 */
#ifndef UZ_CORE_P2P_PERSISTENT_H
#define UZ_CORE_P2P_PERSISTENT_H

#include "core/comm.h"
#include "pt2pt/request.h"

/* Give the new request `r` its operations and state, and the buffer,
 * peer, tag and communicator it names (retaining dt and comm); it counts
 * as complete until started. */
void uz_persistent_describe(uz_request *r, const struct uz_request_ops *ops, void *state, void *buf,
                            MPI_Count count, uz_datatype *dt, int peer, int tag, uz_comm *comm);

#endif /* UZ_CORE_P2P_PERSISTENT_H */
