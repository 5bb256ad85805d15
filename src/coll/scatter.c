/*
 * scatter.c — MPI_Scatter(v), MPI_Iscatter(v), MPI_Scatter(v)_init.
 *
 *  linear    the root sends each rank its block (Scatterv always).
 *  binomial  the root sends each child of a binomial tree the blocks of its
 *            subtree packed together, and so on down: log2 p messages
 *            leave the root instead of p-1.
 *
 * Intercommunicators: the root (MPI_ROOT) sends a block to every rank of
 * the other group.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"
#include "pt2pt/lock.h"

static void scatter_binomial(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                             void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root)
{
    int p = s->comm->size, r = s->comm->rank;
    int vr = (r - root + p) % p;
    uz_datatype *byte = uz_byte_type();
    size_t b = r == root ? (size_t)(scount * stype->size) : (size_t)(rcount * rtype->size);
    int low = 1;
    while (low < p && !(vr & low))
        low <<= 1;
    int span = vr + low < p ? low : p - vr;
    int parent = (vr - low + root) % p;
    if (span == 1) {
        uz_sched_recv(s, recvbuf, rcount, rtype, parent);
        return;
    }
    int direct = r == root && root == 0 && uz_dt_is_contig(stype, scount * p);
    unsigned char *tmp = direct ? (unsigned char *)sendbuf + stype->true_lb : uz_sched_alloc(s, b * span);
    if (!tmp)
        return;
    if (r != root) {
        uz_sched_recv(s, tmp, (MPI_Count)(b * span), byte, parent);
    } else if (!direct) {
        for (int i = 0; i < p; i++)
            uz_sched_copy(s, uz_block(sendbuf, (i + root) % p, scount, stype), scount, stype, tmp + i * b,
                          (MPI_Count)b, byte);
    }
    uz_sched_fence(s);
    for (int mask = low >> 1; mask > 0; mask >>= 1) {
        if (vr + mask >= p)
            continue;
        int n = vr + 2 * mask <= p ? mask : p - vr - mask;
        uz_sched_send(s, tmp + mask * b, (MPI_Count)(b * n), byte, (vr + mask + root) % p);
    }
    if (r != root)
        uz_sched_copy(s, tmp, (MPI_Count)b, byte, recvbuf, rcount, rtype);
    else if (recvbuf != MPI_IN_PLACE)
        uz_sched_copy(s, uz_block(sendbuf, r, scount, stype), scount, stype, recvbuf, rcount, rtype);
}

static void scatter_linear(struct uz_sched *s, const void *sendbuf, MPI_Count scount, const MPI_Count *scounts,
                           const MPI_Aint *displs, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                           uz_datatype *rtype, int root, int inter)
{
    int p = inter ? s->comm->remote_size : s->comm->size, r = inter ? -1 : s->comm->rank;
    if (inter ? root != MPI_ROOT : r != root) {
        uz_sched_recv(s, recvbuf, rcount, rtype, root);
        return;
    }
    for (int i = 0; i < p; i++) {
        MPI_Count c = scounts ? scounts[i] : scount;
        const void *at = scounts ? uz_elem(sendbuf, displs[i], stype) : uz_block(sendbuf, i, scount, stype);
        if (i != r)
            uz_sched_send(s, at, c, stype, i);
        else if (recvbuf != MPI_IN_PLACE)
            uz_sched_copy(s, at, c, stype, recvbuf, rcount, rtype);
    }
}

static int build_scatter(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                         void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root)
{
    uz_comm *comm = s->comm;
    if (comm->is_inter) {
        if (recvbuf == MPI_IN_PLACE)
            return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
        if (root != MPI_PROC_NULL)
            scatter_linear(s, sendbuf, scount, NULL, NULL, stype, recvbuf, rcount, rtype, root, 1);
        return s->build_err;
    }
    if (recvbuf == MPI_IN_PLACE && comm->rank != root)
        return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root (argument recvbuf)");
    /* In place the root's receive arguments are not significant (NULL type). */
    size_t b = (size_t)(comm->rank == root ? scount * stype->size : rcount * rtype->size);
    int alg = uz_config.coll_scatter;
    if (alg == UZ_ALG_AUTO)
        alg = comm->size > 4 && b <= 1024 ? SCATTER_BINOMIAL : SCATTER_LINEAR;
    if (alg == SCATTER_BINOMIAL && comm->size > 1)
        scatter_binomial(s, sendbuf, scount, stype, recvbuf, rcount, rtype, root);
    else
        scatter_linear(s, sendbuf, scount, NULL, NULL, stype, recvbuf, rcount, rtype, root, 0);
    return s->build_err;
}

static int build_scatterv(struct uz_sched *s, const void *sendbuf, const MPI_Count *scounts,
                          const MPI_Aint *displs, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                          uz_datatype *rtype, int root)
{
    uz_comm *comm = s->comm;
    int inter = comm->is_inter;
    if (recvbuf == MPI_IN_PLACE && (inter || comm->rank != root))
        return uz_err_make(MPI_ERR_BUFFER, inter ? "MPI_IN_PLACE is not allowed on an intercommunicator"
                                                 : "MPI_IN_PLACE is only allowed at the root (argument recvbuf)");
    if (inter && root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (inter ? root == MPI_ROOT : comm->rank == root) {
        int p = inter ? comm->remote_size : comm->size;
        for (int i = 0; i < p; i++)
            if (scounts[i] < 0)
                return uz_err_make(MPI_ERR_COUNT, "invalid count %lld in sendcounts[%d]", (long long)scounts[i], i);
    }
    scatter_linear(s, sendbuf, 0, scounts, displs, stype, recvbuf, rcount, rtype, root, inter);
    return s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int scatter(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                   uz_datatype *rtype, int root, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    if (mode == UZ_COLL_BLOCKING && !comm->is_inter) {
        int rc = uz_shm_scatter(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm,
                                uz_shm_want(uz_config.coll_scatter, SCATTER_SHM));
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
    return uz_coll_finish(s, mode, build_scatter(s, sendbuf, scount, stype, recvbuf, rcount, rtype, root),
                          request);
}

static int scatterv(const void *sendbuf, struct uz_varray scounts, struct uz_varray displs, uz_datatype *stype,
                    void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root, uz_comm *comm,
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
    MPI_Count *c = has ? uz_coll_counts(s, p, scounts) : NULL;
    MPI_Aint *d = has ? uz_coll_displs(s, p, displs) : NULL;
    err = s->build_err ? s->build_err : build_scatterv(s, sendbuf, c, d, stype, recvbuf, rcount, rtype, root);
    return uz_coll_finish(s, mode, err, request);
}

int uz_mpi_Scatter_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    uz_lock();
    int err = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, UZ_COLL_BLOCKING,
                      NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Iscatter_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, MPI_Request *request)
{
    uz_lock();
    int err = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                          MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, uz_info *info,
                          MPI_Request *request)
{
    uz_lock();
    int err = scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}

int uz_mpi_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                    void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_int(sendcounts), uz_varray_int(displs), sendtype, recvbuf, recvcount,
                       recvtype, root, comm, UZ_COLL_BLOCKING, NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                      uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int root,
                      uz_comm *comm)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(displs), sendtype, recvbuf,
                       recvcount, recvtype, root, comm, UZ_COLL_BLOCKING, NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                     void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm,
                     MPI_Request *request)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_int(sendcounts), uz_varray_int(displs), sendtype, recvbuf, recvcount,
                       recvtype, root, comm, UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                       uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int root,
                       uz_comm *comm, MPI_Request *request)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(displs), sendtype, recvbuf,
                       recvcount, recvtype, root, comm, UZ_COLL_NONBLOCKING, request);
    uz_unlock();
    return err;
}

int uz_mpi_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                         void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm,
                         uz_info *info, MPI_Request *request)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_int(sendcounts), uz_varray_int(displs), sendtype, recvbuf, recvcount,
                       recvtype, root, comm, UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}

int uz_mpi_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                           uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype,
                           int root, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    uz_lock();
    int err = scatterv(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(displs), sendtype, recvbuf,
                       recvcount, recvtype, root, comm, UZ_COLL_PERSISTENT, request);
    uz_unlock();
    return err;
}
