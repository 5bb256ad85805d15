/*
 * bcast.c — MPI_Bcast, MPI_Ibcast, MPI_Bcast_init.
 *
 *  binomial           the root's data reaches rank root+2^k in round k and
 *                     every rank that has it passes it on: ceil(log2 p)
 *                     rounds of the whole message.  Short messages.
 *  scatter_allgather  (van de Geijn) the message is cut into p pieces, a
 *                     binomial tree scatters them, a ring gathers them
 *                     everywhere: each rank moves about 2n bytes instead
 *                     of n log p.  Long messages.
 *  linear             the root sends to every rank.
 *
 * Non-contiguous data is packed once at the root (and unpacked at the end
 * elsewhere) for scatter_allgather, which works on byte ranges.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"
#include "coll/direct.h"

static void bcast_binomial(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root)
{
    int p = s->comm->size, r = s->comm->rank;
    int vr = (r - root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            uz_sched_recv(s, buf, count, dt, (r - mask + p) % p);
            uz_sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            uz_sched_send(s, buf, count, dt, (r + mask) % p);
}

static void bcast_linear(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root)
{
    int p = s->comm->size, r = s->comm->rank;
    if (r != root) {
        uz_sched_recv(s, buf, count, dt, root);
        return;
    }
    for (int i = 1; i < p; i++)
        uz_sched_send(s, buf, count, dt, (root + i) % p);
}

/* Bytes [first piece, last piece) of an n-byte message cut in pieces of `piece`. */
static void piece_range(size_t n, size_t piece, int first, int last, size_t *off, size_t *len)
{
    size_t a = (size_t)first * piece, b = (size_t)last * piece;
    if (a > n)
        a = n;
    if (b > n)
        b = n;
    *off = a;
    *len = b - a;
}

static void bcast_scatter_allgather(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root)
{
    int p = s->comm->size, r = s->comm->rank;
    int vr = (r - root + p) % p;
    uz_datatype *byte = uz_byte_type();
    size_t n = (size_t)(count * dt->size);
    unsigned char *bytes;
    int packed = !uz_dt_is_contig(dt, count);
    if (packed) {
        bytes = uz_sched_alloc(s, n);
        if (!bytes)
            return;
        if (r == root) {
            uz_sched_copy(s, buf, count, dt, bytes, (MPI_Count)n, byte);
            uz_sched_fence(s);
        }
    } else {
        bytes = (unsigned char *)buf + dt->true_lb;
    }
    size_t piece = (n + p - 1) / p, off, len;

    /* Scatter: rank vr gets pieces [vr, vr + its subtree's size). */
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            int last = vr + mask < p ? vr + mask : p;
            piece_range(n, piece, vr, last, &off, &len);
            uz_sched_recv(s, bytes + off, (MPI_Count)len, byte, (r - mask + p) % p);
            uz_sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= p)
            continue;
        int last = vr + 2 * mask < p ? vr + 2 * mask : p;
        piece_range(n, piece, vr + mask, last, &off, &len);
        uz_sched_send(s, bytes + off, (MPI_Count)len, byte, (r + mask) % p);
    }
    uz_sched_fence(s);

    /* Ring allgather of the pieces, in relative rank order. */
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sp = (vr - k + p) % p, rp = (vr - k - 1 + p) % p;
        size_t soff, slen;
        piece_range(n, piece, rp, rp + 1, &off, &len);
        piece_range(n, piece, sp, sp + 1, &soff, &slen);
        uz_sched_recv(s, bytes + off, (MPI_Count)len, byte, left);
        uz_sched_send(s, bytes + soff, (MPI_Count)slen, byte, right);
        uz_sched_fence(s);
    }
    if (packed && r != root)
        uz_sched_copy(s, bytes, (MPI_Count)n, byte, buf, count, dt);
}

int uz_build_bcast(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root)
{
    if (s->comm->size == 1 || count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_BCAST, s->comm, (size_t)(count * dt->size));
    switch (uz_coll_chose(UZ_COLL_OP_BCAST, uz_coll_mp_choice(&sit))) {
    case BCAST_SCATTER_ALLGATHER:
        bcast_scatter_allgather(s, buf, count, dt, root);
        break;
    case BCAST_LINEAR:
        bcast_linear(s, buf, count, dt, root);
        break;
    default:
        bcast_binomial(s, buf, count, dt, root);
        break;
    }
    return s->build_err;
}

/* Intercommunicators: the root hands the data to rank 0 of the other
 * group, which broadcasts it there. */
static int build_bcast_inter(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT) {
        uz_sched_send(s, buf, count, dt, 0);
        return s->build_err;
    }
    if (s->comm->rank == 0) {
        uz_sched_recv(s, buf, count, dt, root);
        uz_sched_fence(s);
    }
    s->local_phase = 1;
    int err = uz_build_bcast(s, buf, count, dt, 0);
    s->local_phase = 0;
    return err;
}

/* ------------------------------------------------------------ direct */

/* A blocking call that the shared area declined, whose algorithm is
 * binomial or linear, on at most UZ_COLL_ARRAYS_ON_STACK ranks: the
 * builders' messages in their order, started at once (direct.h), the
 * receive from the parent waited for before the sends to the children as
 * the schedule's fence waits. */
static int direct_bcast(const struct uz_coll_args *a, uz_comm *comm)
{
    void *buf = a->recvbuf;
    MPI_Count count = a->rcount;
    uz_datatype *dt = a->rtype;
    int p = comm->size, r = comm->rank, root = a->root;
    if (p > UZ_COLL_ARRAYS_ON_STACK)
        return UZ_SHM_DECLINED;
    int alg = -1;
    if (p > 1 && count > 0 && dt->size > 0) {
        struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_BCAST, comm, (size_t)(count * dt->size));
        alg = uz_coll_mp_choice(&sit);
        if (alg == BCAST_SCATTER_ALLGATHER)
            return UZ_SHM_DECLINED;
        uz_coll_chose(UZ_COLL_OP_BCAST, alg);
    }
    uz_request *room[UZ_COLL_ARRAYS_ON_STACK];
    struct uz_coll_direct d;
    uz_coll_direct_begin(&d, comm, room);     /* a call with nothing to move still takes its number */
    if (alg == BCAST_LINEAR) {
        if (r != root)
            uz_coll_direct_recv(&d, buf, count, dt, root);
        else
            for (int i = 1; i < p; i++)
                uz_coll_direct_send(&d, buf, count, dt, (root + i) % p);
    } else if (alg >= 0) {
        int vr = (r - root + p) % p, mask = 1;
        while (mask < p) {
            if (vr & mask) {
                uz_coll_direct_recv(&d, buf, count, dt, (r - mask + p) % p);
                uz_coll_direct_end(&d);
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (vr + mask < p)
                uz_coll_direct_send(&d, buf, count, dt, (r + mask) % p);
    }
    return uz_coll_direct_end(&d);
}

/* ------------------------------------------------------------ entry points */

static int shm_bcast(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_bcast(a->recvbuf, a->rcount, a->rtype, a->root, comm, want);
}

static int build(struct uz_sched *s, const struct uz_coll_args *a)
{
    if (s->comm->is_inter)
        return build_bcast_inter(s, a->recvbuf, a->rcount, a->rtype, a->root);
    return uz_build_bcast(s, a->recvbuf, a->rcount, a->rtype, a->root);
}

static const struct uz_coll_kind bcast = {
    .name = "MPI_Bcast",
    .shm = shm_bcast, .tunable = &uz_config.coll_bcast, .shm_choice = BCAST_SHM, .build = build,
    .direct = direct_bcast, .op = UZ_COLL_OP_BCAST,
};

/* The buffer is the receive side of the arguments (every rank's result). */
static int call(void *buf, MPI_Count count, uz_datatype *dt, int root, uz_comm *comm, enum uz_coll_mode mode,
                MPI_Request *request)
{
    struct uz_coll_args a = { .recvbuf = buf, .rcount = count, .rtype = dt, .root = root };
    return uz_coll_call(&bcast, &a, comm, mode, request);
}

int uz_coll_bcast(void *buf, MPI_Count count, uz_datatype *dt, int root, uz_comm *comm)
{
    return call(buf, count, dt, root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Bcast_c(void *buffer, MPI_Count count, uz_datatype *datatype, int root, uz_comm *comm)
{
    return call(buffer, count, datatype, root, comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ibcast_c(void *buffer, MPI_Count count, uz_datatype *datatype, int root, uz_comm *comm,
                    MPI_Request *request)
{
    return call(buffer, count, datatype, root, comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Bcast_init_c(void *buffer, MPI_Count count, uz_datatype *datatype, int root, uz_comm *comm,
                        uz_info *info, MPI_Request *request)
{
    return call(buffer, count, datatype, root, comm, UZ_COLL_PERSISTENT, request);
}
