/*
 * allreduce.c — MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init.
 *
 *  recursive_doubling  in round k each rank exchanges its partial result
 *                      with rank ^ 2^k and combines: log2 p rounds of the
 *                      whole vector.  Partners combine lower rank first, so
 *                      non-commutative operations see rank order.  Short
 *                      vectors.
 *  rabenseifner        recursive halving reduce-scatter, then recursive
 *                      doubling allgather: log2 p rounds, about 2n bytes
 *                      per rank.  Long vectors, commutative operations.
 *  ring                ring reduce-scatter and ring allgather: p-1 rounds of
 *                      n/p.  Long vectors, commutative operations.
 *  reduce_bcast        reduce to rank 0, then broadcast.
 *
 * With p not a power of two, recursive doubling and rabenseifner first pair
 * up the first 2*rem ranks (each even one hands its data to the odd one
 * after it and sits out) and give them the result at the end.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

/* The pairing step for p not a power of two; returns this rank's rank
 * among the pof2 that go on, or -1. */
static int fold_in(struct uz_sched *s, void *acc, void *tmp, MPI_Count n, int rem)
{
    int r = s->comm->rank;
    if (r >= 2 * rem)
        return r - rem;
    if (r % 2 == 0) {
        uz_sched_send_units(s, acc, 0, n, r + 1);
        uz_sched_fence(s);
        return -1;
    }
    uz_sched_recv_units(s, tmp, 0, n, r - 1);
    uz_sched_fence(s);
    uz_sched_reduce(s, tmp, acc, n);                /* acc = left op acc */
    uz_sched_fence(s);
    return r / 2;
}

static void fold_out(struct uz_sched *s, void *acc, MPI_Count n, int rem)
{
    int r = s->comm->rank;
    if (r >= 2 * rem)
        return;
    if (r % 2)
        uz_sched_send_units(s, acc, 0, n, r - 1);
    else
        uz_sched_recv_units(s, acc, 0, n, r + 1);
    uz_sched_fence(s);
}

static inline int real_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

static void allreduce_recursive_doubling(struct uz_sched *s, void *acc, MPI_Count n)
{
    int p = s->comm->size, r = s->comm->rank;
    int pof2 = uz_pof2_floor(p), rem = p - pof2;
    void *tmp = uz_rvec_scratch(s, n);
    int newrank = fold_in(s, acc, tmp, n, rem);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int dst = real_rank(newrank ^ mask, rem);
            uz_sched_recv_units(s, tmp, 0, n, dst);
            uz_sched_send_units(s, acc, 0, n, dst);
            uz_sched_fence(s);
            if (dst < r || s->red.commutative) {
                uz_sched_reduce(s, tmp, acc, n);    /* acc = theirs op mine */
            } else {
                uz_sched_reduce(s, acc, tmp, n);    /* tmp = mine op theirs */
                uz_sched_fence(s);
                uz_sched_copy_units(s, tmp, acc, 0, n);
            }
            uz_sched_fence(s);
        }
    }
    fold_out(s, acc, n, rem);
}

static MPI_Count range(const MPI_Count *cnts, int from, int to)
{
    MPI_Count c = 0;
    for (int i = from; i < to; i++)
        c += cnts[i];
    return c;
}

/* After MPICH's allreduce_intra_reduce_scatter_allgather. */
static void allreduce_rabenseifner(struct uz_sched *s, void *acc, MPI_Count n)
{
    int p = s->comm->size;
    int pof2 = uz_pof2_floor(p), rem = p - pof2;
    void *tmp = uz_rvec_scratch(s, n);
    MPI_Count *displs, *cnts = uz_rvec_split(s, n, pof2, &displs);
    if (!tmp || !cnts)
        return;
    int newrank = fold_in(s, acc, tmp, n, rem);
    if (newrank >= 0) {
        int send_idx = 0, recv_idx = 0, last_idx = pof2, mask;
        for (mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask, dst = real_rank(newdst, rem);
            MPI_Count scnt, rcnt;
            if (newrank < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                scnt = range(cnts, send_idx, last_idx);
                rcnt = range(cnts, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                scnt = range(cnts, send_idx, recv_idx);
                rcnt = range(cnts, recv_idx, last_idx);
            }
            uz_sched_recv_units(s, tmp, displs[recv_idx], rcnt, dst);
            uz_sched_send_units(s, acc, displs[send_idx], scnt, dst);
            uz_sched_fence(s);
            uz_sched_reduce(s, uz_unit(s, tmp, displs[recv_idx]), uz_unit(s, acc, displs[recv_idx]), rcnt);
            uz_sched_fence(s);
            send_idx = recv_idx;
            if (mask * 2 < pof2)
                last_idx = recv_idx + pof2 / (mask * 2);
        }
        for (mask = pof2 / 2; mask > 0; mask >>= 1) {
            int newdst = newrank ^ mask, dst = real_rank(newdst, rem);
            MPI_Count scnt, rcnt;
            if (newrank < newdst) {
                if (mask != pof2 / 2)
                    last_idx = last_idx + pof2 / (mask * 2);
                recv_idx = send_idx + pof2 / (mask * 2);
                scnt = range(cnts, send_idx, recv_idx);
                rcnt = range(cnts, recv_idx, last_idx);
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                scnt = range(cnts, send_idx, last_idx);
                rcnt = range(cnts, recv_idx, send_idx);
            }
            uz_sched_recv_units(s, acc, displs[recv_idx], rcnt, dst);
            uz_sched_send_units(s, acc, displs[send_idx], scnt, dst);
            uz_sched_fence(s);
            if (newrank > newdst)
                send_idx = recv_idx;
        }
    }
    fold_out(s, acc, n, rem);
}

static void allreduce_ring(struct uz_sched *s, void *acc, MPI_Count n)
{
    MPI_Count *displs, *cnts = uz_rvec_split(s, n, s->comm->size, &displs);
    if (!cnts)
        return;
    uz_rvec_reduce_scatter_ring(s, acc, cnts, displs);
    uz_rvec_allgather_ring(s, acc, cnts, displs);
}

int uz_build_allreduce(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count,
                       uz_datatype *dt, uz_op *op)
{
    struct uz_rvec v;
    int err = uz_rvec_begin(s, &v, sendbuf, recvbuf, count, dt, op, 0, 0);
    if (err || v.n == 0)
        return err;
    if (s->comm->size == 1) {
        uz_rvec_load(s, &v);
        uz_rvec_store(s, &v);
        return s->build_err;
    }
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLREDUCE, s->comm, (size_t)(count * dt->size));
    sit.commutative = s->red.commutative;
    sit.units = v.n;
    int alg = uz_coll_chose(UZ_COLL_OP_ALLREDUCE, uz_coll_mp_choice(&sit));
    if (alg == ALLREDUCE_REDUCE_BCAST) {
        uz_rvec_reduce_tree(s, v.in, v.n, 0, s->comm->rank == 0 ? v.work : NULL);
        uz_sched_fence(s);
        uz_build_bcast(s, v.work, v.n * s->red.mult, s->red.xtype, 0);
        uz_sched_fence(s);
    } else {
        uz_rvec_load(s, &v);
        uz_sched_fence(s);
        if (alg == ALLREDUCE_RABENSEIFNER)
            allreduce_rabenseifner(s, v.work, v.n);
        else if (alg == ALLREDUCE_RING)
            allreduce_ring(s, v.work, v.n);
        else
            allreduce_recursive_doubling(s, v.work, v.n);
    }
    uz_rvec_store(s, &v);
    return s->build_err;
}

/* Intercommunicators: each group reduces to its rank 0, the two exchange
 * results, and each broadcasts the other group's result at home. */
static int build_allreduce_inter(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count,
                                 uz_datatype *dt, uz_op *op)
{
    int err = uz_sched_reducer(s, op, dt);
    if (!err)
        err = uz_coll_check_in_place(s->comm, sendbuf, 0, 0, "sendbuf");
    if (err || count == 0 || dt->size == 0)
        return err;
    int leader = s->comm->rank == 0;
    void *tmp = NULL;
    if (leader && !(tmp = uz_coll_typed_scratch(s, count, dt)))
        return s->build_err;
    s->local_phase = 1;
    err = uz_build_reduce(s, sendbuf, tmp, count, dt, op, 0);
    s->local_phase = 0;
    if (err)
        return err;
    uz_sched_fence(s);
    if (leader) {
        uz_sched_recv(s, recvbuf, count, dt, 0);
        uz_sched_send(s, tmp, count, dt, 0);
        uz_sched_fence(s);
    }
    s->local_phase = 1;
    err = uz_build_bcast(s, recvbuf, count, dt, 0);
    s->local_phase = 0;
    return err ? err : s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int shm_allreduce(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_allreduce(a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op, comm, want);
}

static int build(struct uz_sched *s, const struct uz_coll_args *a)
{
    if (s->comm->is_inter)
        return build_allreduce_inter(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op);
    return uz_build_allreduce(s, a->sendbuf, a->recvbuf, a->rcount, a->rtype, a->op);
}

static const struct uz_coll_kind allreduce = {
    .name = "MPI_Allreduce",
    .shm = shm_allreduce, .tunable = &uz_config.coll_allreduce, .shm_choice = ALLREDUCE_SHM, .build = build,
    .op = UZ_COLL_OP_ALLREDUCE,
};

static int call(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, uz_comm *comm,
                enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = count, .stype = dt, .recvbuf = recvbuf,
                              .rcount = count, .rtype = dt, .op = op };
    return uz_coll_call(&allreduce, &a, comm, mode, request);
}

int uz_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op,
                      uz_comm *comm)
{
    return call(sendbuf, recvbuf, count, dt, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype, uz_op *op,
                       uz_comm *comm)
{
    return call(sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype,
                        uz_op *op, uz_comm *comm, MPI_Request *request)
{
    return call(sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *datatype,
                            uz_op *op, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call(sendbuf, recvbuf, count, datatype, op, comm, UZ_COLL_PERSISTENT, request);
}
