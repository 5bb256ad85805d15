/*
 * reduce_scatter.c — MPI_Reduce_scatter(_block), their I and _init forms.
 *
 *  pairwise         each rank sends block i of its vector to rank i and
 *                   combines the p blocks it gets in rank order (any
 *                   operation).  Short vectors.
 *  ring             ring reduce-scatter (commutative operations): p-1 steps
 *                   of one block.  Long vectors.
 *  reduce_scatterv  reduce the whole vector to rank 0, which sends each
 *                   rank its block.
 *
 * Intercommunicators: each group reduces its vectors to its rank 0, the
 * two exchange them, and each scatters the other group's result at home.
 */
#include "base/lock.h"
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

/* Where every rank's block lies in the vector, in units. */
struct layout {
    MPI_Count *cnts, *displs;   /* units */
    MPI_Count total;
};

static void reduce_scatter_pairwise(struct uz_sched *s, const void *in, const struct layout *l, void *acc)
{
    int p = s->comm->size, r = s->comm->rank;
    MPI_Count mine = l->cnts[r];
    const void **bufs = uz_sched_alloc(s, sizeof(void *) * (size_t)p);
    if (!bufs)
        return;
    for (int k = 1; k < p; k++) {
        int src = (r - k + p) % p;
        bufs[src] = uz_rvec_scratch(s, mine);
        uz_sched_recv_units(s, (void *)bufs[src], 0, mine, src);
    }
    bufs[r] = uz_unit(s, in, l->displs[r]);
    for (int k = 1; k < p; k++) {
        int dst = (r + k) % p;
        uz_sched_send_units(s, in, l->displs[dst], l->cnts[dst], dst);
    }
    uz_sched_fence(s);
    uz_sched_copy_units(s, bufs[p - 1], acc, 0, mine);
    for (int i = p - 2; i >= 0; i--) {
        uz_sched_fence(s);
        uz_sched_reduce(s, bufs[i], acc, mine);
    }
}

static void reduce_scatter_ring(struct uz_sched *s, const void *in, const struct layout *l, void *acc)
{
    int r = s->comm->rank;
    void *vec = uz_rvec_scratch(s, l->total);
    if (!vec)
        return;
    uz_sched_copy_units(s, in, vec, 0, l->total);
    uz_sched_fence(s);
    uz_rvec_reduce_scatter_ring(s, vec, l->cnts, l->displs);
    uz_sched_copy_units(s, uz_unit(s, vec, l->displs[r]), acc, 0, l->cnts[r]);
}

static void reduce_scatter_reduce_scatterv(struct uz_sched *s, const void *in, const struct layout *l, void *acc)
{
    int p = s->comm->size, r = s->comm->rank;
    void *vec = r == 0 ? uz_rvec_scratch(s, l->total) : NULL;
    uz_rvec_reduce_tree(s, in, l->total, 0, vec);
    uz_sched_fence(s);
    if (r != 0) {
        uz_sched_recv_units(s, acc, 0, l->cnts[r], 0);
        return;
    }
    for (int i = 1; i < p; i++)
        uz_sched_send_units(s, vec, l->displs[i], l->cnts[i], i);
    uz_sched_copy_units(s, vec, acc, 0, l->cnts[0]);
}

static MPI_Count sum(const MPI_Count *counts, int p)
{
    MPI_Count total = 0;
    for (int i = 0; i < p; i++)
        total += counts[i];
    return total;
}

/* Units of each rank's block, from element counts. */
static int make_layout(struct uz_sched *s, const MPI_Count *counts, int p, struct layout *l)
{
    l->cnts = uz_sched_alloc(s, sizeof(MPI_Count) * 2 * (size_t)p);
    if (!l->cnts)
        return s->build_err;
    l->displs = l->cnts + p;
    l->total = 0;
    for (int i = 0; i < p; i++) {
        l->cnts[i] = uz_reducer_units(&s->red, counts[i]);
        l->displs[i] = l->total;
        l->total += l->cnts[i];
    }
    return MPI_SUCCESS;
}

static int build_intra(struct uz_sched *s, const void *sendbuf, void *recvbuf, const MPI_Count *counts,
                       uz_datatype *dt)
{
    int p = s->comm->size, r = s->comm->rank;
    struct layout l = { 0 };
    int err = make_layout(s, counts, p, &l);
    MPI_Count total = sum(counts, p);
    if (err || total == 0 || dt->size == 0)
        return err;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    struct uz_rvec v;
    if ((err = uz_rvec_setup(s, &v, in, NULL, total, dt)))
        return err;
    /* The block is built aside, then stored: in place, recvbuf is also
     * the input until every block has left. */
    void *acc = uz_rvec_scratch(s, l.cnts[r]);
    if (!acc)
        return s->build_err;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_REDUCE_SCATTER, s->comm, (size_t)(total * dt->size));
    sit.commutative = s->red.commutative;
    sit.units = l.total;
    switch (uz_coll_chose(UZ_COLL_OP_REDUCE_SCATTER, uz_coll_mp_choice(&sit))) {
    case REDUCE_SCATTER_RING:
        reduce_scatter_ring(s, v.in, &l, acc);
        break;
    case REDUCE_SCATTER_REDUCE_SCATTERV:
        reduce_scatter_reduce_scatterv(s, v.in, &l, acc);
        break;
    default:
        reduce_scatter_pairwise(s, v.in, &l, acc);
        break;
    }
    uz_sched_fence(s);
    uz_sched_copy(s, uz_unit(s, acc, 0), l.cnts[r] * s->red.mult, s->red.xtype, recvbuf, counts[r], dt);
    return s->build_err;
}

static int build_inter(struct uz_sched *s, const void *sendbuf, void *recvbuf, const MPI_Count *counts,
                       uz_datatype *dt, uz_op *op)
{
    int p = s->comm->size, r = s->comm->rank;
    int err = uz_coll_check_in_place(s->comm, sendbuf, 0, 0, "sendbuf");
    MPI_Count total = sum(counts, p);
    if (err || total == 0 || dt->size == 0)
        return err;
    char *mine = NULL, *theirs = NULL;
    if (r == 0) {
        mine = uz_coll_typed_scratch(s, total, dt);
        theirs = uz_coll_typed_scratch(s, total, dt);
        if (!mine || !theirs)
            return s->build_err;
    }
    s->local_phase = 1;
    err = uz_build_reduce(s, sendbuf, mine, total, dt, op, 0);
    s->local_phase = 0;
    if (err)
        return err;
    uz_sched_fence(s);
    if (r != 0) {
        uz_sched_recv_local(s, recvbuf, counts[r], dt, 0);
        return s->build_err;
    }
    uz_sched_recv(s, theirs, total, dt, 0);
    uz_sched_send(s, mine, total, dt, 0);
    uz_sched_fence(s);
    MPI_Count off = counts[0];
    for (int i = 1; i < p; off += counts[i], i++)
        uz_sched_send_local(s, uz_elem(theirs, off, dt), counts[i], dt, i);
    uz_sched_copy(s, theirs, counts[0], dt, recvbuf, counts[0], dt);
    return s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int reduce_scatter(const void *sendbuf, void *recvbuf, struct uz_varray counts, MPI_Count block,
                          uz_datatype *dt, uz_op *op, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_sched *s;
    int want = uz_shm_want(uz_config.coll_reduce_scatter, REDUCE_SCATTER_SHM);
    if (mode == UZ_COLL_BLOCKING)
        uz_shm_prepare(comm, want);
    int err = uz_coll_begin(comm, mode, &s);
    if (err)
        return err;
    uz_coll_hold(s, mode, dt, dt, op);
    int p = comm->size;
    MPI_Count *c = uz_coll_counts(s, p, counts);
    if (!c && !s->build_err && (c = uz_sched_alloc(s, sizeof(MPI_Count) * p)))
        for (int i = 0; i < p; i++)
            c[i] = block;
    /* Checked before the shared-memory algorithm sizes anything by them. */
    err = s->build_err ? s->build_err : uz_coll_check_counts(c, p, "recvcounts");
    if (!err && mode == UZ_COLL_BLOCKING && !comm->is_inter) {
        int rc = uz_shm_reduce_scatter(sendbuf, recvbuf, c, dt, op, comm, want);
        if (rc != UZ_SHM_DECLINED) {
            uz_coll_chose(UZ_COLL_OP_REDUCE_SCATTER, REDUCE_SCATTER_SHM);
            return rc;
        }
    }
    if (!err)
        err = uz_sched_reducer(s, op, dt);
    if (!err)
        err = comm->is_inter ? build_inter(s, sendbuf, recvbuf, c, dt, op) : build_intra(s, sendbuf, recvbuf, c, dt);
    return uz_coll_finish(s, mode, err, request);
}

static int locked(const void *sendbuf, void *recvbuf, struct uz_varray counts, MPI_Count block, uz_datatype *dt,
                  uz_op *op, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_wait_note note;
    int is_block = !uz_varray_given(counts);
    uz_lock();
    struct uz_wait_note *prev =
        uz_coll_note_enter(&note, is_block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", comm, mode);
    int err = reduce_scatter(sendbuf, recvbuf, counts, block, dt, op, comm, mode, request);
    uz_wait_note_leave(prev);
    uz_unlock();
    return err;
}

static const struct uz_varray none;

int uz_mpi_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                  uz_datatype *datatype, uz_op *op, uz_comm *comm)
{
    return locked(sendbuf, recvbuf, none, recvcount, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   uz_datatype *datatype, uz_op *op, uz_comm *comm, MPI_Request *request)
{
    return locked(sendbuf, recvbuf, none, recvcount, datatype, op, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                       uz_datatype *datatype, uz_op *op, uz_comm *comm, uz_info *info,
                                       MPI_Request *request)
{
    return locked(sendbuf, recvbuf, none, recvcount, datatype, op, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], uz_datatype *datatype,
                          uz_op *op, uz_comm *comm)
{
    return locked(sendbuf, recvbuf, uz_varray_int(recvcounts), 0, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                            uz_datatype *datatype, uz_op *op, uz_comm *comm)
{
    return locked(sendbuf, recvbuf, uz_varray_count(recvcounts), 0, datatype, op, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], uz_datatype *datatype,
                           uz_op *op, uz_comm *comm, MPI_Request *request)
{
    return locked(sendbuf, recvbuf, uz_varray_int(recvcounts), 0, datatype, op, comm, UZ_COLL_NONBLOCKING,
                  request);
}

int uz_mpi_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                             uz_datatype *datatype, uz_op *op, uz_comm *comm, MPI_Request *request)
{
    return locked(sendbuf, recvbuf, uz_varray_count(recvcounts), 0, datatype, op, comm, UZ_COLL_NONBLOCKING,
                  request);
}

int uz_mpi_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                               uz_datatype *datatype, uz_op *op, uz_comm *comm, uz_info *info,
                               MPI_Request *request)
{
    return locked(sendbuf, recvbuf, uz_varray_int(recvcounts), 0, datatype, op, comm, UZ_COLL_PERSISTENT,
                  request);
}

int uz_mpi_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                 uz_datatype *datatype, uz_op *op, uz_comm *comm, uz_info *info,
                                 MPI_Request *request)
{
    return locked(sendbuf, recvbuf, uz_varray_count(recvcounts), 0, datatype, op, comm, UZ_COLL_PERSISTENT,
                  request);
}
