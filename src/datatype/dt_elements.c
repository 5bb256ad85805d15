/*
 * dt_elements.c — counting basic elements in a prefix of a packed stream
 * (MPI_Get_elements on a partial receive) and the inverse
 * (MPI_Status_set_elements), on the layout tree: whole instances and whole
 * copies are counted by multiplication, so only one path from the root to
 * a leaf is walked, and the signature of that leaf's unit says where the
 * element boundaries are.  Pair types (MPI_FLOAT_INT, ...) count as two
 * elements, as their type maps have two entries (MPICH does the same).
 */
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

static uint64_t child_elems(const struct uz_dt_layout *l, uint32_t child)
{
    if (child & UZ_DL_LEAF) {
        const struct uz_dl_leaf *lf = &uz_dl_leaves(l)[child & ~UZ_DL_LEAF];
        return lf->len / lf->unit_len * lf->unit_elems;
    }
    return uz_dl_nodes(l)[child].nelems;
}

/* Elements in the first `bytes` (< len) bytes of a leaf; -1 when they end
 * inside an element. */
static MPI_Count leaf_elems(const struct uz_dt_layout *l, const struct uz_dl_leaf *lf,
                            uint64_t bytes)
{
    MPI_Count n = (MPI_Count)(bytes / lf->unit_len * lf->unit_elems);
    uint64_t rem = bytes % lf->unit_len;
    const struct uz_dl_sig *sig = &uz_dl_sigs(l)[lf->sig];
    for (uint32_t i = 0; rem > 0 && i < lf->nsig; i++) {
        uint64_t esize = uz_dt_basic_info(sig[i].type)->size;
        if (rem >= sig[i].n * esize) {
            n += (MPI_Count)sig[i].n;
            rem -= sig[i].n * esize;
            continue;
        }
        n += (MPI_Count)(rem / esize);
        return rem % esize ? -1 : n;
    }
    return n;
}

/* Elements in the first `bytes` (< size) bytes of a node instance. */
static MPI_Count node_elems(const struct uz_dt_layout *l, const struct uz_dl_node *n,
                            uint64_t bytes)
{
    MPI_Count total = 0;
    while (bytes > 0) {
        const struct uz_dl_item *items = uz_dl_items(l);
        uint32_t lo = n->item, hi = n->item + n->nitems - 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (items[mid].before <= bytes)
                lo = mid;
            else
                hi = mid - 1;
        }
        const struct uz_dl_item *it = &items[lo];
        for (uint32_t i = n->item; i < lo; i++)
            total += (MPI_Count)(items[i].count * child_elems(l, items[i].child));
        uint64_t in = bytes - it->before, csize = uz_dl_child_size(l, it->child);
        total += (MPI_Count)(in / csize * child_elems(l, it->child));
        bytes = in % csize;
        if (bytes == 0)
            break;
        if (it->child & UZ_DL_LEAF) {
            MPI_Count e = leaf_elems(l, &uz_dl_leaves(l)[it->child & ~UZ_DL_LEAF], bytes);
            return e < 0 ? -1 : total + e;
        }
        n = &uz_dl_nodes(l)[it->child];
    }
    return total;
}

MPI_Count uz_dt_elements(const uz_datatype *dt, MPI_Count bytes)
{
    if (dt->size == 0 || bytes <= 0)
        return 0;
    const struct uz_dl_node *root = uz_dl_root(dt->layout);
    MPI_Count whole = bytes / dt->size;
    MPI_Count part = node_elems(dt->layout, root, (uint64_t)(bytes % dt->size));
    return part < 0 ? MPI_UNDEFINED : whole * (MPI_Count)root->nelems + part;
}

/* Bytes of the first `elems` (< elements of the leaf) elements of a leaf. */
static uint64_t leaf_bytes(const struct uz_dt_layout *l, const struct uz_dl_leaf *lf,
                           uint64_t elems)
{
    uint64_t bytes = elems / lf->unit_elems * lf->unit_len;
    elems %= lf->unit_elems;
    const struct uz_dl_sig *sig = &uz_dl_sigs(l)[lf->sig];
    for (uint32_t i = 0; elems > 0 && i < lf->nsig; i++) {
        uint64_t k = elems < sig[i].n ? elems : sig[i].n;
        bytes += k * uz_dt_basic_info(sig[i].type)->size;
        elems -= k;
    }
    return bytes;
}

MPI_Count uz_dt_elements_to_bytes(const uz_datatype *dt, MPI_Count elements)
{
    const struct uz_dt_layout *l = dt->layout;
    const struct uz_dl_node *n = uz_dl_root(l);
    if (elements <= 0 || n->nelems == 0)
        return 0;
    MPI_Count bytes = elements / (MPI_Count)n->nelems * dt->size;
    uint64_t rem = (uint64_t)elements % n->nelems;
    while (rem > 0) {
        const struct uz_dl_item *it = &uz_dl_items(l)[n->item];
        for (uint32_t i = 0; i < n->nitems; i++, it++) {
            uint64_t ce = child_elems(l, it->child);
            if (rem >= it->count * ce) {
                rem -= it->count * ce;
                continue;
            }
            bytes += (MPI_Count)(it->before + rem / ce * uz_dl_child_size(l, it->child));
            rem %= ce;
            break;
        }
        if (rem == 0)
            break;
        if (it->child & UZ_DL_LEAF)
            return bytes + (MPI_Count)leaf_bytes(l, &uz_dl_leaves(l)[it->child & ~UZ_DL_LEAF], rem);
        n = &uz_dl_nodes(l)[it->child];
    }
    return bytes;
}

size_t uz_dt_mean_run(const uz_datatype *dt)
{
    uint32_t runs = dt->layout->root_runs;
    if (dt->size == 0)
        return 0;
    return (size_t)dt->size / (runs ? runs : 1);
}

const uz_datatype *uz_dt_homogeneous_basic(const uz_datatype *dt)
{
    return dt->basic;
}
