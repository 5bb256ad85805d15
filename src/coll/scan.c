/*
 * scan.c — MPI_Scan and MPI_Exscan, their I and _init forms.
 *
 *  recursive_doubling  in round k ranks exchange the combination of the
 *                      2^k ranks below them with rank ^ 2^k: log2 p rounds.
 *  linear              the prefix travels from rank 0 up, one rank at a time.
 *
 * Both combine in rank order, so any operation works.  Scans are not
 * defined on intercommunicators.
 */
#include <string.h>

#include "coll/algo.h"
#include "coll/coll_tune.h"
#include "coll/direct.h"
#include "datatype/dt_engine.h"

/* After MPICH's scan_intra_recursive_doubling and its exscan sibling.
 * `result` is this rank's output vector (working form); for Exscan rank 0
 * gets none. */
static void scan_recursive_doubling(struct uz_sched *s, const void *in, void *result, MPI_Count n, int exclusive)
{
    int p = s->comm->size, r = s->comm->rank;
    void *partial = uz_rvec_scratch(s, n), *tmp = uz_rvec_scratch(s, n);
    if (!partial || !tmp)
        return;
    uz_sched_copy_units(s, in, partial, 0, n);
    if (!exclusive && result != in)
        uz_sched_copy_units(s, in, result, 0, n);
    int have = !exclusive;              /* result holds something yet */
    uz_sched_fence(s);
    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = r ^ mask;
        if (dst >= p)
            continue;
        uz_sched_recv_units(s, tmp, 0, n, dst);
        uz_sched_send_units(s, partial, 0, n, dst);
        uz_sched_fence(s);
        if (r > dst) {
            uz_sched_reduce(s, tmp, partial, n);        /* partial = theirs op partial */
            if (have) {
                uz_sched_reduce(s, tmp, result, n);
            } else {
                uz_sched_copy_units(s, tmp, result, 0, n);
                have = 1;
            }
        } else if (s->red.commutative) {
            uz_sched_reduce(s, tmp, partial, n);
        } else {
            uz_sched_reduce(s, partial, tmp, n);        /* tmp = partial op theirs */
            uz_sched_fence(s);
            uz_sched_copy_units(s, tmp, partial, 0, n);
        }
        uz_sched_fence(s);
    }
}

static void scan_linear(struct uz_sched *s, const void *in, void *result, MPI_Count n, int exclusive)
{
    int p = s->comm->size, r = s->comm->rank;
    if (exclusive) {
        /* Receive the prefix into result; pass on prefix op mine (mine is
         * saved first: in place, result is the input).  Rank 0's prefix is
         * its input as it is: sent without a copy. */
        if (r == 0) {
            if (p > 1)
                uz_sched_send_units(s, in, 0, n, 1);
            return;
        }
        void *next = r < p - 1 ? uz_rvec_scratch(s, n) : NULL;
        if (next)
            uz_sched_copy_units(s, in, next, 0, n);
        if (r > 0) {
            uz_sched_recv_units(s, result, 0, n, r - 1);
            uz_sched_fence(s);
            if (next)
                uz_sched_reduce(s, result, next, n);
        }
        if (next) {
            uz_sched_fence(s);
            uz_sched_send_units(s, next, 0, n, r + 1);
        }
        return;
    }
    if (r > 0 && s->red.commutative && result != in) {
        /* The prefix lands straight in the result and ours is combined
         * into it (mine op prefix = prefix op mine): no scratch and no
         * local copy, and with nothing to copy meanwhile the one-copy
         * receive is ours alone (mark_read_next), so the bytes the
         * reduction reads are in this core's cache.  The sender writing
         * half of them would leave the lines in its core's cache: np 2,
         * 32 KiB, that swung between 6.6 and 17.6 us a call from run to
         * run, the sender's half of the copy taking most of it. */
        uz_sched_recv_units(s, result, 0, n, r - 1);
        uz_sched_fence(s);
        uz_sched_reduce(s, in, result, n);
        uz_sched_fence(s);
        if (r < p - 1)
            uz_sched_send_units(s, result, 0, n, r + 1);
        return;
    }
    void *prefix = r > 0 ? uz_rvec_scratch(s, n) : NULL;
    if (r > 0)
        uz_sched_recv_units(s, prefix, 0, n, r - 1);
    if (result != in)
        uz_sched_copy_units(s, in, result, 0, n);
    uz_sched_fence(s);
    if (r > 0) {
        uz_sched_reduce(s, prefix, result, n);      /* result = prefix op mine */
        uz_sched_fence(s);
    }
    /* Rank 0's prefix is its input: sent from there, the receiver reads
     * lines this rank is not writing (np 2, 32 KiB: 5.2 us against 7.4
     * sent from the result this rank had just copied). */
    if (r < p - 1)
        uz_sched_send_units(s, r == 0 ? in : result, 0, n, r + 1);
}

static int build_scan(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt,
                      uz_op *op, int exclusive)
{
    if (s->comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "%s is not defined on an intercommunicator",
                           exclusive ? "MPI_Exscan" : "MPI_Scan");
    struct uz_rvec v;
    int err = uz_rvec_begin(s, &v, sendbuf, recvbuf, count, dt, op, 0, 0);
    if (err || v.n == 0)
        return err;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_SCAN, s->comm, (size_t)(count * dt->size));
    int alg = uz_coll_chose(UZ_COLL_OP_SCAN, uz_coll_mp_choice(&sit));
    if (alg == SCAN_LINEAR)
        scan_linear(s, v.in, v.work, v.n, exclusive);
    else
        scan_recursive_doubling(s, v.in, v.work, v.n, exclusive);
    /* Exscan leaves rank 0's buffer alone. */
    if (!exclusive || s->comm->rank != 0)
        uz_rvec_store(s, &v);
    return s->build_err;
}

/* ------------------------------------------------------------ direct */

/* Up to this many bytes a chain rank's scratch (the prefix it receives or
 * the one it passes on) is on its stack. */
enum { DIRECT_SCAN_MAX = 1024 };

/* A blocking linear Scan/Exscan of a predefined operation on a contiguous
 * vector of at most DIRECT_SCAN_MAX bytes: scan_linear's messages in its
 * order, started at once (direct.h), the receive from the rank below
 * waited for before the combining and the send to the rank above, as the
 * schedule's fence waits.  Between two ranks an Exscan is then one message
 * and a Scan one message and one combining, where the schedule's
 * bookkeeping around them was most of a tiny call.  The reducer is the
 * blocking schedule's, which keeps a predefined (op, datatype) pair's
 * kernel from call to call (sched.h). */
static int direct_scan(const struct uz_coll_args *a, uz_comm *comm, int exclusive)
{
    const void *sendbuf = a->sendbuf;
    void *recvbuf = a->recvbuf;
    MPI_Count count = a->rcount;
    uz_datatype *dt = a->rtype;
    size_t bytes = (size_t)(count * dt->size);
    struct uz_coll_state *cs;
    if (bytes > DIRECT_SCAN_MAX || !uz_dt_is_contig(dt, count) || !(cs = uz_coll_state_of(comm)))
        return UZ_SHM_DECLINED;
    const struct uz_reducer *red = &cs->blocking.red;
    int err = uz_sched_reducer(&cs->blocking, a->op, dt);
    if (UZ_UNLIKELY(err))
        return err;
    if (!red->packed)
        return UZ_SHM_DECLINED;         /* a user operation: the schedule's typed form */
    if (UZ_UNLIKELY(sendbuf == MPI_IN_PLACE) && (err = uz_coll_check_in_place(comm, sendbuf, 0, 0, "sendbuf")))
        return err;
    if (UZ_UNLIKELY(sendbuf == recvbuf && sendbuf != NULL && bytes > 0))
        return uz_err_make(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    int p = comm->size, r = comm->rank;
    if (bytes > 0) {
        struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_SCAN, comm, bytes);
        int alg = uz_coll_mp_choice(&sit);
        if (alg != SCAN_LINEAR)
            return UZ_SHM_DECLINED;
        uz_coll_chose(UZ_COLL_OP_SCAN, alg);
    }
    uz_request *room[2];
    struct uz_coll_direct d;
    uz_coll_direct_begin(&d, comm, room);     /* a call with nothing to move still takes its number */
    if (bytes == 0)
        return uz_coll_direct_end(&d);
    MPI_Count n = uz_reducer_units(red, count), k = n * red->mult;
    uz_datatype *x = red->xtype;
    const char *in = (const char *)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf) + dt->true_lb;
    char *res = (char *)recvbuf + dt->true_lb;
    unsigned char scratch[DIRECT_SCAN_MAX];
    if (exclusive) {
        /* Rank i receives the prefix of ranks below it into its result and
         * passes on prefix op mine (mine saved first: in place, the result
         * is the input).  Rank 0's buffer is left alone. */
        if (r == 0) {
            if (p > 1)
                uz_coll_direct_send(&d, in, k, x, 1);
            return uz_coll_direct_end(&d);
        }
        if (r < p - 1)
            memcpy(scratch, in, bytes);
        uz_coll_direct_recv(&d, res, k, x, r - 1);
        uz_coll_direct_end(&d);
        if (r < p - 1) {
            uz_reducer_apply(red, res, scratch, n);
            uz_coll_direct_send(&d, scratch, k, x, r + 1);
        }
        return uz_coll_direct_end(&d);
    }
    if (r == 0) {
        if (res != in)
            memcpy(res, in, bytes);
    } else if (red->commutative && res != in) {
        uz_coll_direct_recv(&d, res, k, x, r - 1);      /* mine op prefix = prefix op mine */
        uz_coll_direct_end(&d);
        uz_reducer_apply(red, in, res, n);
    } else {
        uz_coll_direct_recv(&d, scratch, k, x, r - 1);
        if (res != in)
            memcpy(res, in, bytes);
        uz_coll_direct_end(&d);
        uz_reducer_apply(red, scratch, res, n);          /* prefix op mine */
    }
    if (r < p - 1)
        uz_coll_direct_send(&d, r == 0 ? in : res, k, x, r + 1);
    return uz_coll_direct_end(&d);
}

static int direct_inclusive(const struct uz_coll_args *a, uz_comm *comm)
{
    return direct_scan(a, comm, 0);
}

static int direct_exclusive(const struct uz_coll_args *a, uz_comm *comm)
{
    return direct_scan(a, comm, 1);
}

/* ------------------------------------------------------------ entry points */

static int build_inclusive(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build_scan(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, 0);
}

static int build_exclusive(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build_scan(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, 1);
}

static int shm_inclusive(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_scan(a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, comm, want, 0);
}

static int shm_exclusive(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_scan(a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, comm, want, 1);
}

static const struct uz_coll_kind scan = {
    .name = "MPI_Scan", .shm = shm_inclusive, .tunable = &uz_config.coll_scan, .shm_choice = SCAN_SHM,
    .op = UZ_COLL_OP_SCAN, .build = build_inclusive, .direct = direct_inclusive,
};
static const struct uz_coll_kind exscan = {
    .name = "MPI_Exscan", .shm = shm_exclusive, .tunable = &uz_config.coll_scan, .shm_choice = SCAN_SHM,
    .op = UZ_COLL_OP_SCAN, .build = build_exclusive, .direct = direct_exclusive,
};

static int call(const struct uz_coll_kind *k, const void *sendbuf, void *recvbuf, MPI_Count count,
                uz_datatype *dt, uz_op *op, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = count, .stype = dt, .recvbuf = recvbuf,
                              .rcount = count, .rtype = dt, .op = op };
    return uz_coll_call(k, &a, comm, mode, request);
}

int uz_mpi_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                  uz_comm *comm)
{
    return call(&scan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                   uz_comm *comm, MPI_Request *request)
{
    return call(&scan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                       uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call(&scan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                    uz_comm *comm)
{
    return call(&exscan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                     uz_comm *comm, MPI_Request *request)
{
    return call(&exscan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                         uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call(&exscan, sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_PERSISTENT, request);
}
