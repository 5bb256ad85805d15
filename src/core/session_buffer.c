/*
 * session_buffer.c — a session's buffer for buffered sends (MPI-4.1
 * §3.6.1): MPI_Session_attach_buffer, _detach_buffer, _flush_buffer and
 * _iflush_buffer.  A buffered send on a communicator derived from the
 * session uses it when the communicator has no buffer of its own
 * (p2p_bsend.c); MPI_Session_finalize waits for its sends and forgets it.
 */
#include "core/p2p_bsend.h"
#include "core/session.h"

int uz_mpi_Session_attach_buffer_c(uz_session *session, void *buffer, MPI_Count size)
{
    return uz_bsend_attach(&session->bsend, buffer, size, "this session");
}

int uz_mpi_Session_detach_buffer_c(uz_session *session, void *buffer_addr, MPI_Count *size)
{
    return uz_bsend_detach(&session->bsend, buffer_addr, size, "this session");
}

int uz_mpi_Session_flush_buffer(uz_session *session)
{
    uz_bsend_flush(session->bsend);
    return MPI_SUCCESS;
}

int uz_mpi_Session_iflush_buffer(uz_session *session, MPI_Request *request)
{
    return uz_bsend_iflush(session->bsend, request);
}
