/*
 * dt_create.c — the internal constructors every public one is made of:
 * a type from pieces (dt_layout.h), hvector, resized; and the recorded
 * constructor arguments that MPI_Type_get_contents returns.
 *
 * Bounds follow the standard's type-map rules.  Without explicit markers
 * lb and ub are the lowest and highest bytes any copy of the old types
 * spans (their own lb/ub at each displacement), and the extent is padded up
 * to the largest alignment of the basic types inside (the "epsilon" of the
 * standard).  Explicit markers are sticky, each side on its own (the MPI-1
 * rule): once any piece has a lower-bound marker only those markers decide
 * lb, and once any has an upper-bound marker only those decide ub, with no
 * padding.  MPI_Type_create_resized sets both markers; the MPI-1 marker
 * types MPI_LB and MPI_UB set one each and have no other bound.  Pieces
 * with no copies (count or blocklength 0) take no part.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

static uz_datatype *dt_alloc(void)
{
    uz_datatype *dt = uz_object_alloc(sizeof(*dt));
    if (dt != NULL) {
        uz_object_init(&dt->obj, UZ_MAGIC_DATATYPE);
        dt->basic_kind = UZ_BASIC_NONE;
    }
    return dt;
}

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a datatype");
}

static int too_large(void)
{
    return uz_err_make(MPI_ERR_ARG, "the datatype would span more bytes than MPI_Aint can hold");
}

/* Set the run flags from the layout (see datatype.h). */
static void set_run_flags(uz_datatype *dt)
{
    const struct uz_dl_node *root = uz_dl_root(dt->layout);
    if (dt->size == 0) {
        dt->single_run = dt->contiguous = 1;
        return;
    }
    const struct uz_dl_item *it = &uz_dl_items(dt->layout)[root->item];
    dt->single_run = root->nitems == 1 && (it->child & UZ_DL_LEAF) && it->count == 1;
    dt->contiguous = dt->single_run && dt->size == dt->extent;
}

struct bounds {
    int has_lb, has_ub, has_slb, has_sub, data;
    MPI_Aint lb, ub;            /* over pieces without markers */
    MPI_Aint slb, sub;          /* over the markers */
    MPI_Aint tlb, tub;          /* true bounds */
};

static int mul(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

/* Span of positions disp + k*stride + j*ext, k < count, j < blocklen. */
static int piece_span(const struct uz_dl_piece *p, int64_t *lo, int64_t *hi)
{
    int64_t a, b;
    if (mul((int64_t)p->count - 1, p->stride, &a) || mul((int64_t)p->blocklen - 1, p->type->extent, &b))
        return 0;
    *lo = p->disp + (a < 0 ? a : 0) + (b < 0 ? b : 0);
    *hi = p->disp + (a > 0 ? a : 0) + (b > 0 ? b : 0);
    return 1;
}

static void bounds_add(struct bounds *bd, const uz_datatype *t, int64_t lo, int64_t hi)
{
    MPI_Aint lb = lo + t->lb, ub = hi + t->lb + t->extent;
    int marker_only = t->sticky & UZ_DT_MARKER;
    if (t->sticky & UZ_DT_STICKY_LB) {
        bd->slb = bd->has_slb && bd->slb < lb ? bd->slb : lb;
        bd->has_slb = 1;
    } else if (!marker_only) {
        bd->lb = bd->has_lb && bd->lb < lb ? bd->lb : lb;
        bd->has_lb = 1;
    }
    if (t->sticky & UZ_DT_STICKY_UB) {
        bd->sub = bd->has_sub && bd->sub > ub ? bd->sub : ub;
        bd->has_sub = 1;
    } else if (!marker_only) {
        bd->ub = bd->has_ub && bd->ub > ub ? bd->ub : ub;
        bd->has_ub = 1;
    }
    if (t->size > 0) {
        MPI_Aint tlb = lo + t->true_lb, tub = hi + t->true_lb + t->true_extent;
        bd->tlb = bd->data && bd->tlb < tlb ? bd->tlb : tlb;
        bd->tub = bd->data && bd->tub > tub ? bd->tub : tub;
        bd->data = 1;
    }
}

/* lb and extent from the pieces' bounds.  A side with neither markers nor
 * data (a struct of one MPI_UB) takes the other side's value. */
static void set_bounds(uz_datatype *dt, const struct bounds *bd, int align)
{
    int has_lb = bd->has_slb || bd->has_lb, has_ub = bd->has_sub || bd->has_ub;
    if (!has_lb && !has_ub)
        return;
    MPI_Aint lb = bd->has_slb ? bd->slb : bd->lb, ub = bd->has_sub ? bd->sub : bd->ub;
    if (!has_lb)
        lb = ub;
    if (!has_ub)
        ub = lb;
    dt->lb = lb;
    dt->extent = ub - lb;
    if (!bd->has_sub && dt->extent % align)
        dt->extent += align - dt->extent % align;
    dt->sticky = (bd->has_slb ? UZ_DT_STICKY_LB : 0) | (bd->has_sub ? UZ_DT_STICKY_UB : 0);
}

int uz_dt_create_pieces(const struct uz_dl_piece *pieces, size_t npieces, uz_datatype **out)
{
    struct bounds bd = { 0 };
    int64_t size = 0;
    int align = 1, mixed = 0, first = 1;
    const uz_datatype *basic = NULL;
    for (size_t i = 0; i < npieces; i++) {
        const struct uz_dl_piece *p = &pieces[i];
        if (p->count == 0 || p->blocklen == 0)
            continue;
        int64_t lo, hi, n, bytes;
        if (!piece_span(p, &lo, &hi) || mul((int64_t)p->count, (int64_t)p->blocklen, &n) ||
            mul(n, p->type->size, &bytes) || __builtin_add_overflow(size, bytes, &size))
            return too_large();
        bounds_add(&bd, p->type, lo, hi);
        if (p->type->align > align)
            align = p->type->align;
        if (p->type->size > 0) {
            if (first)
                basic = p->type->basic;
            else if (basic != p->type->basic)
                mixed = 1;
            first = 0;
        }
    }
    uz_datatype *dt = dt_alloc();
    if (dt == NULL)
        return no_mem();
    dt->layout = uz_dl_build(pieces, npieces);
    if (dt->layout == NULL) {
        uz_object_free(dt, sizeof(*dt));
        return no_mem();
    }
    dt->size = size;
    set_bounds(dt, &bd, align);
    if (bd.data) {
        dt->true_lb = bd.tlb;
        dt->true_extent = bd.tub - bd.tlb;
    }
    dt->align = align;
    dt->basic = mixed ? NULL : basic;
    dt->basic_kind = dt->basic ? dt->basic->basic_kind : UZ_BASIC_NONE;
    set_run_flags(dt);
    *out = dt;
    return MPI_SUCCESS;
}

int uz_dt_create_hvector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride,
                         const uz_datatype *old, uz_datatype **out)
{
    struct uz_dl_piece p = { 0, stride, (uint64_t)count, (uint64_t)blocklen, old };
    return uz_dt_create_pieces(&p, 1, out);
}

int uz_dt_create_resized(const uz_datatype *old, MPI_Aint lb, MPI_Aint extent,
                         uz_datatype **out)
{
    uz_datatype *dt = dt_alloc();
    if (dt == NULL)
        return no_mem();
    dt->layout = uz_dl_copy(old->layout);
    if (dt->layout == NULL) {
        uz_object_free(dt, sizeof(*dt));
        return no_mem();
    }
    dt->size = old->size;
    dt->lb = lb;
    dt->extent = extent;
    dt->sticky = UZ_DT_STICKY_LB | UZ_DT_STICKY_UB;
    dt->true_lb = old->true_lb;
    dt->true_extent = old->true_extent;
    dt->align = old->align;
    dt->basic = old->basic;
    dt->basic_kind = old->basic_kind;
    set_run_flags(dt);
    *out = dt;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ contents */

int uz_dt_set_contents(uz_datatype *dt, int combiner, MPI_Count ni, const int *ints,
                       MPI_Count na, const MPI_Aint *addrs, MPI_Count nl,
                       const MPI_Count *counts, MPI_Count nd, uz_datatype *const *types)
{
    size_t bytes = sizeof(struct uz_dt_contents) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)nl * sizeof(MPI_Count) + (size_t)nd * sizeof(uz_datatype *) +
                   (size_t)ni * sizeof(int);
    struct uz_dt_contents *c = malloc(bytes);
    if (c == NULL)
        return no_mem();
    c->combiner = combiner;
    c->ni = ni;
    c->na = na;
    c->nl = nl;
    c->nd = nd;
    /* One block: the 8-byte arrays first, the ints last. */
    c->addrs = (MPI_Aint *)(c + 1);
    c->counts = (MPI_Count *)(c->addrs + na);
    c->types = (uz_datatype **)(c->counts + nl);
    c->ints = (int *)(c->types + nd);
    if (ni)
        memcpy(c->ints, ints, (size_t)ni * sizeof(int));
    if (na)
        memcpy(c->addrs, addrs, (size_t)na * sizeof(MPI_Aint));
    if (nl)
        memcpy(c->counts, counts, (size_t)nl * sizeof(MPI_Count));
    for (MPI_Count i = 0; i < nd; i++) {
        c->types[i] = types[i];
        uz_dt_retain(types[i]);
    }
    dt->combiner = combiner;
    dt->contents = c;
    dt->large = nl > 0;
    return MPI_SUCCESS;
}

void uz_dt_free_contents(struct uz_dt_contents *c)
{
    if (c == NULL)
        return;
    for (MPI_Count i = 0; i < c->nd; i++)
        uz_dt_release(c->types[i]);
    free(c);
}
