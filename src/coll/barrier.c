/*
 * barrier.c — MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init.
 *
 *  dissemination  (Hensgen, Finkel & Manber) in round k every rank signals
 *                 rank + 2^k and waits for rank - 2^k; after ceil(log2 p)
 *                 rounds every rank has heard, directly or not, from all.
 *  tree           fan-in to rank 0 over a binomial tree, then fan-out:
 *                 2 log2 p rounds but only p-1 messages each way, which
 *                 matters when ranks share cores.
 *
 * Intercommunicators: a barrier in each group, the two rank 0s exchange a
 * message, and each releases its group.
 */
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_tune.h"

static void barrier_dissemination(struct uz_sched *s)
{
    int p = s->comm->size, r = s->comm->rank;
    for (int k = 1; k < p; k <<= 1) {
        uz_sched_recv(s, NULL, 0, uz_byte_type(), (r - k + p) % p);
        uz_sched_send(s, NULL, 0, uz_byte_type(), (r + k) % p);
        uz_sched_fence(s);
    }
}

static void fan_in(struct uz_sched *s)
{
    int p = s->comm->size, r = s->comm->rank;
    int mask;
    for (mask = 1; mask < p && !(r & mask); mask <<= 1)
        if (r + mask < p)
            uz_sched_recv(s, NULL, 0, uz_byte_type(), r + mask);
    uz_sched_fence(s);
    if (r != 0)
        uz_sched_send(s, NULL, 0, uz_byte_type(), r - mask);
}

static void fan_out(struct uz_sched *s)
{
    int p = s->comm->size, r = s->comm->rank;
    int mask = 1;
    while (mask < p && !(r & mask))
        mask <<= 1;
    if (r != 0) {
        uz_sched_recv(s, NULL, 0, uz_byte_type(), r - mask);
        uz_sched_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < p)
            uz_sched_send(s, NULL, 0, uz_byte_type(), r + mask);
}

int uz_build_barrier(struct uz_sched *s)
{
    if (s->comm->size == 1)
        return MPI_SUCCESS;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_BARRIER, s->comm, 0);
    int alg = uz_coll_chose(UZ_COLL_OP_BARRIER, uz_coll_mp_choice(&sit));
    if (alg == BARRIER_TREE) {
        fan_in(s);
        uz_sched_fence(s);
        fan_out(s);
    } else {
        barrier_dissemination(s);
    }
    return s->build_err;
}

static int build_barrier_inter(struct uz_sched *s)
{
    s->local_phase = 1;
    fan_in(s);
    s->local_phase = 0;
    uz_sched_fence(s);
    if (s->comm->rank == 0) {
        uz_sched_recv(s, NULL, 0, uz_byte_type(), 0);
        uz_sched_send(s, NULL, 0, uz_byte_type(), 0);
        uz_sched_fence(s);
    }
    s->local_phase = 1;
    fan_out(s);
    s->local_phase = 0;
    return s->build_err;
}

/* ------------------------------------------------------------ entry points */

static int shm_barrier(const struct uz_coll_args *a, uz_comm *comm, int want)
{
    return uz_shm_barrier(comm, want);
}

static int build(struct uz_sched *s, const struct uz_coll_args *a)
{
    return s->comm->is_inter ? build_barrier_inter(s) : uz_build_barrier(s);
}

static const struct uz_coll_kind barrier = {
    .name = "MPI_Barrier",
    .shm = shm_barrier, .tunable = &uz_config.coll_barrier, .shm_choice = BARRIER_SHM, .build = build,
    .op = UZ_COLL_OP_BARRIER,
};

static int call(uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    struct uz_coll_args a = { 0 };
    return uz_coll_call(&barrier, &a, comm, mode, request);
}

int uz_coll_barrier(uz_comm *comm)
{
    return call(comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Barrier(uz_comm *comm)
{
    return call(comm, UZ_COLL_BLOCKING, NULL);
}

int uz_mpi_Ibarrier(uz_comm *comm, MPI_Request *request)
{
    return call(comm, UZ_COLL_NONBLOCKING, request);
}

int uz_mpi_Barrier_init(uz_comm *comm, uz_info *info, MPI_Request *request)
{
    return call(comm, UZ_COLL_PERSISTENT, request);
}
