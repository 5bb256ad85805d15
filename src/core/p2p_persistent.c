/*
 * p2p_persistent.c — persistent point-to-point requests (MPI_Send_init and
 * friends, MPI_Recv_init) and MPI_Start / MPI_Startall.
 *
 * A persistent request remembers its arguments; each MPI_Start runs one
 * ordinary operation as its `child`, and completing that makes the
 * persistent request inactive again.  Buffered sends copy into the attached
 * buffer at every start (p2p_bsend.c).
 */
#include <stdlib.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/p2p_persistent.h"
#include "core/error_raise.h"
#include "datatype/dt_engine.h"
#include "core/p2p_bsend.h"
#include "pt2pt/pt2pt.h"

struct persistent_args {
    int is_recv;
    enum uz_send_mode mode;
};

static int pt2pt_start(uz_request *r)
{
    struct persistent_args *a = r->ops_state;
    uz_request *child = NULL;
    int err;
    if (a->is_recv)
        err = uz_pt2pt_recv(r->buf, r->count, r->datatype, r->peer, r->tag, &r->comm->p2p, NULL, &child);
    else if (a->mode == UZ_SEND_BUFFERED)
        err = uz_bsend_start(r->buf, r->count, r->datatype, r->peer, r->tag, r->comm, &child);
    else
        err = uz_pt2pt_send(r->buf, r->count, r->datatype, r->peer, r->tag, &r->comm->p2p, a->mode, &child);
    if (err)
        return err;
    r->child = child;
    r->active = 1;
    return MPI_SUCCESS;
}

static void pt2pt_destroy(uz_request *r)
{
    free(r->ops_state);
    r->ops_state = NULL;
}

static const struct uz_request_ops persistent_ops = {
    .start = pt2pt_start,
    .destroy = pt2pt_destroy,
};

void uz_persistent_describe(uz_request *r, const struct uz_request_ops *ops, void *state, void *buf,
                            MPI_Count count, uz_datatype *dt, int peer, int tag, uz_comm *comm)
{
    r->ops = ops;
    r->ops_state = state;
    r->buf = buf;
    r->count = count;
    r->datatype = dt;
    uz_dt_retain(dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    uz_comm_retain(comm);
    r->context_id = comm->context_id;
    atomic_store(&r->complete, 1);      /* an inactive request counts as complete */
}

static int make_persistent(void *buf, MPI_Count count, uz_datatype *dt, int peer, int tag, uz_comm *comm,
                           int is_recv, enum uz_send_mode mode, MPI_Request *request)
{
    struct persistent_args *a = malloc(sizeof(*a));
    /* The request layer's free list is shared by every thread. */
    uz_lock();
    uz_request *r = a ? uz_request_new(UZ_REQ_PERSISTENT) : NULL;
    uz_unlock();
    if (!r) {
        free(a);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a persistent request");
    }
    a->is_recv = is_recv;
    a->mode = mode;
    uz_persistent_describe(r, &persistent_ops, a, buf, count, dt, peer, tag, comm);
    *request = uz_request_handle(r);
    return MPI_SUCCESS;
}

int uz_mpi_Send_init_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                       uz_comm *comm, MPI_Request *request)
{
    return make_persistent((void *)buf, count, datatype, dest, tag, comm, 0, UZ_SEND_STANDARD, request);
}

int uz_mpi_Ssend_init_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                        uz_comm *comm, MPI_Request *request)
{
    return make_persistent((void *)buf, count, datatype, dest, tag, comm, 0, UZ_SEND_SYNC, request);
}

int uz_mpi_Rsend_init_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                        uz_comm *comm, MPI_Request *request)
{
    return make_persistent((void *)buf, count, datatype, dest, tag, comm, 0, UZ_SEND_READY, request);
}

int uz_mpi_Bsend_init_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                        uz_comm *comm, MPI_Request *request)
{
    return make_persistent((void *)buf, count, datatype, dest, tag, comm, 0, UZ_SEND_BUFFERED, request);
}

int uz_mpi_Recv_init_c(void *buf, MPI_Count count, uz_datatype *datatype, int source, int tag,
                       uz_comm *comm, MPI_Request *request)
{
    return make_persistent(buf, count, datatype, source, tag, comm, 1, UZ_SEND_STANDARD, request);
}

static int start_one(const char *fn, MPI_Request handle, int index)
{
    uz_request *r = uz_request_get(handle);
    if (!r || r->kind != UZ_REQ_PERSISTENT || !r->ops || !r->ops->start)
        return uz_err_raise_comm(fn, NULL, index < 0
            ? uz_err_make(MPI_ERR_REQUEST, "not a persistent request")
            : uz_err_make(MPI_ERR_REQUEST, "request at index %d is not a persistent request", index));
    if (r->child)
        return uz_err_raise_comm(fn, r->comm, index < 0
            ? uz_err_make(MPI_ERR_REQUEST, "persistent request is already active")
            : uz_err_make(MPI_ERR_REQUEST, "persistent request at index %d is already active", index));
    uz_lock();
    int err = r->ops->start(r);
    uz_unlock();
    return err ? uz_err_raise_comm(fn, r->comm, err) : MPI_SUCCESS;
}

int uz_mpi_Start(MPI_Request *request)
{
    return start_one("MPI_Start", *request, -1);
}

int uz_mpi_Startall(int count, MPI_Request array_of_requests[])
{
    for (int i = 0; i < count; i++) {
        int err = start_one("MPI_Startall", array_of_requests[i], i);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}
