/*
 * rvec_ring.c — the ring algorithms on reduction vectors that several
 * operations share: a reduce-scatter that leaves block r, fully reduced,
 * at rank r, and an allgather of such blocks.  Each moves every byte once
 * per step over p-1 steps: bandwidth-optimal for any number of ranks, for
 * commutative operations (blocks are combined starting from different
 * ranks).
 */
#include "coll/algo.h"

MPI_Count *uz_rvec_split(struct uz_sched *s, MPI_Count n, int parts, MPI_Count **displs)
{
    MPI_Count *cnts = uz_sched_alloc(s, sizeof(MPI_Count) * 2 * (size_t)parts);
    if (!cnts)
        return NULL;
    MPI_Count *d = cnts + parts, off = 0;
    for (int i = 0; i < parts; i++) {
        cnts[i] = n / parts + (i < n % parts);
        d[i] = off;
        off += cnts[i];
    }
    *displs = d;
    return cnts;
}

void uz_rvec_reduce_scatter_ring(struct uz_sched *s, void *acc, const MPI_Count *cnts, const MPI_Count *displs)
{
    int p = s->comm->size, r = s->comm->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    MPI_Count max = 0;
    for (int i = 0; i < p; i++)
        if (cnts[i] > max)
            max = cnts[i];
    void *tmp = uz_rvec_scratch(s, max);
    /* Step k: pass on block r-k-1 (ours alone at k = 0, else as reduced in
     * the step before), take block r-k-2 and add ours to it.  The last
     * block taken is block r. */
    for (int k = 0; k < p - 1; k++) {
        int sb = (r - k - 1 + 2 * p) % p, rb = (r - k - 2 + 2 * p) % p;
        uz_sched_recv_units(s, tmp, 0, cnts[rb], left);
        uz_sched_send_units(s, acc, displs[sb], cnts[sb], right);
        uz_sched_fence(s);
        uz_sched_reduce(s, tmp, uz_unit(s, acc, displs[rb]), cnts[rb]);
        uz_sched_fence(s);
    }
}

void uz_rvec_allgather_ring(struct uz_sched *s, void *acc, const MPI_Count *cnts, const MPI_Count *displs)
{
    int p = s->comm->size, r = s->comm->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (r - k + p) % p, rb = (r - k - 1 + p) % p;
        uz_sched_recv_units(s, acc, displs[rb], cnts[rb], left);
        uz_sched_send_units(s, acc, displs[sb], cnts[sb], right);
        uz_sched_fence(s);
    }
}
