/*
 * external32.c — MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size: the portable "external32" representation of
 * MPI-4.1 §13.5.2, the heterogeneous conversion UZURA §2.1 asks of a
 * transport between unlike processors.
 *
 * external32 is big-endian, with fixed sizes per type (MPI_LONG is 4 bytes,
 * MPI_LONG_DOUBLE is an IEEE binary128), and the elements of a type are
 * written back to back in type-map order.  The walk is the layout tree
 * again; at each run the leaf's signature says which basic elements it
 * holds, and each is converted: integers byte-reversed (and narrowed or
 * widened when the sizes differ), floating point byte-reversed, x87 80-bit
 * long double converted to and from binary128 with round-to-nearest-even.
 */
#include <string.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "external32.c assumes a little-endian host (x86-64, aarch64, riscv64)"
#endif

/* ------------------------------------------------------------ conversions */

static void reverse(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* x87 extended (64-bit significand with explicit integer bit, 15-bit
 * exponent, in the low 10 of 16 bytes) to big-endian binary128. */
static void x87_to_quad(unsigned char *dst, const unsigned char *src)
{
    uint64_t mant, hi, lo;
    uint16_t se;
    memcpy(&mant, src, 8);
    memcpy(&se, src + 8, 2);
    uint64_t sign = se >> 15, exp = se & 0x7fff;
    uint64_t frac = mant & 0x7fffffffffffffffull;     /* 63 fraction bits */
    if (exp == 0 && (mant >> 63))                     /* pseudo-denormal */
        exp = 1;
    else if (exp != 0 && exp != 0x7fff && !(mant >> 63)) /* unnormal: invalid */
        exp = 0x7fff, frac = 0x4000000000000000ull;
    hi = sign << 63 | exp << 48 | frac >> 15;
    lo = frac << 49;
    reverse(dst, (const unsigned char *)&hi, 8);
    reverse(dst + 8, (const unsigned char *)&lo, 8);
}

static void quad_to_x87(unsigned char *dst, const unsigned char *src)
{
    uint64_t hi, lo;
    reverse((unsigned char *)&hi, src, 8);
    reverse((unsigned char *)&lo, src + 8, 8);
    uint64_t sign = hi >> 63, exp = (hi >> 48) & 0x7fff;
    uint64_t frac = (hi & 0xffffffffffffull) << 15 | lo >> 49;   /* top 63 of 112 bits */
    uint64_t rest = lo & ((1ull << 49) - 1), half = 1ull << 48;
    uint64_t mant;
    if (exp == 0x7fff) {                              /* infinity or NaN */
        if (frac == 0 && (rest != 0))
            frac = 0x4000000000000000ull;             /* keep a NaN a NaN */
        mant = 1ull << 63 | frac;
    } else {
        if (rest > half || (rest == half && (frac & 1)))
            frac++;
        if (frac >> 63) {                             /* rounding carried */
            frac = 0;
            exp++;
        }
        if (exp == 0)
            mant = frac;                              /* denormal or zero */
        else if (exp == 0x7fff)
            mant = 1ull << 63;                        /* overflowed to infinity */
        else
            mant = 1ull << 63 | frac;
    }
    uint16_t se = (uint16_t)(sign << 15 | exp);
    memset(dst, 0, 16);
    memcpy(dst, &mant, 8);
    memcpy(dst + 8, &se, 2);
}

/* One basic element of `info`, native at src, to external32 at dst. */
static void to_ext32(const struct uz_dt_basic_info *info, unsigned char *dst,
                     const unsigned char *src)
{
    size_t piece = info->size / info->pieces, xpiece = info->ext32 / info->pieces;
    for (uint32_t k = 0; k < info->pieces; k++, src += piece, dst += xpiece) {
        switch (info->conv) {
        case UZ_EXT32_X87:
            x87_to_quad(dst, src);
            break;
        case UZ_EXT32_INT:
        case UZ_EXT32_UINT:
            if (xpiece <= piece) {          /* keep the low-order bytes */
                reverse(dst, src, xpiece);
                break;
            }
            reverse(dst + (xpiece - piece), src, piece);
            memset(dst, info->conv == UZ_EXT32_INT && (src[piece - 1] & 0x80) ? 0xff : 0,
                   xpiece - piece);
            break;
        case UZ_EXT32_SWAP:
            reverse(dst, src, piece);
            break;
        }
    }
}

static void from_ext32(const struct uz_dt_basic_info *info, unsigned char *dst,
                       const unsigned char *src)
{
    size_t piece = info->size / info->pieces, xpiece = info->ext32 / info->pieces;
    for (uint32_t k = 0; k < info->pieces; k++, src += xpiece, dst += piece) {
        switch (info->conv) {
        case UZ_EXT32_X87:
            quad_to_x87(dst, src);
            break;
        case UZ_EXT32_INT:
        case UZ_EXT32_UINT:
            if (piece <= xpiece) {
                reverse(dst, src + (xpiece - piece), piece);
                break;
            }
            reverse(dst, src, xpiece);      /* widen: extend the sign */
            memset(dst + xpiece, info->conv == UZ_EXT32_INT && (src[0] & 0x80) ? 0xff : 0,
                   piece - xpiece);
            break;
        case UZ_EXT32_SWAP:
            reverse(dst, src, piece);
            break;
        }
    }
}

/* ------------------------------------------------------------------ walk */

struct ext32_walk {
    const struct uz_dt_layout *l;
    unsigned char *ext;         /* next byte of the external32 stream */
    int packing;
};

static void walk_leaf(struct ext32_walk *w, const struct uz_dl_leaf *lf, unsigned char *p)
{
    const struct uz_dl_sig *sig = &uz_dl_sigs(w->l)[lf->sig];
    for (uint64_t u = 0; u < lf->len / lf->unit_len; u++) {
        for (uint32_t i = 0; i < lf->nsig; i++) {
            const struct uz_dt_basic_info *info = uz_dt_basic_info(sig[i].type);
            for (uint64_t k = 0; k < sig[i].n; k++) {
                if (w->packing)
                    to_ext32(info, w->ext, p);
                else
                    from_ext32(info, p, w->ext);
                p += info->size;
                w->ext += info->ext32;
            }
        }
    }
}

static void walk_item(struct ext32_walk *w, const struct uz_dl_item *it, uintptr_t base);

static void walk_node(struct ext32_walk *w, const struct uz_dl_node *n, uintptr_t base)
{
    const struct uz_dl_item *items = uz_dl_items(w->l);
    for (uint32_t i = 0; i < n->nitems; i++)
        walk_item(w, &items[n->item + i], base);
}

static void walk_item(struct ext32_walk *w, const struct uz_dl_item *it, uintptr_t base)
{
    for (uint64_t k = 0; k < it->count; k++) {
        uintptr_t p = base + it->disp + (intptr_t)k * it->stride;
        if (it->child & UZ_DL_LEAF)
            walk_leaf(w, &uz_dl_leaves(w->l)[it->child & ~UZ_DL_LEAF], (unsigned char *)p);
        else
            walk_node(w, &uz_dl_nodes(w->l)[it->child], p);
    }
}

static void walk(const uz_datatype *dt, const void *buf, MPI_Count count, void *ext, int packing)
{
    struct ext32_walk w = { dt->layout, ext, packing };
    struct uz_dl_item top = { .stride = dt->extent, .count = (uint64_t)count,
                              .child = dt->layout->root };
    walk_item(&w, &top, (uintptr_t)buf);
}

/* --------------------------------------------------------------- entries */

static int ext32_bytes(MPI_Count count, const uz_datatype *dt, MPI_Count *bytes);

int uz_dt_ext32_size(const uz_datatype *dt, MPI_Count count, MPI_Count *bytes)
{
    return ext32_bytes(count, dt, bytes);
}

void uz_dt_ext32_pack(const void *inbuf, MPI_Count count, const uz_datatype *dt, void *out)
{
    walk(dt, inbuf, count, out, 1);
}

void uz_dt_ext32_unpack(void *outbuf, MPI_Count count, const uz_datatype *dt, const void *in)
{
    walk(dt, outbuf, count, (void *)in, 0);
}

static int check_datarep(const char *datarep)
{
    if (strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\" is not "
                       "supported (only \"external32\")", datarep);
}

static int ext32_bytes(MPI_Count count, const uz_datatype *dt, MPI_Count *bytes)
{
    if (__builtin_mul_overflow(count, (MPI_Count)uz_dl_root(dt->layout)->ext32, bytes))
        return uz_err_make(MPI_ERR_COUNT, "count %lld overflows the external32 size",
                           (long long)count);
    return MPI_SUCCESS;
}

static int pack_external(const char *datarep, const void *inbuf, MPI_Count incount,
                         uz_datatype *dt, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    MPI_Count bytes;
    int err = check_datarep(datarep);
    if (!err)
        err = ext32_bytes(incount, dt, &bytes);
    if (err)
        return err;
    if (*position < 0 || *position > outsize)
        return uz_err_make(MPI_ERR_ARG, "invalid position %lld for an outsize of %lld",
                           (long long)*position, (long long)outsize);
    if (bytes > outsize - *position)
        return uz_err_make(MPI_ERR_TRUNCATE, "%lld bytes do not fit in the %lld left of outbuf",
                           (long long)bytes, (long long)(outsize - *position));
    walk(dt, inbuf, incount, (char *)outbuf + *position, 1);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack_external(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           uz_datatype *dt)
{
    MPI_Count bytes;
    int err = check_datarep(datarep);
    if (!err)
        err = ext32_bytes(outcount, dt, &bytes);
    if (err)
        return err;
    if (*position < 0 || *position > insize)
        return uz_err_make(MPI_ERR_ARG, "invalid position %lld for an insize of %lld",
                           (long long)*position, (long long)insize);
    if (bytes > insize - *position)
        return uz_err_make(MPI_ERR_TRUNCATE, "unpacking %lld bytes but only %lld are left in inbuf",
                           (long long)bytes, (long long)(insize - *position));
    walk(dt, outbuf, outcount, (char *)inbuf + *position, 0);
    *position += bytes;
    return MPI_SUCCESS;
}

int uz_mpi_Pack_external(const char datarep[], const void *inbuf, int incount,
                         uz_datatype *datatype, void *outbuf, MPI_Aint outsize,
                         MPI_Aint *position)
{
    MPI_Count pos = *position;
    int err = pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

int uz_mpi_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                           uz_datatype *datatype, void *outbuf, MPI_Count outsize,
                           MPI_Count *position)
{
    return pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int uz_mpi_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                           MPI_Aint *position, void *outbuf, int outcount,
                           uz_datatype *datatype)
{
    MPI_Count pos = *position;
    int err = unpack_external(datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

int uz_mpi_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                             MPI_Count *position, void *outbuf, MPI_Count outcount,
                             uz_datatype *datatype)
{
    return unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int uz_mpi_Pack_external_size(const char datarep[], int incount, uz_datatype *datatype,
                              MPI_Aint *size)
{
    MPI_Count bytes;
    int err = check_datarep(datarep);
    if (!err)
        err = ext32_bytes(incount, datatype, &bytes);
    if (!err)
        *size = (MPI_Aint)bytes;
    return err;
}

int uz_mpi_Pack_external_size_c(const char datarep[], MPI_Count incount, uz_datatype *datatype,
                                MPI_Count *size)
{
    int err = check_datarep(datarep);
    return err ? err : ext32_bytes(incount, datatype, size);
}
