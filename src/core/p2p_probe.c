/*
 * p2p_probe.c — looking at messages before receiving them: MPI_Probe,
 * MPI_Iprobe, and the matched probes MPI_Mprobe / MPI_Improbe with
 * MPI_Mrecv / MPI_Imrecv, whose message handle owns the message so that no
 * other receive can take it.
 */
#include <stdlib.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "pt2pt/match.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/status.h"
#include "pt2pt/wait_note.h"

/* An MPI_Message: a message taken off the queues, and its communicator. */
typedef struct MPI_ABI_Message {
    struct uz_object obj;
    struct uz_unexpected *msg;
    uz_comm *comm;
} uz_message;

static void proc_null_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        uz_status_set_proc_null(status);
}

int uz_mpi_Probe(int source, int tag, uz_comm *comm, MPI_Status *status)
{
    int flag;
    if (source == MPI_PROC_NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct uz_wait_note note = { .call = "MPI_Probe" };
    uz_lock();
    struct uz_wait_note *prev = uz_wait_note_enter(&note);
    int err = uz_pt2pt_probe(source, tag, comm->context_id, 1, &flag, status, 0, NULL);
    uz_wait_note_leave(prev);
    uz_unlock();
    return err;
}

int uz_mpi_Iprobe(int source, int tag, uz_comm *comm, int *flag, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    uz_lock();
    int err = uz_pt2pt_probe(source, tag, comm->context_id, 0, flag, status, 0, NULL);
    uz_unlock();
    return err;
}

static int matched_probe(int source, int tag, uz_comm *comm, int blocking, int *flag, MPI_Message *message,
                         MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    uz_message *m = uz_object_alloc(sizeof(*m));
    if (!m)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a message handle");
    struct uz_unexpected *u = NULL;
    uz_lock();
    int err = uz_pt2pt_probe(source, tag, comm->context_id, blocking, flag, status, 1, &u);
    uz_unlock();
    if (err || !*flag) {
        uz_object_free(m, sizeof(*m));
        *message = MPI_MESSAGE_NULL;
        return err;
    }
    uz_object_init(&m->obj, UZ_MAGIC_MESSAGE);
    m->msg = u;
    m->comm = comm;
    uz_comm_retain(comm);
    *message = (MPI_Message)m;
    return MPI_SUCCESS;
}

int uz_mpi_Mprobe(int source, int tag, uz_comm *comm, MPI_Message *message, MPI_Status *status)
{
    int flag;
    return matched_probe(source, tag, comm, 1, &flag, message, status);
}

int uz_mpi_Improbe(int source, int tag, uz_comm *comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    return matched_probe(source, tag, comm, 0, flag, message, status);
}

/* Take the message out of its handle; NULL for MPI_MESSAGE_NO_PROC. */
static int open_message(const char *fn, MPI_Message *message, struct uz_unexpected **msg, uz_comm **comm)
{
    if (*message == MPI_MESSAGE_NO_PROC) {
        *msg = NULL;
        *comm = NULL;
        /* Receiving a message consumes its handle, MPI_MESSAGE_NO_PROC's too
         * (MPICH and Open MPI agree; mpi4py's tests check it). */
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    uz_message *m = uz_object_check(*message, UZ_MAGIC_MESSAGE);
    if (!m)
        return uz_err_raise_comm(fn, NULL, uz_err_make(MPI_ERR_REQUEST, "invalid message handle"));
    *msg = m->msg;
    *comm = m->comm;
    uz_object_free(m, sizeof(*m));
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int uz_mpi_Mrecv_c(void *buf, MPI_Count count, uz_datatype *dt, MPI_Message *message,
                   MPI_Status *status)
{
    struct uz_unexpected *u;
    uz_comm *comm;
    int err = open_message("MPI_Mrecv", message, &u, &comm);
    if (err)
        return err;
    if (!u) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    uz_lock();
    err = uz_pt2pt_mrecv(buf, count, dt, u, comm, status, NULL);
    uz_unlock();
    if (err)
        err = uz_err_raise_comm("MPI_Mrecv", comm, err);
    uz_comm_release(comm);
    return err;
}

int uz_mpi_Imrecv_c(void *buf, MPI_Count count, uz_datatype *dt, MPI_Message *message,
                    MPI_Request *request)
{
    struct uz_unexpected *u;
    uz_comm *comm;
    int err = open_message("MPI_Imrecv", message, &u, &comm);
    if (err)
        return err;
    uz_request *r;
    uz_lock();
    if (!u)
        err = uz_pt2pt_recv(buf, count, dt, MPI_PROC_NULL, 0, &uz_comm_self.p2p, NULL, &r);
    else
        err = uz_pt2pt_mrecv(buf, count, dt, u, comm, NULL, &r);
    uz_unlock();
    if (comm) {
        if (err)
            err = uz_err_raise_comm("MPI_Imrecv", comm, err);
        uz_comm_release(comm);
    }
    if (!err)
        *request = uz_request_handle(r);
    return err;
}
