/*
 * dt_cursor.c — walking the packed stream of (buf, count, datatype): pack,
 * unpack and iovec generation, resumable at any byte (dt_engine.h).
 *
 * The cursor is a stack of frames over the layout tree (dt_layout.h):
 * frame 0 repeats the root node `count` times one extent apart, and each
 * further frame is one instance of a node being walked item by item.  The
 * work happens at the bottom: an item whose child is a run of `len` bytes
 * is `count` copies at a fixed stride, and as many whole copies as fit are
 * moved by one tight loop (copy_runs) whose small fixed sizes compile to
 * single loads and stores.  A node whose items are all runs (a vector's
 * row, a padded struct) is moved whole by the parent without pushing a
 * frame.  A run cut by the caller's limit is remembered as (address, bytes
 * left) and finished first by the next call.
 *
 * The three operations share one walker, instantiated per operation so
 * that the compiler removes the tests on `op`.
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "datatype/dt_engine.h"
#include "datatype/dt_layout.h"

_Static_assert(UZ_DT_CURSOR_FRAMES >= UZ_DL_MAX_DEPTH + 1, "cursor too shallow for layouts");

enum walk_op { OP_PACK, OP_UNPACK, OP_IOV };

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ------------------------------------------------------------- kernels */

/* One run of 16 to 2048 bytes by 16-byte moves, the last one overlapping
 * the one before when len is not a multiple of 16.  In a series of strided
 * runs a memcpy call per run was slower than this at every length measured
 * (64 B to 2 KiB; glibc's AVX-512 memmove on the reference machine): the
 * 256- and 512-byte runs of pack_bench's vector256 and subarray3d types
 * move 5-15% faster at 8 MB and 25-60% at 64 KB this way, where MPICH's
 * element-by-element loops had been ahead. */
static ALWAYS_INLINE void copy_medium(char *d, const char *from, size_t len)
{
#ifdef __SSE2__
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(from + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(from + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(from + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(from + i + 48));
        _mm_storeu_si128((__m128i *)(d + i), a);
        _mm_storeu_si128((__m128i *)(d + i + 16), b);
        _mm_storeu_si128((__m128i *)(d + i + 32), c);
        _mm_storeu_si128((__m128i *)(d + i + 48), e);
    }
    for (; i + 16 <= len; i += 16)
        _mm_storeu_si128((__m128i *)(d + i), _mm_loadu_si128((const __m128i *)(from + i)));
    if (i < len)
        _mm_storeu_si128((__m128i *)(d + len - 16),
                         _mm_loadu_si128((const __m128i *)(from + len - 16)));
#else
    memcpy(d, from, len);
#endif
}

/* Runs of these sizes move as values of these types: one load and one
 * store each (two for 16 bytes and up on SSE2). */
typedef struct { uint32_t w[3]; } uz_b12;
typedef struct { uint64_t w[2]; } uz_b16;
typedef struct { uint64_t w[3]; } uz_b24;
typedef struct { uint64_t w[4]; } uz_b32;

/* k runs of sizeof(T) bytes, stride apart in user memory, back to back in
 * the packed stream; pack: mem -> stream, unpack: stream -> mem.  Four at a
 * time, loads before stores: a chain of single copies leaves the CPU
 * waiting on each store (measured 2-3x slower for 4-byte runs). */
#define RUNS_LOOP(T)                                                                \
    do {                                                                            \
        const size_t L = sizeof(T);                                                 \
        uint64_t i = 0;                                                             \
        if (pack) {                                                                 \
            for (; i + 4 <= k; i += 4, mem += 4 * stride, s += 4 * L) {             \
                T a, b, c, d;                                                       \
                memcpy(&a, mem, L);                                                 \
                memcpy(&b, mem + stride, L);                                        \
                memcpy(&c, mem + 2 * stride, L);                                    \
                memcpy(&d, mem + 3 * stride, L);                                    \
                memcpy(s, &a, L);                                                   \
                memcpy(s + L, &b, L);                                               \
                memcpy(s + 2 * L, &c, L);                                           \
                memcpy(s + 3 * L, &d, L);                                           \
            }                                                                       \
            for (; i < k; i++, mem += stride, s += L)                               \
                memcpy(s, mem, L);                                                  \
        } else {                                                                    \
            for (; i + 4 <= k; i += 4, mem += 4 * stride, s += 4 * L) {             \
                T a, b, c, d;                                                       \
                memcpy(&a, s, L);                                                   \
                memcpy(&b, s + L, L);                                               \
                memcpy(&c, s + 2 * L, L);                                           \
                memcpy(&d, s + 3 * L, L);                                           \
                memcpy(mem, &a, L);                                                 \
                memcpy(mem + stride, &b, L);                                        \
                memcpy(mem + 2 * stride, &c, L);                                    \
                memcpy(mem + 3 * stride, &d, L);                                    \
            }                                                                       \
            for (; i < k; i++, mem += stride, s += L)                               \
                memcpy(mem, s, L);                                                  \
        }                                                                           \
    } while (0)

/* Larger fixed sizes: one copy at a time, still inlined. */
#define RUNS_LOOP1(N)                                                       \
    do {                                                                    \
        if (pack)                                                           \
            for (uint64_t i = 0; i < k; i++, mem += stride, s += (N))       \
                memcpy(s, mem, (N));                                        \
        else                                                                \
            for (uint64_t i = 0; i < k; i++, mem += stride, s += (N))       \
                memcpy(mem, s, (N));                                        \
    } while (0)

static ALWAYS_INLINE void copy_runs(const int pack, char *s, char *mem, int64_t stride,
                                    size_t len, uint64_t k)
{
    switch (len) {
    case 1: RUNS_LOOP(uint8_t); break;
    case 2: RUNS_LOOP(uint16_t); break;
    case 4: RUNS_LOOP(uint32_t); break;
    case 8: RUNS_LOOP(uint64_t); break;
    case 12: RUNS_LOOP(uz_b12); break;
    case 16: RUNS_LOOP(uz_b16); break;
    case 24: RUNS_LOOP(uz_b24); break;
    case 32: RUNS_LOOP(uz_b32); break;
    case 48: RUNS_LOOP1(48); break;
    case 64: RUNS_LOOP1(64); break;
    default:
        if (len >= 16 && len <= 2048) {
            if (pack)
                for (uint64_t i = 0; i < k; i++, mem += stride, s += len)
                    copy_medium(s, mem, len);
            else
                for (uint64_t i = 0; i < k; i++, mem += stride, s += len)
                    copy_medium(mem, s, len);
        } else if (pack)
            for (uint64_t i = 0; i < k; i++, mem += stride, s += len)
                memcpy(s, mem, len);
        else
            for (uint64_t i = 0; i < k; i++, mem += stride, s += len)
                memcpy(mem, s, len);
    }
}

/* One run of any length; short ones as two overlapping moves instead of a
 * call (the runs of indexed types and records are mostly short). */
static ALWAYS_INLINE void copy_run(const int pack, char *s, char *mem, size_t len)
{
    char *d = pack ? s : mem;
    const char *from = pack ? mem : s;
    if (len > 2048) {
        memcpy(d, from, len);
    } else if (len > 16) {
        copy_medium(d, from, len);
    } else if (len >= 8) {
        uint64_t a, b;
        memcpy(&a, from, 8);
        memcpy(&b, from + len - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + len - 8, &b, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, from, 4);
        memcpy(&b, from + len - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + len - 4, &b, 4);
    } else {
        d[0] = from[0];
        d[len - 1] = from[len - 1];
        if (len == 3)
            d[1] = from[1];
    }
}

/* One whole instance of a node whose items all have run children. */
static ALWAYS_INLINE void copy_flat_node(const int pack, char *s, uintptr_t base,
                                         const struct uz_dl_node *n,
                                         const struct uz_dl_item *items,
                                         const struct uz_dl_leaf *leaves,
                                         const struct uz_dl_run *runs)
{
    if (n->runs) {
        const struct uz_dl_run *r = &runs[n->runs - 1];
        for (uint32_t i = 0; i < n->nitems; i++, r++) {
            copy_run(pack, s, (char *)(base + r->disp), r->len);
            s += r->len;
        }
        return;
    }
    const struct uz_dl_item *it = &items[n->item];
    for (uint32_t i = 0; i < n->nitems; i++, it++) {
        size_t len = leaves[it->child & ~UZ_DL_LEAF].len;
        copy_runs(pack, s, (char *)(base + it->disp), it->stride, len, it->count);
        s += len * it->count;
    }
}

/* k instances of a node placed by an item are the adjacent columns of a
 * matrix when the node is one strided run (m runs of len bytes, S apart)
 * and the item puts the instances len bytes apart: the shape of seed 000's
 * Figure 1 transpose, and of the column types of FFT-style exchanges.
 * Column after column, every run is a different line; the two movers below
 * walk such a block in an order that keeps the written side contiguous. */
struct columns {
    uint64_t len, m;            /* run bytes, runs per column */
    int64_t S;                  /* between rows */
    uintptr_t at;               /* first run of the first column */
};

static ALWAYS_INLINE int as_columns(uintptr_t p, const struct uz_dl_item *it,
                                    const struct uz_dl_node *cn, const struct uz_dl_item *items,
                                    const struct uz_dl_leaf *leaves, uint64_t k,
                                    struct columns *c)
{
    if (k < 4 || cn->nitems != 1 || cn->runs)
        return 0;
    const struct uz_dl_item *ci = &items[cn->item];
    if (!(ci->child & UZ_DL_LEAF) || ci->count < 2)
        return 0;
    c->len = leaves[ci->child & ~UZ_DL_LEAF].len;
    c->m = ci->count;
    c->S = ci->stride;
    c->at = p + ci->disp;
    /* Rows must be contiguous and must not overlap one another. */
    return it->stride == (int64_t)c->len && c->len <= 64 &&
           (uint64_t)(c->S < 0 ? -c->S : c->S) >= k * c->len;
}

/* Unpack: row by row, writing each row's k runs contiguously and reading
 * the packed stream with stride m*len.  Scattered loads cost the CPU far
 * less than scattered stores (pack_bench, 1448 x 1448 floats: 3.4-3.8
 * against 1.0 GB/s column by column). */
static ALWAYS_INLINE int unpack_columns(const char *s, const struct columns *c, uint64_t k)
{
    char *dst = (char *)c->at;
    /* copy_runs' pack direction: contiguous destination, strided source. */
    for (uint64_t i = 0; i < c->m; i++, dst += c->S, s += c->len)
        copy_runs(1, dst, (char *)s, (int64_t)(c->m * c->len), c->len, k);
    return 1;
}

/* Pack: the packed stream is written column after column (row order would
 * scatter the stores: 1.0 against 3.8 GB/s, tried), but 4-byte elements
 * move as 4 x 4 tiles and 8-byte ones as 2 x 2: a 16-byte load from each
 * of the tile's rows, a transpose in registers, a 16-byte store into each
 * of its columns, instead of a load and a store per element.  pack_bench,
 * float matrices: 2-2.7x at 64 KB-1 MB.  Above 1 MB the tiles' four
 * output streams lost to one column at a time in most runs (8 MB: 1.0-4.4
 * against 1.9-4.6 GB/s), and in-cache blocks are where tiles pay, so
 * larger blocks keep the column order.  Returns 0 when not used. */
static ALWAYS_INLINE int pack_columns(char *s, const struct columns *c, uint64_t k)
{
#ifdef __SSE2__
    const uint64_t m = c->m, col = m * c->len;
    const int64_t S = c->S;
    uint64_t j = 0;
    if (k * col > ((uint64_t)1 << 20))
        return 0;
    if (c->len == 4) {
        for (; j + 4 <= k; j += 4) {
            const char *src = (const char *)c->at + j * 4;
            char *out = s + j * col;
            uint64_t i = 0;
            for (; i + 4 <= m; i += 4, src += 4 * S) {
                __m128i r0 = _mm_loadu_si128((const __m128i *)src);
                __m128i r1 = _mm_loadu_si128((const __m128i *)(src + S));
                __m128i r2 = _mm_loadu_si128((const __m128i *)(src + 2 * S));
                __m128i r3 = _mm_loadu_si128((const __m128i *)(src + 3 * S));
                __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
                __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
                _mm_storeu_si128((__m128i *)(out + i * 4), _mm_unpacklo_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(out + col + i * 4), _mm_unpackhi_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(out + 2 * col + i * 4), _mm_unpacklo_epi64(t2, t3));
                _mm_storeu_si128((__m128i *)(out + 3 * col + i * 4), _mm_unpackhi_epi64(t2, t3));
            }
            for (; i < m; i++, src += S)
                for (int t = 0; t < 4; t++)
                    memcpy(out + t * col + i * 4, src + t * 4, 4);
        }
    } else if (c->len == 8) {
        for (; j + 2 <= k; j += 2) {
            const char *src = (const char *)c->at + j * 8;
            char *out = s + j * col;
            uint64_t i = 0;
            for (; i + 2 <= m; i += 2, src += 2 * S) {
                __m128i r0 = _mm_loadu_si128((const __m128i *)src);
                __m128i r1 = _mm_loadu_si128((const __m128i *)(src + S));
                _mm_storeu_si128((__m128i *)(out + i * 8), _mm_unpacklo_epi64(r0, r1));
                _mm_storeu_si128((__m128i *)(out + col + i * 8), _mm_unpackhi_epi64(r0, r1));
            }
            if (i < m) {
                memcpy(out + i * 8, src, 8);
                memcpy(out + col + i * 8, src + 8, 8);
            }
        }
    } else {
        return 0;
    }
    /* the columns left over, one by one */
    for (; j < k; j++)
        copy_runs(1, s + j * col, (char *)(c->at + j * c->len), S, c->len, m);
    return 1;
#else
    (void)s, (void)c, (void)k;
    return 0;
#endif
}

/* ---------------------------------------------------------------- walker */

struct iov_out {
    struct iovec *v;
    int n, max;
};

/* Add a run to the iovec list, merging with the last entry when adjacent.
 * 0 when the list is full. */
static ALWAYS_INLINE int iov_add(struct iov_out *o, uintptr_t p, size_t len)
{
    if (o->n > 0) {
        struct iovec *last = &o->v[o->n - 1];
        if ((uintptr_t)last->iov_base + last->iov_len == p) {
            last->iov_len += len;
            return 1;
        }
    }
    if (o->n == o->max)
        return 0;
    o->v[o->n].iov_base = (void *)p;
    o->v[o->n].iov_len = len;
    o->n++;
    return 1;
}

/* Move part of a run: `len` bytes at p.  Returns 0 if the iovec list is full. */
static ALWAYS_INLINE int move_bytes(const enum walk_op op, char *s, uintptr_t p, size_t len,
                                    struct iov_out *o)
{
    if (op == OP_PACK)
        memcpy(s, (const void *)p, len);
    else if (op == OP_UNPACK)
        memcpy((void *)p, s, len);
    else
        return iov_add(o, p, len);
    return 1;
}

static ALWAYS_INLINE size_t walk(struct uz_dt_cursor *c, const enum walk_op op, char *s,
                                 size_t max, struct iov_out *o)
{
    const struct uz_dt_layout *l = c->layout;
    const struct uz_dl_node *nodes = uz_dl_nodes(l);
    const struct uz_dl_item *items = uz_dl_items(l);
    const struct uz_dl_leaf *leaves = uz_dl_leaves(l);
    const struct uz_dl_run *runs = uz_dl_runs(l);
    const int pack = op == OP_PACK;
    size_t done = 0;

    if (max > c->total - c->offset)
        max = c->total - c->offset;
    if (c->run_left > 0 && max > 0) {
        size_t k = c->run_left < max ? c->run_left : max;
        if (!move_bytes(op, s, c->run, k, o))
            return 0;
        c->run += k;
        c->run_left -= k;
        done = k;
    }
    while (done < max) {
        struct uz_dt_frame *f = &c->stack[c->depth - 1];
        struct uz_dl_item top;
        const struct uz_dl_item *it;
        if (c->depth == 1) {
            top = (struct uz_dl_item){ .stride = c->top_stride, .count = c->top_count,
                                       .child = l->root };
            it = &top;
        } else {
            if (f->item == f->end) {
                c->depth--;
                continue;
            }
            it = &items[f->item];
            if (f->rep == it->count) {
                f->item++;
                f->rep = 0;
                continue;
            }
        }
        uintptr_t p = f->base + it->disp + (intptr_t)f->rep * it->stride;
        uint64_t n = it->count - f->rep;

        if (it->child & UZ_DL_LEAF) {
            size_t len = leaves[it->child & ~UZ_DL_LEAF].len;
            size_t room = max - done;
            uint64_t k = room / len < n ? room / len : n;
            if (op == OP_IOV) {
                uint64_t j = 0;
                while (j < k && iov_add(o, p + (intptr_t)j * it->stride, len))
                    j++;
                k = j;
            } else if (k > 0) {
                copy_runs(pack, s + done, (char *)p, it->stride, len, k);
            }
            done += k * len;
            f->rep += k;
            if (k < n && done < max) {
                /* The limit falls inside this run (or the iovecs ran out). */
                uintptr_t q = p + (intptr_t)k * it->stride;
                size_t part = max - done < len ? max - done : len;
                if (!move_bytes(op, s + done, q, part, o))
                    break;
                done += part;
                f->rep++;
                if (part < len) {
                    c->run = q + part;
                    c->run_left = len - part;
                }
            }
            continue;
        }

        const struct uz_dl_node *cn = &nodes[it->child];
        if (op != OP_IOV && cn->depth == 1 && cn->size <= max - done) {
            /* Whole instances of a node of runs: no frame needed. */
            uint64_t k = (max - done) / cn->size;
            if (k > n)
                k = n;
            struct columns cols;
            if (as_columns(p, it, cn, items, leaves, k, &cols) &&
                (pack ? pack_columns(s + done, &cols, k) : unpack_columns(s + done, &cols, k))) {
                done += k * cn->size;
                f->rep += k;
                continue;
            }
            for (uint64_t i = 0; i < k; i++, p += it->stride, done += cn->size)
                copy_flat_node(pack, s + done, p, cn, items, leaves, runs);
            f->rep += k;
            continue;
        }
        f->rep++;
        struct uz_dt_frame *nf = &c->stack[c->depth++];
        nf->item = cn->item;
        nf->end = cn->item + cn->nitems;
        nf->base = p;
        nf->rep = 0;
    }
    c->offset += done;
    return done;
}

/* ------------------------------------------------------------- interface */

void uz_dt_cursor_init(struct uz_dt_cursor *c, const void *buf, MPI_Count count,
                       const uz_datatype *dt)
{
    c->layout = dt->layout;
    c->buf = (uintptr_t)buf;
    c->offset = 0;
    c->total = (size_t)count * (size_t)dt->size;
    c->run = 0;
    c->run_left = 0;
    c->top_stride = dt->extent;
    c->top_count = (uint64_t)count;
    c->depth = 1;
    c->stack[0] = (struct uz_dt_frame){ .base = (uintptr_t)buf };
}

/* Descend from the top to the frame state of `offset` bytes in. */
void uz_dt_cursor_seek(struct uz_dt_cursor *c, size_t offset)
{
    const struct uz_dt_layout *l = c->layout;
    const struct uz_dl_node *nodes = uz_dl_nodes(l);
    const struct uz_dl_item *items = uz_dl_items(l);
    if (offset > c->total)
        offset = c->total;
    c->offset = offset;
    c->run_left = 0;
    c->depth = 1;
    c->stack[0] = (struct uz_dt_frame){ .base = c->buf };
    if (offset == c->total) {
        c->stack[0].rep = c->top_count;
        return;
    }
    const struct uz_dl_node *root = &nodes[l->root];
    uint64_t e = offset / root->size;
    uint64_t rem = offset % root->size;
    c->stack[0].rep = e + 1;
    uintptr_t base = c->buf + (intptr_t)e * c->top_stride;
    const struct uz_dl_node *n = root;
    for (;;) {
        /* Find the item holding byte `rem` of this node (binary search on
         * the packed offsets where items start). */
        uint32_t lo = n->item, hi = n->item + n->nitems - 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (items[mid].before <= rem)
                lo = mid;
            else
                hi = mid - 1;
        }
        const struct uz_dl_item *it = &items[lo];
        uint64_t csize = uz_dl_child_size(l, it->child);
        uint64_t in = rem - it->before;
        uint64_t k = in / csize, r = in % csize;
        uintptr_t p = base + it->disp + (intptr_t)k * it->stride;
        struct uz_dt_frame *f = &c->stack[c->depth++];
        f->item = lo;
        f->end = n->item + n->nitems;
        f->base = base;
        if (it->child & UZ_DL_LEAF) {
            f->rep = k + (r > 0);
            if (r > 0) {
                c->run = p + r;
                c->run_left = csize - r;
            }
            return;
        }
        if (r == 0) {
            f->rep = k;
            return;
        }
        f->rep = k + 1;
        n = &nodes[it->child];
        base = p;
        rem = r;
    }
}

size_t uz_dt_cursor_pack(struct uz_dt_cursor *c, void *dst, size_t max)
{
    return walk(c, OP_PACK, dst, max, NULL);
}

size_t uz_dt_cursor_unpack(struct uz_dt_cursor *c, const void *src, size_t len)
{
    return walk(c, OP_UNPACK, (char *)src, len, NULL);
}

int uz_dt_cursor_iov(struct uz_dt_cursor *c, struct iovec *iov, int max_iov, size_t max_bytes,
                     size_t *bytes)
{
    struct iov_out o = { iov, 0, max_iov };
    size_t n = max_iov > 0 ? walk(c, OP_IOV, NULL, max_bytes, &o) : 0;
    if (bytes)
        *bytes = n;
    return o.n;
}

size_t uz_dt_cursor_remaining(const struct uz_dt_cursor *c)
{
    return c->total - c->offset;
}

size_t uz_dt_pack(const void *inbuf, MPI_Count count, const uz_datatype *dt, void *out)
{
    size_t total = (size_t)count * (size_t)dt->size;
    if (uz_dt_is_contig(dt, count)) {
        if (total)
            memcpy(out, (const char *)inbuf + dt->true_lb, total);
        return total;
    }
    struct uz_dt_cursor c;
    uz_dt_cursor_init(&c, inbuf, count, dt);
    return walk(&c, OP_PACK, out, total, NULL);
}

size_t uz_dt_unpack(void *outbuf, MPI_Count count, const uz_datatype *dt, const void *in,
                    size_t len)
{
    size_t total = (size_t)count * (size_t)dt->size;
    if (len > total)
        len = total;
    if (uz_dt_is_contig(dt, count)) {
        if (len)
            memcpy((char *)outbuf + dt->true_lb, in, len);
        return len;
    }
    struct uz_dt_cursor c;
    uz_dt_cursor_init(&c, outbuf, count, dt);
    return walk(&c, OP_UNPACK, (char *)in, len, NULL);
}
