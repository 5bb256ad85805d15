/*
 * dt_layout.h — the flattened form of a datatype ("layout"), private to
 * src/datatype/.
 *
 * A layout is a small tree in one position-independent block of memory:
 *
 *   node  — an ordered list of items; one instance of the node lives at
 *           some base address.
 *   item  — `count` copies of a child at base + disp + k*stride; the child
 *           is another node or a leaf.
 *   leaf  — one contiguous run of `len` bytes, made of len/unit_len copies
 *           of a unit whose basic elements the signature entries list.
 *
 *   run   — (disp, len): a node whose items are all single runs (an indexed
 *           type, a struct of basic types) also lists them in this compact
 *           form, which is all the pack loop reads: 16 bytes per block.
 *
 * So a vector of floats is one node with one item {count, stride, leaf 4},
 * a 3-d subarray is three nested single-item nodes (or fewer, when
 * dimensions merge), an indexed type is one node with an item per block,
 * and nothing is ever one entry per element.  Builders (dt_build.c)
 * normalise as they go: dense repetitions become longer leaves, adjacent
 * runs merge, single-item nodes fold into their parent item, equally spaced
 * equal items become one strided item, and empty items disappear, so every
 * node and leaf reached from the root has a non-zero size.
 *
 * Children are referred to by index, never by pointer, so the block can be
 * copied, sent to another process and used there as it is: the serialized
 * form of a datatype is its layout (serialize.c).
 */
#ifndef UZ_DATATYPE_DT_LAYOUT_H
#define UZ_DATATYPE_DT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "datatype/datatype.h"

/* The cursor needs one frame for the top-level repetition and one per node
 * level; builders keep every layout within this depth. */
enum { UZ_DL_MAX_DEPTH = 15 };

/* An item's child is a leaf when this bit is set in `child`. */
#define UZ_DL_LEAF 0x80000000u

struct uz_dl_sig {              /* n consecutive basic elements of one type */
    uint64_t n;
    uint32_t type;              /* predefined slot (handle - MPI_DATATYPE_NULL) */
    uint32_t pad;
};

struct uz_dl_leaf {
    uint64_t len;               /* bytes of the run */
    uint64_t unit_len;          /* len is a whole number of units */
    uint64_t unit_elems;        /* basic elements in one unit */
    uint64_t unit_ext32;        /* external32 bytes of one unit */
    uint32_t sig;               /* first signature entry of the unit */
    uint32_t nsig;
};

struct uz_dl_item {
    int64_t disp;               /* first copy, from the node's base */
    int64_t stride;             /* between copies (0 when count == 1) */
    uint64_t count;             /* copies of the child */
    uint64_t before;            /* packed bytes of the node before this item */
    uint32_t child;             /* node index, or leaf index | UZ_DL_LEAF */
    uint32_t pad;
};

struct uz_dl_node {
    uint32_t item;              /* first item */
    uint32_t nitems;
    uint32_t depth;             /* node levels from here down (1 = leaves only) */
    uint32_t runs;              /* 1 + first run when the items are listed as runs, or 0 */
    uint64_t size;              /* packed bytes of one instance */
    uint64_t nelems;            /* basic elements of one instance */
    uint64_t ext32;             /* external32 bytes of one instance */
};

struct uz_dl_run {
    int64_t disp;               /* from the node's base */
    uint64_t len;
};

struct uz_dt_layout {
    uint32_t magic;             /* UZ_DL_MAGIC: checked when deserialising */
    uint32_t root;              /* index of the root node */
    uint32_t nnodes, nitems, nleaves, nsigs, nruns;
    uint32_t root_runs;         /* contiguous runs in one instance (saturates) */
    uint64_t bytes;             /* of this whole block, header included */
    /* then, each 8-byte aligned: nodes, items, leaves, signature entries,
     * runs */
};

#define UZ_DL_MAGIC 0x757a646cu   /* "uzdl" */

static inline const struct uz_dl_node *uz_dl_nodes(const struct uz_dt_layout *l)
{
    return (const struct uz_dl_node *)(l + 1);
}

static inline const struct uz_dl_item *uz_dl_items(const struct uz_dt_layout *l)
{
    return (const struct uz_dl_item *)(uz_dl_nodes(l) + l->nnodes);
}

static inline const struct uz_dl_leaf *uz_dl_leaves(const struct uz_dt_layout *l)
{
    return (const struct uz_dl_leaf *)(uz_dl_items(l) + l->nitems);
}

static inline const struct uz_dl_sig *uz_dl_sigs(const struct uz_dt_layout *l)
{
    return (const struct uz_dl_sig *)(uz_dl_leaves(l) + l->nleaves);
}

static inline const struct uz_dl_run *uz_dl_runs(const struct uz_dt_layout *l)
{
    return (const struct uz_dl_run *)(uz_dl_sigs(l) + l->nsigs);
}

static inline size_t uz_dl_bytes_for(uint32_t nnodes, uint32_t nitems, uint32_t nleaves,
                                     uint32_t nsigs, uint32_t nruns)
{
    return sizeof(struct uz_dt_layout) + nnodes * sizeof(struct uz_dl_node) +
           nitems * sizeof(struct uz_dl_item) + nleaves * sizeof(struct uz_dl_leaf) +
           nsigs * sizeof(struct uz_dl_sig) + nruns * sizeof(struct uz_dl_run);
}

static inline const struct uz_dl_node *uz_dl_root(const struct uz_dt_layout *l)
{
    return uz_dl_nodes(l) + l->root;
}

/* Packed bytes of one copy of an item's child. */
static inline uint64_t uz_dl_child_size(const struct uz_dt_layout *l, uint32_t child)
{
    if (child & UZ_DL_LEAF)
        return uz_dl_leaves(l)[child & ~UZ_DL_LEAF].len;
    return uz_dl_nodes(l)[child].size;
}

/* Check that a block received from elsewhere is a well-formed layout:
 * indices in range, sizes consistent, no cycles, depth within bounds. */
int uz_dl_validate(const struct uz_dt_layout *l, size_t len);

/* ----------------------------------------------------------- builders */

/* The layout of a list of pieces: piece i is `count` blocks, the k-th at
 * disp + k*stride, each block `blocklen` copies of `type` placed one
 * extent apart.  That is the shape of every constructor: contiguous and
 * (h)vector are one piece, (h)indexed and struct one piece per block.
 * Returns a malloc'd layout, or NULL when out of memory. */
struct uz_dl_piece {
    int64_t disp;
    int64_t stride;
    uint64_t count;
    uint64_t blocklen;
    const uz_datatype *type;
};
struct uz_dt_layout *uz_dl_build(const struct uz_dl_piece *pieces, size_t npieces);

/* The layout of one predefined type whose elements the signature lists,
 * as runs at the given offsets (pair types have two). */
struct uz_dl_basic_run {
    int64_t disp;
    uint32_t type;              /* predefined slot */
    uint64_t n;
    uint64_t elem_size;
    uint64_t elem_ext32;
};
struct uz_dt_layout *uz_dl_build_basic(const struct uz_dl_basic_run *runs, size_t nruns);

struct uz_dt_layout *uz_dl_copy(const struct uz_dt_layout *l);

#endif /* UZ_DATATYPE_DT_LAYOUT_H */
