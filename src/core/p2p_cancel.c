/*
 * p2p_cancel.c — MPI_Cancel and the status procedures about cancellation;
 * the request layer does the cancelling (pt2pt/cancel_request.c).
 *
 * A receive can always be cancelled while it waits in the posted queue.  A
 * send can be cancelled while it has not left this process, or — for a
 * rendezvous or synchronous send — while the receiver has not matched it:
 * the receiver is asked to drop the queued message and says whether it
 * did.  Otherwise the send completes normally and MPI_Test_cancelled says
 * false.
 */
#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/p2p_partitioned.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/recv.h"
#include "pt2pt/send.h"
#include "pt2pt/status.h"

int uz_mpi_Cancel(MPI_Request *request)
{
    uz_request *r = uz_request_get(*request);
    if (!r)
        return uz_err_raise_comm("MPI_Cancel", NULL, uz_err_make(MPI_ERR_REQUEST, "invalid request handle"));
    if (r->kind == UZ_REQ_PERSISTENT) {
        if (!r->child)
            return uz_err_raise_comm("MPI_Cancel", r->comm,
                                     uz_err_make(MPI_ERR_REQUEST, "persistent request is not active"));
        if (uz_part_of(r) && !uz_request_is_complete(r->child))
            return uz_err_raise_comm("MPI_Cancel", r->comm, uz_err_make(MPI_ERR_REQUEST,
                                     "an active partitioned request may not be cancelled (MPI 4.1 §4.2)"));
        r = r->child;
    }
    uz_lock();
    int err = uz_pt2pt_cancel(r);
    uz_unlock();
    return err ? uz_err_raise_comm("MPI_Cancel", r->comm, err) : MPI_SUCCESS;
}

int uz_mpi_Test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = uz_status_cancelled(status);
    return MPI_SUCCESS;
}

int uz_mpi_Status_set_cancelled(MPI_Status *status, int flag)
{
    uz_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}

int uz_mpi_Status_set_source(MPI_Status *status, int source)
{
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int uz_mpi_Status_set_tag(MPI_Status *status, int tag)
{
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int uz_mpi_Status_set_error(MPI_Status *status, int err)
{
    status->MPI_ERROR = err;
    return MPI_SUCCESS;
}

int uz_mpi_Status_get_source(const MPI_Status *status, int *source)
{
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

int uz_mpi_Status_get_tag(const MPI_Status *status, int *tag)
{
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

int uz_mpi_Status_get_error(const MPI_Status *status, int *err)
{
    *err = status->MPI_ERROR;
    return MPI_SUCCESS;
}
