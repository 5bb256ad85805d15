/*
 * p2p_send_recv.c — the MPI send and receive procedures (all modes,
 * blocking and nonblocking, and the combined send-receive calls).
 *
 * Arguments arrive checked by the generated bindings; these wrappers take
 * the lock and call the request layer on the communicator's point-to-point
 * context.  The int-count procedures are generated wrappers over these
 * large-count ones.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "core/comm.h"
#include "datatype/dt_engine.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/wait_note.h"

/* The blocking forms' names for the hang diagnosis (wait_note.h). */
static const char *const blocking_send_name[] = {
    [UZ_SEND_STANDARD] = "MPI_Send", [UZ_SEND_SYNC] = "MPI_Ssend", [UZ_SEND_READY] = "MPI_Rsend",
    [UZ_SEND_BUFFERED] = "MPI_Bsend",
};

/* Inlined into each caller with its constant mode and request: the
 * nonblocking forms then carry nothing of the blocking ones' wait note. */
static UZ_ALWAYS_INLINE int send_mode(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag,
                                      uz_comm *comm, enum uz_send_mode mode, MPI_Request *request)
{
    if (!request) {
        uz_lock();
        uz_wait_call = blocking_send_name[mode];
        int err = uz_pt2pt_send(buf, count, dt, dest, tag, &comm->p2p, mode, NULL);
        uz_wait_call = NULL;
        uz_unlock();
        return err;
    }
    uz_request *r = NULL;
    uz_lock();
    int err = uz_pt2pt_send(buf, count, dt, dest, tag, &comm->p2p, mode, &r);
    uz_unlock();
    if (!err)
        *request = uz_request_handle(r);
    return err;
}

int uz_mpi_Send_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag, uz_comm *comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_STANDARD, NULL);
}

int uz_mpi_Ssend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag, uz_comm *comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_SYNC, NULL);
}

/* A ready send may assume its receive is posted; sending it as a standard
 * send is always correct. */
int uz_mpi_Rsend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag, uz_comm *comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_READY, NULL);
}

int uz_mpi_Isend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                   uz_comm *comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_STANDARD, request);
}

int uz_mpi_Issend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                    uz_comm *comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_SYNC, request);
}

int uz_mpi_Irsend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                    uz_comm *comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, UZ_SEND_READY, request);
}

int uz_mpi_Recv_c(void *buf, MPI_Count count, uz_datatype *datatype, int source, int tag, uz_comm *comm,
                  MPI_Status *status)
{
    uz_lock();
    uz_wait_call = "MPI_Recv";
    int err = uz_pt2pt_recv(buf, count, datatype, source, tag, &comm->p2p, status, NULL);
    uz_wait_call = NULL;
    uz_unlock();
    return err;
}

int uz_mpi_Irecv_c(void *buf, MPI_Count count, uz_datatype *datatype, int source, int tag, uz_comm *comm,
                   MPI_Request *request)
{
    uz_request *r;
    uz_lock();
    int err = uz_pt2pt_recv(buf, count, datatype, source, tag, &comm->p2p, NULL, &r);
    uz_unlock();
    if (!err)
        *request = uz_request_handle(r);
    return err;
}

/* --------------------------------------------------------- send-receive */

int uz_sendrecv(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, int dest, int sendtag,
                void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int source, int recvtag,
                uz_comm *comm, uint32_t context_id, MPI_Status *status)
{
    struct uz_p2p_comm pc = uz_comm_p2p(comm, context_id);
    uz_request *rr, *sr;
    int err = uz_pt2pt_recv(recvbuf, recvcount, recvtype, source, recvtag, &pc, NULL, &rr);
    if (err)
        return err;
    err = uz_pt2pt_send(sendbuf, sendcount, sendtype, dest, sendtag, &pc, UZ_SEND_STANDARD, &sr);
    uz_request *both[2] = { rr, err ? NULL : sr };
    struct uz_wait_note note = { .call = "MPI_Sendrecv", .reqs = both, .nreqs = 2 };
    struct uz_wait_note *prev = uz_wait_note_enter(&note);
    if (!err) {
        uz_request_wait(sr);
        err = sr->status.MPI_ERROR;
        both[1] = NULL;
        uz_request_release(sr);
    }
    uz_request_wait(rr);
    uz_wait_note_leave(prev);
    if (!err)
        err = rr->status.MPI_ERROR;
    uz_request_copy_status(rr, status);
    uz_request_release(rr);
    return err;
}

int uz_mpi_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, int dest, int sendtag,
                      void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int source, int recvtag,
                      uz_comm *comm, MPI_Status *status)
{
    uz_lock();
    int err = uz_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                          source, recvtag, comm, comm->context_id, status);
    uz_unlock();
    return err;
}

/* The message to send is packed aside first, because the receive writes
 * into the same buffer. */
int uz_mpi_Sendrecv_replace_c(void *buf, MPI_Count count, uz_datatype *datatype, int dest, int sendtag,
                              int source, int recvtag, uz_comm *comm, MPI_Status *status)
{
    size_t bytes = (size_t)(count * datatype->size);
    void *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a %zu-byte MPI_Sendrecv_replace", bytes);
    uz_dt_pack(buf, count, datatype, packed);
    uz_datatype *byte = uz_datatype_get(MPI_BYTE);
    uz_lock();
    int err = uz_sendrecv(packed, (MPI_Count)bytes, byte, dest, sendtag, buf, count, datatype, source,
                          recvtag, comm, comm->context_id, status);
    uz_unlock();
    free(packed);
    return err;
}

/* ---------------------------------------------- nonblocking send-receive */

/* An MPI_Isendrecv request completes when both halves have; it reports
 * the receive's status. */
struct sendrecv_state {
    uz_request *send;
    uz_request *recv;
    void *packed;               /* Isendrecv_replace: the outgoing copy */
};

static int sendrecv_poll(uz_request *req)
{
    struct sendrecv_state *s = req->ops_state;
    if (!uz_request_is_complete(s->send) || !uz_request_is_complete(s->recv))
        return 0;
    req->status = s->recv->status;
    if (req->status.MPI_ERROR == MPI_SUCCESS)
        req->status.MPI_ERROR = s->send->status.MPI_ERROR;
    uz_progress_unregister(req);
    uz_request_complete(req);
    return 1;
}

static void sendrecv_destroy(uz_request *req)
{
    struct sendrecv_state *s = req->ops_state;
    if (!s)
        return;
    uz_request_release(s->send);
    uz_request_release(s->recv);
    free(s->packed);
    free(s);
    req->ops_state = NULL;
}

static const struct uz_request_ops sendrecv_ops = {
    .poll = sendrecv_poll,
    .destroy = sendrecv_destroy,
};

static int isendrecv(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int source, int recvtag,
                     uz_comm *comm, void *packed, MPI_Request *request)
{
    struct sendrecv_state *s = calloc(1, sizeof(*s));
    uz_request *req = s ? uz_request_new(UZ_REQ_OTHER) : NULL;
    if (!req) {
        free(s);
        free(packed);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting MPI_Isendrecv");
    }
    s->packed = packed;
    req->ops = &sendrecv_ops;
    req->ops_state = s;
    int err = uz_pt2pt_recv(recvbuf, recvcount, recvtype, source, recvtag, &comm->p2p, NULL, &s->recv);
    if (!err)
        err = uz_pt2pt_send(sendbuf, sendcount, sendtype, dest, sendtag, &comm->p2p, UZ_SEND_STANDARD,
                            &s->send);
    if (err) {
        if (s->recv) {
            uz_pt2pt_cancel(s->recv);
            uz_request_wait(s->recv);
            uz_request_release(s->recv);
        }
        free(s->packed);
        free(s);
        req->ops_state = NULL;
        uz_request_release(req);
        return err;
    }
    if (!sendrecv_poll(req))
        uz_progress_register(req);
    *request = uz_request_handle(req);
    return MPI_SUCCESS;
}

int uz_mpi_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, int dest, int sendtag,
                       void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int source, int recvtag,
                       uz_comm *comm, MPI_Request *request)
{
    uz_lock();
    int err = isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                        recvtag, comm, NULL, request);
    uz_unlock();
    return err;
}

int uz_mpi_Isendrecv_replace_c(void *buf, MPI_Count count, uz_datatype *datatype, int dest, int sendtag,
                               int source, int recvtag, uz_comm *comm, MPI_Request *request)
{
    size_t bytes = (size_t)(count * datatype->size);
    void *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a %zu-byte MPI_Isendrecv_replace", bytes);
    uz_dt_pack(buf, count, datatype, packed);
    uz_lock();
    int err = isendrecv(packed, (MPI_Count)bytes, uz_datatype_get(MPI_BYTE), dest, sendtag, buf, count,
                        datatype, source, recvtag, comm, packed, request);
    uz_unlock();
    return err;
}
