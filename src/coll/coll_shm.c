/*
 * coll_shm.c — collectives through a shared area (coll_shm.h).
 *
 * When every rank of a communicator is on this host, its first collective
 * that wants shared memory creates an area the ranks map (the host
 * transport's collective offload, pt2pt/host_offload.h), in two lanes:
 *
 *   header | small lane: 16 phases of p+1 slots of 4 KiB
 *          | large lane:  2 phases of p+1 slots of UZURA_COLL_SHM_SLOT
 *
 * each lane with its own control words and done[p] line per rank.  A phase
 * holds one slot per rank and a result slot.  Operations on a lane are
 * numbered k = 1, 2, ...; operation k uses phase k mod N, so a rank may run
 * up to N-1 operations ahead of the slowest: back-to-back broadcasts and
 * reductions, whose non-roots need not wait, pipeline through the small
 * lane the way eager messages do.  Before writing into phase k mod N a rank
 * makes sure every rank has finished operation k-N (done[r] >= k-N); after
 * an operation in which every rank arrives, that is known without looking.
 * Small messages use the small lane; larger ones go through the large lane
 * in slot-sized pieces, one operation each.
 *
 * An operation is: write your part into your slot, arrive (an atomic
 * counter), and then either you were last and do the combined work (a
 * reduction into the result slot) and release the others by publishing k,
 * or you wait for the release; then read what you need.  Rooted
 * operations skip what they do not need: a broadcast root just writes and
 * releases; non-roots of a reduction or gather leave after arriving.
 *
 * Waiting is coll_wait.c's: brief polling, yielding, then sleep on the
 * host transport's doorbell.  The releaser rings only the doorbells of ranks
 * that sleep, and looks only when the area's sleeper count says some do.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"
#include "base/runtime.h"
#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_shm_area.h"
#include "coll/coll_tune.h"
#include "coll/coll_wait.h"
#include "coll/direct.h"
#include "pt2pt/host_offload.h"
#include "pt2pt/path.h"
#include "pt2pt/pt2pt.h"

/* ------------------------------------------------------------------ set-up */

static size_t slot_size(void)
{
    size_t s = uz_config.coll_shm_slot;
    if (s < MIN_SLOT)
        s = MIN_SLOT;
    if (s > MAX_SLOT)
        s = MAX_SLOT;
    return (s + LINE - 1) / LINE * LINE;
}

/* Phases of the large lane: how many operations the first ranks can run
 * ahead of the slowest.  With more ranks than cores the slowest is often
 * descheduled, and with two phases back-to-back broadcasts and reductions
 * waited for it: np 4 on 2 cores, Bcast 32 KiB 17.9 us with two, 8.1 with
 * four, 1 MiB 217 against 109; Reduce 32 KiB 18.9 against 9.1.  Four
 * while the lane stays within 8 MiB (up to 31 ranks with 64 KiB slots),
 * else two. */
static int large_phases(int p, size_t slot)
{
    enum { LARGE_LANE_MAX = 8 << 20 };
    return (size_t)(p + 1) * slot * 4 <= LARGE_LANE_MAX ? 4 : 2;
}

static int all_local(uz_comm *comm, int *locals)
{
    for (int i = 0; i < comm->size; i++)
        if ((locals[i] = uz_pt2pt_host_index(uz_group_world_rank(comm->local_group, i))) < 0)
            return 0;
    return 1;
}

struct setup_msg {
    int ok;
    char tag[60];
};

/* Rank 0 creates the area and broadcasts its name; the others map it; all
 * agree (an allreduce) whether everyone could, then the name goes. */
static struct uz_coll_shm *setup(uz_comm *comm)
{
    static unsigned areas_made;
    int p = comm->size, me = comm->rank, err = MPI_SUCCESS;
    const struct uz_coll_offload *off = uz_pt2pt_host_offload();
    if (p < 2 || comm->is_inter || !off)
        return NULL;
    struct uz_coll_shm *sh = calloc(1, sizeof(*sh));
    int *locals = malloc(sizeof(int) * p);
    /* (A waiter's want names a rank in WANT_RANK_BITS bits.) */
    int usable = sh && locals && p < 1 << WANT_RANK_BITS && all_local(comm, locals);
    if (!usable) {
        free(sh);
        free(locals);
        return NULL;
    }
    sh->off = off;
    sh->p = p;
    sh->me = me;
    sh->locals = locals;
    size_t hdr = (sizeof(struct area_hdr) + LINE - 1) / LINE * LINE;
    struct lane *small = &sh->lanes[0], *large = &sh->lanes[1];
    small->nphase = SMALL_PHASES;
    small->slot = SMALL_SLOT;
    large->nphase = large_phases(p, slot_size());
    large->slot = slot_size();
    sh->bytes = hdr;
    for (int i = 0; i < 2; i++) {
        struct lane *L = &sh->lanes[i];
        sh->bytes += (size_t)L->nphase * sizeof(struct phase_ctl) + (size_t)p * sizeof(struct done_line) +
                     (size_t)L->nphase * (size_t)(p + 1) * L->slot;
    }

    struct setup_msg msg = { 0 };
    if (me == 0) {
        snprintf(msg.tag, sizeof(msg.tag), "%d-%u", uz_rt.world_rank, areas_made++);
        sh->base = off->area_map(msg.tag, sizeof(msg.tag), sh->bytes, 1, &err);
        msg.ok = sh->base != NULL;
    }
    struct uz_sched *s;
    uz_datatype *byte = uz_byte_type();
    int ok = 0, all = 0;
    if (!(err = uz_sched_blocking(comm, &s)) && !(err = uz_build_bcast(s, &msg, sizeof(msg), byte, 0)))
        err = uz_sched_run(s);
    if (!err && me != 0 && msg.ok)
        sh->base = off->area_map(msg.tag, sizeof(msg.tag), sh->bytes, 0, &err);
    ok = !err && sh->base != NULL;
    if (!(err = uz_sched_blocking(comm, &s)) &&
        !(err = uz_build_allreduce(s, &ok, &all, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MIN))))
        err = uz_sched_run(s);
    if (me == 0 && msg.ok)
        off->area_unlink(msg.tag);
    if (err || !all) {
        if (uz_config.verbose && me == 0)
            fprintf(stderr, "Uzura: shared-memory collectives unavailable on a communicator of %d ranks; "
                    "using message passing\n", p);
        uz_coll_shm_free(sh);
        return NULL;
    }
    sh->hdr = (struct area_hdr *)sh->base;
    unsigned char *at = sh->base + hdr;
    for (int i = 0; i < 2; i++) {
        struct lane *L = &sh->lanes[i];
        L->ctl = (struct phase_ctl *)at;
        at += (size_t)L->nphase * sizeof(struct phase_ctl);
        L->done = (struct done_line *)at;
        at += (size_t)p * sizeof(struct done_line);
        L->data = at;
        at += (size_t)L->nphase * (size_t)(p + 1) * L->slot;
    }
    return sh;
}

void uz_coll_shm_free(struct uz_coll_shm *sh)
{
    if (!sh)
        return;
    if (sh->base)
        sh->off->area_unmap(sh->base, sh->bytes);
    free(sh->locals);
    free(sh);
}

struct uz_coll_shm *uz_coll_shm_of(uz_comm *comm)
{
    struct uz_coll_state *cs = uz_coll_state_of(comm);
    if (!cs)
        return NULL;
    if (cs->shm_state == 0) {
        cs->shm = setup(comm);
        cs->shm_state = cs->shm ? 1 : -1;
    }
    return cs->shm;
}

void uz_shm_prepare(uz_comm *comm, int want)
{
    if (want >= 0 && (want > 0 || uz_config.coll_shm_max > 0) && !comm->is_inter)
        shm_of(comm);
}

/* An earlier call found that comm cannot have an area (the state stays):
 * the algorithms that need one decline at once, without first asking the
 * policy and looking at their arguments. */
static inline int area_absent(const uz_comm *comm)
{
    return comm->coll && comm->coll->shm_state < 0;
}

/* More ranks on this host than it has processors.  Every rank must reach
 * the same decision, so this uses the host's processor count, not the
 * rank's own affinity. */
int uz_coll_host_oversubscribed(void)
{
    static int answer = -1;
    if (answer < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        answer = n > 0 && uz_rt.local_size > n;
    }
    return answer;
}

/* Which collectives go through a shared area on this host, and why: one
 * sentence for UZURA_VERBOSE, from the same rules as uz_coll_shm_wanted()
 * (coll_policy.c) and setup(). */
void uz_coll_shm_describe(char *buf, size_t len)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!uz_pt2pt_host_offload() || uz_pt2pt_host_peers() == 0)
        snprintf(buf, len, "message passing only, because no other rank shares memory with this one");
    else if (uz_config.coll_shm_max == 0)
        snprintf(buf, len, "message passing only, because UZURA_COLL_SHM_MAX=0");
    else if (uz_coll_host_oversubscribed())
        snprintf(buf, len, "a shared-memory area for communicators within this host: barrier, allreduce, "
                 "allgather, alltoall(v), reduce_scatter at any size, bcast, reduce, gather(v), scatter(v) above %zu "
                 "bytes (UZURA_COLL_SHM_ROOTED_MIN), gather(v) and scatter(v) blocks beyond %zu bytes "
                 "(UZURA_COLL_SHM_MAX) copied once between the root's buffer and each rank's instead, and "
                 "allgather, alltoall and reduce_scatter blocks from %zu bytes (UZURA_COLL_PULL_MIN) read once "
                 "from the others' buffers, because this host has more ranks (%d) than processors (%ld)",
                 uz_config.coll_shm_rooted_min, uz_config.coll_shm_max, uz_config.coll_pull_min, uz_rt.local_size,
                 cpus);
    else
        snprintf(buf, len, "a shared-memory area for communicators within this host: barrier, allreduce, "
                 "allgather, alltoall up to %zu bytes (UZURA_COLL_SHM_MAX), reduce_scatter at any size; "
                 "allgather, alltoall, reduce_scatter, scatter and scatterv blocks and allreduce vectors from "
                 "%zu bytes a rank (UZURA_COLL_PULL_MIN) read once by each rank from the others' buffers (the "
                 "root's for scatter; with two ranks, scatter(v) blocks from 256 KiB by message passing); bcast, "
                 "reduce, gather(v) and smaller scatter(v) blocks by message passing, because every rank has a "
                 "processor (%d ranks, %ld processors)", uz_config.coll_shm_max,
                 uz_config.coll_pull_min, uz_rt.local_size, cpus);
}

/* ----------------------------------------------------------------- barrier */

/* Every rank has arrived here: a barrier, and for pulls the sign that
 * nobody reads this rank's memory any more. */
static void meet(struct uz_coll_shm *sh)
{
    struct lane *L = &sh->lanes[0];
    uint64_t k = op_begin(sh, L);
    all_meet(sh, L, k);
    op_end(sh, L, k);
}

int uz_shm_barrier(uz_comm *comm, int want)
{
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_BARRIER, comm, 0);
    if (!uz_coll_shm_wanted(&sit, want))
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    meet(sh);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------- bcast */

int uz_shm_bcast(void *buf, MPI_Count count, uz_datatype *dt, int root, uz_comm *comm, int want)
{
    if (area_absent(comm))
        return UZ_SHM_DECLINED;
    size_t n = (size_t)(count * dt->size);
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_BCAST, comm, n);
    if (!uz_coll_shm_wanted(&sit, want) || n == 0)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    struct lane *L = n <= (size_t)(sh->p + 1) * sh->lanes[0].slot ? &sh->lanes[0] : &sh->lanes[1];
    /* A piece may use the whole phase area. */
    size_t piece = (size_t)(sh->p + 1) * L->slot;
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        uint64_t k = op_begin(sh, L);
        unsigned char *area = slot_of(sh, L, k, 0);
        if (comm->rank == root) {
            pack_range(buf, count, dt, off, len, area);
            release(sh, L, k);
        } else {
            wait_release(sh, L, k);
            unpack_range(buf, count, dt, off, len, area);
        }
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ reduce, allreduce */

/* dst[0, hi - lo) = slot 0 op ... op slot p-1 over [lo, hi), in rank order. */
static void combine_into(struct uz_coll_shm *sh, struct lane *L, const struct uz_reducer *r, uint64_t k, size_t lo,
                         size_t hi, unsigned char *dst)
{
    if (hi <= lo)
        return;
    size_t n = (hi - lo) / (size_t)r->stride;
    memcpy(dst, slot_of(sh, L, k, sh->p - 1) + lo, hi - lo);
    for (int i = sh->p - 2; i >= 0; i--)
        r->kern(slot_of(sh, L, k, i) + lo, dst, n);
}

/* result[lo, hi) = the same, in place in the result slot. */
static void combine(struct uz_coll_shm *sh, struct lane *L, const struct uz_reducer *r, uint64_t k, size_t lo,
                    size_t hi, unsigned char *result)
{
    combine_into(sh, L, r, k, lo, hi, result + lo);
}

/* The second rendezvous of a phase: everyone has reduced its share.  A
 * rank that does not read the result (a Reduce's non-root) only says so
 * and goes on. */
static void rendezvous2(struct uz_coll_shm *sh, struct lane *L, uint64_t k, int reads_result)
{
    struct phase_ctl *c = ctl_of(L, k);
    unsigned before = atomic_fetch_add_explicit(&c->arrived2, 1, memory_order_acq_rel);
    if (before + 1 == (unsigned)sh->p) {
        atomic_store_explicit(&c->arrived2, 0, memory_order_relaxed);
        publish_word(&c->gen2, k);
        wake_sleepers(sh);
    } else if (reads_result) {
        wait_for(sh, &c->gen2, k);
    }
}

/* Pieces from this size are reduced by all ranks together (each its
 * share); below it the last to arrive reduces the piece alone, which needs
 * one rendezvous instead of two.  With ranks sharing cores, Allreduce still
 * shares (everyone waits for the result anyway, and both cores reduce: np 4
 * 1 MiB 440 against 620 us, np 8 2x faster), but a Reduce keeps the single
 * reducer: its other ranks leave at once and pack the next piece meanwhile,
 * which measured 1.6-2x faster than waiting for a second rendezvous. */
enum { PARALLEL_MIN = 16384 };

static int reduce_common(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, int root,
                         uz_comm *comm, int want)
{
    if (area_absent(comm))
        return UZ_SHM_DECLINED;
    size_t n = (size_t)(count * dt->size);
    struct uz_coll_situation sit = uz_coll_situation(root < 0 ? UZ_COLL_OP_ALLREDUCE : UZ_COLL_OP_REDUCE, comm, n);
    if (!uz_coll_shm_wanted(&sit, want) || n == 0)
        return UZ_SHM_DECLINED;
    struct uz_reducer r;
    if (uz_reducer_init(&r, op, dt, 0) != MPI_SUCCESS || !r.packed)
        return UZ_SHM_DECLINED;         /* errors are reported by the caller's path */
    if (sendbuf == recvbuf && sendbuf != NULL)
        return UZ_SHM_DECLINED;
    int me = comm->rank;
    if (sendbuf == MPI_IN_PLACE && root >= 0 && me != root)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    struct lane *L = lane_for(sh, n);
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int gets = root < 0 || me == root;
    size_t esz = (size_t)r.stride;
    size_t piece = L->slot / esz * esz;
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        uint64_t k = op_begin(sh, L);
        unsigned char *result = slot_of(sh, L, k, sh->p);
        pack_range(in, count, dt, off, len, slot_of(sh, L, k, me));
        if (len >= PARALLEL_MIN && (root < 0 || !uz_coll_host_oversubscribed())) {
            /* All arrive; each reduces its share of elements; all meet. */
            all_meet(sh, L, k);
            size_t elems = len / esz, per = elems / sh->p, extra = elems % sh->p, mine = (size_t)me;
            size_t lo = (mine * per + (mine < extra ? mine : extra)) * esz;
            size_t hi = lo + (per + (mine < extra)) * esz;
            combine(sh, L, &r, k, lo, hi, result);
            rendezvous2(sh, L, k, gets);
        } else if (arrive(sh, L, k)) {
            combine(sh, L, &r, k, 0, len, result);
            release(sh, L, k);
            all_arrived(L, k);
        } else if (gets) {
            wait_release(sh, L, k);
            all_arrived(L, k);
        } else {
            op_end(sh, L, k);
            continue;
        }
        if (gets)
            unpack_range(recvbuf, count, dt, off, len, result);
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

int uz_shm_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, int root,
                  uz_comm *comm, int want)
{
    return reduce_common(sendbuf, recvbuf, count, dt, op, root, comm, want);
}

/* Reduce_scatter's blocks read straight from the senders (below, with the
 * other one-copy pulls); `total` is the sum of counts. */
static int reduce_scatter_pull(struct uz_coll_shm *sh, const void *sendbuf, void *recvbuf, const MPI_Count *counts,
                               MPI_Count total, uz_datatype *dt, const struct uz_reducer *r, uz_comm *comm);

/* Reduce_scatter: each round every rank packs, into its slot, the next
 * piece of every rank's block (block i's piece at i * sub), all meet, and
 * each rank combines only its own block's piece, straight into recvbuf
 * when that is contiguous.  So the reduction is shared by all ranks, and
 * with ranks sharing cores both cores reduce; a single combiner per piece
 * (as Allreduce does when oversubscribed) left the other core idle and
 * cost 2-3x MPICH's pairwise exchange at np 4 from 256 KiB blocks.
 *
 * In place, round j writes recvbuf[j * sub, ...), whose input bytes sit at
 * offset o - before_i of some block i with o - before_i <= o, so they were
 * packed in round j or earlier: safe.  Blocks from COLL_PULL_MIN skip
 * the area (reduce_scatter_pull) unless some rank declines. */
int uz_shm_reduce_scatter(const void *sendbuf, void *recvbuf, const MPI_Count *counts, uz_datatype *dt, uz_op *op,
                          uz_comm *comm, int want)
{
    int me = comm->rank, p = comm->size;
    MPI_Count total = 0, most = 0;
    for (int i = 0; i < p; i++) {
        total += counts[i];
        most = counts[i] > most ? counts[i] : most;
    }
    size_t n = (size_t)(total * dt->size);
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_REDUCE_SCATTER, comm, n);
    if (!uz_coll_shm_wanted(&sit, want) || n == 0)
        return UZ_SHM_DECLINED;
    struct uz_reducer r;
    if (uz_reducer_init(&r, op, dt, 0) != MPI_SUCCESS || !r.packed || sendbuf == recvbuf)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    if (uz_coll_shm_pull(&sit, want)) {
        int err = reduce_scatter_pull(sh, sendbuf, recvbuf, counts, total, dt, &r, comm);
        if (err != UZ_SHM_DECLINED)
            return err;
    }
    size_t esz = (size_t)r.stride, largest = (size_t)(most * dt->size);
    struct lane *L = lane_for(sh, n);
    size_t sub = L->slot / (size_t)p / esz * esz;
    if (sub == 0)
        return UZ_SHM_DECLINED;         /* elements too large for a slot's share */
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    size_t mine = (size_t)(counts[me] * dt->size);
    int direct = uz_dt_is_contig(dt, counts[me]);
    unsigned char *out = (unsigned char *)recvbuf + dt->true_lb;
    for (size_t at = 0; at < largest; at += sub) {
        uint64_t k = op_begin(sh, L);
        unsigned char *slot = slot_of(sh, L, k, me);
        size_t before = 0;
        for (int i = 0; i < p; i++) {
            size_t bytes = (size_t)(counts[i] * dt->size);
            if (at < bytes)
                pack_range(in, total, dt, before + at, bytes - at < sub ? bytes - at : sub, slot + (size_t)i * sub);
            before += bytes;
        }
        all_meet(sh, L, k);
        if (at < mine) {
            size_t len = mine - at < sub ? mine - at : sub, lo = (size_t)me * sub;
            if (direct) {
                combine_into(sh, L, &r, k, lo, lo + len, out + at);
            } else {
                unsigned char *result = slot_of(sh, L, k, sh->p);
                combine_into(sh, L, &r, k, lo, lo + len, result + lo);
                unpack_range(recvbuf, counts[me], dt, at, len, result + lo);
            }
        }
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

static int allreduce_pull(struct uz_coll_shm *sh, const void *sendbuf, void *recvbuf, MPI_Count count,
                          uz_datatype *dt, const struct uz_reducer *r, uz_comm *comm);

/* From COLL_PULL_MIN slices (the vector over the ranks) the vectors are
 * read straight from the other ranks' buffers (allreduce_pull) unless some
 * rank declines; below that, or then, the area. */
int uz_shm_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op,
                     uz_comm *comm, int want)
{
    if (area_absent(comm))
        return UZ_SHM_DECLINED;
    size_t n = (size_t)(count * dt->size);
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLREDUCE, comm, n);
    if (n > 0 && uz_coll_shm_pull(&sit, want)) {
        struct uz_reducer r;
        struct uz_coll_shm *sh;
        if (uz_reducer_init(&r, op, dt, 0) == MPI_SUCCESS && r.packed && sendbuf != recvbuf && (sh = shm_of(comm))) {
            int err = allreduce_pull(sh, sendbuf, recvbuf, count, dt, &r, comm);
            if (err != UZ_SHM_DECLINED)
                return err;
        }
    }
    return reduce_common(sendbuf, recvbuf, count, dt, op, -1, comm, want);
}

/* --------------------------------------------------- gather and friends */

/* These move blocks; a block larger than a piece goes through in byte
 * ranges, one operation per range. */

/* The result of an Allgather (fixed blocks of rcount) or an Allgatherv
 * (counts/displs, in rtype's extents), block by block. */
struct gathered {
    void *recvbuf;
    MPI_Count rcount;
    const struct uz_varray *counts, *displs;   /* NULL: Allgather */
    uz_datatype *rtype;
};

static MPI_Count gathered_count(const struct gathered *g, int i)
{
    return g->counts ? uz_varray_at(*g->counts, i) : g->rcount;
}

static void *gathered_block(const struct gathered *g, int i)
{
    return g->counts ? (char *)g->recvbuf + uz_varray_at(*g->displs, i) * g->rtype->extent
                     : uz_block(g->recvbuf, i, g->rcount, g->rtype);
}

static int allgather_pull(struct uz_coll_shm *sh, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                          const struct gathered *g, uz_comm *comm);

int uz_shm_allgather(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                     MPI_Count rcount, uz_datatype *rtype, uz_comm *comm, int want)
{
    size_t b = (size_t)(rcount * rtype->size);
    /* Large blocks are pulled whenever the area may be used at all. */
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLGATHER, comm, b);
    int pull = uz_coll_shm_pull(&sit, want), copy = uz_coll_shm_wanted(&sit, want);
    if ((!pull && !copy) || b == 0)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    if (pull) {
        struct gathered g = { .recvbuf = recvbuf, .rcount = rcount, .rtype = rtype };
        int err = allgather_pull(sh, sendbuf, scount, stype, &g, comm);
        if (err != UZ_SHM_DECLINED || !copy)
            return err;
    }
    struct lane *L = lane_for(sh, b);
    int me = comm->rank, p = comm->size, in_place = sendbuf == MPI_IN_PLACE;
    for (size_t off = 0; off < b; off += L->slot) {
        size_t len = b - off < L->slot ? b - off : L->slot;
        uint64_t k = op_begin(sh, L);
        if (in_place)
            pack_range(uz_block(recvbuf, me, rcount, rtype), rcount, rtype, off, len, slot_of(sh, L, k, me));
        else
            pack_range(sendbuf, scount, stype, off, len, slot_of(sh, L, k, me));
        all_meet(sh, L, k);
        for (int i = 0; i < p; i++)
            if (i != me || !in_place)
                unpack_range(uz_block(recvbuf, i, rcount, rtype), rcount, rtype, off, len, slot_of(sh, L, k, i));
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

/* Allgatherv: as Allgather, each round moving the next slot's worth of
 * every rank's block, however long each is.  With ranks sharing cores the
 * ring it replaces waited p - 1 times for one particular neighbour, each
 * wait a trip through the scheduler (np 4: 51 us at 8 bytes, and
 * milliseconds from 32 KiB when a neighbour slept). */
int uz_shm_allgatherv(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                      const struct uz_varray *rcounts, const struct uz_varray *rdispls, uz_datatype *rtype,
                      uz_comm *comm, int want)
{
    int me = comm->rank, p = comm->size, in_place = sendbuf == MPI_IN_PLACE;
    size_t most = 0, total = 0;
    for (int i = 0; i < p; i++) {
        MPI_Count c = uz_varray_at(*rcounts, i);
        if (c < 0)
            return UZ_SHM_DECLINED;     /* the message-passing path reports it */
        size_t b = (size_t)(c * rtype->size);
        most = b > most ? b : most;
        total += b;
    }
    /* Every rank has the same counts, so every rank decides alike. */
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLGATHER, comm, total / (size_t)p);
    sit.fixed = 0;
    int pull = uz_coll_shm_pull(&sit, want), copy = uz_coll_shm_wanted(&sit, want);
    if ((!pull && !copy) || most == 0)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    if (pull) {
        struct gathered g = { .recvbuf = recvbuf, .counts = rcounts, .displs = rdispls, .rtype = rtype };
        int err = allgather_pull(sh, sendbuf, scount, stype, &g, comm);
        if (err != UZ_SHM_DECLINED || !copy)
            return err;
    }
    struct lane *L = lane_for(sh, most);
    MPI_Count mine = uz_varray_at(*rcounts, me);
    size_t my_bytes = (size_t)(mine * rtype->size);
    const void *my_block = in_place ? (char *)recvbuf + uz_varray_at(*rdispls, me) * rtype->extent : sendbuf;
    MPI_Count my_count = in_place ? mine : scount;
    uz_datatype *my_type = in_place ? rtype : stype;
    for (size_t off = 0; off < most; off += L->slot) {
        uint64_t k = op_begin(sh, L);
        if (off < my_bytes)
            pack_range(my_block, my_count, my_type, off, my_bytes - off < L->slot ? my_bytes - off : L->slot,
                       slot_of(sh, L, k, me));
        all_meet(sh, L, k);
        for (int i = 0; i < p; i++) {
            MPI_Count c = uz_varray_at(*rcounts, i);
            size_t b = (size_t)(c * rtype->size);
            if (off >= b || (i == me && in_place))
                continue;
            unpack_range((char *)recvbuf + uz_varray_at(*rdispls, i) * rtype->extent, c, rtype, off,
                         b - off < L->slot ? b - off : L->slot, slot_of(sh, L, k, i));
        }
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- one-copy pulls */

unsigned long uz_coll_bytes_pulled;         /* coll_shm.h */

/* What a rank shows the others before they pull from it: where its p
 * packed blocks start, and whether it can read every other rank. */
struct pull_card {
    uint64_t addr;
    uint64_t out;                   /* Allreduce: where the result goes */
    int32_t can_read;
    int32_t pad;
};

/* Every rank's card into all[] (when not NULL), a small-lane operation in
 * which all arrive; returns whether every rank can read every other. */
/* A small-lane operation in which every rank posts `len` bytes and all
 * arrive: returns its number; read the others' slots, then op_end(). */
static uint64_t post_all(struct uz_coll_shm *sh, const void *mine, size_t len)
{
    struct lane *L = &sh->lanes[0];
    uint64_t k = op_begin(sh, L);
    memcpy(slot_of(sh, L, k, sh->me), mine, len);
    all_meet(sh, L, k);
    return k;
}

static int swap_cards(struct uz_coll_shm *sh, const struct pull_card *mine, struct pull_card *all)
{
    struct lane *L = &sh->lanes[0];
    uint64_t k = post_all(sh, mine, sizeof(*mine));
    int every = 1;
    for (int r = 0; r < sh->p; r++) {
        struct pull_card c;
        memcpy(&c, slot_of(sh, L, k, r), sizeof(c));
        every &= c.can_read != 0;
        if (all)
            all[r] = c;
    }
    op_end(sh, L, k);
    return every;
}

static UZ_COLD int find_can_read_all(uz_comm *comm)
{
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank && !uz_path_can_get(uz_group_world_rank(comm->local_group, r)))
            return -1;
    return 1;
}

/* Asked by every Gatherv/Scatterv: found once per communicator rather than
 * by a walk over the ranks on every call. */
static int can_read_all(uz_comm *comm)
{
    struct uz_coll_state *cs = uz_coll_state_of(comm);
    if (!cs)
        return find_can_read_all(comm) > 0;
    if (UZ_UNLIKELY(!cs->readable))
        cs->readable = find_can_read_all(comm);
    return cs->readable > 0;
}

/* Read n bytes at `addr` in the memory of comm's rank r (this rank
 * included: then a plain copy) into dst; `fn` names the call in errors. */
static int read_block(uz_comm *comm, const char *fn, int r, uint64_t addr, void *dst, size_t n)
{
    if (r == comm->rank) {
        memmove(dst, (const void *)(uintptr_t)addr, n);
        return MPI_SUCCESS;
    }
    struct iovec local = { dst, n };
    struct iovec remote = { (void *)(uintptr_t)addr, n };
    int e = uz_path_get(uz_group_world_rank(comm->local_group, r), &local, 1, &remote, 1, NULL);
    if (e >= 0)
        uz_coll_bytes_pulled += n;
    return e < 0 ? uz_err_make(MPI_ERR_OTHER, "%s: reading rank %d's block failed (%d)", fn, r, e) : e;
}

/* Alltoall with blocks of b bytes, each receiver reading its block straight
 * from the sender's memory with cross-memory attach: one copy per byte
 * (the area copies twice), and no rank waits for a particular other, only
 * twice for all of them (to learn the addresses, and before leaving, since
 * the others may still be reading its buffer).  A descheduled rank's
 * memory is read all the same, which is what makes it suit more ranks than
 * cores.  Returns UZ_SHM_DECLINED, consistently on every rank, when some
 * rank cannot read another (then the area's algorithm runs). */
static int alltoall_pull(struct uz_coll_shm *sh, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                         void *recvbuf, MPI_Count rcount, uz_datatype *rtype, uz_comm *comm, size_t b)
{
    int me = comm->rank, p = comm->size, in_place = sendbuf == MPI_IN_PLACE;
    const void *src = in_place ? recvbuf : sendbuf;
    MPI_Count sc = in_place ? rcount : scount;
    uz_datatype *st = in_place ? rtype : stype;
    /* Show the others p contiguous blocks: the buffer itself when it is
     * one, else a packed copy (and always in place, since this rank
     * overwrites its buffer while the others read it). */
    unsigned char *packed = NULL;
    const unsigned char *shown = (const unsigned char *)src + st->true_lb;
    int contig = !in_place && uz_dt_is_contig(st, sc * p);
    struct pull_card mine = { .can_read = can_read_all(comm) }, *cards = malloc(sizeof(*cards) * (size_t)p);
    if (!contig && mine.can_read) {
        packed = malloc(b * (size_t)p);
        if (packed) {
            for (int j = 0; j < p; j++)
                pack_range(uz_block(src, j, sc, st), sc, st, 0, b, packed + (size_t)j * b);
            shown = packed;
        }
    }
    if (!cards || (!contig && !packed))
        mine.can_read = 0;
    mine.addr = (uint64_t)(uintptr_t)shown;
    /* A rank short of memory showed can_read = 0: all decline together. */
    if (!swap_cards(sh, &mine, cards)) {
        meet(sh);
        free(cards);
        free(packed);
        return UZ_SHM_DECLINED;
    }
    int err = MPI_SUCCESS;
    int rcontig = uz_dt_is_contig(rtype, rcount);
    unsigned char *stage = rcontig ? NULL : malloc(b);
    for (int i = 0; i < p; i++) {
        int r = (me + i) % p;       /* everyone starts at a different sender */
        void *dst = rcontig ? (void *)((char *)uz_block(recvbuf, r, rcount, rtype) + rtype->true_lb) : (void *)stage;
        if (!dst) {
            err = uz_err_make(MPI_ERR_NO_MEM, "MPI_Alltoall: out of memory staging a block of %zu bytes", b);
            break;
        }
        uint64_t from = (r == me ? (uint64_t)(uintptr_t)shown : cards[r].addr) + (uint64_t)me * b;
        if ((err = read_block(comm, "MPI_Alltoall", r, from, dst, b)))
            break;
        if (!rcontig)
            unpack_range(uz_block(recvbuf, r, rcount, rtype), rcount, rtype, 0, b, stage);
    }
    meet(sh);
    free(stage);
    free(cards);
    free(packed);
    return err;
}

/* Allgather(v), each rank reading every other rank's block straight from
 * that rank's buffer: one copy per byte, against the area's two (np 2:
 * Allgather 7.6 us at 32 KiB where Open MPI's one copy took 3.6; Allgatherv
 * 1.6-1.9x Open MPI from 32 KiB by the area and the ring).  The same two
 * meetings as alltoall_pull, and the same consistent decline when some
 * rank cannot read another. */
static int allgather_pull(struct uz_coll_shm *sh, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                          const struct gathered *g, uz_comm *comm)
{
    int me = comm->rank, p = comm->size, in_place = sendbuf == MPI_IN_PLACE;
    const char *fn = g->counts ? "MPI_Allgatherv" : "MPI_Allgather";
    uz_datatype *rtype = g->rtype;
    /* Our block as the others see it: the send buffer when contiguous; in
     * place, our block of recvbuf (we never write it); else a packed copy. */
    MPI_Count sc = in_place ? gathered_count(g, me) : scount;
    uz_datatype *st = in_place ? rtype : stype;
    const void *src = in_place ? gathered_block(g, me) : sendbuf;
    size_t my_bytes = (size_t)(sc * st->size), most = 0;
    for (int r = 0; r < p; r++) {
        size_t b = (size_t)(gathered_count(g, r) * rtype->size);
        most = b > most ? b : most;
    }
    unsigned char *packed = NULL;
    const unsigned char *shown = (const unsigned char *)src + st->true_lb;
    struct pull_card mine = { .can_read = can_read_all(comm) }, *cards = malloc(sizeof(*cards) * (size_t)p);
    if (my_bytes > 0 && !uz_dt_is_contig(st, sc) && mine.can_read) {
        packed = malloc(my_bytes);
        if (packed)
            pack_range(src, sc, st, 0, my_bytes, packed);
        shown = packed;
    }
    if (!cards || !shown)
        mine.can_read = 0;
    mine.addr = (uint64_t)(uintptr_t)shown;
    if (!swap_cards(sh, &mine, cards)) {
        meet(sh);
        free(cards);
        free(packed);
        return UZ_SHM_DECLINED;
    }
    int err = MPI_SUCCESS;
    unsigned char *stage = NULL;
    for (int i = 0; i < p && !err; i++) {
        int r = (me + i) % p;       /* everyone starts at a different owner */
        MPI_Count c = gathered_count(g, r);
        size_t b = (size_t)(c * rtype->size);
        if ((r == me && in_place) || b == 0)
            continue;
        int rcontig = uz_dt_is_contig(rtype, c);
        if (!rcontig && !stage && !(stage = malloc(most))) {
            err = uz_err_make(MPI_ERR_NO_MEM, "%s: out of memory staging a block of %zu bytes", fn, b);
            break;
        }
        void *dst = rcontig ? (void *)((char *)gathered_block(g, r) + rtype->true_lb) : (void *)stage;
        uint64_t from = r == me ? (uint64_t)(uintptr_t)shown : cards[r].addr;
        if ((err = read_block(comm, fn, r, from, dst, b)))
            break;
        if (!rcontig)
            unpack_range(gathered_block(g, r), c, rtype, 0, b, stage);
    }
    meet(sh);
    free(stage);
    free(cards);
    free(packed);
    return err;
}

/* Pieces a combining pull (Reduce_scatter, Allreduce) reads and combines
 * at a time: the piece being built and the one combined into it stay in
 * the core's cache between the read and the reduction. */
enum { RS_PULL_PIECE = 262144 };

/* out[0, len) = a_0 op (a_1 op (... a_{p-1})) over bytes [at, at + len) of
 * every rank's input (cards[i].addr), read a piece at a time so that the
 * piece being built and the one combined into it stay in the cache; `own`
 * is this rank's input at `at`; `tmp` holds a piece (needed unless p is 2
 * and the operation commutative).  With two ranks and a commutative
 * operation a0 op a1 = a1 op a0: the other's part is read into the result
 * and ours combined into it, with no staging copy. */
static int combine_pulled(uz_comm *comm, const char *fn, const struct pull_card *cards, size_t at, size_t len,
                          const unsigned char *own, unsigned char *out, unsigned char *tmp, const struct uz_reducer *r)
{
    int me = comm->rank, p = comm->size, err = MPI_SUCCESS;
    size_t esz = (size_t)r->stride, piece = RS_PULL_PIECE / esz * esz;
    int pair = p == 2 && r->commutative;
    for (size_t off = 0; off < len && !err; off += piece) {
        size_t c = len - off < piece ? len - off : piece, n = c / esz;
        if (pair) {
            err = read_block(comm, fn, 1 - me, cards[1 - me].addr + at + off, out + off, c);
            if (!err)
                r->kern(own + off, out + off, n);
            continue;
        }
        if (p - 1 == me)
            memcpy(out + off, own + off, c);
        else
            err = read_block(comm, fn, p - 1, cards[p - 1].addr + at + off, out + off, c);
        for (int i = p - 2; i >= 0 && !err; i--) {
            if (i == me)
                r->kern(own + off, out + off, n);
            else if (!(err = read_block(comm, fn, i, cards[i].addr + at + off, tmp, c)))
                r->kern(tmp, out + off, n);
        }
    }
    return err;
}

/* Reduce_scatter with every rank reading the others' parts of its own
 * block straight from their send buffers and combining them, piece by
 * piece, into its receive buffer: each input byte is copied once (the
 * area copies every rank's whole vector in, then reads it again to
 * combine), and no rank waits for another between pieces, only to learn
 * the addresses and before leaving (the others may still be reading).
 * The combination keeps the area's rank order, a0 op (a1 op (... a_{p-1})),
 * so results agree bit for bit with the other algorithms.  Needs
 * contiguous buffers and not MPI_IN_PLACE (others would read the input
 * this rank overwrites); otherwise, or when some rank cannot read
 * another, every rank declines together. */
static int reduce_scatter_pull(struct uz_coll_shm *sh, const void *sendbuf, void *recvbuf, const MPI_Count *counts,
                               MPI_Count total, uz_datatype *dt, const struct uz_reducer *r, uz_comm *comm)
{
    int me = comm->rank, p = comm->size;
    size_t esz = (size_t)r->stride, mine = (size_t)(counts[me] * dt->size);
    size_t piece = RS_PULL_PIECE / esz * esz;
    unsigned char *tmp = NULL;
    struct pull_card card = { .can_read = can_read_all(comm) }, *cards = malloc(sizeof(*cards) * (size_t)p);
    if (sendbuf == MPI_IN_PLACE || piece == 0 || !uz_dt_is_contig(dt, total) || !uz_dt_is_contig(dt, counts[me]))
        card.can_read = 0;
    if (card.can_read && (p > 2 || !r->commutative) && mine > 0 && !(tmp = malloc(piece)))
        card.can_read = 0;
    if (!cards)
        card.can_read = 0;
    if (card.can_read)
        card.addr = (uint64_t)(uintptr_t)((const unsigned char *)sendbuf + dt->true_lb);
    if (!swap_cards(sh, &card, cards)) {
        meet(sh);
        free(cards);
        free(tmp);
        return UZ_SHM_DECLINED;
    }
    /* Where this rank's block starts in every send buffer. */
    size_t at = 0;
    for (int i = 0; i < me; i++)
        at += (size_t)(counts[i] * dt->size);
    unsigned char *out = (unsigned char *)recvbuf + dt->true_lb;
    const unsigned char *own = (const unsigned char *)(uintptr_t)card.addr + at;
    int err = combine_pulled(comm, "MPI_Reduce_scatter", cards, at, mine, own, out, tmp, r);
    meet(sh);
    free(cards);
    free(tmp);
    return err;
}

/* Allreduce of vectors below this many bytes between two ranks: each reads
 * the other's whole vector and combines it with its own (one meeting); from
 * it, each combines half and reads the other's half of the result (the
 * reduction is not done twice, at the cost of a second meeting).  Measured
 * by bench/coll_ceiling at np 2: 256 KiB 27 us against 38, 2 MiB 217
 * against 197. */
enum { AR_PULL_WHOLE_MAX = 1 << 20 };

/* Allreduce by reading: rank i combines slice i of the vector (its share
 * of the elements) from every rank's input, in rank order as the area
 * does, straight into its receive buffer; all meet; each reads the other
 * slices from their owners' receive buffers; all meet again (the others
 * may still be reading).  Each input byte crosses once and each result
 * byte once, by cross-memory attach, against a copy into the area and one
 * out of it for each (np 2 with a core per rank took reduce_bcast, whose
 * reduction and broadcast run one after the other).  In place, rank i's
 * input is its receive buffer: others read only slice j != i of it while
 * rank i writes slice i, so only rank i's own slice needs a copy first.
 * Needs a contiguous datatype; declines on every rank together when some
 * rank cannot read another. */
static int allreduce_pull(struct uz_coll_shm *sh, const void *sendbuf, void *recvbuf, MPI_Count count,
                          uz_datatype *dt, const struct uz_reducer *r, uz_comm *comm)
{
    int me = comm->rank, p = comm->size, in_place = sendbuf == MPI_IN_PLACE;
    size_t esz = (size_t)r->stride, n = (size_t)(count * dt->size), elems = n / esz;
    size_t piece = RS_PULL_PIECE / esz * esz;
    int whole = p == 2 && r->commutative && !in_place && n < AR_PULL_WHOLE_MAX;
    size_t lo = whole ? 0 : elems * (size_t)me / (size_t)p * esz;
    size_t hi = whole ? n : elems * (size_t)(me + 1) / (size_t)p * esz;
    unsigned char *out = (unsigned char *)recvbuf + dt->true_lb, *tmp = NULL, *saved = NULL;
    const unsigned char *in = in_place ? out : (const unsigned char *)sendbuf + dt->true_lb;
    struct pull_card card = { .can_read = can_read_all(comm) }, *cards = malloc(sizeof(*cards) * (size_t)p);
    if (piece == 0 || !uz_dt_is_contig(dt, count) || !cards)
        card.can_read = 0;
    if (card.can_read && (p > 2 || !r->commutative) && hi > lo && !(tmp = malloc(piece)))
        card.can_read = 0;
    if (card.can_read && in_place && hi > lo) {
        if ((saved = malloc(hi - lo)))
            memcpy(saved, in + lo, hi - lo);
        else
            card.can_read = 0;
    }
    card.addr = (uint64_t)(uintptr_t)in;
    card.out = (uint64_t)(uintptr_t)out;
    if (!swap_cards(sh, &card, cards)) {
        meet(sh);
        free(cards);
        free(tmp);
        free(saved);
        return UZ_SHM_DECLINED;
    }
    const unsigned char *own = saved ? saved : in + lo;
    int err = combine_pulled(comm, "MPI_Allreduce", cards, lo, hi - lo, own, out + lo, tmp, r);
    if (!whole) {
        meet(sh);
        for (int i = 1; i < p && !err; i++) {
            int o = (me + i) % p;       /* everyone starts at a different owner */
            size_t olo = elems * (size_t)o / (size_t)p * esz, ohi = elems * (size_t)(o + 1) / (size_t)p * esz;
            if (ohi > olo)
                err = read_block(comm, "MPI_Allreduce", o, cards[o].out + olo, out + olo, ohi - olo);
        }
    }
    meet(sh);
    free(cards);
    free(tmp);
    free(saved);
    return err;
}

int uz_shm_alltoall(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                    MPI_Count rcount, uz_datatype *rtype, uz_comm *comm, int want)
{
    int me = comm->rank, p = comm->size;
    size_t b = (size_t)(rcount * rtype->size);
    /* Large blocks are pulled whenever the area may be used at all: one
     * copy beats both the area's two and message passing's rounds. */
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLTOALL, comm, b);
    int pull = uz_coll_shm_pull(&sit, want), copy = uz_coll_shm_wanted(&sit, want);
    if ((!pull && !copy) || b == 0)
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    if (pull) {
        int err = alltoall_pull(sh, sendbuf, scount, stype, recvbuf, rcount, rtype, comm, b);
        if (err != UZ_SHM_DECLINED || !copy)
            return err;
    }
    struct lane *L = lane_for(sh, b * p);
    size_t piece = L->slot / p;
    if (piece == 0)
        return UZ_SHM_DECLINED;
    int in_place = sendbuf == MPI_IN_PLACE;
    for (size_t off = 0; off < b; off += piece) {
        size_t len = b - off < piece ? b - off : piece;
        uint64_t k = op_begin(sh, L);
        unsigned char *mine = slot_of(sh, L, k, me);
        for (int j = 0; j < p; j++) {
            if (in_place)
                pack_range(uz_block(recvbuf, j, rcount, rtype), rcount, rtype, off, len, mine + j * len);
            else
                pack_range(uz_block(sendbuf, j, scount, stype), scount, stype, off, len, mine + j * len);
        }
        all_meet(sh, L, k);
        for (int i = 0; i < p; i++)
            unpack_range(uz_block(recvbuf, i, rcount, rtype), rcount, rtype, off, len, slot_of(sh, L, k, i) + me * len);
        op_end(sh, L, k);
    }
    return MPI_SUCCESS;
}

/* Alltoallv/w.  Block sizes differ per pair and no rank knows all of them,
 * so the number of pieces is agreed on the way: in each operation every
 * rank posts, per destination, the next piece of that block (up to a fixed
 * share of its slot) and a flag saying whether it has more; the operations
 * go on until no rank has. */
/* What each rank adds to the head of its slot in the first operation of
 * an alltoallv, so that all can tell whether the rest may be pulled. */
struct pullv_card {
    uint32_t pullable;          /* every send block contiguous, every rank readable */
    uint32_t pad;
    uint64_t total;             /* bytes this rank sends */
};

/* After the first operation: pull the rest of every block from its
 * sender (alltoall_pull's reasons), when every rank can and the blocks
 * average UZURA_COLL_PULL_MIN.  The same answer on every rank. */
static int pullv_agreed(struct uz_coll_shm *sh, struct lane *L, uint64_t k, size_t card_at)
{
    uint64_t total = 0;
    int p = sh->p;
    for (int i = 0; i < p; i++) {
        struct pullv_card c;
        memcpy(&c, slot_of(sh, L, k, i) + card_at, sizeof(c));
        if (!c.pullable)
            return 0;
        total += c.total;
    }
    return uz_config.coll_pull_min > 0 && total / ((uint64_t)p * (uint64_t)p) >= uz_config.coll_pull_min;
}

/* Bytes [from, end) of block i, read from its sender's memory. */
static int pullv_rest(uz_comm *comm, int i, uint64_t addr, size_t from, size_t end, void *rbuf, MPI_Count rcount,
                      uz_datatype *rtype)
{
    if (from >= end)
        return MPI_SUCCESS;
    size_t n = end - from;
    int rcontig = uz_dt_is_contig(rtype, rcount);
    unsigned char *stage = rcontig ? NULL : malloc(n);
    if (!rcontig && !stage)
        return uz_err_make(MPI_ERR_NO_MEM, "MPI_Alltoallv: out of memory staging %zu bytes", n);
    void *dst = rcontig ? (char *)rbuf + rtype->true_lb + from : (char *)stage;
    int err = read_block(comm, "MPI_Alltoallv", i, addr + from, dst, n);
    if (!err && stage)
        unpack_range(rbuf, rcount, rtype, from, n, stage);
    free(stage);
    return err;
}

/* This rank's pull card at `card`, and per destination its block's address
 * and bytes at `addrs`: what the others need to pull from it. */
static void pullv_describe(int p, void *const *sbufs, const MPI_Count *scounts, uz_datatype *const *stypes,
                           uz_comm *comm, unsigned char *card_at, unsigned char *addrs)
{
    struct pullv_card card = { .pullable = 1 };
    for (int j = 0; j < p; j++) {
        uint64_t a[2] = { (uint64_t)(uintptr_t)((const char *)sbufs[j] + stypes[j]->true_lb),
                          (uint64_t)(scounts[j] * stypes[j]->size) };
        memcpy(addrs + (size_t)j * sizeof(a), a, sizeof(a));
        card.total += a[1];
        card.pullable &= uz_dt_is_contig(stypes[j], scounts[j]);
    }
    card.pullable = card.pullable && can_read_all(comm);
    memcpy(card_at, &card, sizeof(card));
}

/* Alltoallv/w entirely by pulls, after the last one pulled: every rank
 * posts its card and, per destination, its block's address and bytes (a
 * small-lane slot holds them up to ~250 ranks), then each reads its blocks.
 * Returns UZ_SHM_DECLINED on every rank alike when the cards say the
 * blocks are not all pullable or too short on average. */
static int alltoallv_pull_all(struct uz_coll_shm *sh, int p, void *const *sbufs, const MPI_Count *scounts,
                              uz_datatype *const *stypes, void *const *rbufs, const MPI_Count *rcounts,
                              uz_datatype *const *rtypes, uz_comm *comm)
{
    size_t len = sizeof(struct pullv_card) + (size_t)p * 2 * sizeof(uint64_t);
    if (len > sh->lanes[0].slot)
        return UZ_SHM_DECLINED;
    unsigned char mine[SMALL_SLOT];
    struct pullv_card card;
    pullv_describe(p, sbufs, scounts, stypes, comm, mine, mine + sizeof(card));
    struct lane *L = &sh->lanes[0];
    uint64_t k = post_all(sh, mine, len);
    if (!pullv_agreed(sh, L, k, 0)) {
        op_end(sh, L, k);
        return UZ_SHM_DECLINED;
    }
    int err = MPI_SUCCESS;
    for (int n = 0; n < p; n++) {
        int i = (comm->rank + n) % p;
        uint64_t a[2];
        memcpy(a, slot_of(sh, L, k, i) + sizeof(card) + (size_t)comm->rank * sizeof(a), sizeof(a));
        size_t cap = (size_t)(rcounts[i] * rtypes[i]->size);
        if (a[1] > cap) {
            err = uz_err_make(MPI_ERR_TRUNCATE, "rank %d sent %llu bytes for a receive block of %zu bytes", i,
                              (unsigned long long)a[1], cap);
            continue;
        }
        int e = pullv_rest(comm, i, a[0], 0, (size_t)a[1], rbufs[i], rcounts[i], rtypes[i]);
        if (e && !err)
            err = e;
    }
    op_end(sh, L, k);
    meet(sh);
    return err;
}

int uz_shm_alltoallv(int p, void *const *sbufs, const MPI_Count *scounts, uz_datatype *const *stypes,
                     void *const *rbufs, const MPI_Count *rcounts, uz_datatype *const *rtypes, uz_comm *comm,
                     int want, size_t *progress)
{
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_ALLTOALLV, comm, 0);
    if (!uz_coll_shm_wanted(&sit, want))
        return UZ_SHM_DECLINED;
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    struct lane *L = &sh->lanes[1];
    int me = comm->rank;
    /* head: lens[p] and "more", then the pull card and, per destination,
     * the block's address and bytes */
    size_t card_at = ((size_t)(p + 1) * sizeof(uint32_t) + 7) / 8 * 8;
    size_t addrs_at = card_at + sizeof(struct pullv_card);
    size_t head = (addrs_at + (size_t)p * 2 * sizeof(uint64_t) + LINE - 1) / LINE * LINE;
    if (head >= L->slot)
        return UZ_SHM_DECLINED;
    size_t share = (L->slot - head) / (size_t)p / LINE * LINE;
    if (share == 0)
        return UZ_SHM_DECLINED;
    if (sh->pullv_last) {
        int err = alltoallv_pull_all(sh, p, sbufs, scounts, stypes, rbufs, rcounts, rtypes, comm);
        if (err != UZ_SHM_DECLINED)
            return err;
        sh->pullv_last = 0;
    }
    size_t *sent = progress, *got = progress + p;
    for (int i = 0; i < 2 * p; i++)
        progress[i] = 0;
    int first = 1, err = MPI_SUCCESS;
    for (;;) {
        uint64_t k = op_begin(sh, L);
        unsigned char *mine = slot_of(sh, L, k, me);
        uint32_t *lens = (uint32_t *)mine;
        uint32_t more = 0;
        for (int j = 0; j < p; j++) {
            size_t total = (size_t)(scounts[j] * stypes[j]->size);
            size_t len = total - sent[j] < share ? total - sent[j] : share;
            pack_range(sbufs[j], scounts[j], stypes[j], sent[j], len, mine + head + (size_t)j * share);
            lens[j] = (uint32_t)len;
            sent[j] += len;
            more |= sent[j] < total;
        }
        /* Only the first operation's cards are read (pullv_agreed). */
        if (first && uz_config.coll_pull_min > 0)
            pullv_describe(p, sbufs, scounts, stypes, comm, mine + card_at, mine + addrs_at);
        else if (first)
            memset(mine + card_at, 0, sizeof(struct pullv_card));
        lens[p] = more;
        all_meet(sh, L, k);
        int pull = first && pullv_agreed(sh, L, k, card_at);
        first = 0;
        uint32_t any = 0;
        for (int i = 0; i < p; i++) {
            const unsigned char *theirs = slot_of(sh, L, k, i);
            const uint32_t *tl = (const uint32_t *)theirs;
            size_t len = tl[me], cap = (size_t)(rcounts[i] * rtypes[i]->size);
            size_t take = got[i] >= cap ? 0 : cap - got[i] < len ? cap - got[i] : len;
            unpack_range(rbufs[i], rcounts[i], rtypes[i], got[i], take, theirs + head + (size_t)me * share);
            got[i] += len;
            any |= tl[p];
            if (pull && !err && tl[p]) {
                uint64_t a[2];      /* address, bytes of the block for this rank */
                memcpy(a, theirs + addrs_at + (size_t)me * sizeof(a), sizeof(a));
                size_t end = a[1] < cap ? (size_t)a[1] : cap;
                err = pullv_rest(comm, i, a[0], got[i], end, rbufs[i], rcounts[i], rtypes[i]);
                got[i] = a[1];      /* more than cap: truncated, reported below */
            }
        }
        op_end(sh, L, k);
        if (pull) {
            /* The senders' buffers must stay until every reader is done. */
            meet(sh);
            sh->pullv_last = 1;
            if (err)
                return err;
            break;
        }
        if (!any)
            break;
    }
    for (int i = 0; i < p; i++)
        if (got[i] > (size_t)(rcounts[i] * rtypes[i]->size))
            return uz_err_make(MPI_ERR_TRUNCATE, "rank %d sent %zu bytes for a receive block of %lld bytes", i,
                               got[i], (long long)(rcounts[i] * rtypes[i]->size));
    return MPI_SUCCESS;
}

/* ------------------------------------------ gather, scatter and v forms */

/* Gather(v) and Scatter(v) (uz_shm_rooted), in one of two ways:
 *
 *  area    the blocks go through the slots in pieces, as a broadcast's
 *          do (two copies);
 *  direct  one copy by cross-memory attach between the root's buffer and
 *          each rank's: scattering, each rank reads its block from the
 *          root's buffer (pull); gathering, each writes its block into the
 *          root's (push), or the root reads every block (pull, Gather).
 *
 * Gather and Scatter through the area, and the root's pulls, need nothing
 * more: every rank knows the choice.  Direct Gather and Scatter, and
 * Gatherv where ranks cannot push, take the root's plan
 * (rooted_planned): the root decides and posts it in its small-lane slot,
 * which the others wait for: the mode, and per rank its block's bytes and,
 * direct, its address in the root's memory.  Only the root knows whether
 * it could show its blocks (and every count of a v form), so whatever it
 * decides every rank does.  Gatherv otherwise lets each rank choose for
 * its own block (gatherv_cards), and Scatterv has the root choose per rank
 * (scatterv_heads), so that small calls cost no extra wait.  A direct
 * call ends with every rank telling the root it is done with the root's
 * memory, without waiting for the others. */

enum rooted_mode { PLAN_DECLINE, PLAN_AREA, PLAN_DIRECT };

struct rooted_plan {
    uint32_t mode;
    uint32_t lane;              /* area: 0 small, 1 large */
    uint64_t pieces;            /* area: operations */
};

struct rooted_entry {
    uint64_t addr;              /* direct: the block in the root's memory */
    uint64_t len;               /* the block's bytes at the root */
};

/* Whether the plan fits the root's small-lane slot: up to ~250 ranks. */
static int plan_fits(int p)
{
    return sizeof(struct rooted_plan) + (size_t)p * sizeof(struct rooted_entry) <= SMALL_SLOT;
}

/* What a rank tells the root at the end of a direct call. */
enum { DONE_OK, DONE_TRUNCATED, DONE_FAILED };

static MPI_Count root_count(const struct uz_shm_rooted *x, int i)
{
    return x->counts ? uz_varray_at(*x->counts, i) : x->count;
}

static void *root_block(const struct uz_shm_rooted *x, int i)
{
    return x->counts ? uz_elem(x->all, uz_varray_at(*x->displs, i), x->all_dt)
                     : uz_block(x->all, i, x->count, x->all_dt);
}

static size_t root_len(const struct uz_shm_rooted *x, int i)
{
    return (size_t)(root_count(x, i) * x->all_dt->size);
}

static const char *rooted_name(const struct uz_shm_rooted *x)
{
    return x->to_root ? x->counts ? "MPI_Gatherv" : "MPI_Gather" : x->counts ? "MPI_Scatterv" : "MPI_Scatter";
}

/* The root's own block, which never goes through the area. */
static void root_own_block(const struct uz_shm_rooted *x, int me)
{
    if (x->mine == MPI_IN_PLACE)
        return;
    if (x->to_root)
        uz_coll_local_copy(x->mine, x->mine_count, x->mine_dt, root_block(x, me), root_count(x, me), x->all_dt);
    else
        uz_coll_local_copy(root_block(x, me), root_count(x, me), x->all_dt, x->mine, x->mine_count, x->mine_dt);
}

/* Through the area: `pieces` operations on L, piece j of every block at
 * [j * slot, (j + 1) * slot).  `mine` is this rank's block's bytes as the
 * root has it (a non-root moves no more). */
static void rooted_area(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, struct lane *L, uint64_t pieces,
                        size_t mine)
{
    int me = sh->me, p = sh->p, root = x->root;
    for (uint64_t j = 0; j < pieces; j++) {
        size_t off = (size_t)j * L->slot;
        uint64_t k = op_begin(sh, L);
        if (me != root) {
            size_t len = off < mine ? (mine - off < L->slot ? mine - off : L->slot) : 0;
            if (x->to_root) {
                pack_range(x->mine, x->mine_count, x->mine_dt, off, len, slot_of(sh, L, k, me));
                if (arrive(sh, L, k))
                    release(sh, L, k);
            } else {
                wait_release(sh, L, k);
                unpack_range(x->mine, x->mine_count, x->mine_dt, off, len, slot_of(sh, L, k, me));
            }
            op_end(sh, L, k);
            continue;
        }
        if (x->to_root) {
            all_meet(sh, L, k);
        }
        for (int i = 0; i < p; i++) {
            size_t b = root_len(x, i);
            if (i == me || off >= b)
                continue;
            size_t len = b - off < L->slot ? b - off : L->slot;
            if (x->to_root)
                unpack_range(root_block(x, i), root_count(x, i), x->all_dt, off, len, slot_of(sh, L, k, i));
            else
                pack_range(root_block(x, i), root_count(x, i), x->all_dt, off, len, slot_of(sh, L, k, i));
        }
        if (!x->to_root)
            release(sh, L, k);
        op_end(sh, L, k);
    }
}

static void area_shape(struct uz_coll_shm *sh, size_t most, uint32_t *lane, uint64_t *pieces)
{
    struct lane *L = lane_for(sh, most);
    *lane = L == &sh->lanes[1];
    *pieces = (most + L->slot - 1) / L->slot;
}

/* Write n bytes from src at `addr` in the memory of comm's rank r. */
static int write_block(uz_comm *comm, const char *fn, int r, uint64_t addr, const void *src, size_t n)
{
    struct iovec local = { (void *)src, n };
    struct iovec remote = { (void *)(uintptr_t)addr, n };
    int e = uz_path_put(uz_group_world_rank(comm->local_group, r), &local, 1, &remote, 1, NULL);
    return e < 0 ? uz_err_make(MPI_ERR_OTHER, "%s: writing into rank %d's buffer failed (%d)", fn, r, e) : e;
}

/* The root's blocks as the others read or write them: in its buffer when
 * every block is contiguous, else in a staging buffer (*stage), packed now
 * when scattering and unpacked by rooted_unstage() when gathering.  0 when
 * out of memory. */
static int show_blocks(const struct uz_shm_rooted *x, int p, struct rooted_entry *e, unsigned char **stage)
{
    int contig = 1;
    size_t total = 0;
    for (int i = 0; i < p; i++) {
        contig &= uz_dt_is_contig(x->all_dt, root_count(x, i));
        total += root_len(x, i);
    }
    *stage = NULL;
    if (!contig && !(*stage = malloc(total ? total : 1)))
        return 0;
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        e[i].len = root_len(x, i);
        if (contig) {
            e[i].addr = (uint64_t)(uintptr_t)((char *)root_block(x, i) + x->all_dt->true_lb);
            continue;
        }
        e[i].addr = (uint64_t)(uintptr_t)(*stage + at);
        if (!x->to_root && i != x->root)
            pack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, e[i].len, *stage + at);
        at += e[i].len;
    }
    return 1;
}

static void rooted_unstage(const struct uz_shm_rooted *x, int p, const unsigned char *stage)
{
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        size_t b = root_len(x, i);
        if (i != x->root)
            unpack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, b, stage + at);
        at += b;
    }
}

/* A non-root's part of a direct call: its block of `len` bytes (as the root
 * has it) at `addr` in the root's memory.  Returns what to tell the root. */
static int direct_block(uz_comm *comm, const struct uz_shm_rooted *x, uint64_t addr, size_t len, int *err)
{
    size_t have = (size_t)(x->mine_count * x->mine_dt->size);
    size_t n = have < len ? have : len;
    int contig = uz_dt_is_contig(x->mine_dt, x->mine_count);
    int status = (x->to_root ? have > len : len > have) ? DONE_TRUNCATED : DONE_OK;
    if (n == 0)
        return status;
    unsigned char *stage = contig ? NULL : malloc(n);
    unsigned char *at = contig ? (unsigned char *)x->mine + x->mine_dt->true_lb : stage;
    if (!at) {
        *err = uz_err_make(MPI_ERR_NO_MEM, "%s: out of memory staging a block of %zu bytes", rooted_name(x), n);
        return DONE_FAILED;
    }
    if (x->to_root) {
        if (stage)
            pack_range(x->mine, x->mine_count, x->mine_dt, 0, n, stage);
        *err = write_block(comm, rooted_name(x), x->root, addr, at, n);
    } else {
        *err = read_block(comm, rooted_name(x), x->root, addr, at, n);
        if (!*err && stage)
            unpack_range(x->mine, x->mine_count, x->mine_dt, 0, n, stage);
    }
    free(stage);
    if (*err)
        return DONE_FAILED;
    if (status == DONE_TRUNCATED)
        *err = uz_err_make(MPI_ERR_TRUNCATE, "%s: this rank's block has %zu bytes, the root's %zu",
                           rooted_name(x), have, len);
    return status;
}

/* The end of a direct call, or of a Gatherv through the root's plan: every
 * non-root posts how it went and leaves; the root waits for all of them
 * (they are done with its memory, or it learns who sent too much) and
 * returns the first failure.  `tiny_away`: ranks whose blocks went as
 * messages (rooted_tiny()) take no part. */
static int rooted_tiny(const struct uz_shm_rooted *x, int r, int p);
static int arrive_for(struct uz_coll_shm *sh, struct lane *L, uint64_t k, int n);

static int rooted_done(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, int status, int tiny_away)
{
    struct lane *L = &sh->lanes[0];
    uint64_t k = op_begin(sh, L);
    int32_t st = status;
    if (sh->me != x->root) {
        memcpy(slot_of(sh, L, k, sh->me), &st, sizeof(st));
        if (arrive(sh, L, k))
            release(sh, L, k);
        op_end(sh, L, k);
        return MPI_SUCCESS;
    }
    int absent = 0;
    for (int r = 0; r < sh->p && tiny_away; r++)
        absent += r != sh->me && rooted_tiny(x, r, sh->p);
    if (arrive_for(sh, L, k, 1 + absent))
        release(sh, L, k);
    else
        wait_release(sh, L, k);
    if (!absent)
        all_arrived(L, k);
    int err = MPI_SUCCESS;
    for (int r = 0; r < sh->p && !err; r++) {
        if (r == sh->me || (tiny_away && rooted_tiny(x, r, sh->p)))
            continue;
        memcpy(&st, slot_of(sh, L, k, r), sizeof(st));
        if (st == DONE_TRUNCATED && x->to_root)
            err = uz_err_make(MPI_ERR_TRUNCATE, "%s: rank %d sent more than its receive block of %zu bytes",
                              rooted_name(x), r, root_len(x, r));
        else if (st == DONE_FAILED)
            err = uz_err_make(MPI_ERR_OTHER, "%s: rank %d could not move its block", rooted_name(x), r);
    }
    op_end(sh, L, k);
    return err;
}

/* The root's plan (the mode it chose, or its fallback) and every rank's
 * part of it. */
static int rooted_planned(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm, int alg)
{
    int me = sh->me, p = sh->p, root = x->root;
    struct lane *S = &sh->lanes[0];
    unsigned char *stage = NULL;
    struct rooted_plan plan = { .mode = PLAN_DECLINE };
    struct rooted_entry mine_e = { 0, 0 };
    uint64_t k = op_begin(sh, S);
    if (me == root) {
        unsigned char *slot = slot_of(sh, S, k, me);
        struct rooted_entry *e = (struct rooted_entry *)(slot + sizeof(plan));
        size_t most = 0, total = 0;
        int bad = 0;
        for (int i = 0; i < p; i++) {
            bad |= root_count(x, i) < 0;
            size_t b = bad ? 0 : root_len(x, i);
            most = b > most ? b : most;
            total += b;
            e[i] = (struct rooted_entry){ 0, b };
        }
        if (alg < 0 && !bad) {
            /* A v form: the root's situation is every rank's. */
            struct uz_coll_situation sit =
                uz_coll_situation(x->to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER, comm, total / (size_t)p);
            sit.fixed = 0;
            alg = uz_coll_shm_rooted(&sit);
        }
        if (!bad && alg != UZ_ALG_AUTO) {
            plan.mode = PLAN_AREA;
            if (alg != (x->to_root ? GATHER_SHM : SCATTER_SHM) && can_read_all(comm) && show_blocks(x, p, e, &stage))
                plan.mode = PLAN_DIRECT;
            area_shape(sh, most, &plan.lane, &plan.pieces);
        }
        memcpy(slot, &plan, sizeof(plan));
        release(sh, S, k);
    } else {
        wait_release(sh, S, k);
        const unsigned char *slot = slot_of(sh, S, k, root);
        memcpy(&plan, slot, sizeof(plan));
        memcpy(&mine_e, slot + sizeof(plan) + (size_t)me * sizeof(mine_e), sizeof(mine_e));
    }
    op_end(sh, S, k);
    if (plan.mode == PLAN_DECLINE)
        return UZ_SHM_DECLINED;
    enum uz_coll_op op = x->to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER;
    if (plan.mode == PLAN_AREA) {
        size_t have = x->mine == MPI_IN_PLACE ? 0 : (size_t)(x->mine_count * x->mine_dt->size);
        size_t len = me == root ? 0 : have < mine_e.len ? have : (size_t)mine_e.len;
        rooted_area(sh, x, &sh->lanes[plan.lane], plan.pieces, len);
        uz_coll_chose(op, x->to_root ? GATHER_SHM : SCATTER_SHM);
        int too_long = me != root && (x->to_root ? have > mine_e.len : have < mine_e.len);
        /* A Gatherv's root learns only here which rank sent more than its
         * block (a Gather's sizes agree, unless the program is wrong in a
         * way the root cannot see either). */
        int err = MPI_SUCCESS;
        if (x->to_root && x->counts)
            err = rooted_done(sh, x, too_long ? DONE_TRUNCATED : DONE_OK, 0);
        if (me == root)
            root_own_block(x, me);
        else if (too_long)
            return uz_err_make(MPI_ERR_TRUNCATE, "%s: this rank's block has %zu bytes, the root's %zu",
                               rooted_name(x), have, (size_t)mine_e.len);
        return err;
    }
    uz_coll_chose(op, x->to_root ? GATHER_PUSH : SCATTER_PULL);
    int err = MPI_SUCCESS;
    if (me != root) {
        int status = direct_block(comm, x, mine_e.addr, (size_t)mine_e.len, &err);
        rooted_done(sh, x, status, 0);
        return err;
    }
    root_own_block(x, me);
    err = rooted_done(sh, x, DONE_OK, 0);
    if (stage && x->to_root)
        rooted_unstage(x, p, stage);
    free(stage);
    return err;
}

/* Gather and Scatter through the area, every rank knowing how (b bytes a
 * block). */
static int rooted_area_fixed(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, size_t b)
{
    uint32_t lane;
    uint64_t pieces;
    area_shape(sh, b, &lane, &pieces);
    rooted_area(sh, x, &sh->lanes[lane], pieces, b);
    uz_coll_chose(x->to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER, x->to_root ? GATHER_SHM : SCATTER_SHM);
    if (sh->me == x->root)
        root_own_block(x, sh->me);
    return MPI_SUCCESS;
}

/* Gather by the root reading every block (GATHER_PULL): every rank posts
 * where its block is and waits while the root reads them all, then hears
 * whether it did; if the root could not, all go through the area. */
static int gather_root_pulls(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm, size_t b)
{
    int me = sh->me, p = sh->p, root = x->root, err = MPI_SUCCESS;
    struct lane *S = &sh->lanes[0];
    struct pull_card card = { 0 };
    unsigned char *packed = NULL, *stage = NULL;
    uint64_t k = op_begin(sh, S);
    if (me != root) {
        card.can_read = 1;
        if (uz_dt_is_contig(x->mine_dt, x->mine_count)) {
            card.addr = (uint64_t)(uintptr_t)((char *)x->mine + x->mine_dt->true_lb);
        } else if ((packed = malloc(b))) {
            pack_range(x->mine, x->mine_count, x->mine_dt, 0, b, packed);
            card.addr = (uint64_t)(uintptr_t)packed;
        } else {
            card.can_read = 0;
        }
        memcpy(slot_of(sh, S, k, me), &card, sizeof(card));
        if (arrive(sh, S, k))
            release(sh, S, k);
        op_end(sh, S, k);
        k = op_begin(sh, S);
        wait_release(sh, S, k);
        memcpy(&card, slot_of(sh, S, k, root), sizeof(card));
        op_end(sh, S, k);
        free(packed);
    } else {
        if (arrive(sh, S, k))
            release(sh, S, k);
        else
            wait_release(sh, S, k);
        all_arrived(S, k);
        int ok = can_read_all(comm), rcontig = uz_dt_is_contig(x->all_dt, x->count);
        for (int r = 0; r < p; r++) {
            memcpy(&card, slot_of(sh, S, k, r), sizeof(card));
            ok &= r == me || card.can_read;
        }
        if (!rcontig && ok && !(stage = malloc(b)))
            ok = 0;
        for (int i = 1; i < p && ok && !err; i++) {
            int r = (root + i) % p;
            void *dst = stage ? (void *)stage : (char *)root_block(x, r) + x->all_dt->true_lb;
            memcpy(&card, slot_of(sh, S, k, r), sizeof(card));
            err = read_block(comm, rooted_name(x), r, card.addr, dst, b);
            if (!err && stage)
                unpack_range(root_block(x, r), x->count, x->all_dt, 0, b, stage);
        }
        op_end(sh, S, k);
        free(stage);
        k = op_begin(sh, S);
        card = (struct pull_card){ .can_read = ok };
        memcpy(slot_of(sh, S, k, me), &card, sizeof(card));
        release(sh, S, k);
        op_end(sh, S, k);
        if (ok)
            root_own_block(x, me);
    }
    if (!card.can_read)
        return rooted_area_fixed(sh, x, b);
    uz_coll_chose(UZ_COLL_OP_GATHER, GATHER_PULL);
    return err;
}

/* Gatherv without the root's plan, which made every rank wait for the root
 * and so cost back-to-back small Gathervs their pipelining (np 4 on 2
 * cores, 8 bytes: 4.3 us against the linear algorithm's 0.5): each rank
 * chooses how its own block travels, by its size (uz_coll_shm_rooted() of
 * it), and says so on a card in its small-lane slot:
 *
 *   (tiny  by auto, the block goes as an eager message and the rank
 *          skips the area, see v_eager() below: no card);
 *   small  the block follows the card; the rank leaves after arriving;
 *   large  the block is in its slot of the large lane (every call takes
 *          one large-lane operation so that all count alike); leaves too;
 *   push   the rank waits for the root's table (its slot: address and
 *          bytes per rank, announced by the phase's second release word),
 *          writes its block there and arrives at a second small-lane
 *          operation (the others arrive there at once).
 *
 * The root waits once, for every rank at the second operation, which
 * each reaches after posting its card and pushing: then it copies the
 * small and large blocks out of the slots.
 *
 * Push needs every rank to reach every other by cross-memory attach, which
 * is the same on every rank of a host (the caller checks). */
struct gv_card {
    uint64_t len;
    uint32_t mode;
    uint32_t pad;
};
enum { GV_SMALL, GV_LARGE, GV_PUSH };

static int gv_mode(struct uz_coll_shm *sh, uz_comm *comm, size_t have)
{
    int t = uz_config.coll_gather;
    if (t == GATHER_PUSH || t == GATHER_PULL)
        return have ? GV_PUSH : GV_SMALL;
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_GATHER, comm, have);
    sit.fixed = 0;
    if (uz_coll_shm_rooted(&sit) == GATHER_PUSH)
        return GV_PUSH;
    return have + sizeof(struct gv_card) <= sh->lanes[0].slot ? GV_SMALL
           : have <= sh->lanes[1].slot                       ? GV_LARGE
                                                              : GV_PUSH;
}

/* Tiny blocks as eager messages (uz_coll_shm_v_eager()), on the
 * collective's tag: each rank that sends or receives any runs one
 * schedule, the others take the tag all the same, so that the sequence
 * stays alike on every rank.  A rank whose block is tiny takes no part in
 * the area: it only counts the call's area operations as done (their
 * number, the same for every rank, keeps the phases in step), and the
 * root arrives for it where the others arrive.  So it never waits for
 * another rank in the area, and back-to-back calls pipeline as linear's
 * do. */
enum { SV_MSG_HEAD = 32 };

static int v_eager(enum uz_coll_op op, size_t bytes, int p)
{
    return uz_coll_shm_v_eager(op, bytes, uz_coll_host_oversubscribed(), p);
}

static int rooted_tiny(const struct uz_shm_rooted *x, int r, int p)
{
    return x->counts && v_eager(x->to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER, root_len(x, r), p);
}

/* Arrive at k for n ranks (this one and those absent). */
static int arrive_for(struct uz_coll_shm *sh, struct lane *L, uint64_t k, int n)
{
    struct phase_ctl *c = ctl_of(L, k);
    unsigned before = atomic_fetch_add_explicit(&c->arrived, (unsigned)n, memory_order_acq_rel);
    if (before + (unsigned)n < (unsigned)sh->p)
        return 0;
    atomic_store_explicit(&c->arrived, 0, memory_order_relaxed);
    return 1;
}

/* The next n operations of lane L, which this rank takes no part in: done
 * as far as the others' op_begin is concerned (it never touches their
 * slots).  The root must not count them as arrived in all_arrived(): the
 * rank may not have reached them yet. */
static void skip_ops(struct uz_coll_shm *sh, struct lane *L, uint64_t n)
{
    if (n == 0)
        return;
    L->k += n;
    /* Not wake_sleepers(): with more ranks than cores someone usually
     * sleeps in a release, and ringing every doorbell on each tiny call
     * cost np 8 Gatherv 8 bytes 2.5-4.4 us against 0.9 without (linear
     * 0.7-0.9).  Only a rank in op_begin() a whole phase ring ahead waits
     * for this store, and it must be woken when the store reaches what it
     * wants: the next operation's release may wait for it (a loop of 64
     * tiny Gathervs at np 4, whose senders run ahead, then a barrier
     * waited out the 2 ms safety net: 1.9 ms per loop against 0.11). */
    publish_word(&L->done[sh->me].k, L->k);
    wake_begin_sleepers(sh, L, L->k);
}

static int gatherv_messages(const struct uz_shm_rooted *x, uz_comm *comm, int *big)
{
    int me = comm->rank, p = comm->size, any = 0, err;
    struct uz_sched *s = NULL;
    *big = 0;
    if (!v_eager(UZ_COLL_OP_GATHER, 0, comm->size)) {
        *big = me == x->root ? p - 1 : 1;
        return MPI_SUCCESS;         /* a named algorithm: no messages, no tag */
    }
    if (me != x->root) {
        size_t have = (size_t)(x->mine_count * x->mine_dt->size);
        *big = !v_eager(UZ_COLL_OP_GATHER, have, comm->size);
        any = !*big && have > 0;
    } else {
        for (int i = 0; i < p; i++) {
            size_t b = root_len(x, i);
            if (i == me)
                continue;
            if (!v_eager(UZ_COLL_OP_GATHER, b, comm->size))
                (*big)++;
            else if (b > 0)
                any = 1;
        }
    }
    if (!any) {
        uz_coll_next_tag(comm);
        return MPI_SUCCESS;
    }
    if ((err = uz_sched_blocking(comm, &s)))
        return err;
    uz_sched_immediate(s);          /* messages only: each goes as it is added */
    if (me != x->root) {
        uz_sched_send(s, x->mine, x->mine_count, x->mine_dt, x->root);
    } else {
        for (int i = 0; i < p; i++) {
            size_t b = root_len(x, i);
            if (i != me && b > 0 && v_eager(UZ_COLL_OP_GATHER, b, comm->size))
                uz_sched_recv(s, root_block(x, i), root_count(x, i), x->all_dt, i);
        }
    }
    return uz_sched_run(s);
}

static int gatherv_cards(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm)
{
    int me = sh->me, p = sh->p, root = x->root, err = MPI_SUCCESS, big = 0;
    int forced = uz_config.coll_gather == GATHER_PUSH || uz_config.coll_gather == GATHER_PULL;
    struct lane *S = &sh->lanes[0], *L = &sh->lanes[1];
    /* Senders send before anything else, so the root may find their
     * messages there; the root takes its own after the area's blocks. */
    int msg_err = me != root ? gatherv_messages(x, comm, &big) : MPI_SUCCESS;
    if (me == root && !v_eager(UZ_COLL_OP_GATHER, 0, sh->p))
        big = 1;
    else if (me == root)
        for (int i = 0; i < p; i++)
            big += i != me && !v_eager(UZ_COLL_OP_GATHER, root_len(x, i), sh->p);
    if (!big) {
        /* This rank's block is tiny (or, at the root, every other's): the
         * call's one large-lane and two small-lane operations, skipped. */
        skip_ops(sh, L, 1);
        skip_ops(sh, S, 2);
        if (me == root)
            root_own_block(x, me);
        uz_coll_chose(UZ_COLL_OP_GATHER, GATHER_LINEAR);
        return me == root ? gatherv_messages(x, comm, &big) : msg_err;
    }
    int absent = 0;
    for (int i = 0; i < p && me == root; i++)
        absent += i != me && rooted_tiny(x, i, sh->p);
    uint64_t kl = op_begin(sh, L), k = op_begin(sh, S);
    if (me != root) {
        size_t have = (size_t)(x->mine_count * x->mine_dt->size);
        struct gv_card c = { .len = have, .mode = (uint32_t)gv_mode(sh, comm, have) };
        unsigned char *slot = slot_of(sh, S, k, me);
        if (c.mode == GV_SMALL)
            pack_range(x->mine, x->mine_count, x->mine_dt, 0, have, slot + sizeof(c));
        else if (c.mode == GV_LARGE)
            pack_range(x->mine, x->mine_count, x->mine_dt, 0, have, slot_of(sh, L, kl, me));
        memcpy(slot, &c, sizeof(c));
        op_end(sh, L, kl);
        if (arrive(sh, S, k))
            release(sh, S, k);
        int status = DONE_OK;
        if (c.mode == GV_PUSH) {
            wait_for(sh, &ctl_of(S, k)->gen2, k);       /* the root's table is there */
            struct rooted_entry e;
            memcpy(&e, slot_of(sh, S, k, root) + (size_t)me * sizeof(e), sizeof(e));
            status = e.addr ? direct_block(comm, x, e.addr, (size_t)e.len, &err) : DONE_FAILED;
        }
        op_end(sh, S, k);
        uz_coll_chose(UZ_COLL_OP_GATHER, forced || c.mode == GV_PUSH ? GATHER_PUSH : GATHER_SHM);
        k = op_begin(sh, S);
        int32_t st = status;
        memcpy(slot_of(sh, S, k, me), &st, sizeof(st));
        if (arrive(sh, S, k))
            release(sh, S, k);
        op_end(sh, S, k);
        return err ? err : msg_err;
    }
    /* The root: where each block goes, staged when the blocks are not all
     * contiguous (address 0 when out of memory: that rank's push fails). */
    struct rooted_entry *e = (struct rooted_entry *)slot_of(sh, S, k, me);
    unsigned char *stage = NULL;
    if (!show_blocks(x, p, e, &stage))
        for (int i = 0; i < p; i++)
            e[i] = (struct rooted_entry){ 0, root_len(x, i) };
    unsigned char *pushed = stage ? calloc((size_t)p, 1) : NULL;
    publish_word(&ctl_of(S, k)->gen2, k);
    wake_sleepers(sh);
    if (arrive_for(sh, S, k, 1 + absent))
        release(sh, S, k);
    root_own_block(x, me);          /* while the others push */
    /* Every rank arrives at the second operation after posting its card
     * and, pushing, writing its block: one wait for both. */
    uint64_t k2 = op_begin(sh, S);
    if (arrive_for(sh, S, k2, 1 + absent))
        release(sh, S, k2);
    else
        wait_release(sh, S, k2);
    if (!absent)
        all_arrived(S, k2);
    int any_push = 0;
    for (int i = 0; i < p; i++) {
        if (i == me || rooted_tiny(x, i, sh->p))
            continue;               /* its block comes by message */
        struct gv_card c;
        const unsigned char *slot = slot_of(sh, S, k, i);
        memcpy(&c, slot, sizeof(c));
        size_t cap = root_len(x, i), n = c.len < cap ? (size_t)c.len : cap;
        if (c.len > cap && !err)
            err = uz_err_make(MPI_ERR_TRUNCATE, "MPI_Gatherv: rank %d sent %llu bytes for a receive block of %zu",
                              i, (unsigned long long)c.len, cap);
        if (c.mode == GV_PUSH) {
            any_push = 1;
            if (pushed)
                pushed[i] = 1;
            continue;
        }
        const unsigned char *from = c.mode == GV_SMALL ? slot + sizeof(c) : slot_of(sh, L, kl, i);
        unpack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, n, from);
    }
    for (int r = 0; r < p && any_push; r++) {
        int32_t st;
        memcpy(&st, slot_of(sh, S, k2, r), sizeof(st));
        if (r != me && !rooted_tiny(x, r, sh->p) && st == DONE_FAILED && !err)
            err = uz_err_make(MPI_ERR_OTHER, "MPI_Gatherv: rank %d could not write its block", r);
    }
    op_end(sh, L, kl);
    op_end(sh, S, k);
    op_end(sh, S, k2);
    /* Staged blocks that were pushed; the others were unpacked above. */
    size_t at = 0;
    for (int i = 0; i < p && stage; i++) {
        size_t b = root_len(x, i);
        if (pushed && pushed[i])
            unpack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, b, stage + at);
        at += b;
    }
    if (stage && !pushed && any_push && !err)
        err = uz_err_make(MPI_ERR_NO_MEM, "MPI_Gatherv: out of memory noting which blocks were staged");
    free(stage);
    free(pushed);
    uz_coll_chose(UZ_COLL_OP_GATHER, forced || any_push ? GATHER_PUSH : GATHER_SHM);
    msg_err = gatherv_messages(x, comm, &big);
    return err ? err : msg_err;
}

/* Scatterv: the root decides, per rank, how its block travels and writes
 * that on a head in the rank's small-lane slot, which the rank waits for
 * anyway (it needs its data), so that deciding costs no extra wait:
 *
 *   small   the block follows the head: one operation, as a broadcast;
 *   pieces  it goes through the large lane in slot-sized pieces; every
 *           head carries the number of those operations, the largest such
 *           block's, so that every rank takes them all;
 *   pull    the rank reads it from the root's buffer (uz_coll_shm_rooted()
 *           of the block's size, or named), and then every rank tells the
 *           root it is done (every head says whether any rank pulls).
 *
 * Tiny blocks (auto) go as messages instead, with the head in front (the
 * rank skips the area operations it names); when every block is tiny the
 * root does not use the area at all.  A rank that cannot be read, or a
 * root short of memory for staging, gets pieces instead. */
struct sv_head {
    uint64_t len, addr, pieces;
    uint32_t mode, any_pull;
};
enum { SV_SMALL, SV_PIECES, SV_PULL, SV_MSG };

/* A tiny block's message (uz_coll_shm_v_eager()): the head, which tells
 * the rank how many area operations the others take, then the block, in
 * one message when the two fit a small-lane slot, where the root stages
 * them.  A larger block (with a core per rank, up to COLL_PULL_MIN) goes
 * as a second message on the same tag, straight from the root's buffer
 * to the rank's, which learns of it from the head. */
enum { SV_MSG_MAX = SMALL_SLOT - sizeof(struct sv_head) };
_Static_assert(sizeof(struct sv_head) <= SV_MSG_HEAD, "SV_MSG_HEAD holds Scatterv's head");

static int sv_inline(size_t len)
{
    return len <= SV_MSG_MAX;
}

/* The root: rank i's block after its head, when it does not follow inline. */
static void sv_send_rest(struct uz_sched *s, const struct uz_shm_rooted *x, int i, size_t len)
{
    if (!sv_inline(len))
        uz_sched_send(s, root_block(x, i), root_count(x, i), x->all_dt, i);
}

static int scatterv_messages(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm, uint64_t k,
                             int any)
{
    struct uz_sched *s = NULL;
    if (!any) {
        uz_coll_next_tag(comm);
        return MPI_SUCCESS;
    }
    int err = uz_sched_blocking(comm, &s);
    if (err)
        return err;
    uz_sched_immediate(s);
    for (int i = 0; i < sh->p; i++) {
        struct sv_head h;
        const unsigned char *slot = slot_of(sh, &sh->lanes[0], k, i);
        memcpy(&h, slot, sizeof(h));
        if (i != sh->me && h.mode == SV_MSG) {
            size_t n = sv_inline((size_t)h.len) ? (size_t)h.len : 0;
            uz_sched_send(s, slot, (MPI_Count)(sizeof(h) + n), uz_byte_type(), i);
            sv_send_rest(s, x, i, (size_t)h.len);
        }
    }
    return uz_sched_run(s);
}

/* The root when every other rank's block is tiny and fits a small-lane
 * slot: linear's messages, each block straight from the root's buffer with
 * no head, and no area operation on any rank.  A rank tells such a block
 * from a head by its length (scatterv_tiny()).  np 4 on 2 cores, 8 bytes:
 * 0.204-0.213 us a call against 0.253-0.262 with heads. */
static int scatterv_bare(const struct uz_shm_rooted *x, uz_comm *comm)
{
    int me = comm->rank, p = comm->size;
    uz_request *room[UZ_COLL_ARRAYS_ON_STACK], **inflight = room;
    if (p > UZ_COLL_ARRAYS_ON_STACK && !(inflight = malloc(sizeof(*inflight) * (size_t)p)))
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Scatterv");
    struct uz_coll_direct d;
    uz_coll_direct_begin(&d, comm, inflight);
    for (int i = 0; i < p; i++)
        if (i != me)
            uz_coll_direct_send(&d, root_block(x, i), root_count(x, i), x->all_dt, i);
    root_own_block(x, me);
    int err = uz_coll_direct_end(&d);
    if (inflight != room)
        free(inflight);
    uz_coll_chose(UZ_COLL_OP_SCATTER, SCATTER_LINEAR);
    return err;
}

/* The largest block that goes bare: tiny (v_eager()) and within a
 * small-lane slot; -1 when none does. */
static long bare_max(void)
{
    return uz_coll_shm_v_eager_max(UZ_COLL_OP_SCATTER, uz_coll_host_oversubscribed(), SV_MSG_MAX);
}

/* The root's arrays are valid (as root_arrays_valid()) and every other
 * rank's block is at most `max` bytes (bare_max()), so that
 * scatterv_heads() would end in scatterv_bare(). */
static int scatterv_all_bare(const struct uz_shm_rooted *x, int me, int p, long max)
{
    if (max < 0 || !uz_varray_given(*x->counts) || !uz_varray_given(*x->displs))
        return 0;
    for (int i = 0; i < p; i++) {
        MPI_Count c = uz_varray_at(*x->counts, i);
        if (c < 0 || (i != me && c * x->all_dt->size > max))
            return 0;
    }
    return 1;
}

/* The root when every other rank's block is tiny, some too large for a
 * slot: messages only, each behind its head, from a staging buffer, and
 * the heads' operation skipped as the others skip it. */
static int scatterv_all_tiny(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm)
{
    int me = sh->me, p = sh->p, err;
    struct uz_sched *s = NULL;
    if (scatterv_all_bare(x, me, p, bare_max()))
        return scatterv_bare(x, comm);
    skip_ops(sh, &sh->lanes[0], 1);
    if ((err = uz_sched_blocking(comm, &s)))
        return err;
    uz_sched_immediate(s);
    size_t total = 0;
    for (int i = 0; i < p; i++) {
        size_t b = root_len(x, i);
        total += i != me ? sizeof(struct sv_head) + (sv_inline(b) ? b : 0) : 0;
    }
    unsigned char *buf = uz_sched_alloc(s, total), *m = buf;
    for (int i = 0; i < p && buf; i++) {
        if (i == me)
            continue;
        struct sv_head h = { .len = root_len(x, i), .mode = SV_MSG };
        size_t n = sv_inline((size_t)h.len) ? (size_t)h.len : 0;
        memcpy(m, &h, sizeof(h));
        pack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, n, m + sizeof(h));
        uz_sched_send(s, m, (MPI_Count)(sizeof(h) + n), uz_byte_type(), i);
        sv_send_rest(s, x, i, (size_t)h.len);
        m += sizeof(h) + n;
    }
    /* The sends have started (an immediate schedule): our own block is
     * copied while the others take theirs, as linear's root does. */
    root_own_block(x, me);
    err = uz_sched_run(s);
    uz_coll_chose(UZ_COLL_OP_SCATTER, SCATTER_LINEAR);
    return err;
}

static int request_complete(void *arg)
{
    return uz_request_is_complete(arg);
}

/* Receive a message of this call from the root: *got its length.  Not
 * through a schedule, which keeps no status. */
static int tiny_recv(void *buf, MPI_Count count, uz_datatype *dt, int tag, const struct uz_shm_rooted *x,
                     uz_comm *comm, size_t *got)
{
    uz_request *r = NULL;
    MPI_Status st;
    int err = uz_pt2pt_recv_quick(buf, count, dt, x->root, tag, &comm->p2p_coll, &st, &r);
    if (!r) {
        /* Taken at once (no request was made), or failed. */
        *got = err ? 0 : (size_t)uz_status_bytes(&st);
        return err;
    }
    if (!uz_request_is_complete(r))
        uz_coll_wait(request_complete, r, NULL);
    err = r->status.MPI_ERROR;
    *got = (size_t)uz_status_bytes(&r->status);
    uz_request_release(r);
    return err;
}

/* A rank whose block is tiny.  It comes by message: bare when every
 * block was tiny (scatterv_bare(): the message is as long as this rank's
 * receive, and no rank touches the area), else behind a head (32 bytes
 * longer), which names the area operations the others take so that this
 * rank skips them too.  Only a program whose counts differ between the
 * root and this rank could send a head-form message this rank's size; the
 * head is checked, and a block of the wrong size is an error. */
static int scatterv_tiny(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm, size_t have)
{
    unsigned char buf[sizeof(struct sv_head) + SV_MSG_MAX];
    struct sv_head h;
    size_t got = 0;
    int tag = uz_coll_next_tag(comm);
    int err = tiny_recv(buf, (MPI_Count)sizeof(buf), uz_byte_type(), tag, x, comm, &got);
    if (err)
        return err;     /* the root's message did not come: it failed before the area */
    if (got == have && have <= SV_MSG_MAX) {
        unpack_range(x->mine, x->mine_count, x->mine_dt, 0, have, buf);
        uz_coll_chose(UZ_COLL_OP_SCATTER, SCATTER_LINEAR);
        return MPI_SUCCESS;
    }
    memcpy(&h, buf, sizeof(h));
    if (got < sizeof(h) || h.mode != SV_MSG || got != sizeof(h) + (sv_inline((size_t)h.len) ? (size_t)h.len : 0))
        return uz_err_make(got > have ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
                           "MPI_Scatterv: this rank's block has %zu bytes, the root sent a message of %zu; "
                           "the root's count for this rank differs from this rank's",
                           have, got);
    if (h.len > have) {
        err = uz_err_make(MPI_ERR_TRUNCATE, "MPI_Scatterv: this rank's block has %zu bytes, the root sent %llu",
                          have, (unsigned long long)h.len);
    } else if (sv_inline((size_t)h.len)) {
        unpack_range(x->mine, x->mine_count, x->mine_dt, 0, (size_t)h.len, buf + sizeof(h));
    }
    if (!sv_inline((size_t)h.len)) {
        /* Received even when too long (then truncated), so that it does
         * not stay behind to match a later call's receive. */
        size_t rest = 0;
        int rest_err = tiny_recv(x->mine, x->mine_count, x->mine_dt, tag, x, comm, &rest);
        err = err ? err : rest_err;
    }
    /* The heads' operation, the pieces', and the pulls' end. */
    skip_ops(sh, &sh->lanes[0], 1 + (h.any_pull != 0));
    skip_ops(sh, &sh->lanes[1], h.pieces);
    uz_coll_chose(UZ_COLL_OP_SCATTER, SCATTER_LINEAR);
    return err;
}

static int scatterv_heads(struct uz_coll_shm *sh, const struct uz_shm_rooted *x, uz_comm *comm)
{
    int me = sh->me, p = sh->p, root = x->root, err = MPI_SUCCESS, t = uz_config.coll_scatter;
    struct lane *S = &sh->lanes[0], *L = &sh->lanes[1];
    struct sv_head h;
    unsigned char *stage = NULL;
    int auto_v = v_eager(UZ_COLL_OP_SCATTER, 0, sh->p);
    if (me != root && auto_v) {
        size_t have = (size_t)(x->mine_count * x->mine_dt->size);
        if (v_eager(UZ_COLL_OP_SCATTER, have, sh->p))
            return scatterv_tiny(sh, x, comm, have);
        uz_coll_next_tag(comm);
    }
    if (me == root && auto_v) {
        int all_tiny = 1;
        for (int i = 0; i < p && all_tiny; i++)
            all_tiny = i == me || rooted_tiny(x, i, sh->p);
        if (all_tiny)
            return scatterv_all_tiny(sh, x, comm);
    }
    uint64_t k = op_begin(sh, S);
    if (me == root) {
        int readable = can_read_all(comm), any_pull = 0, area = 0;
        uint64_t pieces = 0;
        /* Staging, when the blocks are not all contiguous, only if some
         * rank pulls. */
        struct rooted_entry *e = NULL;
        int shown = 0, tiny = 0;
        for (int i = 0; i < p; i++) {
            size_t b = root_len(x, i);
            if (i != me && auto_v && v_eager(UZ_COLL_OP_SCATTER, b, sh->p)) {
                h = (struct sv_head){ .len = b, .mode = SV_MSG };
                memcpy(slot_of(sh, S, k, i), &h, sizeof(h));
                tiny = 1;
                continue;
            }
            area |= i != me;
            struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_SCATTER, comm, b);
            sit.fixed = 0;
            int pull = b > 0 && readable && (e || !shown) &&
                       (t == SCATTER_PULL || uz_coll_shm_rooted(&sit) == SCATTER_PULL);
            if (i != me && pull && !shown) {
                shown = 1;
                e = malloc(sizeof(*e) * (size_t)p);
                if (!e || !show_blocks(x, p, e, &stage)) {
                    free(e);
                    e = NULL;
                    pull = 0;
                }
            }
            int mode = i == me ? SV_SMALL : pull ? SV_PULL : b + sizeof(h) <= S->slot ? SV_SMALL : SV_PIECES;
            any_pull |= mode == SV_PULL;
            if (mode == SV_PIECES && (b + L->slot - 1) / L->slot > pieces)
                pieces = (b + L->slot - 1) / L->slot;
            h = (struct sv_head){ .len = b, .addr = mode == SV_PULL ? e[i].addr : 0, .mode = (uint32_t)mode };
            memcpy(slot_of(sh, S, k, i), &h, sizeof(h));
        }
        free(e);
        /* The tiny blocks' messages go from their slots (which stay the
         * root's until its op_end below). */
        for (int i = 0; i < p; i++) {
            unsigned char *slot = slot_of(sh, S, k, i);
            memcpy(&h, slot, sizeof(h));
            h.pieces = pieces;
            h.any_pull = (uint32_t)any_pull;
            memcpy(slot, &h, sizeof(h));
            if (i != me && (h.mode == SV_SMALL || (h.mode == SV_MSG && sv_inline((size_t)h.len))))
                pack_range(root_block(x, i), root_count(x, i), x->all_dt, 0, (size_t)h.len, slot + sizeof(h));
        }
        if (auto_v)
            err = scatterv_messages(sh, x, comm, k, tiny);
        if (area)
        release(sh, S, k);
        for (uint64_t j = 0; j < pieces; j++) {
            size_t off = (size_t)j * L->slot;
            uint64_t kl = op_begin(sh, L);
            for (int i = 0; i < p; i++) {
                size_t b = root_len(x, i);
                if (i == me || off >= b || b + sizeof(h) <= S->slot)
                    continue;
                memcpy(&h, slot_of(sh, S, k, i), sizeof(h));
                if (h.mode == SV_PIECES)
                    pack_range(root_block(x, i), root_count(x, i), x->all_dt, off,
                               b - off < L->slot ? b - off : L->slot, slot_of(sh, L, kl, i));
            }
            release(sh, L, kl);
            op_end(sh, L, kl);
        }
        op_end(sh, S, k);           /* the heads were read until here */
        root_own_block(x, me);
        if (any_pull)
            err = rooted_done(sh, x, DONE_OK, 1);
        free(stage);
        uz_coll_chose(UZ_COLL_OP_SCATTER, !area                                  ? SCATTER_LINEAR
                                          : (t == SCATTER_PULL && readable) || any_pull ? SCATTER_PULL
                                                                                       : SCATTER_SHM);
        return err;
    }
    wait_release(sh, S, k);
    const unsigned char *slot = slot_of(sh, S, k, me);
    memcpy(&h, slot, sizeof(h));
    size_t have = (size_t)(x->mine_count * x->mine_dt->size), n = have < h.len ? have : (size_t)h.len;
    if (h.mode == SV_SMALL)
        unpack_range(x->mine, x->mine_count, x->mine_dt, 0, n, slot + sizeof(h));
    op_end(sh, S, k);
    for (uint64_t j = 0; j < h.pieces; j++) {
        size_t off = (size_t)j * L->slot;
        uint64_t kl = op_begin(sh, L);
        wait_release(sh, L, kl);
        if (h.mode == SV_PIECES && off < n)
            unpack_range(x->mine, x->mine_count, x->mine_dt, off, n - off < L->slot ? n - off : L->slot,
                         slot_of(sh, L, kl, me));
        op_end(sh, L, kl);
    }
    int status = DONE_OK;
    if (h.mode == SV_PULL)
        status = direct_block(comm, x, h.addr, (size_t)h.len, &err);
    if (h.any_pull)
        rooted_done(sh, x, status, 1);
    if (!err && h.len > have)
        err = uz_err_make(MPI_ERR_TRUNCATE, "MPI_Scatterv: this rank's block has %zu bytes, the root sent %llu",
                          have, (unsigned long long)h.len);
    int named = t == SCATTER_PULL && can_read_all(comm);
    uz_coll_chose(UZ_COLL_OP_SCATTER, named || h.any_pull ? SCATTER_PULL : SCATTER_SHM);
    return err;
}

/* The root's arrays of a v form are there and its counts not negative:
 * else the message-passing path reports the error, before waiting for
 * anyone. */
static int root_arrays_valid(const struct uz_shm_rooted *x, int p)
{
    const struct uz_varray *c = x->counts, *d = x->displs;
    if (!uz_varray_given(*c) || !uz_varray_given(*d))
        return 0;
    for (int i = 0; i < p; i++)
        if (uz_varray_at(*c, i) < 0)
            return 0;
    return 1;
}

int uz_shm_rooted(const struct uz_shm_rooted *x, uz_comm *comm, int alg, size_t b)
{
    if (area_absent(comm))
        return UZ_SHM_DECLINED;     /* before walking the arrays: 165 of a tiny Scatterv root's instructions */
    int me = comm->rank, p = comm->size, at_root = me == x->root;
    int t = x->to_root ? uz_config.coll_gather : uz_config.coll_scatter;
    int shm = x->to_root ? GATHER_SHM : SCATTER_SHM;
    if (p < 2 || (x->mine == MPI_IN_PLACE && !at_root))
        return UZ_SHM_DECLINED;     /* the message-passing path reports the error */
    long max;
    if (x->counts && !x->to_root && comm->coll && comm->coll->shm_state > 0 && (max = bare_max()) >= 0) {
        /* Scatterv's tiny blocks go by message whichever way the root
         * decides (bare through linear's messages or scatterv_bare(),
         * behind a head when other blocks use the area), so a rank whose
         * block is tiny and a root whose blocks all are skip the policy
         * and the area's preamble (np 2, 8 bytes, with scatterv_bare()'s
         * direct sends: 0.072 us a call against 0.083, best of 7 runs
         * side by side).  Only once the area exists: its setup is collective,
         * and a first call must not leave some ranks out of it.  A rank's
         * block must also fit a slot: a root that declines the area (no
         * cross-memory attach) sends it as it is, and scatterv_tiny()
         * receives at most a slot. */
        if (!at_root) {
            MPI_Count have = x->mine_count * x->mine_dt->size;
            if (have <= max)
                return scatterv_tiny(comm->coll->shm, x, comm, (size_t)have);
        } else if (scatterv_all_bare(x, me, p, max)) {
            return scatterv_bare(x, comm);
        }
    }
    if (x->counts) {
        if (at_root && !root_arrays_valid(x, p))
            return UZ_SHM_DECLINED; /* found before anything, as message passing finds it */
        /* Whether every rank can read every other's memory matters only
         * with a core per rank (and is the same on every rank). */
        int over = uz_coll_host_oversubscribed();
        if (!uz_coll_shm_rooted_v(x->to_root ? UZ_COLL_OP_GATHER : UZ_COLL_OP_SCATTER, over,
                                  !over && can_read_all(comm)) ||
            !plan_fits(p))
            return UZ_SHM_DECLINED;
        alg = -1;
    }
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    if (alg == shm || (alg >= 0 && !plan_fits(p)))
        return rooted_area_fixed(sh, x, b);
    if (alg == GATHER_PULL && x->to_root)
        return gather_root_pulls(sh, x, comm, b);
    if (alg < 0 && x->to_root && t != shm && can_read_all(comm))
        return gatherv_cards(sh, x, comm);
    if (alg < 0 && !x->to_root)
        return scatterv_heads(sh, x, comm);
    return rooted_planned(sh, x, comm, alg);
}
