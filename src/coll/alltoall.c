/*
 * alltoall.c — MPI_Alltoall(v,w), MPI_Ialltoall(v,w), MPI_Alltoall(v,w)_init.
 *
 *  pairwise  in step k rank r sends to r+k and receives from r-k: each
 *            step is a permutation, so no rank is swamped.  Long blocks.
 *  linear    every receive and send is posted at once.
 *  bruck     (Alltoall) blocks travel in log2 p steps at distances 1, 2,
 *            4..., each step carrying the blocks whose destination offset
 *            has that bit set, packed: fewer, larger messages.  Short
 *            blocks and many ranks.
 *
 * The three operations share one description of "block i" per peer; in
 * place, the blocks to send are first packed aside from recvbuf.
 * Intercommunicators: every rank exchanges a block with every rank of the
 * other group.
 */
#include "base/lock.h"
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

/* One side (send or receive) of an all-to-all: block i. */
struct side {
    char *buf;
    MPI_Count count;            /* Alltoall */
    uz_datatype *dt;
    const MPI_Count *counts;    /* v and w */
    const MPI_Aint *displs;     /* v: in elements of dt; w: in bytes */
    uz_datatype **dts;          /* w */
};

static void *at(const struct side *x, int i)
{
    if (x->dts)
        return x->buf + x->displs[i];
    if (x->counts)
        return uz_elem(x->buf, x->displs[i], x->dt);
    return uz_block(x->buf, i, x->count, x->dt);
}

static MPI_Count count_of(const struct side *x, int i)
{
    return x->counts ? x->counts[i] : x->count;
}

static uz_datatype *type_of(const struct side *x, int i)
{
    return x->dts ? x->dts[i] : x->dt;
}

static void send_block(struct uz_sched *s, const struct side *x, int i, int peer)
{
    uz_sched_send(s, at(x, i), count_of(x, i), type_of(x, i), peer);
}

static void recv_block(struct uz_sched *s, const struct side *x, int i, int peer)
{
    uz_sched_recv(s, at(x, i), count_of(x, i), type_of(x, i), peer);
}

static void alltoall_pairwise(struct uz_sched *s, const struct side *snd, const struct side *rcv)
{
    int p = s->comm->size, r = s->comm->rank;
    for (int k = 1; k < p; k++) {
        int dst = (r + k) % p, src = (r - k + p) % p;
        recv_block(s, rcv, src, src);
        send_block(s, snd, dst, dst);
        uz_sched_fence(s);
    }
}

static void alltoall_linear(struct uz_sched *s, const struct side *snd, const struct side *rcv)
{
    int p = s->comm->size, r = s->comm->rank;
    for (int k = 1; k < p; k++)
        recv_block(s, rcv, (r - k + p) % p, (r - k + p) % p);
    for (int k = 1; k < p; k++)
        send_block(s, snd, (r + k) % p, (r + k) % p);
}

static void alltoall_bruck(struct uz_sched *s, const struct side *snd, const struct side *rcv)
{
    int p = s->comm->size, r = s->comm->rank;
    uz_datatype *byte = uz_byte_type();
    size_t b = (size_t)(rcv->count * rcv->dt->size);
    unsigned char *tmp = uz_sched_alloc(s, b * p);
    unsigned char *pack = uz_sched_alloc(s, b * ((p + 1) / 2));
    unsigned char *unpack = uz_sched_alloc(s, b * ((p + 1) / 2));
    if (!tmp || !pack || !unpack)
        return;
    /* tmp block i: what goes to rank r + i. */
    for (int i = 0; i < p; i++)
        uz_sched_copy(s, at(snd, (r + i) % p), snd->count, snd->dt, tmp + i * b, (MPI_Count)b, byte);
    for (int dist = 1; dist < p; dist <<= 1) {
        int n = 0;
        uz_sched_fence(s);
        for (int i = 1; i < p; i++)
            if (i & dist)
                uz_sched_copy(s, tmp + i * b, (MPI_Count)b, byte, pack + n++ * b, (MPI_Count)b, byte);
        uz_sched_fence(s);
        uz_sched_recv(s, unpack, (MPI_Count)(n * b), byte, (r - dist + p) % p);
        uz_sched_send(s, pack, (MPI_Count)(n * b), byte, (r + dist) % p);
        uz_sched_fence(s);
        n = 0;
        for (int i = 1; i < p; i++)
            if (i & dist)
                uz_sched_copy(s, unpack + n++ * b, (MPI_Count)b, byte, tmp + i * b, (MPI_Count)b, byte);
    }
    /* Now tmp block i came from rank r - i. */
    uz_sched_fence(s);
    for (int i = 0; i < p; i++)
        uz_sched_copy(s, tmp + i * b, (MPI_Count)b, byte, at(rcv, (r - i + p) % p), rcv->count, rcv->dt);
}

/* In place: pack recvbuf's blocks aside and send from there. */
static int pack_aside(struct uz_sched *s, int n, const struct side *rcv, struct side *snd)
{
    uz_datatype *byte = uz_byte_type();
    MPI_Count *counts = uz_sched_alloc(s, sizeof(MPI_Count) * n);
    MPI_Aint *displs = uz_sched_alloc(s, sizeof(MPI_Aint) * n);
    if (!counts || !displs)
        return s->build_err;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        counts[i] = count_of(rcv, i) * type_of(rcv, i)->size;
        displs[i] = (MPI_Aint)total;
        total += (size_t)counts[i];
    }
    char *copy = uz_sched_alloc(s, total ? total : 1);
    if (!copy)
        return s->build_err;
    for (int i = 0; i < n; i++)
        uz_sched_copy(s, at(rcv, i), count_of(rcv, i), type_of(rcv, i), copy + displs[i], counts[i], byte);
    uz_sched_fence(s);
    *snd = (struct side){ .buf = copy, .dt = byte, .counts = counts, .displs = displs };
    return MPI_SUCCESS;
}

/* The algorithm, in Alltoall's words (Alltoallv/w have their own tunable
 * and words, and pick among linear and pairwise). */
static int choose(uz_comm *comm, const struct side *rcv)
{
    if (rcv->counts == NULL) {
        struct uz_coll_situation sit =
            uz_coll_situation(UZ_COLL_OP_ALLTOALL, comm, (size_t)(rcv->count * rcv->dt->size));
        return uz_coll_chose(UZ_COLL_OP_ALLTOALL, uz_coll_mp_choice(&sit));
    }
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLTOALLV, comm, 0);
    sit.fixed = 0;
    int alg = uz_coll_chose(UZ_COLL_OP_ALLTOALLV, uz_coll_mp_choice(&sit));
    return alg == ALLTOALLV_LINEAR ? ALLTOALL_LINEAR : ALLTOALL_PAIRWISE;
}

static int build_alltoall(struct uz_sched *s, int in_place, struct side snd, const struct side *rcv)
{
    uz_comm *comm = s->comm;
    int err = uz_coll_check_in_place(comm, snd.buf, 0, 0, "sendbuf");
    if (err)
        return err;
    if (comm->is_inter) {
        int q = comm->remote_size;
        for (int i = 0; i < q; i++)
            recv_block(s, rcv, i, i);
        for (int i = 0; i < q; i++)
            send_block(s, &snd, i, i);
        return s->build_err;
    }
    int p = comm->size, r = comm->rank;
    int alg = choose(comm, rcv);
    if (in_place) {
        if (p == 1)
            return MPI_SUCCESS;
        if ((err = pack_aside(s, p, rcv, &snd)))
            return err;
    }
    if (alg == ALLTOALL_BRUCK && snd.counts == NULL && p > 1) {
        alltoall_bruck(s, &snd, rcv);
        return s->build_err;
    }
    if (!in_place)
        uz_sched_copy(s, at(&snd, r), count_of(&snd, r), type_of(&snd, r), at(rcv, r), count_of(rcv, r),
                      type_of(rcv, r));
    if (alg == ALLTOALL_LINEAR)
        alltoall_linear(s, &snd, rcv);
    else
        alltoall_pairwise(s, &snd, rcv);
    return s->build_err;
}

int uz_build_alltoall(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                      void *recvbuf, MPI_Count rcount, uz_datatype *rtype)
{
    struct side snd = { .buf = (char *)sendbuf, .count = scount, .dt = stype };
    struct side rcv = { .buf = recvbuf, .count = rcount, .dt = rtype };
    return build_alltoall(s, sendbuf == MPI_IN_PLACE, snd, &rcv);
}

/* ------------------------------------------------------ v and w arguments */

struct vargs {
    const void *sendbuf;
    struct uz_varray scounts, sdispls;
    uz_datatype *stype;
    const MPI_Datatype *stypes;
    void *recvbuf;
    struct uz_varray rcounts, rdispls;
    uz_datatype *rtype;
    const MPI_Datatype *rtypes;
};

/* Blocking, in one host's shared memory: describe both sides per peer. */
static int try_shm(struct uz_sched *s, int n, const struct side *snd, const struct side *rcv, int *done)
{
    void **sb = uz_sched_alloc(s, sizeof(void *) * 2 * n);
    MPI_Count *c = uz_sched_alloc(s, sizeof(MPI_Count) * 2 * n);
    uz_datatype **t = uz_sched_alloc(s, sizeof(uz_datatype *) * 2 * n);
    size_t *progress = uz_sched_alloc(s, sizeof(size_t) * 2 * n);
    if (!sb || !c || !t || !progress)
        return s->build_err;
    for (int i = 0; i < n; i++) {
        sb[i] = at(snd, i);
        c[i] = count_of(snd, i);
        t[i] = type_of(snd, i);
        sb[n + i] = at(rcv, i);
        c[n + i] = count_of(rcv, i);
        t[n + i] = type_of(rcv, i);
    }
    int rc = uz_shm_alltoallv(n, sb, c, t, sb + n, c + n, t + n, s->comm,
                              uz_shm_want(uz_config.coll_alltoallv, ALLTOALLV_SHM), progress);
    *done = rc != UZ_SHM_DECLINED;
    if (*done)
        uz_coll_chose(UZ_COLL_OP_ALLTOALLV, ALLTOALLV_SHM);
    return *done ? rc : MPI_SUCCESS;
}

static int build_alltoallvw(struct uz_sched *s, const struct vargs *a, int hold, int *done)
{
    uz_comm *comm = s->comm;
    int n = comm->is_inter ? comm->remote_size : comm->size;
    int in_place = a->sendbuf == MPI_IN_PLACE, err = MPI_SUCCESS;
    struct side snd = { .buf = (char *)a->sendbuf, .dt = a->stype };
    struct side rcv = { .buf = a->recvbuf, .dt = a->rtype };
    rcv.counts = uz_coll_counts(s, n, a->rcounts);
    rcv.displs = uz_coll_displs(s, n, a->rdispls);
    if (!in_place) {
        snd.counts = uz_coll_counts(s, n, a->scounts);
        snd.displs = uz_coll_displs(s, n, a->sdispls);
    }
    if (s->build_err)
        return s->build_err;
    if ((err = uz_coll_check_counts(rcv.counts, n, "recvcounts")))
        return err;
    if (!in_place && (err = uz_coll_check_counts(snd.counts, n, "sendcounts")))
        return err;
    if (a->rtypes && !(rcv.dts = uz_coll_types(s, n, a->rtypes, "recvtypes", hold, &err)))
        return err;
    if (a->stypes && !in_place && !(snd.dts = uz_coll_types(s, n, a->stypes, "sendtypes", hold, &err)))
        return err;
    if (done && !in_place && !comm->is_inter) {
        err = try_shm(s, n, &snd, &rcv, done);
        if (err || *done)
            return err;
    }
    return build_alltoall(s, in_place, snd, &rcv);
}

/* ------------------------------------------------------------ entry points */

static int shm_alltoall(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_alltoall(a->sendbuf, a->scount, a->stype, a->recvbuf, a->rcount, a->rtype, comm, want);
}

static int build_fixed(struct uz_sched *s, const struct uz_coll_args *a)
{
    return uz_build_alltoall(s, a->sendbuf, a->scount, a->stype, a->recvbuf, a->rcount, a->rtype);
}

static const struct uz_coll_kind alltoall = {
    .name = "MPI_Alltoall",
    .shm = shm_alltoall, .tunable = &uz_config.coll_alltoall, .shm_choice = ALLTOALL_SHM, .build = build_fixed,
    .op = UZ_COLL_OP_ALLTOALL,
};

static int call(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf, MPI_Count rcount,
                uz_datatype *rtype, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = scount, .stype = stype, .recvbuf = recvbuf,
                              .rcount = rcount, .rtype = rtype };
    return uz_coll_call(&alltoall, &a, comm, mode, request);
}

/* Alltoallv/w do not go through uz_coll_call: their shared-memory
 * algorithm takes the per-peer description that only the schedule's
 * scratch holds, so it is tried while building. */
static int alltoallvw(const struct vargs *a, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_sched *s;
    int blocking = mode == UZ_COLL_BLOCKING, done = 0;
    if (blocking && a->sendbuf != MPI_IN_PLACE)
        uz_shm_prepare(comm, uz_shm_want(uz_config.coll_alltoallv, ALLTOALLV_SHM));
    int err = uz_coll_begin(comm, mode, &s);
    if (err)
        return err;
    uz_coll_hold(s, mode, a->stype, a->rtype, NULL);
    err = build_alltoallvw(s, a, !blocking, blocking ? &done : NULL);
    if (done)
        return err;
    return uz_coll_finish(s, mode, err, request);
}

int uz_coll_alltoall(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Alltoall_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                       MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm, MPI_Request *request)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                           MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm, uz_info *info,
                           MPI_Request *request)
{
    return call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, UZ_COLL_PERSISTENT, request);
}

static int run_v(const struct vargs *a, uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_wait_note note;
    uz_lock();
    struct uz_wait_note *prev = uz_coll_note_enter(&note, a->stypes ? "MPI_Alltoallw" : "MPI_Alltoallv", comm, mode);
    int err = alltoallvw(a, comm, mode, request);
    uz_wait_note_leave(prev);
    uz_unlock();
    return err;
}

/* Arguments of the v forms (counts and displacements in elements) and the
 * w forms (displacements in bytes, a datatype per peer). */
static struct vargs v_args(const void *sb, struct uz_varray sc, struct uz_varray sd, uz_datatype *st, void *rb,
                           struct uz_varray rc, struct uz_varray rd, uz_datatype *rt)
{
    return (struct vargs){ sb, sc, sd, st, NULL, rb, rc, rd, rt, NULL };
}

static struct vargs w_args(const void *sb, struct uz_varray sc, struct uz_varray sd, const MPI_Datatype *st,
                           void *rb, struct uz_varray rc, struct uz_varray rd, const MPI_Datatype *rt)
{
    return (struct vargs){ sb, sc, sd, NULL, st, rb, rc, rd, NULL, rt };
}

int uz_mpi_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], uz_datatype *sendtype,
                     void *recvbuf, const int recvcounts[], const int rdispls[], uz_datatype *recvtype,
                     uz_comm *comm)
{
    struct vargs a = v_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                       uz_datatype *sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                       uz_datatype *recvtype, uz_comm *comm)
{
    struct vargs a = v_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], uz_datatype *sendtype,
                      void *recvbuf, const int recvcounts[], const int rdispls[], uz_datatype *recvtype,
                      uz_comm *comm, MPI_Request *request)
{
    struct vargs a = v_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                        uz_datatype *sendtype, void *recvbuf, const MPI_Count recvcounts[],
                        const MPI_Aint rdispls[], uz_datatype *recvtype, uz_comm *comm, MPI_Request *request)
{
    struct vargs a = v_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          uz_datatype *sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                          uz_datatype *recvtype, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    struct vargs a = v_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtype,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            uz_datatype *sendtype, void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], uz_datatype *recvtype, uz_comm *comm, uz_info *info,
                            MPI_Request *request)
{
    struct vargs a = v_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtype,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtype);
    return run_v(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                     const MPI_Datatype recvtypes[], uz_comm *comm)
{
    struct vargs a = w_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtypes,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm)
{
    struct vargs a = w_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtypes,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                      const MPI_Datatype recvtypes[], uz_comm *comm, MPI_Request *request)
{
    struct vargs a = w_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtypes,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm,
                        MPI_Request *request)
{
    struct vargs a = w_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtypes,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const int rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm, uz_info *info,
                          MPI_Request *request)
{
    struct vargs a = w_args(sendbuf, uz_varray_int(sendcounts), uz_varray_int(sdispls), sendtypes,
                            recvbuf, uz_varray_int(recvcounts), uz_varray_int(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], uz_comm *comm,
                            uz_info *info, MPI_Request *request)
{
    struct vargs a = w_args(sendbuf, uz_varray_count(sendcounts), uz_varray_aint(sdispls), sendtypes,
                            recvbuf, uz_varray_count(recvcounts), uz_varray_aint(rdispls), recvtypes);
    return run_v(&a, comm, UZ_COLL_PERSISTENT, request);
}
