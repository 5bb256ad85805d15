/*
 * p2p_bsend.h — buffered sends: the attached buffers and starting a buffered
 * send from one.
 */
#ifndef UZ_CORE_P2P_BSEND_H
#define UZ_CORE_P2P_BSEND_H

#include "pt2pt/request.h"

/* Copy (buf, count, dt) into the buffer attached to comm (or the process),
 * start sending it, and return a request that is already complete: the
 * user's buffer is free at once. */
int uz_bsend_start(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag, uz_comm *comm,
                   uz_request **out);

/* A communicator is being destroyed: release its attached buffer's
 * bookkeeping (the user's memory stays theirs). */
void uz_bsend_comm_free(uz_comm *comm);

#endif /* UZ_CORE_P2P_BSEND_H */
