/*
 * neighbor.c — neighbourhood collectives on Cartesian, graph and
 * distributed-graph communicators: MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v,w), with their I and _init forms.
 *
 * Every message of one operation goes out in a single round.  The
 * topology gives each rank's in- and out-neighbours in buffer order
 * (core/topo.h).  Messages between the same two ranks pair up in order,
 * so receives from a peer are posted in the order it sends: for graphs
 * that is list order; for Cartesian grids a rank's message to its -1
 * neighbour in dimension d is that neighbour's +1 block, so within each
 * dimension the +1 receive is posted first (this matters when one peer is
 * both neighbours: periodic dimensions of extent 1 or 2).
 */
#include "base/lock.h"
#include "coll/algo.h"
#include "core/topo.h"

/* One side of a neighbourhood exchange: block i (per neighbour). */
struct nside {
    char *buf;
    MPI_Count count;            /* fixed counts */
    uz_datatype *dt;
    const MPI_Count *counts;    /* v and w */
    const MPI_Aint *displs;     /* v: elements of dt; w: bytes */
    uz_datatype **dts;          /* w */
    int same;                   /* allgather: every block is the send buffer itself */
};

static void *nat(const struct nside *x, int i)
{
    if (x->same)
        return x->buf;
    if (x->dts)
        return x->buf + x->displs[i];
    if (x->counts)
        return uz_elem(x->buf, x->displs[i], x->dt);
    return uz_block(x->buf, i, x->count, x->dt);
}

static MPI_Count ncount(const struct nside *x, int i)
{
    return x->counts ? x->counts[i] : x->count;
}

static uz_datatype *ntype(const struct nside *x, int i)
{
    return x->dts ? x->dts[i] : x->dt;
}

static int build_neighbor(struct uz_sched *s, const struct nside *snd, const struct nside *rcv)
{
    const struct uz_topology *t = s->comm->topo;
    int cart = t->kind == MPI_CART;
    for (int k = 0; k < t->indegree; k++) {
        int i = cart ? (k ^ 1) : k;         /* per dimension: +1 block first */
        uz_sched_recv(s, nat(rcv, i), ncount(rcv, i), ntype(rcv, i), t->in[i]);
    }
    for (int i = 0; i < t->outdegree; i++)
        uz_sched_send(s, nat(snd, i), ncount(snd, i), ntype(snd, i), t->out[i]);
    return s->build_err;
}

static int check_comm(uz_comm *comm)
{
    if (!comm->topo)
        return uz_err_make(MPI_ERR_TOPOLOGY, "the communicator has no topology (neighbourhood collectives "
                           "need a Cartesian, graph or distributed graph communicator)");
    return MPI_SUCCESS;
}

static int check_counts(const MPI_Count *c, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            return uz_err_make(MPI_ERR_COUNT, "invalid count %lld in %s[%d]", (long long)c[i], what, i);
    return MPI_SUCCESS;
}

/* Arguments of every form, as arrays when given. */
struct nargs {
    const void *sendbuf;
    MPI_Count scount;
    struct uz_varray scounts, sdispls;
    uz_datatype *stype;
    const MPI_Datatype *stypes;
    void *recvbuf;
    MPI_Count rcount;
    struct uz_varray rcounts, rdispls;
    uz_datatype *rtype;
    const MPI_Datatype *rtypes;
    int allgather;
};

static int build(struct uz_sched *s, const struct nargs *a, int hold)
{
    const struct uz_topology *t = s->comm->topo;
    int err;
    if (a->sendbuf == MPI_IN_PLACE || a->recvbuf == MPI_IN_PLACE)
        return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in neighbourhood collectives");
    struct nside snd = { .buf = (char *)a->sendbuf, .count = a->scount, .dt = a->stype, .same = a->allgather };
    struct nside rcv = { .buf = a->recvbuf, .count = a->rcount, .dt = a->rtype };
    if (uz_varray_given(a->scounts)) {
        snd.counts = uz_coll_counts(s, t->outdegree, a->scounts);
        snd.displs = uz_coll_displs(s, t->outdegree, a->sdispls);
    }
    if (uz_varray_given(a->rcounts)) {
        rcv.counts = uz_coll_counts(s, t->indegree, a->rcounts);
        rcv.displs = uz_coll_displs(s, t->indegree, a->rdispls);
    }
    if (s->build_err)
        return s->build_err;
    if (snd.counts && (err = check_counts(snd.counts, t->outdegree, "sendcounts")))
        return err;
    if (rcv.counts && (err = check_counts(rcv.counts, t->indegree, "recvcounts")))
        return err;
    if (a->stypes && !(snd.dts = uz_coll_types(s, t->outdegree, a->stypes, "sendtypes", hold, &err)))
        return err;
    if (a->rtypes && !(rcv.dts = uz_coll_types(s, t->indegree, a->rtypes, "recvtypes", hold, &err)))
        return err;
    return build_neighbor(s, &snd, &rcv);
}

static int neighbor(const struct nargs *a, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    int err = check_comm(comm);
    if (err)
        return err;
    struct uz_sched *s;
    uz_lock();
    err = uz_coll_begin(comm, mode, &s);
    if (!err) {
        if (mode != UZ_COLL_BLOCKING) {
            uz_sched_hold_dt(s, a->stype);
            uz_sched_hold_dt(s, a->rtype);
        }
        err = uz_coll_finish(s, mode, build(s, a, mode != UZ_COLL_BLOCKING), request);
    }
    uz_unlock();
    return err;
}

/* ------------------------------------------------------------ allgather */

static struct nargs allgather_args(const void *sb, MPI_Count sc, uz_datatype *st, void *rb, MPI_Count rc,
                                   uz_datatype *rt)
{
    return (struct nargs){ .sendbuf = sb, .scount = sc, .stype = st, .recvbuf = rb, .rcount = rc, .rtype = rt,
                           .allgather = 1 };
}

int uz_mpi_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                                MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                 void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm,
                                 MPI_Request *request)
{
    struct nargs a = allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                     void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm,
                                     uz_info *info, MPI_Request *request)
{
    struct nargs a = allgather_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

/* ----------------------------------------------------------- allgatherv */

static struct nargs allgatherv_args(const void *sb, MPI_Count sc, uz_datatype *st, void *rb,
                                    struct uz_varray rc, struct uz_varray rd, uz_datatype *rt)
{
    return (struct nargs){ .sendbuf = sb, .scount = sc, .stype = st, .recvbuf = rb, .rcounts = rc,
                           .rdispls = rd, .rtype = rt, .allgather = 1 };
}

int uz_mpi_Neighbor_allgatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[], uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts),
                                     uz_varray_int(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                 void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                 uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                                     uz_varray_aint(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ineighbor_allgatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[], uz_datatype *recvtype,
                                uz_comm *comm, MPI_Request *request)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts),
                                     uz_varray_int(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                  void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                  uz_datatype *recvtype, uz_comm *comm, MPI_Request *request)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                                     uz_varray_aint(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], uz_datatype *recvtype,
                                    uz_comm *comm, uz_info *info, MPI_Request *request)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts),
                                     uz_varray_int(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      uz_datatype *recvtype, uz_comm *comm, uz_info *info,
                                      MPI_Request *request)
{
    struct nargs a = allgatherv_args(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts),
                                     uz_varray_aint(displs), recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

/* ------------------------------------------------------------- alltoall */

static struct nargs alltoall_args(const void *sb, MPI_Count sc, uz_datatype *st, void *rb, MPI_Count rc,
                                  uz_datatype *rt)
{
    return (struct nargs){ .sendbuf = sb, .scount = sc, .stype = st, .recvbuf = rb, .rcount = rc, .rtype = rt };
}

int uz_mpi_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                               MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm,
                                MPI_Request *request)
{
    struct nargs a = alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype,
                                    void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm,
                                    uz_info *info, MPI_Request *request)
{
    struct nargs a = alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

/* ------------------------------------------------------------ alltoallv */

static struct nargs alltoallv_args(const void *sb, struct uz_varray sc, struct uz_varray sd, uz_datatype *st,
                                   void *rb, struct uz_varray rc, struct uz_varray rd, uz_datatype *rt)
{
    return (struct nargs){ .sendbuf = sb, .scounts = sc, .sdispls = sd, .stype = st, .recvbuf = rb,
                           .rcounts = rc, .rdispls = rd, .rtype = rt };
}

int uz_mpi_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              uz_datatype *sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                              uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                                    recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                uz_datatype *sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], uz_datatype *recvtype, uz_comm *comm)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                                    recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               uz_datatype *sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                               uz_datatype *recvtype, uz_comm *comm, MPI_Request *request)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                                    recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 uz_datatype *sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], uz_datatype *recvtype, uz_comm *comm,
                                 MPI_Request *request)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                                    recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   uz_datatype *sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], uz_datatype *recvtype, uz_comm *comm, uz_info *info,
                                   MPI_Request *request)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                                    recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], uz_datatype *sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                     uz_datatype *recvtype, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    struct nargs a = alltoallv_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                                    recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

/* ------------------------------------------------------------ alltoallw */

static struct nargs alltoallw_args(const void *sb, struct uz_varray sc, const MPI_Aint *sd, const MPI_Datatype *st,
                                   void *rb, struct uz_varray rc, const MPI_Aint *rd, const MPI_Datatype *rt)
{
    return (struct nargs){ .sendbuf = sb, .scounts = sc, .sdispls = uz_varray_aint(sd), .stypes = st,
                           .recvbuf = rb, .rcounts = rc, .rdispls = uz_varray_aint(rd), .rtypes = rt };
}

int uz_mpi_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_int(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_int(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_count(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_count(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm,
                               MPI_Request *request)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_int(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_int(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm,
                                 MPI_Request *request)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_count(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_count(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm,
                                   uz_info *info, MPI_Request *request)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_int(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_int(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                     const MPI_Datatype recvtypes[], uz_comm *comm, uz_info *info,
                                     MPI_Request *request)
{
    struct nargs a = alltoallw_args(sendbuf, uz_varray_count(sendcounts), sdispls, sendtypes, recvbuf,
                                    uz_varray_count(recvcounts), rdispls, recvtypes);
    return neighbor(&a, comm, UZ_COLL_PERSISTENT, request);
}
