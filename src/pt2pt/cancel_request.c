/*
 * cancel_request.c — cancelling a pending request, by kind; MPI_Cancel
 * (core/p2p_cancel.c) calls it.
 *
 * A receive can always be cancelled while it waits in the posted queue.  A
 * send can be cancelled while it has not left this process, or — for a
 * rendezvous or synchronous send — while the receiver has not matched it:
 * the receiver is asked to drop the queued message and says whether it
 * did.  Otherwise the send completes normally and MPI_Test_cancelled says
 * false.
 */
#include "pt2pt/pt2pt.h"
#include "pt2pt/recv.h"
#include "pt2pt/send.h"

int uz_pt2pt_cancel(uz_request *r)
{
    switch (r->kind) {
    case UZ_REQ_SEND:
        return uz_send_cancel(r);
    case UZ_REQ_RECV:
        return uz_recv_cancel(r);
    case UZ_REQ_OTHER:
        if (r->ops && r->ops->cancel)
            return r->ops->cancel(r);
        return MPI_SUCCESS;     /* e.g. nonblocking collectives: not cancellable, completes normally */
    default:
        return MPI_SUCCESS;
    }
}
