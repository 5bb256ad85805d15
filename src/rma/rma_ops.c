/*
 * rma_ops.c — the one-sided operations: put, get, accumulate,
 * get_accumulate, fetch_and_op, compare_and_swap and their request forms.
 *
 * Each operation finds the target's memory (target.c: mapped here, or
 * reached by cross-memory attach), checks the epoch and the range, and then
 * the origin moves the bytes itself, interpreting the target's datatype
 * where the bytes land (UZURA §2.1): a put to mapped memory unpacks the
 * origin's data straight into the target's layout; through cross-memory
 * attach the target layout becomes the remote run list of one
 * process_vm_writev.  Accumulates combine under the target's accumulate
 * lock with the collectives' reduction kernels, so concurrent accumulates
 * are atomic per target, which covers the standard's per-element rule.
 * Every operation is complete at the target when the call returns.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/op_kernels.h"
#include "datatype/dt_engine.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma.h"
#include "rma/rma_am.h"
#include "rma/target.h"

/* ------------------------------------------------------------- requests */

/* The request forms.  An operation the origin did itself is complete
 * already; one carried by messages completes with the request rma_am.c
 * handed back (the data left, or the result arrived), which the user's
 * request watches from the progress engine. */
static int watch_poll(uz_request *r)
{
    uz_request *inner = r->ops_state;
    if (!atomic_load_explicit(&inner->complete, memory_order_acquire))
        return 0;
    uz_progress_unregister(r);
    r->status.MPI_ERROR = inner->status.MPI_ERROR;
    uz_request_complete(r);
    return 1;
}

static void watch_destroy(uz_request *r)
{
    if (r->ops_state)
        uz_request_release(r->ops_state);
}

static const struct uz_request_ops watch_ops = { .poll = watch_poll, .destroy = watch_destroy };

/* The request forms are for passive target epochs only (MPI-4.1 §12.3.5). */
static int passive_only(uz_win *win, int target)
{
    if (target == MPI_PROC_NULL || win->ep.lock_all ||
        (target >= 0 && target < win->size && win->ep.lock_kind[target]))
        return MPI_SUCCESS;
    if (target < 0 || target >= win->size)
        return MPI_SUCCESS;     /* the rank check names the argument */
    return uz_err_make(MPI_ERR_RMA_SYNC, "request-based operations need a passive target epoch to window rank %d "
                       "(MPI_Win_lock or MPI_Win_lock_all)", target);
}

/* Requests and the progress engine's list are the request layer's, shared
 * with a progress thread or other threads: under the library lock. */
static int with_request(int err, uz_request *local, MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    uz_lock();
    if (err) {
        if (local)
            uz_request_release(local);
        uz_unlock();
        return err;
    }
    uz_request *r = uz_request_new(local ? UZ_REQ_OTHER : UZ_REQ_SEND);
    if (!r) {
        if (local)
            uz_request_release(local);
        uz_unlock();
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
    }
    uz_status_set_empty(&r->status);
    if (local) {
        r->ops = &watch_ops;
        r->ops_state = local;
        uz_progress_register(r);
        watch_poll(r);
    } else {
        r->phase = UZ_SEND_DONE;
        atomic_store_explicit(&r->complete, 1, memory_order_relaxed);
    }
    uz_unlock();
    *request = uz_request_handle(r);
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- put and get */

static int put(const void *obuf, MPI_Count ocount, uz_datatype *otype, int target, MPI_Aint disp,
               MPI_Count tcount, uz_datatype *ttype, uz_win *win, const char *fn, uz_request **local)
{
    struct uz_rma_target t;
    int err = uz_rma_target(win, target, disp, tcount, ttype, otype->size * ocount, fn, &t);
    if (err || t.none)
        return err;
    if (t.am)
        return uz_rma_am_put(win, target, obuf, ocount, otype, disp, tcount, ttype, local);
    return uz_rma_move(&t, (void *)obuf, ocount, otype, 1);
}

static int get(void *obuf, MPI_Count ocount, uz_datatype *otype, int target, MPI_Aint disp, MPI_Count tcount,
               uz_datatype *ttype, uz_win *win, const char *fn, uz_request **local)
{
    struct uz_rma_target t;
    int err = uz_rma_target(win, target, disp, tcount, ttype, otype->size * ocount, fn, &t);
    if (err || t.none)
        return err;
    if (t.am)
        return uz_rma_am_get(win, target, obuf, ocount, otype, disp, tcount, ttype, local);
    return uz_rma_move(&t, obuf, ocount, otype, 0);
}

/* The common put or get in line: one datatype on both sides, contiguous,
 * memory mapped here.  Where the target's bytes are, or NULL. */
static inline char *same_type_mapped(MPI_Count ocount, uz_datatype *otype, int target, MPI_Aint disp,
                                     MPI_Count tcount, uz_datatype *ttype, uz_win *win)
{
    if (otype != ttype || ocount != tcount || !uz_dt_is_contig(ttype, tcount))
        return NULL;
    return uz_rma_mapped_run(win, target, disp, ttype->true_lb, tcount * ttype->size);
}

int uz_mpi_Put_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype, int target_rank,
                 MPI_Aint target_disp, MPI_Count target_count, uz_datatype *target_datatype, uz_win *win)
{
    char *where = same_type_mapped(origin_count, origin_datatype, target_rank, target_disp, target_count,
                                   target_datatype, win);
    if (where) {
        memmove(where, (const char *)origin_addr + origin_datatype->true_lb,
                (size_t)(origin_count * origin_datatype->size));
        return MPI_SUCCESS;
    }
    return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win, "MPI_Put", NULL);
}

int uz_mpi_Get_c(void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype, int target_rank,
                 MPI_Aint target_disp, MPI_Count target_count, uz_datatype *target_datatype, uz_win *win)
{
    char *where = same_type_mapped(origin_count, origin_datatype, target_rank, target_disp, target_count,
                                   target_datatype, win);
    if (where) {
        memmove((char *)origin_addr + origin_datatype->true_lb, where,
                (size_t)(origin_count * origin_datatype->size));
        return MPI_SUCCESS;
    }
    return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win, "MPI_Get", NULL);
}

int uz_mpi_Rput_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype,
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count, uz_datatype *target_datatype,
                  uz_win *win, MPI_Request *request)
{
    uz_request *local = NULL;
    int err = passive_only(win, target_rank);
    if (!err)
        err = put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                  target_datatype, win, "MPI_Rput", &local);
    return with_request(err, local, request);
}

int uz_mpi_Rget_c(void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype, int target_rank,
                  MPI_Aint target_disp, MPI_Count target_count, uz_datatype *target_datatype, uz_win *win,
                  MPI_Request *request)
{
    uz_request *local = NULL;
    int err = passive_only(win, target_rank);
    if (!err)
        err = get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                  target_datatype, win, "MPI_Rget", &local);
    return with_request(err, local, request);
}

/* ------------------------------------------------------------ accumulate */

/* The predefined basic type both sides are made of, and the kernel of op
 * for it; MPI_ERR_TYPE or MPI_ERR_OP naming fn otherwise. */
static int acc_kernel(uz_op *op, uz_datatype *otype, uz_datatype *ttype, const char *fn,
                      const uz_datatype **basic, uz_op_kernel *kern, int *bytewise)
{
    if (!op->predefined)
        return uz_err_make(MPI_ERR_OP, "one-sided accumulates take predefined operations only, not %s",
                           op->name ? op->name : "a user function");
    const uz_datatype *tb = uz_dt_homogeneous_basic(ttype);
    const uz_datatype *ob = otype ? uz_dt_homogeneous_basic(otype) : tb;
    if (!tb || (otype && otype->size && ob != tb))
        return uz_err_make(MPI_ERR_TYPE, "the origin and target datatypes must be made of one and the same "
                           "predefined type");
    *kern = uz_op_kernel_find(op, tb, bytewise);
    if (!*kern)
        return uz_err_make(MPI_ERR_OP, "%s is not defined for the datatype's elements",
                           op->name ? op->name : "the operation");
    *basic = tb;
    return MPI_SUCCESS;
}

/* The kernel of (op, dt) on a predefined datatype, remembered per window:
 * programs repeat one pair (a counter, a ticket, a sum of doubles) millions
 * of times.  NULL sends the caller to the general path, which reports what
 * is wrong. */
static uz_op_kernel cached_kernel(uz_win *win, uz_op *op, uz_datatype *dt, size_t *esz)
{
    if (win->acc_op == op && win->acc_dt == dt) {
        *esz = win->acc_esz;
        return win->acc_kern;
    }
    const uz_datatype *basic;
    uz_op_kernel kern = NULL;
    int bytewise = 0;
    if (!dt->obj.builtin || acc_kernel(op, dt, dt, "MPI_Accumulate", &basic, &kern, &bytewise))
        return NULL;
    win->acc_op = op;
    win->acc_dt = dt;
    win->acc_kern = kern;
    win->acc_esz = *esz = bytewise ? 1 : (size_t)basic->size;
    return kern;
}

/* The common accumulate in line: one predefined datatype on both sides,
 * contiguous, into memory mapped here.  1 when done, 0 for the general
 * path. */
static UZ_ALWAYS_INLINE int acc_mapped(const void *obuf, void *rbuf, MPI_Count count, uz_datatype *type, int target,
                             MPI_Aint disp, uz_op *op, uz_win *win)
{
    MPI_Count bytes = count * type->size;
    size_t esz;
    uz_op_kernel kern;
    char *where;
    if (!uz_dt_is_contig(type, count) || !(kern = cached_kernel(win, op, type, &esz)) ||
        !(where = uz_rma_mapped_run(win, target, disp, type->true_lb, bytes)))
        return 0;
    uz_rma_acc_lock(win, target);
    if (rbuf && bytes == 8)
        memcpy((char *)rbuf + type->true_lb, where, 8);    /* the usual counter, in line */
    else if (rbuf)
        memcpy((char *)rbuf + type->true_lb, where, (size_t)bytes);
    kern((const char *)obuf + type->true_lb, where, (size_t)bytes / esz);
    uz_rma_acc_unlock(win, target);
    return 1;
}

/* Accumulate (fetch: the target's data before the operation goes to
 * (rbuf, rcount, rtype) too). */
static int accumulate(const void *obuf, MPI_Count ocount, uz_datatype *otype, void *rbuf, MPI_Count rcount,
                      uz_datatype *rtype, int target, MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype,
                      uz_op *op, uz_win *win, int fetch, const char *fn, uz_request **local)
{
    const uz_datatype *basic = NULL;
    uz_op_kernel kern = NULL;
    int bytewise = 0, no_op = uz_op_get(MPI_NO_OP) == op;
    MPI_Count bytes = tcount * ttype->size;
    /* Nothing to combine: nothing to check the operation against (mpi4py
     * accumulates zero MPI_BYTEs with MPI_SUM, as MPICH takes). */
    int err = bytes == 0 && (no_op || ocount * otype->size == 0)
                  ? MPI_SUCCESS
                  : acc_kernel(op, no_op ? NULL : otype, ttype, fn, &basic, &kern, &bytewise);
    if (err)
        return err;
    if (!no_op && ocount * otype->size != bytes)
        return uz_err_make(MPI_ERR_TYPE, "the origin gives %lld bytes for %lld of the target",
                           (long long)(ocount * otype->size), (long long)bytes);
    if (fetch && rcount * rtype->size != bytes)
        return uz_err_make(MPI_ERR_TYPE, "the result buffer takes %lld bytes for %lld of the target",
                           (long long)(rcount * rtype->size), (long long)bytes);
    struct uz_rma_target t;
    if ((err = uz_rma_target(win, target, disp, tcount, ttype, bytes, fn, &t)) || t.none)
        return err;
    if (t.am)
        return uz_rma_am_acc(win, target, no_op ? NULL : obuf, ocount, otype, rbuf, rcount, rtype, disp, tcount,
                             ttype, op, fetch, local);

    /* The origin's data packed (the kernels work on packed elements). */
    void *in = NULL, *old = NULL;
    char small[256];            /* fetches of a few elements need no heap */
    if (!no_op) {
        if (uz_dt_is_contig(otype, ocount)) {
            in = (char *)obuf + otype->true_lb;
        } else if (!(in = malloc((size_t)bytes ? (size_t)bytes : 1))) {
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
        } else {
            uz_dt_pack(obuf, ocount, otype, in);
        }
    }
    if (fetch && (size_t)bytes <= sizeof(small))
        old = small;
    else if (fetch && !(old = malloc((size_t)bytes ? (size_t)bytes : 1)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    if (!err) {
        uz_rma_acc_lock(win, target);
        err = uz_rma_combine(&t, no_op ? NULL : in, old, kern, bytewise ? 1 : (size_t)basic->size);
        uz_rma_acc_unlock(win, target);
    }
    if (!err && fetch)
        uz_dt_unpack(rbuf, rcount, rtype, old, (size_t)bytes);
    if (in && in != (char *)obuf + otype->true_lb)
        free(in);
    if (old != small)
        free(old);
    return err;
}

int uz_mpi_Accumulate_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        uz_datatype *target_datatype, uz_op *op, uz_win *win)
{
    if (origin_datatype == target_datatype && origin_count == target_count &&
        acc_mapped(origin_addr, NULL, origin_count, origin_datatype, target_rank, target_disp, op, win))
        return MPI_SUCCESS;
    return accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, NULL, target_rank, target_disp,
                      target_count, target_datatype, op, win, 0, "MPI_Accumulate", NULL);
}

int uz_mpi_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                         uz_datatype *target_datatype, uz_op *op, uz_win *win, MPI_Request *request)
{
    uz_request *local = NULL;
    int err = passive_only(win, target_rank);
    if (!err)
        err = accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, NULL, target_rank, target_disp,
                         target_count, target_datatype, op, win, 0, "MPI_Raccumulate", &local);
    return with_request(err, local, request);
}

int uz_mpi_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype,
                            void *result_addr, MPI_Count result_count, uz_datatype *result_datatype,
                            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                            uz_datatype *target_datatype, uz_op *op, uz_win *win)
{
    if (origin_datatype == target_datatype && result_datatype == target_datatype && origin_count == target_count &&
        result_count == target_count && op != uz_op_get(MPI_NO_OP) &&
        acc_mapped(origin_addr, result_addr, origin_count, origin_datatype, target_rank, target_disp, op, win))
        return MPI_SUCCESS;
    return accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                      target_rank, target_disp, target_count, target_datatype, op, win, 1, "MPI_Get_accumulate", NULL);
}

int uz_mpi_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, uz_datatype *origin_datatype,
                             void *result_addr, MPI_Count result_count, uz_datatype *result_datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                             uz_datatype *target_datatype, uz_op *op, uz_win *win, MPI_Request *request)
{
    uz_request *local = NULL;
    int err = passive_only(win, target_rank);
    if (!err)
        err = accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                         target_rank, target_disp, target_count, target_datatype, op, win, 1,
                         "MPI_Rget_accumulate", &local);
    return with_request(err, local, request);
}

int uz_mpi_Fetch_and_op(const void *origin_addr, void *result_addr, uz_datatype *datatype, int target_rank,
                        MPI_Aint target_disp, uz_op *op, uz_win *win)
{
    /* One element of mapped memory: no packing, no cursor (the cached
     * kernel vouches for the datatype).  MPI_NO_OP has no origin data to
     * read: the general path. */
    if (op != uz_op_get(MPI_NO_OP) &&
        acc_mapped(origin_addr, result_addr, 1, datatype, target_rank, target_disp, op, win))
        return MPI_SUCCESS;
    if (datatype->obj.builtin == 0 || !uz_dt_homogeneous_basic(datatype))
        return uz_err_make(MPI_ERR_TYPE, "the datatype must be a predefined one");
    return accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1, datatype,
                      op, win, 1, "MPI_Fetch_and_op", NULL);
}

int uz_mpi_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                            uz_datatype *datatype, int target_rank, MPI_Aint target_disp, uz_win *win)
{
    const char *fn = "MPI_Compare_and_swap";
    if (datatype->obj.builtin == 0 || !uz_dt_homogeneous_basic(datatype) || !uz_dt_is_contig(datatype, 1))
        return uz_err_make(MPI_ERR_TYPE, "the datatype must be a predefined one");
    struct uz_rma_target t;
    int err = uz_rma_target(win, target_rank, target_disp, 1, datatype, datatype->size, fn, &t);
    if (err || t.none)
        return err;
    if (t.am)
        return uz_rma_am_cas(win, target_rank, origin_addr, compare_addr, result_addr, datatype, target_disp, NULL);
    uz_rma_acc_lock(win, target_rank);
    err = uz_rma_swap(&t, origin_addr, compare_addr, result_addr, (size_t)datatype->size);
    uz_rma_acc_unlock(win, target_rank);
    return err;
}
