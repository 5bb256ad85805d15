/*
 * reduce.c — MPI_Reduce, MPI_Ireduce, MPI_Reduce_init.
 *
 *  binomial               each rank combines what its subtree sends it with
 *                         its own data and passes the result to its parent.
 *                         A tree on ranks in their own order combines them in
 *                         rank order (every subtree is a run of consecutive
 *                         ranks, combined left to right), which
 *                         non-commutative operations need; when the root is
 *                         not rank 0 the result then travels from rank 0 to
 *                         it.  Commutative operations root the tree at the
 *                         root itself.  Short messages.
 *  reduce_scatter_gather  ring reduce-scatter, then the blocks go to the root
 *                         (commutative operations, long messages).
 *  linear                 the root receives everything and combines.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

/* Reduce the units at `in` over the tree rooted at `troot`; the tree root
 * ends with the result in `final` (which may be NULL elsewhere). */
void uz_rvec_reduce_tree(struct uz_sched *s, const void *in, MPI_Count n, int troot, void *final)
{
    int p = s->comm->size, r = s->comm->rank;
    int vr = (r - troot + p) % p;
    const void *acc = in;
    void *spare = NULL;
    int last = 1;
    while (last * 2 < p)
        last *= 2;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            uz_sched_send_units(s, acc, 0, n, (vr - mask + troot) % p);
            return;
        }
        if ((vr | mask) >= p)
            continue;
        /* The root's last partial result goes straight into `final`. */
        void *tmp = (mask == last && final && final != acc) ? final : spare ? spare : uz_rvec_scratch(s, n);
        uz_sched_recv_units(s, tmp, 0, n, (vr + mask + troot) % p);
        uz_sched_fence(s);
        uz_sched_reduce(s, acc, tmp, n);            /* tmp = acc op child */
        uz_sched_fence(s);
        spare = acc != in ? (void *)acc : NULL;
        acc = tmp;
    }
    if (final && acc != final)
        uz_sched_copy_units(s, acc, final, 0, n);
}

/* Linear: the root receives every input and combines them right to left,
 * x0 op (x1 op (... op x_{p-1})), so any operation sees rank order. */
static void reduce_linear(struct uz_sched *s, const void *in, MPI_Count n, int root, void *final)
{
    int p = s->comm->size, r = s->comm->rank;
    if (r != root) {
        uz_sched_send_units(s, in, 0, n, root);
        return;
    }
    const void **bufs = uz_sched_alloc(s, sizeof(void *) * (size_t)p);
    if (!bufs)
        return;
    for (int i = 0; i < p; i++) {
        bufs[i] = i == r && in != final ? in : uz_rvec_scratch(s, n);
        if (i != r)
            uz_sched_recv_units(s, (void *)bufs[i], 0, n, i);
        else if (bufs[i] != in)
            uz_sched_copy_units(s, in, (void *)bufs[i], 0, n);
    }
    uz_sched_fence(s);
    if (final != bufs[p - 1])
        uz_sched_copy_units(s, bufs[p - 1], final, 0, n);
    for (int i = p - 2; i >= 0; i--) {
        uz_sched_fence(s);
        uz_sched_reduce(s, bufs[i], final, n);
    }
}

/* Ring reduce-scatter, then every rank sends its reduced block to the
 * root: about 2n bytes through each rank instead of n log p. */
static void reduce_scatter_gather(struct uz_sched *s, const void *in, MPI_Count n, int root, void *final)
{
    int p = s->comm->size, r = s->comm->rank;
    MPI_Count *displs, *cnts = uz_rvec_split(s, n, p, &displs);
    void *acc = r == root ? final : uz_rvec_scratch(s, n);
    if (!cnts || !acc)
        return;
    if (acc != in)
        uz_sched_copy_units(s, in, acc, 0, n);
    uz_sched_fence(s);
    uz_rvec_reduce_scatter_ring(s, acc, cnts, displs);
    if (r != root) {
        uz_sched_send_units(s, acc, displs[r], cnts[r], root);
        return;
    }
    for (int i = 0; i < p; i++)
        if (i != r)
            uz_sched_recv_units(s, acc, displs[i], cnts[i], i);
    uz_sched_fence(s);
}

/* The intracommunicator builder, in line in both its callers: MPI_Reduce's
 * own entry, where a small reduction is mostly call overhead, and the
 * builders that reduce on the way (uz_build_reduce). */
static UZ_ALWAYS_INLINE int build_intra(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count,
                                        uz_datatype *dt, uz_op *op, int root)
{
    uz_comm *comm = s->comm;
    int is_root = comm->rank == root;
    struct uz_rvec v;
    int err = uz_rvec_begin(s, &v, sendbuf, recvbuf, count, dt, op, 1, root);
    if (err || v.n == 0)
        return err;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_REDUCE, comm, (size_t)(count * dt->size));
    sit.commutative = s->red.commutative;
    sit.units = v.n;
    switch (uz_coll_chose(UZ_COLL_OP_REDUCE, uz_coll_mp_choice(&sit))) {
    case REDUCE_SCATTER_GATHER:
        reduce_scatter_gather(s, v.in, v.n, root, is_root ? v.work : NULL);
        break;
    case REDUCE_LINEAR:
        reduce_linear(s, v.in, v.n, root, is_root ? v.work : NULL);
        break;
    default:
        if (s->red.commutative || root == 0) {
            uz_rvec_reduce_tree(s, v.in, v.n, root, is_root ? v.work : NULL);
        } else {
            int r = comm->rank;
            void *tmp = r == 0 ? uz_rvec_scratch(s, v.n) : NULL;
            uz_rvec_reduce_tree(s, v.in, v.n, 0, tmp);
            if (r == 0) {
                uz_sched_fence(s);
                uz_sched_send_units(s, tmp, 0, v.n, root);
            } else if (is_root) {
                uz_sched_fence(s);
                uz_sched_recv_units(s, v.work, 0, v.n, 0);
            }
        }
        break;
    }
    if (is_root)
        uz_rvec_store(s, &v);
    return s->build_err;
}

int uz_build_reduce(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt,
                    uz_op *op, int root)
{
    return build_intra(s, sendbuf, recvbuf, count, dt, op, root);
}

/* Intercommunicators: the group without the root reduces to its rank 0,
 * which sends the result to the root. */
static int build_reduce_inter(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count,
                              uz_datatype *dt, uz_op *op, int root)
{
    /* In the root's group, ranks other than the root take no part: none
     * of their arguments is significant, so the operation is not checked
     * against a datatype they may leave as anything (mpi4py: MPI_BYTE). */
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = uz_sched_reducer(s, op, dt);
    if (!err)
        err = uz_coll_check_in_place(s->comm, sendbuf, 0, 0, "sendbuf");
    if (err || count == 0 || dt->size == 0)
        return err;
    if (root == MPI_ROOT) {
        uz_sched_recv(s, recvbuf, count, dt, 0);
        return s->build_err;
    }
    void *tmp = NULL;
    if (s->comm->rank == 0 && !(tmp = uz_coll_typed_scratch(s, count, dt)))
        return s->build_err;
    s->local_phase = 1;
    err = uz_build_reduce(s, sendbuf, tmp, count, dt, op, 0);
    s->local_phase = 0;
    if (!err && s->comm->rank == 0) {
        uz_sched_fence(s);
        uz_sched_send(s, tmp, count, dt, root);
    }
    return err ? err : s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int shm_reduce(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_reduce(a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, a->root, comm, want);
}

static int build(struct uz_sched *s, const struct uz_coll_args *a)
{
    if (s->comm->is_inter)
        return build_reduce_inter(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, a->root);
    return build_intra(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, a->root);
}

static const struct uz_coll_kind reduce = {
    .name = "MPI_Reduce",
    .shm = shm_reduce, .tunable = &uz_config.coll_reduce, .shm_choice = REDUCE_SHM, .build = build,
    .op = UZ_COLL_OP_REDUCE,
};

static int call(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, int root,
                uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = count, .stype = dt, .recvbuf = recvbuf,
                              .rcount = count, .rtype = dt, .op = op, .root = root };
    return uz_coll_call(&reduce, &a, comm, mode, request);
}

int uz_mpi_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                    int root, uz_comm *comm)
{
    return call(sendbuf, recvbuf, count, datatype, op, root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                     int root, uz_comm *comm, MPI_Request *request)
{
    return call(sendbuf, recvbuf, count, datatype, op, root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype,
                         uz_op *op, int root, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call(sendbuf, recvbuf, count, datatype, op, root, comm, UZ_COLL_PERSISTENT, request);
}
