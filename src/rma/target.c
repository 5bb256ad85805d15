/*
 * target.c — reaching a target's memory and moving bytes there (target.h).
 *
 * Mapped memory (the host segment of the allocate flavours, and this
 * rank's own memory) is written with the datatype engine directly: the
 * origin's stream is unpacked into the target's layout or packed out of it,
 * with a bounce buffer only when both sides are non-contiguous.  Memory of
 * another process (MPI_Win_create, attached regions) is reached by
 * cross-memory attach through the request layer (uz_path_put/get): the
 * target's datatype, flattened at the target's addresses, becomes the
 * remote run list, so a strided target costs one system call per 512 runs
 * and never a packing step at the target.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "pt2pt/path.h"
#include "rma/target.h"

enum { RUNS = 512 };            /* remote runs per system call */

/* ------------------------------------------------------------- the range */

/* Bytes [lo, hi) relative to the target address that (count, type) touch. */
static void footprint(MPI_Count count, const uz_datatype *type, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint first_lo = type->true_lb, first_hi = type->true_lb + type->true_extent;
    MPI_Aint last = (MPI_Aint)(count - 1) * type->extent;
    *lo = first_lo < first_lo + last ? first_lo : first_lo + last;
    *hi = first_hi > first_hi + last ? first_hi : first_hi + last;
}

static int cma_read(int world, void *dst, uintptr_t src, size_t len)
{
    struct iovec l = { dst, len }, r = { (void *)src, len };
    int rc = uz_path_get(world, &l, 1, &r, 1, NULL);
    return rc == -ENOTSUP ? MPI_ERR_UNSUPPORTED_OPERATION : rc;
}

/* Dynamic windows: is [lo, hi) inside one region the target attached? */
static int attached(uz_win *w, int target, uintptr_t lo, uintptr_t hi, const char *fn)
{
    struct uz_rma_regions own, *g = w->regions;
    if (target != w->rank) {
        /* Read the target's list where it published it: the count, then
         * the regions in use. */
        unsigned n = 0;
        int err = cma_read(w->peers[target].world, &n, w->peers[target].regions, sizeof(n));
        if (!err && n > UZ_RMA_MAX_REGIONS)
            n = UZ_RMA_MAX_REGIONS;
        if (!err && n)
            err = cma_read(w->peers[target].world, own.r,
                           w->peers[target].regions + offsetof(struct uz_rma_regions, r), sizeof(own.r[0]) * n);
        if (err)
            return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "the attached regions of window rank %d cannot "
                               "be read without cross-memory attach, which is not usable here", target);
        atomic_init(&own.count, n);
        g = &own;
    }
    unsigned n = atomic_load_explicit(&g->count, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        if (lo >= g->r[i].base && hi <= g->r[i].base + (uintptr_t)g->r[i].size)
            return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_RMA_RANGE, "bytes %#lx to %#lx at window rank %d are not inside a region it "
                       "attached", (unsigned long)lo, (unsigned long)hi, target);
}

static inline int resolve(uz_win *w, int target, MPI_Aint disp, MPI_Count count, uz_datatype *type,
                          MPI_Count origin_bytes, const char *fn, struct uz_rma_target *t, int check_epoch)
{
    t->none = 1;
    t->am = 0;
    t->mapped = NULL;
    if (UZ_UNLIKELY(target < 0 || target >= w->size)) {
        if (target == MPI_PROC_NULL)
            return MPI_SUCCESS;
        return uz_err_make(MPI_ERR_RANK, "invalid target_rank %d (the window has %d ranks)", target,
                           w->size);
    }
    int err;
    if (check_epoch && UZ_UNLIKELY(!uz_rma_may_access(w, target)) && (err = uz_rma_check_access(w, target, fn)))
        return err;
    MPI_Count bytes = count * type->size;
    if (UZ_UNLIKELY(bytes != origin_bytes))
        return uz_err_make(MPI_ERR_TYPE, "the origin gives %lld bytes for %lld of the target",
                           (long long)origin_bytes, (long long)bytes);
    if (UZ_UNLIKELY(disp < 0) && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return uz_err_make(MPI_ERR_DISP, "target_disp %ld is negative", (long)disp);
    if (bytes == 0)
        return MPI_SUCCESS;
    const struct uz_rma_peer *p = &w->peers[target];
    t->win = w;
    t->rank = target;
    t->count = count;
    t->type = type;
    t->bytes = (size_t)bytes;
    t->world = p->world;
    MPI_Aint lo, hi;
    footprint(count, type, &lo, &hi);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* Where the target is reached by messages it checks the range
         * itself: its list of regions is out of our reach. */
        uintptr_t a = (uintptr_t)disp;
        if (!p->am && (err = attached(w, target, a + (uintptr_t)lo, a + (uintptr_t)hi, fn)))
            return err;
        if (target == w->rank)
            t->mapped = (char *)a;
        t->remote = a;
    } else {
        MPI_Aint off = disp * p->disp_unit;
        if (UZ_UNLIKELY(off + lo < 0 || off + hi > p->size))
            return uz_err_make(MPI_ERR_RMA_RANGE, "bytes %ld to %ld of window rank %d are outside its %ld "
                               "bytes", (long)(off + lo), (long)(off + hi), target, (long)p->size);
        if (p->local_base)
            t->mapped = p->local_base + off;
        t->remote = p->base + (uintptr_t)off;
    }
    t->am = p->am;
    t->none = 0;
    return MPI_SUCCESS;
}

int uz_rma_target(uz_win *w, int target, MPI_Aint disp, MPI_Count count, uz_datatype *type,
                  MPI_Count origin_bytes, const char *fn, struct uz_rma_target *t)
{
    return resolve(w, target, disp, count, type, origin_bytes, fn, t, 1);
}

int uz_rma_target_served(uz_win *w, MPI_Aint disp, MPI_Count count, uz_datatype *type, struct uz_rma_target *t)
{
    return resolve(w, w->rank, disp, count, type, count * type->size, "one-sided request", t, 0);
}

/* ------------------------------------------------------------- the moves */

/* Copy the contiguous `buf` to (put) or from the target's runs, by
 * cross-memory attach. */
static int cma_runs(const struct uz_rma_target *t, char *buf, int is_put)
{
    struct uz_dt_cursor c;
    struct iovec riov[RUNS];
    size_t done = 0, got;
    int n;
    uz_dt_cursor_init(&c, (void *)t->remote, t->count, t->type);
    while ((n = uz_dt_cursor_iov(&c, riov, RUNS, SIZE_MAX, &got)) > 0) {
        struct iovec l = { buf + done, got };
        int rc = is_put ? uz_path_put(t->world, &l, 1, riov, n, NULL) : uz_path_get(t->world, &l, 1, riov, n, NULL);
        if (rc == -ENOTSUP)
            return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "one-sided access to the memory of window rank %d "
                               "needs cross-memory attach, which is not usable here (UZURA_SHM_CMA)", t->rank);
        if (rc)
            return rc;
        done += got;
    }
    return MPI_SUCCESS;
}

int uz_rma_move(const struct uz_rma_target *t, void *obuf, MPI_Count ocount, uz_datatype *otype, int is_put)
{
    int ocontig = uz_dt_is_contig(otype, ocount), tcontig = uz_dt_is_contig(t->type, t->count);
    char *olin = (char *)obuf + otype->true_lb;
    if (t->mapped) {
        char *tlin = t->mapped + t->type->true_lb;
        if (ocontig && tcontig) {
            if (is_put)
                memmove(tlin, olin, t->bytes);
            else
                memmove(olin, tlin, t->bytes);
        } else if (ocontig) {
            if (is_put)
                uz_dt_unpack(t->mapped, t->count, t->type, olin, t->bytes);
            else
                uz_dt_pack(t->mapped, t->count, t->type, olin);
        } else if (tcontig) {
            if (is_put)
                uz_dt_pack(obuf, ocount, otype, tlin);
            else
                uz_dt_unpack(obuf, ocount, otype, tlin, t->bytes);
        } else {
            char *tmp = malloc(t->bytes);
            if (!tmp)
                return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided transfer");
            if (is_put) {
                uz_dt_pack(obuf, ocount, otype, tmp);
                uz_dt_unpack(t->mapped, t->count, t->type, tmp, t->bytes);
            } else {
                uz_dt_pack(t->mapped, t->count, t->type, tmp);
                uz_dt_unpack(obuf, ocount, otype, tmp, t->bytes);
            }
            free(tmp);
        }
        return MPI_SUCCESS;
    }
    if (ocontig)
        return cma_runs(t, olin, is_put);
    char *tmp = malloc(t->bytes);
    if (!tmp)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided transfer");
    if (is_put)
        uz_dt_pack(obuf, ocount, otype, tmp);
    int err = cma_runs(t, tmp, is_put);
    if (!err && !is_put)
        uz_dt_unpack(obuf, ocount, otype, tmp, t->bytes);
    free(tmp);
    return err;
}

int uz_rma_combine(const struct uz_rma_target *t, const void *in, void *old, uz_op_kernel kern, size_t esz)
{
    if (t->mapped && uz_dt_is_contig(t->type, t->count)) {
        /* One run (a predefined type, say): no cursor. */
        char *where = t->mapped + t->type->true_lb;
        if (old)
            memcpy(old, where, t->bytes);
        if (in)
            kern(in, where, t->bytes / esz);
        return MPI_SUCCESS;
    }
    if (t->mapped) {
        struct uz_dt_cursor c;
        struct iovec iov[64];
        size_t done = 0, got;
        int k;
        uz_dt_cursor_init(&c, t->mapped, t->count, t->type);
        while ((k = uz_dt_cursor_iov(&c, iov, 64, SIZE_MAX, &got)) > 0) {
            for (int i = 0; i < k; i++) {
                if (old)
                    memcpy((char *)old + done, iov[i].iov_base, iov[i].iov_len);
                if (in)
                    kern((const char *)in + done, iov[i].iov_base, iov[i].iov_len / esz);
                done += iov[i].iov_len;
            }
        }
        return MPI_SUCCESS;
    }
    char *tmp = malloc(t->bytes);
    if (!tmp)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a one-sided accumulate");
    int err = cma_runs(t, tmp, 0);
    if (!err && old)
        memcpy(old, tmp, t->bytes);
    if (!err && in) {
        kern(in, tmp, t->bytes / esz);
        err = cma_runs(t, tmp, 1);
    }
    free(tmp);
    return err;
}

int uz_rma_swap(const struct uz_rma_target *t, const void *origin, const void *compare, void *result,
                size_t size)
{
    char cur[64];
    if (size > sizeof(cur))
        return uz_err_make(MPI_ERR_TYPE, "MPI_Compare_and_swap: elements of %zu bytes are too large", size);
    char *where = t->mapped ? t->mapped + t->type->true_lb : NULL;
    int err = MPI_SUCCESS;
    if (where)
        memcpy(cur, where, size);
    else if ((err = cma_runs(t, cur, 0)))
        return err;
    memcpy(result, cur, size);
    if (memcmp(cur, compare, size) == 0) {
        if (where)
            memcpy(where, origin, size);
        else
            err = cma_runs(t, (char *)origin, 1);
    }
    return err;
}
