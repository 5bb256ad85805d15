/*
 * target.h — where an operation's bytes land: a target's memory as the
 * origin reaches it (mapped here, or by cross-memory attach), checked
 * against the epoch and the window's bounds, and the moves the origin makes
 * into and out of it, reading the target's datatype as it goes.
 */
#ifndef UZ_RMA_TARGET_H
#define UZ_RMA_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "coll/op_kernels.h"
#include "rma/rma.h"

struct uz_rma_target {
    uz_win *win;
    int rank;                   /* window rank */
    int none;                   /* nothing to do (MPI_PROC_NULL, no data) */
    int am;                     /* reached by messages (rma_am.h), not by the origin itself */
    char *mapped;               /* the target buffer as mapped here, or NULL */
    uintptr_t remote;           /* else its address in the target process */
    int world;
    MPI_Count count;
    uz_datatype *type;
    size_t bytes;               /* count * type->size */
};

/* Resolve (target, disp, count, type) for an operation of `fn` moving
 * `origin_bytes` of data: rank, epoch, signature and range checks. */
int uz_rma_target(uz_win *w, int target, MPI_Aint disp, MPI_Count count, uz_datatype *type,
                  MPI_Count origin_bytes, const char *fn, struct uz_rma_target *t);

/* The same for a request this rank serves for an origin that reaches it
 * by messages (rma_am.c): its own memory, the origin having checked the
 * epoch; no window state is touched, since a progress thread may serve
 * while the program uses the window. */
int uz_rma_target_served(uz_win *w, MPI_Aint disp, MPI_Count count, uz_datatype *type, struct uz_rma_target *t);

/* The common case in line: `bytes` in one run starting `lo` bytes past
 * displacement `disp` of a target whose memory is mapped here, inside an
 * epoch that allows access and inside the window.  Where the run lands, or
 * NULL for the general path (uz_rma_target), which names every error. */
static inline char *uz_rma_mapped_run(const uz_win *w, int target, MPI_Aint disp, MPI_Aint lo, MPI_Count bytes)
{
    if ((unsigned)target >= (unsigned)w->size || !uz_rma_may_access(w, target))
        return NULL;
    const struct uz_rma_peer *p = &w->peers[target];
    MPI_Aint off;
    if (!p->local_base || p->am || disp < 0 || __builtin_mul_overflow(disp, p->disp_unit, &off))
        return NULL;
    off += lo;
    if (off < 0 || off > p->size || bytes > p->size - off)
        return NULL;
    return p->local_base + off;
}

/* Put (obuf, ocount, otype) into the target (is_put) or get it from there. */
int uz_rma_move(const struct uz_rma_target *t, void *obuf, MPI_Count ocount, uz_datatype *otype, int is_put);

/* With the target's accumulate lock held: copy its packed elements to
 * `old` (when not NULL), then combine `in` (when not NULL) into them with
 * kern, element by element (esz bytes each). */
int uz_rma_combine(const struct uz_rma_target *t, const void *in, void *old, uz_op_kernel kern, size_t esz);

/* With the target's accumulate lock held: result = target; target = origin
 * where it equalled compare.  One element of `size` bytes. */
int uz_rma_swap(const struct uz_rma_target *t, const void *origin, const void *compare, void *result,
                size_t size);

#endif /* UZ_RMA_TARGET_H */
