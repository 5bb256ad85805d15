/*
 * allgather.c — MPI_Allgather(v), MPI_Iallgather(v), MPI_Allgather(v)_init.
 *
 *  ring                in step k each rank passes the block it received in
 *                      step k-1 to its right neighbour: p-1 steps, each
 *                      block crosses every link once.  Long messages.
 *  recursive_doubling  (p a power of two) in step k ranks exchange their
 *                      2^k blocks with rank ^ 2^k: log2 p steps.
 *  bruck               (any p) blocks gathered in a rotated, packed buffer
 *                      and exchanged at distances 1, 2, 4...: log2 p steps,
 *                      then one local rotation.
 *  linear              every rank sends its block to every other at once.
 *
 * Allgatherv uses ring or linear.  Intercommunicators: every rank sends its
 * block to every rank of the other group.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

/* Block i of the result: counts/displs for Allgatherv, else fixed. */
struct blocks {
    void *buf;
    MPI_Count count;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    uz_datatype *dt;
};

static void *block_at(const struct blocks *b, int i)
{
    return b->counts ? uz_elem(b->buf, b->displs[i], b->dt) : uz_block(b->buf, i, b->count, b->dt);
}

static MPI_Count block_count(const struct blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}

static void allgather_ring(struct uz_sched *s, const struct blocks *b)
{
    int p = s->comm->size, r = s->comm->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (r - k + p) % p, rb = (r - k - 1 + p) % p;
        uz_sched_recv(s, block_at(b, rb), block_count(b, rb), b->dt, left);
        uz_sched_send(s, block_at(b, sb), block_count(b, sb), b->dt, right);
        uz_sched_fence(s);
    }
}

static void allgather_linear(struct uz_sched *s, const struct blocks *b)
{
    int p = s->comm->size, r = s->comm->rank;
    for (int k = 1; k < p; k++) {
        int src = (r - k + p) % p;
        uz_sched_recv(s, block_at(b, src), block_count(b, src), b->dt, src);
    }
    for (int k = 1; k < p; k++)
        uz_sched_send(s, block_at(b, r), block_count(b, r), b->dt, (r + k) % p);
}

static void allgather_recursive_doubling(struct uz_sched *s, void *recvbuf, MPI_Count rcount, uz_datatype *rtype)
{
    int p = s->comm->size, r = s->comm->rank;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        int mine = r & ~(mask - 1), theirs = peer & ~(mask - 1);
        uz_sched_recv(s, uz_block(recvbuf, theirs, rcount, rtype), rcount * mask, rtype, peer);
        uz_sched_send(s, uz_block(recvbuf, mine, rcount, rtype), rcount * mask, rtype, peer);
        uz_sched_fence(s);
    }
}

static void allgather_bruck(struct uz_sched *s, int in_place, void *recvbuf, MPI_Count rcount, uz_datatype *rtype)
{
    int p = s->comm->size, r = s->comm->rank;
    uz_datatype *byte = uz_byte_type();
    size_t b = (size_t)(rcount * rtype->size);
    unsigned char *tmp = uz_sched_alloc(s, b * p);
    if (!tmp)
        return;
    uz_sched_copy(s, uz_block(recvbuf, r, rcount, rtype), rcount, rtype, tmp, (MPI_Count)b, byte);
    uz_sched_fence(s);
    for (int dist = 1; dist < p; dist <<= 1) {
        int cnt = dist < p - dist ? dist : p - dist;
        uz_sched_recv(s, tmp + dist * b, (MPI_Count)(b * cnt), byte, (r + dist) % p);
        uz_sched_send(s, tmp, (MPI_Count)(b * cnt), byte, (r - dist + p) % p);
        uz_sched_fence(s);
    }
    for (int i = in_place ? 1 : 0; i < p; i++)
        uz_sched_copy(s, tmp + i * b, (MPI_Count)b, byte, uz_block(recvbuf, (r + i) % p, rcount, rtype), rcount,
                      rtype);
}

/* Intercommunicators: all pairs across the two groups. */
static void allgather_inter(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                            const struct blocks *b)
{
    int q = s->comm->remote_size;
    for (int i = 0; i < q; i++)
        uz_sched_recv(s, block_at(b, i), block_count(b, i), b->dt, i);
    for (int i = 0; i < q; i++)
        uz_sched_send(s, sendbuf, scount, stype, i);
}

static int build_allgather(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                           const struct blocks *b)
{
    uz_comm *comm = s->comm;
    int r = comm->rank, p = comm->size;
    int err = uz_coll_check_in_place(comm, sendbuf, 0, 0, "sendbuf");
    if (err)
        return err;
    if (comm->is_inter) {
        allgather_inter(s, sendbuf, scount, stype, b);
        return s->build_err;
    }
    if (sendbuf != MPI_IN_PLACE) {
        uz_sched_copy(s, sendbuf, scount, stype, block_at(b, r), block_count(b, r), b->dt);
        uz_sched_fence(s);
    }
    if (p == 1)
        return s->build_err;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += (size_t)(block_count(b, i) * b->dt->size);
    if (total == 0)
        return s->build_err;
    /* Equal blocks make total a multiple of p; v forms ring whatever the size. */
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLGATHER, comm, total / (size_t)p);
    sit.fixed = b->counts == NULL;
    switch (uz_coll_chose(UZ_COLL_OP_ALLGATHER, uz_coll_mp_choice(&sit))) {
    case ALLGATHER_RECURSIVE_DOUBLING:
        allgather_recursive_doubling(s, b->buf, b->count, b->dt);
        break;
    case ALLGATHER_BRUCK:
        allgather_bruck(s, sendbuf == MPI_IN_PLACE, b->buf, b->count, b->dt);
        break;
    case ALLGATHER_LINEAR:
        allgather_linear(s, b);
        break;
    default:
        allgather_ring(s, b);
        break;
    }
    return s->build_err;
}

int uz_build_allgather(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                       void *recvbuf, MPI_Count rcount, uz_datatype *rtype)
{
    struct blocks b = { recvbuf, rcount, NULL, NULL, rtype };
    return build_allgather(s, sendbuf, scount, stype, &b);
}

/* ------------------------------------------------------------ entry points */

static int shm_allgather(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_allgather(a->sendbuf, a->scount, a->stype, a->recvbuf, a->rcount, a->rtype, comm, want);
}

static int build_fixed(struct uz_sched *s, const struct uz_coll_args *a)
{
    return uz_build_allgather(s, a->sendbuf, a->scount, a->stype, a->recvbuf, a->rcount, a->rtype);
}

static int build_v(struct uz_sched *s, const struct uz_coll_args *a)
{
    uz_comm *comm = s->comm;
    int p = comm->is_inter ? comm->remote_size : comm->size;
    int err = uz_coll_check_counts(a->v->vcounts, p, "recvcounts");
    struct blocks b = { a->recvbuf, 0, a->v->vcounts, a->v->vdispls, a->rtype };
    return err ? err : build_allgather(s, a->sendbuf, a->scount, a->stype, &b);
}

static const struct uz_coll_kind allgather = {
    .name = "MPI_Allgather",
    .shm = shm_allgather, .tunable = &uz_config.coll_allgather, .shm_choice = ALLGATHER_SHM, .build = build_fixed,
    .op = UZ_COLL_OP_ALLGATHER,
};

static int shm_allgatherv(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_allgatherv(a->sendbuf, a->scount, a->stype, a->recvbuf, &a->v->counts, &a->v->displs, a->rtype,
                             comm, want);
}

static const struct uz_coll_kind allgatherv = {
    .name = "MPI_Allgatherv",
    .shm = shm_allgatherv, .tunable = &uz_config.coll_allgather, .shm_choice = ALLGATHER_SHM,
    .arrays = UZ_COLL_ARRAYS_EVERYWHERE, .build = build_v, .op = UZ_COLL_OP_ALLGATHER,
};

static int call(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                uz_datatype *rtype, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = scount, .stype = stype, .recvbuf = recvbuf,
                              .rcount = rcount, .rtype = rtype };
    return uz_coll_call(&allgather, &a, comm, mode, request);
}

static int call_v(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                  struct uz_varray rcounts, struct uz_varray displs, uz_datatype *rtype, uz_comm *comm,
                  enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_varrays v = { .counts = rcounts, .displs = displs };
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = scount, .stype = stype, .recvbuf = recvbuf,
                              .rtype = rtype, .v = &v };
    return uz_coll_call(&allgatherv, &a, comm, mode, request);
}

int uz_coll_allgather(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Allgather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                       MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iallgather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                        MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm, MPI_Request *request)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                            MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm, uz_info *info,
                            MPI_Request *request)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Allgatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], uz_datatype *recvtype, uz_comm *comm)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                  recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype,
                        uz_comm *comm)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts), uz_varray_aint(displs),
                  recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iallgatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], uz_datatype *recvtype, uz_comm *comm,
                       MPI_Request *request)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                  recvtype, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype,
                         uz_comm *comm, MPI_Request *request)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts), uz_varray_aint(displs),
                  recvtype, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Allgatherv_init(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], uz_datatype *recvtype, uz_comm *comm,
                           uz_info *info, MPI_Request *request)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_int(recvcounts), uz_varray_int(displs),
                  recvtype, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype,
                             uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call_v(sendbuf, sendcount, sendtype, recvbuf, uz_varray_count(recvcounts), uz_varray_aint(displs),
                  recvtype, comm, UZ_COLL_PERSISTENT, request);
}
