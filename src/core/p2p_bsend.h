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

/* The buffer kept in *slot (the process's, a communicator's or a
 * session's): attach (MPI_ERR_BUFFER when one is there already), detach
 * after the sends using it have completed, wait for those sends (flush),
 * or start waiting (iflush: a request complete when they are).  `what`
 * names the owner in messages ("this session"). */
struct uz_bsend_buffer;
int uz_bsend_attach(struct uz_bsend_buffer **slot, void *buffer, MPI_Count size, const char *what);
int uz_bsend_detach(struct uz_bsend_buffer **slot, void *buffer_addr, MPI_Count *size, const char *what);
void uz_bsend_flush(struct uz_bsend_buffer *b);
int uz_bsend_iflush(struct uz_bsend_buffer *b, MPI_Request *request);

/* Wait for the sends using *slot's buffer and forget it (the user's
 * memory stays theirs). */
void uz_bsend_buffer_free(struct uz_bsend_buffer **slot);

/* A communicator is being destroyed: release its attached buffer's
 * bookkeeping (the user's memory stays theirs). */
void uz_bsend_comm_free(uz_comm *comm);

#endif /* UZ_CORE_P2P_BSEND_H */
