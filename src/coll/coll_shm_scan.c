/*
 * coll_shm_scan.c — MPI_Scan and MPI_Exscan through the communicator's
 * shared area (coll_shm.c explains the area, coll_shm_area.h its steps).
 *
 * One operation per slot-sized piece of the vector: every rank but the
 * highest (whose slot nobody reads) writes its piece into its slot and
 * posts the operation's number in its own control line; rank i waits for
 * the posts of ranks 0..i-1 only, then combines slots i-1..0 (Exscan:
 * i-2..0) with its own input straight into its receive buffer, highest
 * slot first (slot j op what it has so far), which keeps rank order for
 * operations that do not commute.  Rank 0 waits for nobody.
 *
 * Why: the chain it replaces waits p - 1 times in a row, each rank for the
 * one below to finish, and with ranks sharing a core every hop of the
 * chain's rendezvous is a trip through the scheduler (np 4 on 2 cores,
 * 32 KiB: the chain 17-36 us, Open MPI 18, this 10.5).  Here no rank waits
 * for another to finish, only for the ranks below it to have written.  The
 * price is work: rank i combines i vectors where the chain combines one,
 * so the policy (coll_policy.c) takes this path only where it measured
 * faster.  Sharing the combining instead (each rank turning its share of
 * elements of all slots into prefixes, then a second meeting) measured no
 * faster at np 4 or 8 on 2 cores, and was dropped.
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

/* One piece: units [u0, u0 + nu) through one operation of lane L. */
static void scan_piece(struct uz_coll_shm *sh, struct lane *L, const struct scan_call *c, MPI_Count u0,
                       MPI_Count nu)
{
    int me = sh->me;
    uint64_t k = op_begin(sh, L);
    /* Nobody reads the highest rank's slot. */
    if (me < sh->p - 1) {
        put_piece(c, u0, nu, slot_of(sh, L, k, me));
        post(sh, L, k);
    }
    /* Exscan's rank 0 gets nothing, and its buffer stays as it was. */
    if (!c->recvbuf || (c->exclusive && me == 0)) {
        op_end(sh, L, k);
        return;
    }
    int top = c->exclusive ? me - 1 : me;
    for (int j = top; j >= 0; j--)
        if (j != me)
            wait_for(sh, &L->done[j].posted, k);
    void *res = result_at(c, u0);
    start_result(c, u0, nu, top == me ? NULL : slot_of(sh, L, k, top), res);
    for (int j = top - 1; j >= 0; j--)
        uz_reducer_apply(c->r, slot_operand(c->r, slot_of(sh, L, k, j)), res, nu);
    finish_piece(c, u0, nu);
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
