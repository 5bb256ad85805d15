/*
 * coll_shm_scan.c — MPI_Scan and MPI_Exscan through the communicator's
 * shared area (coll_shm.c explains the area, coll_shm_area.h its steps).
 *
 * A chain in the area, one operation per slot-sized piece of the vector:
 * rank i writes its input into its slot, waits for rank i - 1 to post the
 * same operation, combines slot i - 1 into its own slot (which then holds
 * the prefix of ranks 0..i: slot i-1 op mine, rank order kept for
 * operations that do not commute), posts it, and only then copies its
 * result out: Exscan's is slot i - 1, Scan's its own slot.  The highest
 * rank writes no slot (nobody reads it): its Scan result is its input
 * with slot p - 2 combined in.  Rank 0 waits for nobody.  Successive
 * pieces go through successive operations of the lane, so rank i works on
 * piece k + 1 while rank i + 1 combines piece k.
 *
 * Why: the message-passing chain waits p - 1 times in a row, each hop a
 * rendezvous, and with ranks sharing a core every hop is a trip through
 * the scheduler; here a rank waits only for a word in shared memory, and
 * each piece costs every rank two copies and one combining.  The design
 * before this one had every rank combine the raw inputs of all ranks
 * below it (no waiting in a chain, but rank i combined i vectors): on 2
 * cores, medians of 5-7 runs side by side, np 4 Exscan 32 KiB 10.3 us
 * against 6.8 now, 2 MiB 511 against 452, Scan 2 MiB 723 against 556;
 * np 8 Exscan 256 KiB 182 against 118, Scan 2 MiB 2574 against 2071,
 * where the earlier design had lost to the message-passing chain from 128
 * KiB (docs/performance.md, issue 27, twelfth step).
 *
 * Slots hold the reduction's working form (reducer.h): packed basic
 * elements for predefined operations; for user operations the user's own
 * layout (each piece the bytes its elements span, holes included), so the
 * user function is called on the slots with the user's datatype, as it is
 * on message-passing scratch.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/algo.h"
#include "coll/coll_shm.h"
#include "coll/coll_shm_area.h"
#include "coll/reducer.h"

/* One call's fixed facts. */
struct scan_call {
    const struct uz_reducer *r;
    const void *in;             /* this rank's input: sendbuf, or recvbuf in place */
    void *recvbuf;
    MPI_Count count;
    uz_datatype *dt;
    int in_place, exclusive;
    /* Packed form: the result goes straight into recvbuf when it is
     * contiguous, else through `stage` (a piece) and is unpacked. */
    int direct;
    unsigned char *stage;
};

/* Bytes that nu units take in a slot: packed elements, or the span of the
 * user's layout. */
static size_t piece_bytes(const struct uz_reducer *r, MPI_Count nu)
{
    return r->packed ? (size_t)(nu * r->stride) : uz_reducer_span(r, nu);
}

/* This rank's input units [u0, u0 + nu) into its slot. */
static void put_piece(const struct scan_call *c, MPI_Count u0, MPI_Count nu, unsigned char *slot)
{
    const struct uz_reducer *r = c->r;
    if (r->packed)
        pack_range(c->in, c->count, c->dt, (size_t)(u0 * r->stride), (size_t)(nu * r->stride), slot);
    else
        memcpy(slot, (const char *)c->in + r->lb + u0 * r->stride, uz_reducer_span(r, nu));
}

/* Where this rank's result for units [u0, ...) is built, in the working
 * form: for the typed form the base address that reducer.h's helpers take
 * (unit 0 at it, its first byte lb further on). */
static void *result_at(const struct scan_call *c, MPI_Count u0)
{
    const struct uz_reducer *r = c->r;
    if (!r->packed)
        return (char *)c->recvbuf + u0 * r->stride;
    if (c->direct)
        return (char *)c->recvbuf + c->dt->true_lb + u0 * r->stride;
    return c->stage;
}

/* A slot as the first operand of uz_reducer_apply. */
static const void *slot_operand(const struct uz_reducer *r, const unsigned char *slot)
{
    return r->packed ? (const void *)slot : (const void *)(slot - r->lb);
}

/* The result's starting value: units [u0, u0 + nu) of slot `from`, or
 * of this rank's own input when `from` is NULL (taken from the input, not
 * the slot: the highest rank writes no slot). */
static void start_result(const struct scan_call *c, MPI_Count u0, MPI_Count nu, const unsigned char *from, void *res)
{
    const struct uz_reducer *r = c->r;
    if (from && r->packed)
        memcpy(res, from, (size_t)(nu * r->stride));
    else if (from)
        uz_coll_local_copy(slot_operand(r, from), nu, c->dt, res, nu, c->dt);
    else if (r->packed && !(c->in_place && c->direct))
        pack_range(c->in, c->count, c->dt, (size_t)(u0 * r->stride), (size_t)(nu * r->stride), res);
    else if (!r->packed && !c->in_place)
        uz_coll_local_copy((const char *)c->in + u0 * r->stride, nu, c->dt, res, nu, c->dt);
}

/* The packed result of a piece, when it was built in the stage. */
static void finish_piece(const struct scan_call *c, MPI_Count u0, MPI_Count nu)
{
    const struct uz_reducer *r = c->r;
    if (r->packed && !c->direct)
        unpack_range(c->recvbuf, c->count, c->dt, (size_t)(u0 * r->stride), (size_t)(nu * r->stride), c->stage);
}

/* This rank's slot of operation k is complete: tell the ranks above. */
static void post(struct uz_coll_shm *sh, struct lane *L, uint64_t k)
{
    publish_word(&L->done[sh->me].posted, k);
    wake_sleepers(sh);
}

/* One piece, units [u0, u0 + nu), through one operation of lane L: rank
 * i's slot ends up holding the inclusive prefix of ranks 0..i, made from
 * its own input and the slot below, and posted before this rank copies its
 * result out, so that the rank above starts combining meanwhile. */
static void scan_piece(struct uz_coll_shm *sh, struct lane *L, const struct scan_call *c, MPI_Count u0,
                        MPI_Count nu)
{
    const struct uz_reducer *r = c->r;
    int me = sh->me, last = sh->p - 1;
    uint64_t k = op_begin(sh, L);
    unsigned char *mine = me < last ? slot_of(sh, L, k, me) : NULL;
    if (mine)
        put_piece(c, u0, nu, mine);
    const unsigned char *below = NULL;
    if (me > 0) {
        wait_for(sh, &L->done[me - 1].posted, k);
        below = slot_of(sh, L, k, me - 1);
        if (mine)
            uz_reducer_apply(r, slot_operand(r, below), (void *)slot_operand(r, mine), nu);
    }
    if (mine)
        post(sh, L, k);
    if (c->recvbuf && !(c->exclusive && me == 0)) {
        void *res = result_at(c, u0);
        if (c->exclusive) {
            start_result(c, u0, nu, below, res);
        } else if (mine) {
            start_result(c, u0, nu, mine, res);
        } else {
            start_result(c, u0, nu, NULL, res);
            if (below)
                uz_reducer_apply(r, slot_operand(r, below), res, nu);
        }
        finish_piece(c, u0, nu);
    }
    op_end(sh, L, k);
}

int uz_shm_scan(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, uz_comm *comm,
                int want, int exclusive)
{
    size_t n = (size_t)(count * dt->size);
    struct uz_coll_situation sit = uz_coll_situation(UZ_COLL_OP_SCAN, comm, n);
    if (!uz_coll_shm_wanted(&sit, want) || n == 0)
        return UZ_SHM_DECLINED;
    struct uz_reducer r;
    if (uz_reducer_init(&r, op, dt, 0) != MPI_SUCCESS)
        return UZ_SHM_DECLINED;         /* the message-passing path reports the error */
    if (!r.packed && (r.stride <= 0 || r.span1 <= 0))
        return UZ_SHM_DECLINED;         /* units that overlap or run backwards */
    if (sendbuf == recvbuf && sendbuf != NULL)
        return UZ_SHM_DECLINED;         /* aliased buffers: reported there too */
    struct uz_coll_shm *sh = shm_of(comm);
    if (!sh)
        return UZ_SHM_DECLINED;
    MPI_Count units = uz_reducer_units(&r, count);
    struct lane *L = lane_for(sh, piece_bytes(&r, units));
    /* Units per piece: as many as a slot holds (the same on every rank,
     * since the datatype and operation are). */
    MPI_Count per = r.packed ? (MPI_Count)(L->slot / (size_t)r.stride)
                  : (size_t)r.span1 > L->slot ? 0 : (MPI_Count)((L->slot - (size_t)r.span1) / (size_t)r.stride) + 1;
    if (per == 0)
        return UZ_SHM_DECLINED;
    struct scan_call c = { .r = &r, .in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, .recvbuf = recvbuf,
                           .count = count, .dt = dt, .in_place = sendbuf == MPI_IN_PLACE, .exclusive = exclusive,
                           .direct = uz_dt_is_contig(dt, count) };
    int err = MPI_SUCCESS;
    size_t stage_bytes = (size_t)((units < per ? units : per) * r.stride);
    if (r.packed && !c.direct) {
        c.stage = malloc(stage_bytes);
        /* Out of memory: still take part (the others wait for this
         * rank's pieces), leaving recvbuf alone, and report it. */
        if (!c.stage) {
            err = uz_err_make(MPI_ERR_NO_MEM, "%s: out of memory staging %zu bytes",
                              exclusive ? "MPI_Exscan" : "MPI_Scan", stage_bytes);
            c.recvbuf = NULL;
        }
    }
    for (MPI_Count u0 = 0; u0 < units; u0 += per) {
        MPI_Count nu = units - u0 < per ? units - u0 : per;
        scan_piece(sh, L, &c, u0, nu);
    }
    free(c.stage);
    return err;
}
