/*
 * request.c — allocating, completing and destroying requests.
 *
 * Requests come from a free list: a nonblocking send or receive must not
 * pay for malloc on the fast path.  A request dies when both the user has
 * let go of it (MPI_Wait/Test returned it, or MPI_Request_free) and the
 * operation is complete.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/zero.h"
#include "datatype/dt_engine.h"
#include "pt2pt/cookie.h"
#include "pt2pt/p2p_comm.h"
#include "pt2pt/request.h"

static uz_request *free_requests;
static long live_requests;

/* Every request object ever carved (they never go back to the arena, only
 * to free_requests), so that a rare question about all live requests
 * (uz_request_pending_on) costs the fast path nothing. */
static uz_request **every_request;
static size_t n_every, cap_every;

static uz_request *carve_request(void)
{
    if (n_every == cap_every) {
        size_t cap = cap_every ? 2 * cap_every : 64;
        uz_request **grown = realloc(every_request, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        every_request = grown;
        cap_every = cap;
    }
    uz_request *req = uz_object_alloc(sizeof(*req));
    if (req)
        every_request[n_every++] = req;
    return req;
}

int uz_request_pending_on(const uz_comm *comm)
{
    for (size_t i = 0; i < n_every; i++) {
        const uz_request *r = every_request[i];
        /* A persistent request's running operation is a request of its own. */
        if (r->obj.magic == UZ_MAGIC_REQUEST && r->kind != UZ_REQ_PERSISTENT && r->comm == comm &&
            !uz_request_is_complete(r))
            return 1;
    }
    return 0;
}

uz_request *uz_request_get(MPI_Request h)
{
    if (uz_handle_is_predefined(h))
        return NULL;
    return uz_object_check(h, UZ_MAGIC_REQUEST);
}

uz_request *uz_request_new(enum uz_request_kind kind)
{
    uz_request *req = free_requests;
    if (req)
        free_requests = req->next;
    else if (!(req = carve_request()))
        return NULL;
    uz_zero(req, sizeof(*req));
    uz_object_init(&req->obj, UZ_MAGIC_REQUEST);
    req->kind = (uint8_t)kind;
    live_requests++;
    return req;
}

long uz_request_live_count(void)
{
    return live_requests;
}

void uz_request_retain(uz_request *req)
{
    uz_object_retain(&req->obj);
}

static void destroy(uz_request *req)
{
    if (req->ops && req->ops->destroy)
        req->ops->destroy(req);
    if (req->cookie)
        uz_cookie_revoke(req->cookie);
    if (req->child)
        uz_request_release(req->child);
    if (req->comm)
        uz_pt2pt_comm_refs.release(req->comm);
    if (req->datatype)
        uz_dt_release(req->datatype);
    free(req->cursor);
    if (req->bulk_iov && req->bulk_iov != &req->bulk_iov_one)
        free(req->bulk_iov);
    uz_object_destroy(&req->obj);
    req->next = free_requests;
    free_requests = req;
    live_requests--;
}

void uz_request_init_on_stack(uz_request *req, enum uz_request_kind kind)
{
    uz_zero(req, sizeof(*req));
    uz_object_init(&req->obj, UZ_MAGIC_REQUEST);
    req->kind = (uint8_t)kind;
}

void uz_request_cleanup_on_stack(uz_request *req)
{
    if (req->cookie)
        uz_cookie_revoke(req->cookie);
    if (req->datatype)
        uz_dt_release(req->datatype);
    free(req->cursor);
    if (req->bulk_iov && req->bulk_iov != &req->bulk_iov_one)
        free(req->bulk_iov);
    req->obj.magic = UZ_MAGIC_FREED;
}

void uz_request_release(uz_request *req)
{
    if (uz_object_release(&req->obj))
        destroy(req);
}

void uz_request_complete(uz_request *req)
{
    if (req->cookie) {
        uz_cookie_revoke(req->cookie);
        req->cookie = 0;
    }
    if (req->on_complete)
        req->on_complete(req);
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    if (req->user_freed) {
        req->user_freed = 0;
        uz_request_release(req);
    }
}
