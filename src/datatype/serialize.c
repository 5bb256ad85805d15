/*
 * serialize.c — a datatype as bytes that another rank of the job can turn
 * back into an equivalent committed type: what one-sided operations send
 * so that the target can interpret an origin's layout it never built (the
 * MPI_Get of UZURA §2.1, Figure 2).
 *
 * The form is a fixed header (size, bounds, the homogeneous basic type for
 * accumulate) followed by the layout block as it is, since layouts hold no
 * pointers.  Ranks of one job share an architecture, so no byte order
 * conversion is done.  The receiving side trusts nothing: the layout is
 * validated (indices in range, acyclic, sizes and bounds recomputed and
 * compared with the header) before any use, so a corrupt message is an
 * MPI_ERR_TYPE and never a wild memory access.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

#define WIRE_MAGIC 0x757a6474u  /* "uzdt" */
#define WIRE_VERSION 1u

struct dt_wire {
    uint32_t magic, version;
    int64_t size, lb, extent, true_lb, true_extent;
    int32_t basic_slot;         /* predefined slot of dt->basic, or -1 */
    int32_t align;
    uint32_t flags;             /* the UZ_DT_STICKY_* bits */
    uint32_t pad;
    uint64_t layout_bytes;
};

size_t uz_dt_serialized_size(const uz_datatype *dt)
{
    return sizeof(struct dt_wire) + dt->layout->bytes;
}

void uz_dt_serialize(const uz_datatype *dt, void *buf)
{
    struct dt_wire w = {
        .magic = WIRE_MAGIC, .version = WIRE_VERSION, .size = dt->size, .lb = dt->lb,
        .extent = dt->extent, .true_lb = dt->true_lb, .true_extent = dt->true_extent,
        .basic_slot = dt->basic ? uz_datatype_builtin_slot(dt->basic) : -1,
        .align = dt->align, .flags = (uint32_t)dt->sticky, .layout_bytes = dt->layout->bytes,
    };
    memcpy(buf, &w, sizeof(w));
    memcpy((char *)buf + sizeof(w), dt->layout, dt->layout->bytes);
}

/* ------------------------------------------------------------- validation */

struct span {
    int64_t lo, hi;             /* data bytes [lo, hi) of one instance */
};

static int add_ok(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

int uz_dl_validate(const struct uz_dt_layout *l, size_t len)
{
    if (len < sizeof(*l) || l->magic != UZ_DL_MAGIC || l->bytes != len || l->nnodes == 0 ||
        l->root >= l->nnodes || l->nnodes > len || l->nitems > len || l->nleaves > len ||
        l->nsigs > len || l->nruns > len ||
        uz_dl_bytes_for(l->nnodes, l->nitems, l->nleaves, l->nsigs, l->nruns) != len)
        return 0;
    const struct uz_dl_node *nodes = uz_dl_nodes(l);
    const struct uz_dl_item *items = uz_dl_items(l);
    const struct uz_dl_leaf *leaves = uz_dl_leaves(l);
    const struct uz_dl_sig *sigs = uz_dl_sigs(l);
    const struct uz_dl_run *runs = uz_dl_runs(l);
    for (uint32_t i = 0; i < l->nleaves; i++) {
        const struct uz_dl_leaf *lf = &leaves[i];
        if (lf->unit_len == 0 || lf->len == 0 || lf->len % lf->unit_len || lf->nsig == 0 ||
            lf->sig >= l->nsigs || lf->nsig > l->nsigs - lf->sig)
            return 0;
        uint64_t bytes = 0, elems = 0, ext32 = 0;
        for (uint32_t k = 0; k < lf->nsig; k++) {
            const struct uz_dt_basic_info *bi = uz_dt_basic_info(sigs[lf->sig + k].type);
            uint64_t n = sigs[lf->sig + k].n;
            if (bi == NULL || bi->size == 0 || n == 0 || n > lf->unit_len)
                return 0;
            bytes += n * bi->size;
            elems += n;
            ext32 += n * bi->ext32;
        }
        if (bytes != lf->unit_len || elems != lf->unit_elems || ext32 != lf->unit_ext32)
            return 0;
    }
    /* Children have larger indices than their parents (finish() numbers
     * nodes in discovery order), so walking backwards sees every child
     * before its parent and the tree cannot have cycles. */
    struct span *span = malloc(l->nnodes * sizeof(*span));
    if (span == NULL)
        return 0;
    int ok = 1;
    for (uint32_t i = l->nnodes; ok && i-- > 0;) {
        const struct uz_dl_node *n = &nodes[i];
        if (n->nitems == 0 ? i != l->root : (n->item >= l->nitems || n->nitems > l->nitems - n->item)) {
            ok = 0;
            break;
        }
        uint64_t size = 0, elems = 0, ext32 = 0;
        uint32_t depth = 1;
        struct span s = { 0, 0 };
        for (uint32_t k = 0; ok && k < n->nitems; k++) {
            const struct uz_dl_item *it = &items[n->item + k];
            uint64_t csize, celems, cext32;
            struct span cs;
            if (it->child & UZ_DL_LEAF) {
                uint32_t c = it->child & ~UZ_DL_LEAF;
                if (c >= l->nleaves) {
                    ok = 0;
                    break;
                }
                csize = leaves[c].len;
                celems = csize / leaves[c].unit_len * leaves[c].unit_elems;
                cext32 = csize / leaves[c].unit_len * leaves[c].unit_ext32;
                cs = (struct span){ 0, (int64_t)csize };
            } else {
                if (it->child <= i || it->child >= l->nnodes || nodes[it->child].size == 0) {
                    ok = 0;
                    break;
                }
                csize = nodes[it->child].size;
                celems = nodes[it->child].nelems;
                cext32 = nodes[it->child].ext32;
                cs = span[it->child];
                if (nodes[it->child].depth + 1 > depth)
                    depth = nodes[it->child].depth + 1;
            }
            int64_t reach, lo, hi;
            uint64_t isize;
            if (it->count == 0 || it->before != size ||
                __builtin_mul_overflow(it->count, csize, &isize) ||
                __builtin_add_overflow(size, isize, &size) ||
                __builtin_mul_overflow((int64_t)it->count - 1, it->stride, &reach) ||
                !add_ok(it->disp, cs.lo + (reach < 0 ? reach : 0), &lo) ||
                !add_ok(it->disp, cs.hi + (reach > 0 ? reach : 0), &hi)) {
                ok = 0;
                break;
            }
            elems += it->count * celems;
            ext32 += it->count * cext32;
            if (k == 0 || lo < s.lo)
                s.lo = lo;
            if (k == 0 || hi > s.hi)
                s.hi = hi;
        }
        if (ok && (size != n->size || elems != n->nelems || ext32 != n->ext32 ||
                   depth != n->depth || depth > UZ_DL_MAX_DEPTH - 1))
            ok = 0;
        /* The compact run list, when there is one, must say exactly what
         * the items say: the pack loop trusts it alone. */
        if (ok && n->runs != 0) {
            uint32_t r = n->runs - 1;
            if (r >= l->nruns || n->nitems > l->nruns - r)
                ok = 0;
            for (uint32_t k = 0; ok && k < n->nitems; k++) {
                const struct uz_dl_item *it = &items[n->item + k];
                if (!(it->child & UZ_DL_LEAF) || it->count != 1 || runs[r + k].disp != it->disp ||
                    runs[r + k].len != leaves[it->child & ~UZ_DL_LEAF].len)
                    ok = 0;
            }
        }
        span[i] = s;
    }
    free(span);
    return ok;
}

/* The data span of the root, recomputed (uz_dl_validate checked it). */
static void root_span(const struct uz_dt_layout *l, int64_t *lo, int64_t *hi)
{
    /* A second, cheap pass: validate() already proved the arithmetic safe. */
    const struct uz_dl_node *nodes = uz_dl_nodes(l);
    const struct uz_dl_item *items = uz_dl_items(l);
    const struct uz_dl_leaf *leaves = uz_dl_leaves(l);
    struct span *span = malloc(l->nnodes * sizeof(*span));
    *lo = *hi = 0;
    if (span == NULL)
        return;
    for (uint32_t i = l->nnodes; i-- > 0;) {
        const struct uz_dl_node *n = &nodes[i];
        struct span s = { 0, 0 };
        for (uint32_t k = 0; k < n->nitems; k++) {
            const struct uz_dl_item *it = &items[n->item + k];
            struct span cs = (it->child & UZ_DL_LEAF)
                ? (struct span){ 0, (int64_t)leaves[it->child & ~UZ_DL_LEAF].len }
                : span[it->child];
            int64_t reach = ((int64_t)it->count - 1) * it->stride;
            int64_t a = it->disp + cs.lo + (reach < 0 ? reach : 0);
            int64_t b = it->disp + cs.hi + (reach > 0 ? reach : 0);
            if (k == 0 || a < s.lo)
                s.lo = a;
            if (k == 0 || b > s.hi)
                s.hi = b;
        }
        span[i] = s;
    }
    *lo = span[l->root].lo;
    *hi = span[l->root].hi;
    free(span);
}

int uz_dt_deserialize(const void *buf, size_t len, uz_datatype **out)
{
    struct dt_wire w;
    if (len < sizeof(w))
        return uz_err_make(MPI_ERR_TYPE, "serialized datatype too short (%zu bytes)", len);
    memcpy(&w, buf, sizeof(w));
    if (w.magic != WIRE_MAGIC || w.version != WIRE_VERSION ||
        w.layout_bytes != len - sizeof(w) || w.size < 0 || w.align <= 0 ||
        w.basic_slot < -1 || w.basic_slot >= UZ_DATATYPE_TABLE_SIZE ||
        (w.basic_slot >= 0 && uz_datatype_builtin[w.basic_slot] == NULL))
        return uz_err_make(MPI_ERR_TYPE, "malformed serialized datatype header");
    struct uz_dt_layout *l = malloc(w.layout_bytes);
    if (l == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory rebuilding a datatype");
    memcpy(l, (const char *)buf + sizeof(w), w.layout_bytes);
    int64_t lo, hi;
    if (!uz_dl_validate(l, w.layout_bytes) || (int64_t)uz_dl_root(l)->size != w.size ||
        (root_span(l, &lo, &hi),
         w.size > 0 && (lo != w.true_lb || hi - lo != w.true_extent))) {
        free(l);
        return uz_err_make(MPI_ERR_TYPE, "malformed serialized datatype layout");
    }
    uz_datatype *dt = uz_object_alloc(sizeof(*dt));
    if (dt == NULL) {
        free(l);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory rebuilding a datatype");
    }
    uz_object_init(&dt->obj, UZ_MAGIC_DATATYPE);
    dt->layout = l;
    dt->size = w.size;
    dt->lb = w.lb;
    dt->extent = w.extent;
    dt->true_lb = w.true_lb;
    dt->true_extent = w.true_extent;
    dt->committed = 1;
    dt->align = w.align;
    dt->sticky = (int)(w.flags & (UZ_DT_STICKY_LB | UZ_DT_STICKY_UB | UZ_DT_MARKER));
    dt->basic = w.basic_slot >= 0 ? uz_datatype_builtin[w.basic_slot] : NULL;
    dt->basic_kind = dt->basic ? dt->basic->basic_kind : UZ_BASIC_NONE;
    dt->combiner = MPI_COMBINER_NAMED;  /* never shown to a user */
    const struct uz_dl_node *root = uz_dl_root(l);
    const struct uz_dl_item *it = &uz_dl_items(l)[root->item];
    dt->single_run = dt->size == 0 ||
                     (root->nitems == 1 && (it->child & UZ_DL_LEAF) && it->count == 1);
    dt->contiguous = dt->single_run && (dt->size == 0 || dt->size == dt->extent);
    *out = dt;
    return MPI_SUCCESS;
}
