/*
 * gather_scatter.c — MPI_Gather(v) and MPI_Scatter(v), their I and _init
 * forms.  The two are mirror images: the same schedule with every message
 * and copy reversed, so one builder serves both, told which way the
 * blocks travel.
 *
 *  linear    the root exchanges a block with every rank (the v forms
 *            always, by message passing).
 *  binomial  blocks travel along a binomial tree rooted at the root, each
 *            subtree's blocks packed into one bundle: the root exchanges
 *            log2 p messages instead of p-1.  Gathering, a rank receives
 *            its subtrees' bundles, adds its own block and sends the whole
 *            to its parent; scattering is the same backwards.
 *
 * Blocking calls within one host may instead go through the shared area or
 * by one copy between the root's buffer and each rank's (coll_shm.c).
 *
 * Intercommunicators: the root (MPI_ROOT) exchanges a block with every
 * rank of the other group.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"
#include "coll/direct.h"

/* One Gather or Scatter as the builder sees it. */
struct rooted {
    int to_root;                /* gather: blocks travel to the root; scatter: away from it */
    int root;
    /* The root's buffer of blocks: recvbuf of a gather, sendbuf of a scatter. */
    void *all;
    MPI_Count count;            /* per block; or, v forms: */
    const MPI_Count *counts;
    const MPI_Aint *displs;
    uz_datatype *all_dt;
    /* This rank's own block: sendbuf of a gather, recvbuf of a scatter
     * (MPI_IN_PLACE at the root when its block stays where it is). */
    void *mine;
    MPI_Count mine_count;
    uz_datatype *mine_dt;
};

static struct rooted describe(const struct uz_coll_args *a, int to_root)
{
    struct rooted x = { .to_root = to_root, .root = a->root, .counts = a->v ? a->v->vcounts : NULL,
                        .displs = a->v ? a->v->vdispls : NULL };
    if (to_root) {
        x.all = a->recvbuf;
        x.count = a->rcount;
        x.all_dt = a->rtype;
        x.mine = (void *)a->sendbuf;
        x.mine_count = a->scount;
        x.mine_dt = a->stype;
    } else {
        x.all = (void *)a->sendbuf;
        x.count = a->scount;
        x.all_dt = a->stype;
        x.mine = a->recvbuf;
        x.mine_count = a->rcount;
        x.mine_dt = a->rtype;
    }
    return x;
}

/* A plain call's block in bytes as this rank sees it: at the root, one of
 * its buffer of blocks (a gather's recvbuf, a scatter's sendbuf); on the
 * others, the own block (the other buffer). */
static size_t block_bytes(const struct uz_coll_args *a, const uz_comm *comm, int to_root)
{
    return to_root == (comm->rank == a->root) ? (size_t)(a->rcount * a->rtype->size)
                                              : (size_t)(a->scount * a->stype->size);
}

static void *block_at(const struct rooted *x, int i)
{
    return x->counts ? uz_elem(x->all, x->displs[i], x->all_dt) : uz_block(x->all, i, x->count, x->all_dt);
}

static MPI_Count block_count(const struct rooted *x, int i)
{
    return x->counts ? x->counts[i] : x->count;
}

/* A message with the rank on the root's side (parent, or the root). */
static void with_parent(struct uz_sched *s, const struct rooted *x, void *buf, MPI_Count count, uz_datatype *dt,
                        int peer)
{
    if (x->to_root)
        uz_sched_send(s, buf, count, dt, peer);
    else
        uz_sched_recv(s, buf, count, dt, peer);
}

/* A message with a rank on the far side (child, or any rank at the root). */
static void with_child(struct uz_sched *s, const struct rooted *x, void *buf, MPI_Count count, uz_datatype *dt,
                       int peer)
{
    if (x->to_root)
        uz_sched_recv(s, buf, count, dt, peer);
    else
        uz_sched_send(s, buf, count, dt, peer);
}

/* A local copy between a buffer on the leaves' side and one on the root's:
 * toward the root when gathering, away from it when scattering. */
static void copy_along(struct uz_sched *s, const struct rooted *x, void *leafward, MPI_Count lcount,
                       uz_datatype *ldt, void *rootward, MPI_Count rcount, uz_datatype *rdt)
{
    if (x->to_root)
        uz_sched_copy(s, leafward, lcount, ldt, rootward, rcount, rdt);
    else
        uz_sched_copy(s, rootward, rcount, rdt, leafward, lcount, ldt);
}

/* Linear, and every intercommunicator call (p ranks of the other group,
 * and this rank none of them). */
static void rooted_linear(struct uz_sched *s, const struct rooted *x, int inter)
{
    int p = inter ? s->comm->remote_size : s->comm->size, r = inter ? -1 : s->comm->rank;
    if (inter ? x->root != MPI_ROOT : r != x->root) {
        with_parent(s, x, x->mine, x->mine_count, x->mine_dt, x->root);
        return;
    }
    for (int i = 0; i < p; i++)
        if (i != r)
            with_child(s, x, block_at(x, i), block_count(x, i), x->all_dt, i);
    /* The root's own block last: a copy step runs as it starts, and the
     * messages started before it move meanwhile (a large one's peer copies
     * alone until this rank joins in, shm_bulk.c); first, it held every
     * message back by its whole length (np 2, 2 MiB: Scatter 140 us
     * against 121 with the rank reading its block while the root copies). */
    if (!inter && x->mine != MPI_IN_PLACE)
        copy_along(s, x, x->mine, x->mine_count, x->mine_dt, block_at(x, r), block_count(x, r), x->all_dt);
}

/* Where a rank stands in the binomial tree (ranks relative to the root). */
struct node {
    int p, r, vr;
    int low;                    /* its subtree: ranks [vr, vr + span) */
    int span;
    int parent;
    size_t b;                   /* bytes of a block */
};

/* The bundles of this rank's subtrees at their places in `bundle`, then its
 * own block: at the start of the bundle, or at the root in its place in
 * the root's buffer.  Gathering, the smaller subtrees come first, as
 * their bundles arrive first; scattering, the larger, as theirs have
 * farthest to go. */
static void subtrees(struct uz_sched *s, const struct rooted *x, const struct node *t, unsigned char *bundle)
{
    uz_datatype *byte = uz_byte_type();
    for (int k = 1; k < t->low; k <<= 1) {
        int mask = x->to_root ? k : t->low / (2 * k);
        if (t->vr + mask >= t->p)
            continue;
        int n = t->vr + 2 * mask <= t->p ? mask : t->p - t->vr - mask;
        with_child(s, x, bundle + mask * t->b, (MPI_Count)(t->b * n), byte, (t->vr + mask + x->root) % t->p);
    }
    if (t->r != x->root) {
        copy_along(s, x, x->mine, x->mine_count, x->mine_dt, bundle, (MPI_Count)t->b, byte);
    } else if (x->mine != MPI_IN_PLACE) {
        void *place = uz_block(x->all, t->r, x->count, x->all_dt);
        copy_along(s, x, x->mine, x->mine_count, x->mine_dt, place, x->count, x->all_dt);
    }
}

/* The whole bundle with the parent; at the root, between the bundle (in
 * relative rank order) and the root's buffer, unless that is the bundle.
 * The root's own block is never in its bundle. */
static void toward_parent(struct uz_sched *s, const struct rooted *x, const struct node *t, unsigned char *bundle,
                          int direct)
{
    uz_datatype *byte = uz_byte_type();
    if (t->r != x->root) {
        with_parent(s, x, bundle, (MPI_Count)(t->b * t->span), byte, t->parent);
        return;
    }
    for (int i = 1; i < t->p && !direct; i++) {
        void *place = uz_block(x->all, (i + x->root) % t->p, x->count, x->all_dt);
        copy_along(s, x, bundle + i * t->b, (MPI_Count)t->b, byte, place, x->count, x->all_dt);
    }
}

static void rooted_binomial(struct uz_sched *s, const struct rooted *x)
{
    struct node t = { .p = s->comm->size, .r = s->comm->rank };
    t.vr = (t.r - x->root + t.p) % t.p;
    /* In place the root's own-block arguments are not significant (the
     * binding passes a NULL type): each rank sizes blocks from what it has. */
    t.b = t.r == x->root ? (size_t)(x->count * x->all_dt->size) : (size_t)(x->mine_count * x->mine_dt->size);
    t.low = 1;
    while (t.low < t.p && !(t.vr & t.low))
        t.low <<= 1;
    t.span = t.vr + t.low < t.p ? t.low : t.p - t.vr;
    t.parent = (t.vr - t.low + x->root) % t.p;
    if (t.span == 1) {
        with_parent(s, x, x->mine, x->mine_count, x->mine_dt, t.parent);
        return;
    }
    /* The root's buffer is the bundle when its blocks are already in
     * relative order, back to back. */
    int direct = t.r == x->root && x->root == 0 && uz_dt_is_contig(x->all_dt, x->count * t.p);
    unsigned char *bundle = direct ? (unsigned char *)x->all + x->all_dt->true_lb : uz_sched_alloc(s, t.b * t.span);
    if (!bundle)
        return;
    if (x->to_root) {
        subtrees(s, x, &t, bundle);
        uz_sched_fence(s);
        toward_parent(s, x, &t, bundle, direct);
    } else {
        toward_parent(s, x, &t, bundle, direct);
        uz_sched_fence(s);
        subtrees(s, x, &t, bundle);
    }
}

/* ------------------------------------------------------------ builders */

/* MPI_IN_PLACE is the own block's argument: sendbuf of a gather, recvbuf
 * of a scatter. */
static int check_in_place(const uz_comm *comm, const struct rooted *x)
{
    return uz_coll_check_in_place(comm, x->mine, 1, x->root, x->to_root ? "sendbuf" : "recvbuf");
}

static int build(struct uz_sched *s, const struct uz_coll_args *a, int to_root)
{
    uz_comm *comm = s->comm;
    struct rooted x = describe(a, to_root);
    int err = check_in_place(comm, &x);
    if (err)
        return err;
    if (comm->is_inter) {
        if (x.root != MPI_PROC_NULL)
            rooted_linear(s, &x, 1);
        return s->build_err;
    }
    size_t b = block_bytes(a, comm, to_root);
    enum uz_coll_op op = to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER;
    struct uz_coll_situation sit = uz_coll_situation(op, comm, b);
    int alg = uz_coll_chose(op, uz_coll_mp_choice(&sit));
    if (alg == (to_root ? GATHER_BINOMIAL : SCATTER_BINOMIAL))
        rooted_binomial(s, &x);
    else
        rooted_linear(s, &x, 0);
    return s->build_err;
}

static int build_v(struct uz_sched *s, const struct uz_coll_args *a, int to_root)
{
    uz_comm *comm = s->comm;
    int inter = comm->is_inter;
    struct rooted x = describe(a, to_root);
    int err = check_in_place(comm, &x);
    if (err || (inter && x.root == MPI_PROC_NULL))
        return err;
    if (x.counts &&
        (err = uz_coll_check_counts(x.counts, inter ? comm->remote_size : comm->size,
                                    to_root ? "recvcounts" : "sendcounts")))
        return err;
    rooted_linear(s, &x, inter);
    return s->build_err;
}

static int build_gather(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build(s, a, 1);
}

static int build_scatter(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build(s, a, 0);
}

static int build_gatherv(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build_v(s, a, 1);
}

static int build_scatterv(struct uz_sched *s, const struct uz_coll_args *a)
{
    return build_v(s, a, 0);
}

/* ------------------------------------------------------------ direct */

/* A blocking call on an intracommunicator whose algorithm is linear (the
 * v forms always; Gather and Scatter where build() would choose it), on
 * at most UZ_COLL_ARRAYS_ON_STACK ranks: rooted_linear's messages and copy
 * in its order, started at once (direct.h).  Through the immediate
 * schedule the bookkeeping around one message was a third of a two-rank
 * 8-byte Scatter's instructions; direct, np 2, 8 bytes: Scatter 0.064 us
 * against 0.082, Gather 0.062 against 0.079 (best of 7 runs side by side;
 * docs/performance.md, issue 27, eleventh step). */
static UZ_ALWAYS_INLINE int rooted_direct(const struct uz_coll_args *a, uz_comm *comm, int to_root)
{
    int p = comm->size, me = comm->rank;
    if (p > UZ_COLL_ARRAYS_ON_STACK)
        return UZ_SHM_DECLINED;
    struct rooted x = describe(a, to_root);
    int err = check_in_place(comm, &x);
    if (err)
        return err;
    MPI_Count counts_here[UZ_COLL_ARRAYS_ON_STACK];
    MPI_Aint displs_here[UZ_COLL_ARRAYS_ON_STACK];
    enum uz_coll_op op = to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER;
    if (!a->v) {
        struct uz_coll_situation sit = uz_coll_situation(op, comm, block_bytes(a, comm, to_root));
        int alg = uz_coll_mp_choice(&sit);
        if (alg == (to_root ? GATHER_BINOMIAL : SCATTER_BINOMIAL))
            return UZ_SHM_DECLINED;
        uz_coll_chose(op, alg);
    } else if (me == x.root) {
        x.counts = uz_coll_counts_into(counts_here, p, a->v->counts);
        x.displs = uz_coll_displs_into(displs_here, p, a->v->displs);
        if (x.counts && (err = uz_coll_check_counts(x.counts, p, to_root ? "recvcounts" : "sendcounts")))
            return err;
    }
    uz_request *room[UZ_COLL_ARRAYS_ON_STACK];
    struct uz_coll_direct d;
    uz_coll_direct_begin(&d, comm, room);
    if (me != x.root) {
        if (to_root)
            uz_coll_direct_send(&d, x.mine, x.mine_count, x.mine_dt, x.root);
        else
            uz_coll_direct_recv(&d, x.mine, x.mine_count, x.mine_dt, x.root);
        return uz_coll_direct_end(&d);
    }
    for (int i = 0; i < p; i++) {
        if (i == me)
            continue;
        if (to_root)
            uz_coll_direct_recv(&d, block_at(&x, i), block_count(&x, i), x.all_dt, i);
        else
            uz_coll_direct_send(&d, block_at(&x, i), block_count(&x, i), x.all_dt, i);
    }
    if (x.mine != MPI_IN_PLACE) {
        if (to_root)
            uz_coll_local_copy(x.mine, x.mine_count, x.mine_dt, block_at(&x, me), block_count(&x, me), x.all_dt);
        else
            uz_coll_local_copy(block_at(&x, me), block_count(&x, me), x.all_dt, x.mine, x.mine_count, x.mine_dt);
    }
    return uz_coll_direct_end(&d);
}

static int direct_gather(const struct uz_coll_args *a, uz_comm *comm)
{
    return rooted_direct(a, comm, 1);
}

static int direct_scatter(const struct uz_coll_args *a, uz_comm *comm)
{
    return rooted_direct(a, comm, 0);
}

/* ------------------------------------------------------------ entry points */

/* The shared-memory algorithms read the tunable themselves: besides shm
 * it may name pull or push, which they record as the choice. */
static UZ_ALWAYS_INLINE int shm_rooted(const struct uz_coll_args *a, uz_comm *comm, int to_root)
{
    int alg = -1;
    size_t b = 0;
    if (!a->v) {
        /* A plain call asks the policy about its block first and declines
         * before describing itself (a tiny call with a core per rank goes
         * by messages): the description and the area's own checks were
         * about 50 of a two-rank 8-byte Scatter's 1000 instructions.  An
         * erroneous MPI_IN_PLACE off the root is reported by message
         * passing, without looking at its type. */
        int at_root = comm->rank == a->root;
        if (comm->size < 2 || (!at_root && (to_root ? a->sendbuf : a->recvbuf) == MPI_IN_PLACE))
            return UZ_SHM_DECLINED;
        b = block_bytes(a, comm, to_root);
        struct uz_coll_situation sit =
            uz_coll_situation(to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER, comm, b);
        alg = uz_coll_shm_rooted(&sit);
        if (alg == UZ_ALG_AUTO || b == 0)
            return UZ_SHM_DECLINED;
    }
    struct rooted r = describe(a, to_root);
    struct uz_shm_rooted x = { .to_root = to_root, .root = a->root, .all = r.all, .count = r.count,
                               .all_dt = r.all_dt, .mine = r.mine, .mine_count = r.mine_count,
                               .mine_dt = r.mine_dt };
    if (a->v) {
        x.counts = &a->v->counts;
        x.displs = &a->v->displs;
    }
    return uz_shm_rooted(&x, comm, alg, b);
}

static int shm_gather(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    (void)want;
    return shm_rooted(a, comm, 1);
}

static int shm_scatter(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    (void)want;
    return shm_rooted(a, comm, 0);
}

static const struct uz_coll_kind gather = {
    .name = "MPI_Gather",
    .shm = shm_gather, .tunable = &uz_config.coll_gather, .shm_choice = GATHER_SHM, .build = build_gather,
    .direct = direct_gather, .op = UZ_COLL_OP_GATHER, .shm_chooses = 1,
};
static const struct uz_coll_kind scatter = {
    .name = "MPI_Scatter",
    .shm = shm_scatter, .tunable = &uz_config.coll_scatter, .shm_choice = SCATTER_SHM, .build = build_scatter,
    .direct = direct_scatter, .op = UZ_COLL_OP_SCATTER, .shm_chooses = 1,
};
static const struct uz_coll_kind gatherv = {
    .name = "MPI_Gatherv", .arrays = UZ_COLL_ARRAYS_AT_ROOT, .build = build_gatherv,
    .direct = direct_gather,
    .shm = shm_gather, .tunable = &uz_config.coll_gather, .shm_choice = GATHER_SHM,
    .op = UZ_COLL_OP_GATHER, .shm_chooses = 1,
};
static const struct uz_coll_kind scatterv = {
    .name = "MPI_Scatterv", .arrays = UZ_COLL_ARRAYS_AT_ROOT, .build = build_scatterv,
    .direct = direct_scatter,
    .shm = shm_scatter, .tunable = &uz_config.coll_scatter, .shm_choice = SCATTER_SHM,
    .op = UZ_COLL_OP_SCATTER, .shm_chooses = 1,
};

static int call(const struct uz_coll_kind *k, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                void *recvbuf, MPI_Count rcount, uz_datatype *rtype, int root, uz_comm *comm,
                enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = scount, .stype = stype, .recvbuf = recvbuf,
                              .rcount = rcount, .rtype = rtype, .root = root };
    return uz_coll_call(k, &a, comm, mode, request);
}

/* The v forms: the root's per-rank arrays describe recvbuf (Gatherv) or
 * sendbuf (Scatterv).  In line in each entry point, as call() is, so that
 * the kind's constants fold (out of line, the v forms' tiny calls took
 * about 100 instructions more than the plain ones). */
static UZ_ALWAYS_INLINE int call_v(const struct uz_coll_kind *k, const void *sendbuf, MPI_Count scount,
                                   uz_datatype *stype, void *recvbuf, MPI_Count rcount, uz_datatype *rtype,
                                   struct uz_varray counts, struct uz_varray displs, int root, uz_comm *comm,
                                   enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_varrays v = { .counts = counts, .displs = displs };
    struct uz_coll_args a = { .sendbuf = sendbuf, .scount = scount, .stype = stype, .recvbuf = recvbuf,
                              .rcount = rcount, .rtype = rtype, .root = root, .v = &v };
    return uz_coll_call(k, &a, comm, mode, request);
}

int uz_coll_gather(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                   MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    return call(&gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Gather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                    MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    return call(&gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Igather_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, MPI_Request *request)
{
    return call(&gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Gather_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                         MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, uz_info *info,
                         MPI_Request *request)
{
    return call(&gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Gatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_int(recvcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Gatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                     uz_comm *comm)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_count(recvcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Igatherv(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm,
                    MPI_Request *request)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_int(recvcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Igatherv_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                      uz_comm *comm, MPI_Request *request)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_count(recvcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Gatherv_init(const void *sendbuf, int sendcount, uz_datatype *sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], uz_datatype *recvtype, int root, uz_comm *comm,
                        uz_info *info, MPI_Request *request)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_int(recvcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], uz_datatype *recvtype, int root,
                          uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call_v(&gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, uz_varray_count(recvcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Scatter_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    return call(&scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iscatter_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, MPI_Request *request)
{
    return call(&scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                          MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm, uz_info *info,
                          MPI_Request *request)
{
    return call(&scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                    void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_int(sendcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                      uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int root,
                      uz_comm *comm)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_count(sendcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                     void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm,
                     MPI_Request *request)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_int(sendcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                       uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype, int root,
                       uz_comm *comm, MPI_Request *request)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_count(sendcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], uz_datatype *sendtype,
                         void *recvbuf, int recvcount, uz_datatype *recvtype, int root, uz_comm *comm,
                         uz_info *info, MPI_Request *request)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_int(sendcounts),
                  uz_varray_int(displs), root, comm, UZ_COLL_PERSISTENT, request);
}

int uz_mpi_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                           uz_datatype *sendtype, void *recvbuf, MPI_Count recvcount, uz_datatype *recvtype,
                           int root, uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call_v(&scatterv, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, uz_varray_count(sendcounts),
                  uz_varray_aint(displs), root, comm, UZ_COLL_PERSISTENT, request);
}
