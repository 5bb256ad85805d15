/*
 * p2p_grequest.c — generalized requests (MPI_Grequest_start,
 * MPI_Grequest_complete): requests whose operation the program carries out
 * itself and whose status, cancellation and release it supplies through
 * three callbacks.
 *
 * They are ordinary requests of kind UZ_REQ_OTHER, so every MPI_Wait/Test
 * form and MPI_Request_get_status treat them alike: the request-layer hooks
 * call query_fn whenever a status is handed out, free_fn when the handle is
 * retired (or, for MPI_Request_free, when the request dies), cancel_fn on
 * MPI_Cancel.  The callbacks run under the library's lock, so they may use
 * the status and attribute procedures but must not wait on communication.
 */
#include <stdlib.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/status.h"

struct grequest {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int freed;                  /* free_fn has been called */
};

static int grequest_query(uz_request *req)
{
    struct grequest *g = req->ops_state;
    uz_status_set_empty(&req->status);
    return g->query_fn ? g->query_fn(g->extra_state, &req->status) : MPI_SUCCESS;
}

static int grequest_free(struct grequest *g)
{
    if (g->freed)
        return MPI_SUCCESS;
    g->freed = 1;
    return g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
}

static int grequest_retire(uz_request *req)
{
    return grequest_free(req->ops_state);
}

static int grequest_cancel(uz_request *req)
{
    struct grequest *g = req->ops_state;
    return g->cancel_fn ? g->cancel_fn(g->extra_state, uz_request_is_complete(req)) : MPI_SUCCESS;
}

/* MPI_Request_free on a generalized request: free_fn runs once it is
 * complete and gone (its error has no one to go to then). */
static void grequest_destroy(uz_request *req)
{
    struct grequest *g = req->ops_state;
    if (!g)
        return;
    (void)grequest_free(g);
    free(g);
    req->ops_state = NULL;
}

static const struct uz_request_ops grequest_ops = {
    .query = grequest_query,
    .retire = grequest_retire,
    .cancel = grequest_cancel,
    .destroy = grequest_destroy,
};

int uz_mpi_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                          MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                          MPI_Request *request)
{
    struct grequest *g = calloc(1, sizeof(*g));
    if (!g)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a generalized request");
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    uz_lock();
    uz_request *req = uz_request_new(UZ_REQ_OTHER);
    uz_unlock();
    if (!req) {
        free(g);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a generalized request");
    }
    uz_status_set_empty(&req->status);
    req->ops = &grequest_ops;
    req->ops_state = g;
    *request = uz_request_handle(req);
    return MPI_SUCCESS;
}

int uz_mpi_Grequest_complete(MPI_Request request)
{
    uz_request *req = request == MPI_REQUEST_NULL ? NULL : uz_request_get(request);
    if (!req || req->ops != &grequest_ops || uz_request_is_complete(req))
        return uz_err_raise_comm("MPI_Grequest_complete", NULL,
                                 uz_err_make(MPI_ERR_REQUEST, "not an incomplete generalized request"));
    uz_lock();
    uz_request_complete(req);
    uz_unlock();
    return MPI_SUCCESS;
}
