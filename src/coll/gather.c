/*
 * gather.c — MPI_Gather(v), MPI_Igather(v), MPI_Gather(v)_init.
 *
 *  linear    every rank sends its block to the root, which has posted a
 *            receive for each (Gatherv always).
 *  binomial  blocks climb a binomial tree, each rank forwarding its
 *            subtree's blocks packed together: the root takes log2 p
 *            messages instead of p-1.
 *
 * Intercommunicators: the root (MPI_ROOT) receives a block from every rank
 * of the other group.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"
#include "pt2pt/lock.h"

static void gather_binomial(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                            void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root)
{
    int p = s->comm->size, r = s->comm->rank;
    int vr = (r - root + p) % p;
    uz_datatype *byte = uz_byte_type();
    size_t b = r == root ? (size_t)(rcount * rtype->size) : (size_t)(scount * stype->size);
    /* This rank's subtree: ranks [vr, vr + span) relative to the root. */
    int low = 1;
    while (low < p && !(vr & low))
        low <<= 1;
    int span = vr + low < p ? low : p - vr;
    if (span == 1) {
        uz_sched_send(s, sendbuf, scount, stype, (vr - low + root) % p);
        return;
    }
    /* Relative order straight into recvbuf when it is already that. */
    int direct = r == root && root == 0 && uz_dt_is_contig(rtype, rcount * p);
    unsigned char *tmp = direct ? (unsigned char *)recvbuf + rtype->true_lb : uz_sched_alloc(s, b * span);
    if (!tmp)
        return;
    for (int mask = 1; mask < low && vr + mask < p; mask <<= 1) {
        int n = vr + 2 * mask <= p ? mask : p - vr - mask;
        uz_sched_recv(s, tmp + mask * b, (MPI_Count)(b * n), byte, (vr + mask + root) % p);
    }
    /* Our own block: into the bundle we forward, or (root) its place. */
    if (r != root)
        uz_sched_copy(s, sendbuf, scount, stype, tmp, (MPI_Count)b, byte);
    else if (sendbuf != MPI_IN_PLACE)
        uz_sched_copy(s, sendbuf, scount, stype, uz_block(recvbuf, r, rcount, rtype), rcount, rtype);
    uz_sched_fence(s);
    if (r != root) {
        uz_sched_send(s, tmp, (MPI_Count)(b * span), byte, (vr - low + root) % p);
        return;
    }
    if (!direct)
        for (int i = 1; i < p; i++)
            uz_sched_copy(s, tmp + i * b, (MPI_Count)b, byte, uz_block(recvbuf, (i + root) % p, rcount, rtype),
                          rcount, rtype);
}

/* Gather and Gatherv (counts/displs non-NULL) by linear exchange. */
static void gather_linear(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                          void *recvbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                          uz_datatype *rtype, int root, int inter)
{
    int p = inter ? s->comm->remote_size : s->comm->size, r = inter ? -1 : s->comm->rank;
    if (inter ? root != MPI_ROOT : r != root) {
        uz_sched_send(s, sendbuf, scount, stype, root);
        return;
    }
    for (int i = 0; i < p; i++) {
        MPI_Count c = rcounts ? rcounts[i] : rcount;
        void *at = rcounts ? uz_elem(recvbuf, displs[i], rtype) : uz_block(recvbuf, i, rcount, rtype);
        if (i != r)
            uz_sched_recv(s, at, c, rtype, i);
        else if (sendbuf != MPI_IN_PLACE)
            uz_sched_copy(s, sendbuf, scount, stype, at, c, rtype);
    }
}

int uz_build_gather(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                    void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root)
{
    uz_comm *comm = s->comm;
    if (comm->is_inter) {
        if (sendbuf == MPI_IN_PLACE)
            return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
        if (root != MPI_PROC_NULL)
            gather_linear(s, sendbuf, scount, stype, recvbuf, rcount, NULL, NULL, rtype, root, 1);
        return s->build_err;
    }
    if (sendbuf == MPI_IN_PLACE && comm->rank != root)
        return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root (argument sendbuf)");
    /* The root's send arguments are not significant in place (the binding
     * passes a NULL type): size the block from what each rank knows. */
    size_t b = (size_t)(comm->rank == root ? rcount * rtype->size : scount * stype->size);
    int alg = uz_config.coll_gather;
    if (alg == UZ_ALG_AUTO)
        alg = comm->size > 4 && b <= 1024 ? GATHER_BINOMIAL : GATHER_LINEAR;
    if (alg == GATHER_BINOMIAL && comm->size > 1)
        gather_binomial(s, sendbuf, scount, stype, recvbuf, rcount, rtype, root);
    else
        gather_linear(s, sendbuf, scount, stype, recvbuf, rcount, NULL, NULL, rtype, root, 0);
    return s->build_err;
}

static int build_gatherv(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                         void *recvbuf, const MPI_Count *rcounts, const MPI_Aint *displs, uz_datatype *rtype,
                         int root)
{
    uz_comm *comm = s->comm;
    int inter = comm->is_inter;
    if (sendbuf == MPI_IN_PLACE && (inter || comm->rank != root))
        return uz_err_make(MPI_ERR_BUFFER, inter ? "MPI_IN_PLACE is not allowed on an intercommunicator"
                                                 : "MPI_IN_PLACE is only allowed at the root (argument sendbuf)");
    if (inter && root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (inter ? root == MPI_ROOT : comm->rank == root) {
        int p = inter ? comm->remote_size : comm->size;
        for (int i = 0; i < p; i++)
            if (rcounts[i] < 0)
                return uz_err_make(MPI_ERR_COUNT, "invalid count %lld in recvcounts[%d]", (long long)rcounts[i], i);
    }
    gather_linear(s, sendbuf, scount, stype, recvbuf, 0, rcounts, displs, rtype, root, inter);
    return s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int gather(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                  uz_datatype *rtype, int root, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    if (mode == UZ_COLL_BLOCKING && !comm->is_inter) {
        int rc = uz_shm_gather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm,
                               uz_shm_want(uz_config.coll_gather, GATHER_SHM));
        if (rc != UZ_SHM_DECLINED)
            return rc;
    }
    struct uz_sched *s;
    int err = uz_coll_begin(comm, mode, &s);
    if (err)
        return err;
    if (mode != UZ_COLL_BLOCKING) {
        uz_sched_hold_dt(s, stype);
        uz_sched_hold_dt(s, rtype);
    }
    return uz_coll_finish(s, mode, uz_build_gather(s, sendbuf, scount, stype, recvbuf, rcount, rtype, root),
                          request);
}

static int gatherv(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                   struct uz_varray rcounts, struct uz_varray displs, uz_datatype *rtype, int root, uz_comm *comm,
                   enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_sched *s;
    int err = uz_coll_begin(comm, mode, &s);
    if (err)
        return err;
    if (mode != UZ_COLL_BLOCKING) {
        uz_sched_hold_dt(s, stype);
        uz_sched_hold_dt(s, rtype);
    }
    int p = comm->is_inter ? comm->remote_size : comm->size;
    int has = comm->is_inter ? root == MPI_ROOT : comm->rank == root;
    MPI_Count *c = has ? uz_coll_counts(s, p, rcounts) : NULL;
    MPI_Aint *d = has ? uz_coll_displs(s, p, displs) : NULL;
    err = s->build_err ? s->build_err : build_gatherv(s, sendbuf, scount, stype, recvbuf, c, d, rtype, root);
    return uz_coll_finish(s, mode, err, request);
}

int uz_mpi_Gatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                      recvtype, root, comm, UZ_COLL_BLOCKING, NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Gatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                     uz_comm *comm)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                      uz_varray_aint(displs), recvtype, root, comm, UZ_COLL_BLOCKING, NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Igatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm,
                    MPI_Request *request)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                      recvtype, root, comm, UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Igatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                      uz_comm *comm, MPI_Request *request)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                      uz_varray_aint(displs), recvtype, root, comm, UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Gatherv_init(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm,
                        uz_info *info, MPI_Request *request)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                      recvtype, root, comm, UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}

int uz_mpi_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                          uz_comm *comm, uz_info *info, MPI_Request *request)
{
    uz_lock();
    int err = gatherv(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                      uz_varray_aint(displs), recvtype, root, comm, UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}

int uz_coll_gather(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                   MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    uz_lock();
    int err = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, UZ_COLL_BLOCKING,
                     NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Gather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                    MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    return uz_coll_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int uz_mpi_Igather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, MPI_Request *request)
{
    uz_lock();
    int err = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Gather_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                         MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, uz_info *info,
                         MPI_Request *request)
{
    uz_lock();
    int err = gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}
