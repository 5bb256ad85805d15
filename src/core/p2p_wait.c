/*
 * p2p_wait.c — completing requests: MPI_Wait, MPI_Test and their
 * all/any/some forms, MPI_Request_get_status*, MPI_Request_free.
 *
 * Every request kind is handled alike: a persistent request is complete
 * when the operation it started is (and is "inactive" when none runs); an
 * error is raised through the request's communicator's error handler.
 */
#include <stdlib.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/p2p_partitioned.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/status.h"
#include "pt2pt/wait_note.h"

/* The operation a request stands for: itself, or the running round of a
 * persistent request (NULL when inactive). */
static inline uz_request *running(uz_request *r)
{
    return r->kind == UZ_REQ_PERSISTENT ? r->child : r;
}

static int is_done(uz_request *r)
{
    uz_request *op = running(r);
    return op == NULL || uz_request_is_complete(op);
}

static int invalid_request(const char *fn, int index)
{
    int err = index < 0 ? uz_err_make(MPI_ERR_REQUEST, "invalid request handle")
                        : uz_err_make(MPI_ERR_REQUEST, "invalid request handle at index %d", index);
    return uz_err_raise_comm(fn, NULL, err);
}

/* Hand a complete request back to the user: fill the status and free a
 * non-persistent request (its handle becomes MPI_REQUEST_NULL) or
 * deactivate a persistent one.  Returns the operation's error code. */
static int retire(MPI_Request *handle, uz_request *r, MPI_Status *status)
{
    uz_request *op = running(r);
    if (!op) {                          /* inactive persistent request */
        if (status != MPI_STATUS_IGNORE)
            uz_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if (op->ops && op->ops->query)
        op->status.MPI_ERROR = op->ops->query(op);
    int err = op->status.MPI_ERROR;
    uz_request_copy_status(op, status);
    if (r->kind == UZ_REQ_PERSISTENT) {
        r->child = NULL;
        r->active = 0;
        uz_request_release(op);
    } else {
        if (r->ops && r->ops->retire) {
            int rerr = r->ops->retire(r);
            if (!err)
                err = rerr;
        }
        uz_request_release(r);
        *handle = MPI_REQUEST_NULL;
    }
    return err;
}

/* Status of a request that is not retired (MPI_Request_get_status), its
 * MPI_ERROR left alone as retire() leaves it; returns the operation's
 * error code for the calls that return several statuses. */
static int peek_status(uz_request *r, MPI_Status *status)
{
    uz_request *op = running(r);
    if (status == MPI_STATUS_IGNORE)
        return MPI_SUCCESS;
    if (!op) {
        uz_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if (op->ops && op->ops->query)
        op->status.MPI_ERROR = op->ops->query(op);
    uz_request_copy_status(op, status);
    return op->status.MPI_ERROR;
}

/* Resolve an array of handles; NULL entries are null handles.  Returns -1
 * (and raises) on an invalid one, else the number of active requests. */
static int resolve(const char *fn, int count, MPI_Request handles[], uz_request **reqs, int *bad)
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (handles[i] == MPI_REQUEST_NULL) {
            reqs[i] = NULL;
            continue;
        }
        reqs[i] = uz_request_get(handles[i]);
        if (!reqs[i]) {
            *bad = invalid_request(fn, i);
            return -1;
        }
        active += running(reqs[i]) != NULL;
    }
    return active;
}

/* ---------------------------------------------------------------- single */

static int wait_done(void *arg)
{
    return is_done(arg);
}

int uz_mpi_Wait(MPI_Request *request, MPI_Status *status)
{
    if (*request == MPI_REQUEST_NULL) {
        if (status != MPI_STATUS_IGNORE)
            uz_status_set_empty(status);
        return MPI_SUCCESS;
    }
    uz_request *r = uz_request_get(*request);
    if (!r)
        return invalid_request("MPI_Wait", -1);
    uz_lock();
    if (!is_done(r)) {
        /* Named for the hang diagnosis only when there is a wait. */
        struct uz_wait_note note = { .call = "MPI_Wait", .one = r, .reqs = &note.one, .nreqs = 1 };
        struct uz_wait_note *prev = uz_wait_note_enter(&note);
        uz_progress_wait(wait_done, r);
        uz_wait_note_leave(prev);
    }
    uz_comm *comm = r->comm;
    if (comm)
        uz_comm_retain(comm);
    int err = retire(request, r, status);
    uz_unlock();
    if (err)
        err = uz_err_raise_comm("MPI_Wait", comm, err);
    if (comm)
        uz_comm_release(comm);
    return err;
}

int uz_mpi_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            uz_status_set_empty(status);
        return MPI_SUCCESS;
    }
    uz_request *r = uz_request_get(*request);
    if (!r)
        return invalid_request("MPI_Test", -1);
    uz_lock();
    if (!is_done(r))
        uz_progress();
    *flag = is_done(r);
    int err = MPI_SUCCESS;
    uz_comm *comm = r->comm;
    if (comm)
        uz_comm_retain(comm);
    if (*flag)
        err = retire(request, r, status);
    uz_unlock();
    if (err)
        err = uz_err_raise_comm("MPI_Test", comm, err);
    if (comm)
        uz_comm_release(comm);
    return err;
}

int uz_mpi_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            uz_status_set_empty(status);
        return MPI_SUCCESS;
    }
    uz_request *r = uz_request_get(request);
    if (!r)
        return invalid_request("MPI_Request_get_status", -1);
    uz_lock();
    if (!is_done(r))
        uz_progress();
    *flag = is_done(r);
    if (*flag)
        peek_status(r, status);
    uz_unlock();
    return MPI_SUCCESS;
}

int uz_mpi_Request_free(MPI_Request *request)
{
    uz_request *r = uz_request_get(*request);
    if (!r)
        return invalid_request("MPI_Request_free", -1);
    if (uz_part_of(r) && r->child && !uz_request_is_complete(r->child))
        return uz_err_raise_comm("MPI_Request_free", r->comm, uz_err_make(MPI_ERR_REQUEST,
                                 "a partitioned request may not be freed while active (MPI 4.1 §4.2)"));
    uz_lock();
    uz_request *op = running(r);
    if (r->kind == UZ_REQ_PERSISTENT && op) {
        /* The running round finishes on its own; the persistent request
         * goes with it. */
        r->child = NULL;
        if (uz_request_is_complete(op))
            uz_request_release(op);
        else
            op->user_freed = 1;
        uz_request_release(r);
    } else if (r->kind != UZ_REQ_PERSISTENT && !uz_request_is_complete(r)) {
        r->user_freed = 1;
    } else {
        uz_request_release(r);
    }
    uz_unlock();
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------- all */

struct multi {
    int count;
    uz_request **reqs;
    int first_open;             /* all_done: the requests before it are done */
};

/* Requests stay done while a wait runs, so each look resumes at the first
 * one that was not: a window of receives completing in order is one pass,
 * not a pass per progress call. */
static int all_done(void *arg)
{
    struct multi *m = arg;
    for (; m->first_open < m->count; m->first_open++) {
        uz_request *r = m->reqs[m->first_open];
        if (r && !is_done(r))
            return 0;
    }
    return 1;
}

static int any_done(void *arg)
{
    struct multi *m = arg;
    int active = 0;
    for (int i = 0; i < m->count; i++) {
        if (!m->reqs[i] || !running(m->reqs[i]))
            continue;
        active = 1;
        if (uz_request_is_complete(running(m->reqs[i])))
            return 1;
    }
    return !active;
}

/* Retire every request; MPI_ERR_IN_STATUS when any failed (statuses then
 * carry each error, MPI_ERR_PENDING for the ones not retired). */
static int retire_all(const char *fn, int count, MPI_Request handles[], uz_request **reqs,
                      MPI_Status statuses[])
{
    int failed = 0, first_err = MPI_SUCCESS;
    uz_comm *comm = NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!reqs[i]) {
            if (st != MPI_STATUS_IGNORE)
                uz_status_set_empty(st);
            continue;
        }
        uz_comm *c = reqs[i]->comm;
        if (c)
            uz_comm_retain(c);
        int err = retire(&handles[i], reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err && !failed) {
            failed = 1;
            first_err = err;
            comm = c;
        } else if (c) {
            uz_comm_release(c);
        }
    }
    if (!failed)
        return MPI_SUCCESS;
    int code = statuses == MPI_STATUSES_IGNORE ? first_err
             : uz_err_make(MPI_ERR_IN_STATUS, "one or more requests failed; see their statuses");
    code = uz_err_raise_comm(fn, comm, code);
    if (comm)
        uz_comm_release(comm);
    return code;
}

static int with_requests(int count, uz_request ***reqs, uz_request **stackbuf, int stackn)
{
    *reqs = count <= stackn ? stackbuf : malloc(sizeof(uz_request *) * count);
    return *reqs ? MPI_SUCCESS : uz_err_make(MPI_ERR_NO_MEM, "out of memory for %d requests", count);
}

enum { STACK_REQS = 32 };     /* requests resolved without malloc */

int uz_mpi_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(count, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm("MPI_Waitall", NULL, err);
    uz_lock();
    if (resolve("MPI_Waitall", count, array_of_requests, reqs, &bad) < 0) {
        uz_unlock();
        err = bad;
    } else {
        struct multi m = { count, reqs, 0 };
        if (!all_done(&m)) {
            struct uz_wait_note note = { .call = "MPI_Waitall", .reqs = reqs, .nreqs = count };
            struct uz_wait_note *prev = uz_wait_note_enter(&note);
            uz_progress_wait(all_done, &m);
            uz_wait_note_leave(prev);
        }
        err = retire_all("MPI_Waitall", count, array_of_requests, reqs, array_of_statuses);
        uz_unlock();
    }
    if (reqs != stackbuf)
        free(reqs);
    return err;
}

int uz_mpi_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(count, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm("MPI_Testall", NULL, err);
    uz_lock();
    if (resolve("MPI_Testall", count, array_of_requests, reqs, &bad) < 0) {
        uz_unlock();
        err = bad;
    } else {
        struct multi m = { count, reqs };
        if (!all_done(&m))
            uz_progress();
        *flag = all_done(&m);
        err = *flag ? retire_all("MPI_Testall", count, array_of_requests, reqs, array_of_statuses)
                    : MPI_SUCCESS;
        uz_unlock();
    }
    if (reqs != stackbuf)
        free(reqs);
    return err;
}

/* ------------------------------------------------------------------- any */

static int retire_one(const char *fn, MPI_Request *handle, uz_request *r, MPI_Status *status)
{
    uz_comm *comm = r->comm;
    if (comm)
        uz_comm_retain(comm);
    int err = retire(handle, r, status);
    if (err)
        err = uz_err_raise_comm(fn, comm, err);
    if (comm)
        uz_comm_release(comm);
    return err;
}

static int pick_any(int count, uz_request **reqs)
{
    for (int i = 0; i < count; i++)
        if (reqs[i] && running(reqs[i]) && uz_request_is_complete(running(reqs[i])))
            return i;
    return MPI_UNDEFINED;
}

static int any_common(const char *fn, int count, MPI_Request handles[], int *index, int *flag,
                      MPI_Status *status, int blocking)
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(count, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm(fn, NULL, err);
    uz_lock();
    int active = resolve(fn, count, handles, reqs, &bad);
    if (active < 0) {
        uz_unlock();
        err = bad;
        goto out;
    }
    struct multi m = { count, reqs };
    if (blocking) {
        struct uz_wait_note note = { .call = fn, .reqs = reqs, .nreqs = count };
        struct uz_wait_note *prev = uz_wait_note_enter(&note);
        uz_progress_wait(any_done, &m);
        uz_wait_note_leave(prev);
    }
    else if (!any_done(&m))
        uz_progress();
    int i = pick_any(count, reqs);
    *flag = i != MPI_UNDEFINED || active == 0;
    *index = i;
    if (i != MPI_UNDEFINED)
        err = retire_one(fn, &handles[i], reqs[i], status);
    else if (active == 0 && status != MPI_STATUS_IGNORE)
        uz_status_set_empty(status);
    uz_unlock();
out:
    if (reqs != stackbuf)
        free(reqs);
    return err;
}

int uz_mpi_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    int flag;
    return any_common("MPI_Waitany", count, array_of_requests, index, &flag, status, 1);
}

int uz_mpi_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    return any_common("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

/* ------------------------------------------------------------------ some */

static int some_common(const char *fn, int incount, MPI_Request handles[], int *outcount, int indices[],
                       MPI_Status statuses[], int blocking)
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(incount, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm(fn, NULL, err);
    uz_lock();
    int active = resolve(fn, incount, handles, reqs, &bad);
    if (active < 0) {
        uz_unlock();
        err = bad;
        goto out;
    }
    if (active == 0) {
        *outcount = MPI_UNDEFINED;
        uz_unlock();
        goto out;
    }
    struct multi m = { incount, reqs };
    if (blocking) {
        struct uz_wait_note note = { .call = fn, .reqs = reqs, .nreqs = incount };
        struct uz_wait_note *prev = uz_wait_note_enter(&note);
        uz_progress_wait(any_done, &m);
        uz_wait_note_leave(prev);
    }
    else if (!any_done(&m))
        uz_progress();
    int n = 0, failed = 0, first_err = MPI_SUCCESS;
    uz_comm *fail_comm = NULL;
    for (int i = 0; i < incount; i++) {
        if (!reqs[i] || !running(reqs[i]) || !uz_request_is_complete(running(reqs[i])))
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        uz_comm *c = reqs[i]->comm;
        if (c)
            uz_comm_retain(c);
        int e = retire(&handles[i], reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = e;
        if (e && !failed) {
            failed = 1;
            first_err = e;
            fail_comm = c;
        } else if (c) {
            uz_comm_release(c);
        }
        indices[n++] = i;
    }
    *outcount = n;
    uz_unlock();
    if (failed) {
        err = statuses == MPI_STATUSES_IGNORE ? first_err
            : uz_err_make(MPI_ERR_IN_STATUS, "one or more requests failed; see their statuses");
        err = uz_err_raise_comm(fn, fail_comm, err);
        if (fail_comm)
            uz_comm_release(fail_comm);
    }
out:
    if (reqs != stackbuf)
        free(reqs);
    return err;
}

int uz_mpi_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                    MPI_Status array_of_statuses[])
{
    return some_common("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 1);
}

int uz_mpi_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                    MPI_Status array_of_statuses[])
{
    return some_common("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 0);
}

/* ------------------------------------- status without retiring (MPI 4.1+) */

int uz_mpi_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
                                  MPI_Status *status)
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(count, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm("MPI_Request_get_status_any", NULL, err);
    uz_lock();
    int active = resolve("MPI_Request_get_status_any", count, (MPI_Request *)array_of_requests, reqs, &bad);
    if (active >= 0) {
        struct multi m = { count, reqs };
        if (!any_done(&m))
            uz_progress();
        int i = pick_any(count, reqs);
        *index = i;
        *flag = i != MPI_UNDEFINED || active == 0;
        if (i != MPI_UNDEFINED)
            peek_status(reqs[i], status);
        else if (active == 0 && status != MPI_STATUS_IGNORE)
            uz_status_set_empty(status);
    }
    uz_unlock();
    if (reqs != stackbuf)
        free(reqs);
    return active < 0 ? bad : MPI_SUCCESS;
}

int uz_mpi_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                  MPI_Status array_of_statuses[])
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(count, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm("MPI_Request_get_status_all", NULL, err);
    uz_lock();
    int active = resolve("MPI_Request_get_status_all", count, (MPI_Request *)array_of_requests, reqs, &bad);
    if (active >= 0) {
        struct multi m = { count, reqs };
        if (!all_done(&m))
            uz_progress();
        *flag = all_done(&m);
        for (int i = 0; *flag && array_of_statuses != MPI_STATUSES_IGNORE && i < count; i++) {
            if (reqs[i])
                array_of_statuses[i].MPI_ERROR = peek_status(reqs[i], &array_of_statuses[i]);
            else
                uz_status_set_empty(&array_of_statuses[i]);
        }
    }
    uz_unlock();
    if (reqs != stackbuf)
        free(reqs);
    return active < 0 ? bad : MPI_SUCCESS;
}

int uz_mpi_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                   int array_of_indices[], MPI_Status array_of_statuses[])
{
    uz_request *stackbuf[STACK_REQS], **reqs;
    int err = with_requests(incount, &reqs, stackbuf, STACK_REQS), bad;
    if (err)
        return uz_err_raise_comm("MPI_Request_get_status_some", NULL, err);
    uz_lock();
    int active = resolve("MPI_Request_get_status_some", incount, (MPI_Request *)array_of_requests, reqs, &bad);
    if (active == 0) {
        *outcount = MPI_UNDEFINED;
    } else if (active > 0) {
        struct multi m = { incount, reqs };
        if (!any_done(&m))
            uz_progress();
        int n = 0;
        for (int i = 0; i < incount; i++) {
            if (!reqs[i] || !running(reqs[i]) || !uz_request_is_complete(running(reqs[i])))
                continue;
            if (array_of_statuses != MPI_STATUSES_IGNORE)
                array_of_statuses[n].MPI_ERROR = peek_status(reqs[i], &array_of_statuses[n]);
            array_of_indices[n++] = i;
        }
        *outcount = n;
    }
    uz_unlock();
    if (reqs != stackbuf)
        free(reqs);
    return active < 0 ? bad : MPI_SUCCESS;
}
