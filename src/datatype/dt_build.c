/*
 * dt_build.c — building flattened layouts (dt_layout.h) from the layouts of
 * the types a constructor combines.
 *
 * A builder collects nodes, items, leaves and signature entries in growable
 * arrays: the layouts of the old types are copied in (once per distinct
 * type), the new root node is made from one item per piece, and a final
 * pass copies what the root can reach into one compact block.  Everything
 * that keeps the cursor fast happens here, once per type: see normalise()
 * and simplify_item().
 */
#include <stdlib.h>
#include <string.h>

#include "datatype/dt_layout.h"

/* Merged leaves keep a signature of at most this many entries; beyond it
 * runs stay separate (copying two runs costs little, and Get_elements and
 * external32 stay exact). */
enum { SIG_MERGE_LIMIT = 16 };

struct dlb {
    struct uz_dl_node *nodes;
    struct uz_dl_item *items;
    struct uz_dl_leaf *leaves;
    struct uz_dl_sig *sigs;
    uint32_t nnodes, nitems, nleaves, nsigs;
    uint32_t cnodes, citems, cleaves, csigs;
    int oom;
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *n = realloc(*p, (size_t)c * elem);
    if (n == NULL)
        return 0;
    *p = n;
    *cap = c;
    return 1;
}

#define DLB_RESERVE(b, arr, n, cap, extra)                                                  \
    ((b)->oom || !grow((void **)&(b)->arr, &(b)->cap, (b)->n + (extra), sizeof(*(b)->arr))  \
         ? ((b)->oom = 1, 0) : 1)

static void dlb_free(struct dlb *b)
{
    free(b->nodes);
    free(b->items);
    free(b->leaves);
    free(b->sigs);
}

static uint64_t child_size(const struct dlb *b, uint32_t child)
{
    if (child & UZ_DL_LEAF)
        return b->leaves[child & ~UZ_DL_LEAF].len;
    return b->nodes[child].size;
}

static uint64_t child_elems(const struct dlb *b, uint32_t child)
{
    if (child & UZ_DL_LEAF) {
        const struct uz_dl_leaf *l = &b->leaves[child & ~UZ_DL_LEAF];
        return l->len / l->unit_len * l->unit_elems;
    }
    return b->nodes[child].nelems;
}

static uint64_t child_ext32(const struct dlb *b, uint32_t child)
{
    if (child & UZ_DL_LEAF) {
        const struct uz_dl_leaf *l = &b->leaves[child & ~UZ_DL_LEAF];
        return l->len / l->unit_len * l->unit_ext32;
    }
    return b->nodes[child].ext32;
}

static uint32_t child_depth(const struct dlb *b, uint32_t child)
{
    return (child & UZ_DL_LEAF) ? 0 : b->nodes[child].depth;
}

/* ------------------------------------------------------------------ leaves */

static uint32_t add_leaf(struct dlb *b, uint64_t len, uint64_t unit_len, uint64_t unit_elems,
                         uint64_t unit_ext32, const struct uz_dl_sig *sig, uint32_t nsig)
{
    /* `sig` may point into b->sigs, which the reservation can move; every
     * signature is at most SIG_MERGE_LIMIT entries (see concat_leaves). */
    struct uz_dl_sig copy[SIG_MERGE_LIMIT];
    if (nsig > SIG_MERGE_LIMIT) {
        b->oom = 1;
        return UZ_DL_LEAF;
    }
    memcpy(copy, sig, nsig * sizeof(*sig));
    if (!DLB_RESERVE(b, leaves, nleaves, cleaves, 1) || !DLB_RESERVE(b, sigs, nsigs, csigs, nsig))
        return UZ_DL_LEAF;
    memcpy(&b->sigs[b->nsigs], copy, nsig * sizeof(*sig));
    b->leaves[b->nleaves] = (struct uz_dl_leaf){
        .len = len, .unit_len = unit_len, .unit_elems = unit_elems,
        .unit_ext32 = unit_ext32, .sig = b->nsigs, .nsig = nsig,
    };
    b->nsigs += nsig;
    return b->nleaves++ | UZ_DL_LEAF;
}

static int same_unit(const struct dlb *b, const struct uz_dl_leaf *x, const struct uz_dl_leaf *y)
{
    if (x->unit_len != y->unit_len || x->nsig != y->nsig)
        return 0;
    for (uint32_t i = 0; i < x->nsig; i++) {
        const struct uz_dl_sig *p = &b->sigs[x->sig + i], *q = &b->sigs[y->sig + i];
        if (p->n != q->n || p->type != q->type)
            return 0;
    }
    return 1;
}

static int same_child(const struct dlb *b, uint32_t x, uint32_t y)
{
    if (x == y)
        return 1;
    if (!(x & UZ_DL_LEAF) || !(y & UZ_DL_LEAF))
        return 0;
    const struct uz_dl_leaf *p = &b->leaves[x & ~UZ_DL_LEAF], *q = &b->leaves[y & ~UZ_DL_LEAF];
    return p->len == q->len && same_unit(b, p, q);
}

/* The whole signature of a leaf (all its units), appended to out[*n];
 * 0 if that would pass SIG_MERGE_LIMIT. */
static int expand_sig(const struct dlb *b, const struct uz_dl_leaf *l, struct uz_dl_sig *out,
                      uint32_t *n)
{
    uint64_t reps = l->len / l->unit_len;
    if (l->nsig == 1) {
        struct uz_dl_sig s = b->sigs[l->sig];
        s.n *= reps;
        if (*n > 0 && out[*n - 1].type == s.type) {
            out[*n - 1].n += s.n;
            return 1;
        }
        if (*n >= SIG_MERGE_LIMIT)
            return 0;
        out[(*n)++] = s;
        return 1;
    }
    if (reps * l->nsig > SIG_MERGE_LIMIT)
        return 0;
    for (uint64_t r = 0; r < reps; r++) {
        for (uint32_t i = 0; i < l->nsig; i++) {
            struct uz_dl_sig s = b->sigs[l->sig + i];
            if (*n > 0 && out[*n - 1].type == s.type) {
                out[*n - 1].n += s.n;
                continue;
            }
            if (*n >= SIG_MERGE_LIMIT)
                return 0;
            out[(*n)++] = s;
        }
    }
    return 1;
}

/* One leaf for run x followed directly by run y, or UZ_DL_LEAF when their
 * signatures do not combine compactly. */
static uint32_t concat_leaves(struct dlb *b, uint32_t x, uint32_t y)
{
    struct uz_dl_leaf p = b->leaves[x & ~UZ_DL_LEAF], q = b->leaves[y & ~UZ_DL_LEAF];
    if (same_unit(b, &p, &q))
        return add_leaf(b, p.len + q.len, p.unit_len, p.unit_elems, p.unit_ext32,
                        &b->sigs[p.sig], p.nsig);
    struct uz_dl_sig sig[SIG_MERGE_LIMIT];
    uint32_t n = 0;
    if (!expand_sig(b, &p, sig, &n) || !expand_sig(b, &q, sig, &n))
        return UZ_DL_LEAF;
    uint64_t elems = p.len / p.unit_len * p.unit_elems + q.len / q.unit_len * q.unit_elems;
    uint64_t ext32 = p.len / p.unit_len * p.unit_ext32 + q.len / q.unit_len * q.unit_ext32;
    if (n == 1) {
        /* One basic type throughout: keep the unit one element. */
        uint64_t per = (p.len + q.len) / sig[0].n;
        struct uz_dl_sig one = { 1, sig[0].type, 0 };
        return add_leaf(b, p.len + q.len, per, 1, ext32 / sig[0].n, &one, 1);
    }
    return add_leaf(b, p.len + q.len, p.len + q.len, elems, ext32, sig, n);
}

/* `count` copies of a leaf back to back, as one leaf. */
static uint32_t repeat_leaf(struct dlb *b, uint32_t x, uint64_t count)
{
    struct uz_dl_leaf p = b->leaves[x & ~UZ_DL_LEAF];
    return add_leaf(b, p.len * count, p.unit_len, p.unit_elems, p.unit_ext32, &b->sigs[p.sig],
                    p.nsig);
}

/* ------------------------------------------------------------------- items */

/* Fold single-item child nodes into the item and turn dense repetitions of
 * a run into one longer run.  Keeps the item's meaning exactly. */
static void simplify_item(struct dlb *b, struct uz_dl_item *it)
{
    for (;;) {
        if (it->count == 1)
            it->stride = 0;
        if (it->child & UZ_DL_LEAF) {
            const struct uz_dl_leaf *l = &b->leaves[it->child & ~UZ_DL_LEAF];
            if (it->count > 1 && it->stride == (int64_t)l->len) {
                uint32_t nl = repeat_leaf(b, it->child, it->count);
                if (nl == UZ_DL_LEAF)
                    return;
                it->child = nl;
                it->count = 1;
                it->stride = 0;
            }
            return;
        }
        const struct uz_dl_node *n = &b->nodes[it->child];
        if (n->nitems != 1)
            return;
        const struct uz_dl_item ci = b->items[n->item];
        if (it->count == 1) {
            it->disp += ci.disp;
            it->stride = ci.stride;
            it->count = ci.count;
        } else if (ci.count == 1) {
            it->disp += ci.disp;
        } else if (it->stride == (int64_t)ci.count * ci.stride) {
            it->disp += ci.disp;
            it->stride = ci.stride;
            it->count *= ci.count;
        } else {
            return;
        }
        it->child = ci.child;
    }
}

/* Can item y continue item x as one arithmetic progression of copies? */
static int can_extend(const struct dlb *b, const struct uz_dl_item *x, const struct uz_dl_item *y,
                      int64_t *stride)
{
    if (!same_child(b, x->child, y->child))
        return 0;
    int64_t s = x->count > 1 ? x->stride : y->count > 1 ? y->stride : y->disp - x->disp;
    if ((x->count > 1 && x->stride != s) || (y->count > 1 && y->stride != s))
        return 0;
    if (y->disp != x->disp + (int64_t)x->count * s)
        return 0;
    *stride = s;
    return 1;
}

/* Normalise an item list in place: drop empty items, merge adjacent runs,
 * and join items that continue one another.  Returns the new length. */
static size_t normalise(struct dlb *b, struct uz_dl_item *v, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        struct uz_dl_item it = v[i];
        if (it.count == 0 || child_size(b, it.child) == 0)
            continue;
        simplify_item(b, &it);
        while (out > 0) {
            struct uz_dl_item *last = &v[out - 1];
            int64_t s;
            if (can_extend(b, last, &it, &s)) {
                last->count += it.count;
                last->stride = s;
                simplify_item(b, last);
                it = *last;
                out--;
                continue;
            }
            if (last->count == 1 && it.count == 1 && (last->child & UZ_DL_LEAF) &&
                (it.child & UZ_DL_LEAF) &&
                it.disp == last->disp + (int64_t)child_size(b, last->child)) {
                uint32_t nl = concat_leaves(b, last->child, it.child);
                if (nl != UZ_DL_LEAF) {
                    it.disp = last->disp;
                    it.child = nl;
                    out--;
                    continue;
                }
            }
            break;
        }
        v[out++] = it;
    }
    return out;
}

/* -------------------------------------------------------------------- nodes */

static uint32_t add_node(struct dlb *b, struct uz_dl_item *v, size_t n)
{
    if (!DLB_RESERVE(b, nodes, nnodes, cnodes, 1) || !DLB_RESERVE(b, items, nitems, citems, n))
        return 0;
    struct uz_dl_node node = { .item = b->nitems, .nitems = (uint32_t)n, .depth = 1 };
    for (size_t i = 0; i < n; i++) {
        v[i].before = node.size;
        node.size += v[i].count * child_size(b, v[i].child);
        node.nelems += v[i].count * child_elems(b, v[i].child);
        node.ext32 += v[i].count * child_ext32(b, v[i].child);
        uint32_t d = child_depth(b, v[i].child) + 1;
        if (d > node.depth)
            node.depth = d;
    }
    if (n > 0)
        memcpy(&b->items[b->nitems], v, n * sizeof(*v));
    b->nitems += (uint32_t)n;
    b->nodes[b->nnodes] = node;
    return b->nnodes++;
}

/* Copy a layout into the builder; returns the index of its root there. */
static uint32_t import(struct dlb *b, const struct uz_dt_layout *l)
{
    if (!DLB_RESERVE(b, nodes, nnodes, cnodes, l->nnodes) ||
        !DLB_RESERVE(b, items, nitems, citems, l->nitems) ||
        !DLB_RESERVE(b, leaves, nleaves, cleaves, l->nleaves) ||
        !DLB_RESERVE(b, sigs, nsigs, csigs, l->nsigs))
        return 0;
    uint32_t noff = b->nnodes, ioff = b->nitems, loff = b->nleaves, soff = b->nsigs;
    if (l->nnodes)
        memcpy(&b->nodes[noff], uz_dl_nodes(l), l->nnodes * sizeof(struct uz_dl_node));
    if (l->nitems)
        memcpy(&b->items[ioff], uz_dl_items(l), l->nitems * sizeof(struct uz_dl_item));
    if (l->nleaves)
        memcpy(&b->leaves[loff], uz_dl_leaves(l), l->nleaves * sizeof(struct uz_dl_leaf));
    if (l->nsigs)
        memcpy(&b->sigs[soff], uz_dl_sigs(l), l->nsigs * sizeof(struct uz_dl_sig));
    for (uint32_t i = 0; i < l->nnodes; i++) {
        b->nodes[noff + i].item += ioff;
        b->nodes[noff + i].runs = 0;    /* finish() lists runs again */
    }
    for (uint32_t i = 0; i < l->nitems; i++) {
        uint32_t *c = &b->items[ioff + i].child;
        *c = (*c & UZ_DL_LEAF) ? ((*c & ~UZ_DL_LEAF) + loff) | UZ_DL_LEAF : *c + noff;
    }
    for (uint32_t i = 0; i < l->nleaves; i++)
        b->leaves[loff + i].sig += soff;
    b->nnodes += l->nnodes;
    b->nitems += l->nitems;
    b->nleaves += l->nleaves;
    b->nsigs += l->nsigs;
    return l->root + noff;
}

/* ------------------------------------------------------- depth limiting */

struct itemvec {
    struct uz_dl_item *v;
    size_t n, cap;
    int oom;
};

static void itemvec_push(struct itemvec *iv, struct uz_dl_item it)
{
    if (iv->oom)
        return;
    if (iv->n == iv->cap) {
        size_t cap = iv->cap ? 2 * iv->cap : 16;
        struct uz_dl_item *v = realloc(iv->v, cap * sizeof(*v));
        if (v == NULL) {
            iv->oom = 1;
            return;
        }
        iv->v = v;
        iv->cap = cap;
    }
    iv->v[iv->n++] = it;
}

/* Every run of an item, as single-copy leaf items (for subtrees too deep
 * for the cursor: rare, and then the flat list is the honest layout). */
static void enumerate_runs(const struct dlb *b, const struct uz_dl_item *it, int64_t base,
                           struct itemvec *out)
{
    for (uint64_t k = 0; k < it->count && !out->oom; k++) {
        int64_t at = base + it->disp + (int64_t)k * it->stride;
        if (it->child & UZ_DL_LEAF) {
            itemvec_push(out, (struct uz_dl_item){ .disp = at, .count = 1, .child = it->child });
            continue;
        }
        const struct uz_dl_node *n = &b->nodes[it->child];
        for (uint32_t i = 0; i < n->nitems; i++)
            enumerate_runs(b, &b->items[n->item + i], at, out);
    }
}

/* ----------------------------------------------------------------- finish */

/* Leaves equal in content share one index in the final layout (an indexed
 * type's blocks come in a few lengths), found through a small hash table. */
struct leaf_set {
    uint32_t *slot;             /* 1 + new leaf index, 0 when empty */
    uint32_t mask;
};

static uint32_t leaf_hash(const struct dlb *b, uint32_t leaf)
{
    const struct uz_dl_leaf *l = &b->leaves[leaf];
    uint64_t h = l->len * 0x9e3779b97f4a7c15ull ^ l->unit_len * 0xc2b2ae3d27d4eb4full;
    for (uint32_t i = 0; i < l->nsig; i++)
        h = (h ^ b->sigs[l->sig + i].n ^ (uint64_t)b->sigs[l->sig + i].type << 40) *
            0x100000001b3ull;
    return (uint32_t)(h ^ h >> 32);
}

/* A node lists its items as runs when they are all single runs. */
static int wants_runs(const struct dlb *b, const struct uz_dl_node *n)
{
    if (n->nitems < 2 || n->depth != 1)
        return 0;
    for (uint32_t i = 0; i < n->nitems; i++)
        if (b->items[n->item + i].count != 1)
            return 0;
    return 1;
}

/* Copy what the root reaches into one block, renumbering as we go. */
static struct uz_dt_layout *finish(struct dlb *b, uint32_t root)
{
    if (b->oom)
        return NULL;
    uint32_t *nmap = malloc((b->nnodes + 1) * sizeof(uint32_t));
    uint32_t *lmap = malloc((b->nleaves + 1) * sizeof(uint32_t));
    uint32_t *lorig = malloc((b->nleaves + 1) * sizeof(uint32_t));
    uint32_t *stack = malloc((b->nnodes + 1) * sizeof(uint32_t));
    uint32_t *next = calloc(b->nnodes + 1, sizeof(uint32_t));
    struct leaf_set set = { 0 };
    for (set.mask = 15; set.mask < 2 * b->nleaves; set.mask = set.mask * 2 + 1)
        ;
    set.slot = calloc((size_t)set.mask + 1, sizeof(uint32_t));
    struct uz_dt_layout *l = NULL;
    if (!nmap || !lmap || !lorig || !stack || !next || !set.slot)
        goto out;
    memset(nmap, 0xff, (b->nnodes + 1) * sizeof(uint32_t));
    memset(lmap, 0xff, (b->nleaves + 1) * sizeof(uint32_t));
    uint32_t nn = 0, ni = 0, nl = 0, ns = 0, nr = 0, sp = 0;
    /* Depth-first from the root; a node is numbered when all its children
     * are (post-order), then the numbers are reversed below so that every
     * child has a larger index than each of its parents: the invariant
     * uz_dl_validate() relies on to rule out cycles. */
    nmap[root] = UINT32_MAX - 1;        /* on the stack */
    stack[sp++] = root;
    while (sp > 0) {
        uint32_t x = stack[sp - 1];
        const struct uz_dl_node *n = &b->nodes[x];
        if (next[x] < n->nitems) {
            uint32_t c = b->items[n->item + next[x]++].child;
            if (c & UZ_DL_LEAF) {
                uint32_t lf = c & ~UZ_DL_LEAF;
                if (lmap[lf] != UINT32_MAX)
                    continue;
                const struct uz_dl_leaf *p = &b->leaves[lf];
                for (uint32_t h = leaf_hash(b, lf);; h++) {
                    uint32_t *slot = &set.slot[h & set.mask];
                    if (*slot == 0) {
                        *slot = nl + 1;
                        lorig[nl] = lf;
                        lmap[lf] = nl++;
                        ns += p->nsig;
                        break;
                    }
                    const struct uz_dl_leaf *q = &b->leaves[lorig[*slot - 1]];
                    if (q->len == p->len && same_unit(b, p, q)) {
                        lmap[lf] = *slot - 1;
                        break;
                    }
                }
            } else if (nmap[c] == UINT32_MAX) {
                nmap[c] = UINT32_MAX - 1;
                stack[sp++] = c;
            }
            continue;
        }
        nmap[x] = nn++;
        ni += n->nitems;
        if (wants_runs(b, n))
            nr += n->nitems;
        sp--;
    }
    for (uint32_t i = 0; i < b->nnodes; i++)
        if (nmap[i] < nn)
            nmap[i] = nn - 1 - nmap[i];
    size_t bytes = uz_dl_bytes_for(nn, ni, nl, ns, nr);
    l = calloc(1, bytes);
    if (l == NULL)
        goto out;
    *l = (struct uz_dt_layout){ .magic = UZ_DL_MAGIC, .root = 0, .nnodes = nn, .nitems = ni,
                                .nleaves = nl, .nsigs = ns, .nruns = nr, .bytes = bytes };
    struct uz_dl_node *nodes = (struct uz_dl_node *)uz_dl_nodes(l);
    struct uz_dl_item *items = (struct uz_dl_item *)uz_dl_items(l);
    struct uz_dl_leaf *leaves = (struct uz_dl_leaf *)uz_dl_leaves(l);
    struct uz_dl_sig *sigs = (struct uz_dl_sig *)uz_dl_sigs(l);
    struct uz_dl_run *runs = (struct uz_dl_run *)uz_dl_runs(l);
    uint32_t icur = 0, scur = 0, rcur = 0;
    for (uint32_t old = 0; old < b->nnodes; old++) {
        if (nmap[old] == UINT32_MAX)
            continue;
        struct uz_dl_node n = b->nodes[old];
        int with_runs = wants_runs(b, &n);
        for (uint32_t i = 0; i < n.nitems; i++) {
            struct uz_dl_item it = b->items[n.item + i];
            if (with_runs)
                runs[rcur + i] = (struct uz_dl_run){ it.disp, child_size(b, it.child) };
            it.child = (it.child & UZ_DL_LEAF) ? lmap[it.child & ~UZ_DL_LEAF] | UZ_DL_LEAF
                                               : nmap[it.child];
            items[icur + i] = it;
        }
        n.item = icur;
        icur += n.nitems;
        n.runs = with_runs ? rcur + 1 : 0;
        rcur += with_runs ? n.nitems : 0;
        nodes[nmap[old]] = n;
    }
    /* Runs per instance, children first (they have the larger indices):
     * a hint for choosing between iovecs and packing (uz_dt_mean_run). */
    uint64_t *nrun = malloc((nn + 1) * sizeof(uint64_t));
    if (nrun != NULL) {
        for (uint32_t i = nn; i-- > 0;) {
            uint64_t total = 0;
            for (uint32_t k = 0; k < nodes[i].nitems; k++) {
                const struct uz_dl_item *it = &items[nodes[i].item + k];
                uint64_t per = (it->child & UZ_DL_LEAF) ? 1 : nrun[it->child];
                total += it->count * per;
                if (total > UINT32_MAX)
                    total = UINT32_MAX;
            }
            nrun[i] = total;
        }
        l->root_runs = (uint32_t)nrun[0];
        free(nrun);
    }
    for (uint32_t j = 0; j < nl; j++) {
        struct uz_dl_leaf lf = b->leaves[lorig[j]];
        memcpy(&sigs[scur], &b->sigs[lf.sig], lf.nsig * sizeof(*sigs));
        lf.sig = scur;
        scur += lf.nsig;
        leaves[j] = lf;
    }
out:
    free(nmap);
    free(lmap);
    free(lorig);
    free(stack);
    free(next);
    free(set.slot);
    return l;
}

/* ------------------------------------------------------------ entry points */

/* The root node from items, flattening any child too deep for the cursor
 * (a node of depth UZ_DL_MAX_DEPTH - 1 needs every frame the cursor has). */
static uint32_t make_root(struct dlb *b, struct uz_dl_item *v, size_t n)
{
    n = normalise(b, v, n);
    int too_deep = 0;
    for (size_t i = 0; i < n; i++)
        too_deep |= child_depth(b, v[i].child) + 1 > UZ_DL_MAX_DEPTH - 1;
    if (!too_deep)
        return add_node(b, v, n);
    struct itemvec iv = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (child_depth(b, v[i].child) + 1 > UZ_DL_MAX_DEPTH - 1)
            enumerate_runs(b, &v[i], 0, &iv);
        else
            itemvec_push(&iv, v[i]);
    }
    uint32_t root = 0;
    if (iv.oom)
        b->oom = 1;
    else
        root = add_node(b, iv.v, normalise(b, iv.v, iv.n));
    free(iv.v);
    return root;
}

struct uz_dt_layout *uz_dl_build(const struct uz_dl_piece *pieces, size_t npieces)
{
    struct dlb b = { 0 };
    struct uz_dl_item *v = malloc((npieces + 1) * sizeof(*v));
    /* Each distinct old type is copied in once. */
    const uz_datatype **seen = malloc((npieces + 1) * sizeof(*seen));
    uint32_t *seen_root = malloc((npieces + 1) * sizeof(*seen_root));
    size_t nseen = 0, n = 0;
    struct uz_dt_layout *l = NULL;
    if (!v || !seen || !seen_root)
        goto out;
    for (size_t i = 0; i < npieces && !b.oom; i++) {
        const struct uz_dl_piece *p = &pieces[i];
        if (p->count == 0 || p->blocklen == 0 || p->type->size == 0)
            continue;
        size_t k = 0;
        while (k < nseen && seen[k] != p->type)
            k++;
        if (k == nseen) {
            seen[nseen] = p->type;
            seen_root[nseen++] = import(&b, p->type->layout);
        }
        /* The block: blocklen copies of the type, one extent apart. */
        struct uz_dl_item block = { .disp = 0, .stride = p->type->extent, .count = p->blocklen,
                                    .child = seen_root[k] };
        simplify_item(&b, &block);
        if (p->count == 1) {
            block.disp += p->disp;
            v[n++] = block;
            continue;
        }
        uint32_t bn = add_node(&b, &block, 1);
        v[n] = (struct uz_dl_item){ .disp = p->disp, .stride = p->stride, .count = p->count,
                                    .child = bn };
        simplify_item(&b, &v[n]);
        n++;
    }
    if (!b.oom) {
        uint32_t root = make_root(&b, v, n);
        l = finish(&b, root);
    }
out:
    free(v);
    free(seen);
    free(seen_root);
    dlb_free(&b);
    return l;
}

struct uz_dt_layout *uz_dl_build_basic(const struct uz_dl_basic_run *runs, size_t nruns)
{
    struct dlb b = { 0 };
    struct uz_dl_item v[4];
    size_t n = 0;
    for (size_t i = 0; i < nruns && i < 4; i++) {
        struct uz_dl_sig s = { 1, runs[i].type, 0 };
        uint32_t leaf = add_leaf(&b, runs[i].n * runs[i].elem_size, runs[i].elem_size, 1,
                                 runs[i].elem_ext32, &s, 1);
        v[n++] = (struct uz_dl_item){ .disp = runs[i].disp, .count = 1, .child = leaf };
    }
    struct uz_dt_layout *l = NULL;
    if (!b.oom) {
        uint32_t root = make_root(&b, v, n);
        l = finish(&b, root);
    }
    dlb_free(&b);
    return l;
}

struct uz_dt_layout *uz_dl_copy(const struct uz_dt_layout *l)
{
    struct uz_dt_layout *c = malloc(l->bytes);
    if (c != NULL)
        memcpy(c, l, l->bytes);
    return c;
}
