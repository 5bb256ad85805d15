/*
 * builtin.c — the predefined datatypes: their sizes on this platform, their
 * element kinds, alignments, external32 representation and names, their
 * layouts, and the table that predefined handles index.
 */
#include <complex.h>
#include <float.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "datatype/dt_internal.h"

uz_datatype *uz_datatype_builtin[UZ_DATATYPE_TABLE_SIZE];

static uz_datatype builtin_storage[UZ_DATATYPE_TABLE_SIZE];
static struct uz_dt_basic_info basic_info[UZ_DATATYPE_TABLE_SIZE];

/* The pair types of MINLOC/MAXLOC are laid out as C structs; their extents
 * include the padding the compiler puts after the index. */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_short_int { short v; int i; };
struct pair_long_double_int { long double v; int i; };
struct pair_2int { int v; int i; };
struct pair_2real { float v; float i; };
struct pair_2double { double v; double i; };

/* long double is the x87 80-bit format on x86-64 (converted to binary128
 * for external32) and binary128 itself on aarch64 and riscv64. */
#if LDBL_MANT_DIG == 64
#define LDOUBLE_CONV UZ_EXT32_X87
#else
#define LDOUBLE_CONV UZ_EXT32_SWAP
#endif

#define SLOT(h) ((uint32_t)((uintptr_t)(h) - (uintptr_t)MPI_DATATYPE_NULL))

struct builtin_desc {
    MPI_Datatype handle;
    const char *name;
    MPI_Count size;
    MPI_Aint extent;
    enum uz_basic_kind kind;
    int align;
    uint32_t ext32;             /* external32 bytes (0 for pair types) */
    enum uz_ext32_conv conv;
    uint32_t pieces;            /* 2 for complex numbers */
    /* Pair types: the value and index types and where the index lives. */
    MPI_Datatype value, index;
    MPI_Aint index_disp;
};

#define INT_T(h, n, ctype, e) { h, n, sizeof(ctype), sizeof(ctype), UZ_BASIC_INT, alignof(ctype), e, UZ_EXT32_INT, 1 }
#define UINT_T(h, n, ctype, e) { h, n, sizeof(ctype), sizeof(ctype), UZ_BASIC_UINT, alignof(ctype), e, UZ_EXT32_UINT, 1 }
#define SWAP_T(h, n, sz, al, kind, pieces) { h, n, sz, sz, kind, al, sz, UZ_EXT32_SWAP, pieces }
#define PAIR_T(h, n, st, vt, it) { h, n, sizeof(((st *)0)->v) + sizeof(((st *)0)->i), sizeof(st), UZ_BASIC_PAIR, alignof(st), 0, UZ_EXT32_SWAP, 1, vt, it, offsetof(st, i) }

/* Names are the constants' names.  Two pairs of constants are one handle in
 * the standard ABI (MPI_LONG_LONG_INT and MPI_LONG_LONG, MPI_C_COMPLEX and
 * MPI_C_FLOAT_COMPLEX), so MPI_Type_get_name cannot tell which one the
 * program wrote: it says the name the standard lists first, the other being
 * "(as a synonym)" in its tables, as MPICH does. */
static const struct builtin_desc builtin_descs[] = {
    INT_T(MPI_AINT, "MPI_AINT", MPI_Aint, 8),
    INT_T(MPI_COUNT, "MPI_COUNT", MPI_Count, 8),
    INT_T(MPI_OFFSET, "MPI_OFFSET", MPI_Offset, 8),
    SWAP_T(MPI_PACKED, "MPI_PACKED", 1, 1, UZ_BASIC_BYTE, 1),
    INT_T(MPI_SHORT, "MPI_SHORT", short, 2),
    INT_T(MPI_INT, "MPI_INT", int, 4),
    INT_T(MPI_LONG, "MPI_LONG", long, 4),
    INT_T(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", long long, 8),
    UINT_T(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", unsigned short, 2),
    UINT_T(MPI_UNSIGNED, "MPI_UNSIGNED", unsigned, 4),
    UINT_T(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", unsigned long, 4),
    UINT_T(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", unsigned long long, 8),
    SWAP_T(MPI_FLOAT, "MPI_FLOAT", sizeof(float), alignof(float), UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_C_COMPLEX, "MPI_C_COMPLEX", sizeof(float complex), alignof(float complex), UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(float complex), alignof(float complex), UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), alignof(double), UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double complex), alignof(double complex), UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(double complex), alignof(double complex), UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_LOGICAL, "MPI_LOGICAL", 4, 4, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER, "MPI_INTEGER", 4, 4, UZ_BASIC_INT, 1),
    SWAP_T(MPI_REAL, "MPI_REAL", 4, 4, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_COMPLEX, "MPI_COMPLEX", 8, 4, UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8, UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_CHARACTER, "MPI_CHARACTER", 1, 1, UZ_BASIC_CHAR, 1),
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), sizeof(long double), UZ_BASIC_LONG_DOUBLE,
      alignof(long double), 16, LDOUBLE_CONV, 1 },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double complex), sizeof(long double complex),
      UZ_BASIC_LONG_DOUBLE_COMPLEX, alignof(long double complex), 32, LDOUBLE_CONV, 2 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double complex), sizeof(long double complex),
      UZ_BASIC_LONG_DOUBLE_COMPLEX, alignof(long double complex), 32, LDOUBLE_CONV, 2 },
    PAIR_T(MPI_FLOAT_INT, "MPI_FLOAT_INT", struct pair_float_int, MPI_FLOAT, MPI_INT),
    PAIR_T(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", struct pair_double_int, MPI_DOUBLE, MPI_INT),
    PAIR_T(MPI_LONG_INT, "MPI_LONG_INT", struct pair_long_int, MPI_LONG, MPI_INT),
    PAIR_T(MPI_2INT, "MPI_2INT", struct pair_2int, MPI_INT, MPI_INT),
    PAIR_T(MPI_SHORT_INT, "MPI_SHORT_INT", struct pair_short_int, MPI_SHORT, MPI_INT),
    PAIR_T(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", struct pair_long_double_int, MPI_LONG_DOUBLE, MPI_INT),
    PAIR_T(MPI_2REAL, "MPI_2REAL", struct pair_2real, MPI_REAL, MPI_REAL),
    PAIR_T(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", struct pair_2double, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION),
    PAIR_T(MPI_2INTEGER, "MPI_2INTEGER", struct pair_2int, MPI_INTEGER, MPI_INTEGER),
    UINT_T(MPI_C_BOOL, "MPI_C_BOOL", bool, 1),
    UINT_T(MPI_CXX_BOOL, "MPI_CXX_BOOL", bool, 1),
    INT_T(MPI_WCHAR, "MPI_WCHAR", wchar_t, 4),
    SWAP_T(MPI_INT8_T, "MPI_INT8_T", 1, 1, UZ_BASIC_INT, 1),
    SWAP_T(MPI_UINT8_T, "MPI_UINT8_T", 1, 1, UZ_BASIC_UINT, 1),
    SWAP_T(MPI_CHAR, "MPI_CHAR", 1, 1, UZ_BASIC_CHAR, 1),
    SWAP_T(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, UZ_BASIC_INT, 1),
    SWAP_T(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, UZ_BASIC_UINT, 1),
    SWAP_T(MPI_BYTE, "MPI_BYTE", 1, 1, UZ_BASIC_BYTE, 1),
    SWAP_T(MPI_INT16_T, "MPI_INT16_T", 2, 2, UZ_BASIC_INT, 1),
    SWAP_T(MPI_UINT16_T, "MPI_UINT16_T", 2, 2, UZ_BASIC_UINT, 1),
    SWAP_T(MPI_INT32_T, "MPI_INT32_T", 4, 4, UZ_BASIC_INT, 1),
    SWAP_T(MPI_UINT32_T, "MPI_UINT32_T", 4, 4, UZ_BASIC_UINT, 1),
    SWAP_T(MPI_INT64_T, "MPI_INT64_T", 8, 8, UZ_BASIC_INT, 1),
    SWAP_T(MPI_UINT64_T, "MPI_UINT64_T", 8, 8, UZ_BASIC_UINT, 1),
    SWAP_T(MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER1, "MPI_INTEGER1", 1, 1, UZ_BASIC_INT, 1),
    SWAP_T(MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER2, "MPI_INTEGER2", 2, 2, UZ_BASIC_INT, 1),
    SWAP_T(MPI_REAL2, "MPI_REAL2", 2, 2, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER4, "MPI_INTEGER4", 4, 4, UZ_BASIC_INT, 1),
    SWAP_T(MPI_REAL4, "MPI_REAL4", 4, 4, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_COMPLEX4, "MPI_COMPLEX4", 4, 2, UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER8, "MPI_INTEGER8", 8, 8, UZ_BASIC_INT, 1),
    SWAP_T(MPI_REAL8, "MPI_REAL8", 8, 8, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_COMPLEX8, "MPI_COMPLEX8", 8, 4, UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_LOGICAL16, "MPI_LOGICAL16", 16, 16, UZ_BASIC_LOGICAL, 1),
    SWAP_T(MPI_INTEGER16, "MPI_INTEGER16", 16, 16, UZ_BASIC_INT, 1),
    SWAP_T(MPI_REAL16, "MPI_REAL16", 16, 16, UZ_BASIC_FLOAT, 1),
    SWAP_T(MPI_COMPLEX16, "MPI_COMPLEX16", 16, 8, UZ_BASIC_COMPLEX, 2),
    SWAP_T(MPI_COMPLEX32, "MPI_COMPLEX32", 32, 16, UZ_BASIC_COMPLEX, 2),
};

enum { NDESCS = sizeof(builtin_descs) / sizeof(builtin_descs[0]) };

const struct uz_dt_basic_info *uz_dt_basic_info(uint32_t slot)
{
    return slot < UZ_DATATYPE_TABLE_SIZE ? &basic_info[slot] : NULL;
}

static void init_one(const struct builtin_desc *d)
{
    uint32_t slot = SLOT(d->handle);
    uz_datatype *dt = &builtin_storage[slot];
    uz_object_init_builtin(&dt->obj, UZ_MAGIC_DATATYPE);
    dt->size = d->size;
    dt->lb = 0;
    dt->extent = d->extent;
    dt->true_lb = 0;
    dt->committed = 1;
    dt->basic_kind = d->kind;
    dt->predefined = 1;
    dt->combiner = MPI_COMBINER_NAMED;
    dt->basic = dt;
    dt->align = d->align;
    strncpy(dt->name, d->name, sizeof(dt->name) - 1);

    struct uz_dl_basic_run runs[2];
    size_t nruns;
    if (d->kind == UZ_BASIC_PAIR) {
        const struct uz_dt_basic_info *v = &basic_info[SLOT(d->value)];
        const struct uz_dt_basic_info *i = &basic_info[SLOT(d->index)];
        runs[0] = (struct uz_dl_basic_run){ 0, SLOT(d->value), 1, v->size, v->ext32 };
        runs[1] = (struct uz_dl_basic_run){ d->index_disp, SLOT(d->index), 1, i->size, i->ext32 };
        nruns = 2;
        dt->true_extent = d->index_disp + i->size;
    } else {
        basic_info[slot] = (struct uz_dt_basic_info){ (uint32_t)d->size, d->ext32, d->pieces,
                                                      d->conv };
        runs[0] = (struct uz_dl_basic_run){ 0, slot, 1, (uint64_t)d->size, d->ext32 };
        nruns = 1;
        dt->true_extent = d->extent;
    }
    dt->layout = uz_dl_build_basic(runs, nruns);
    dt->single_run = dt->layout != NULL && uz_dl_root(dt->layout)->nitems == 1 &&
                     uz_dl_items(dt->layout)[uz_dl_root(dt->layout)->item].child & UZ_DL_LEAF;
    dt->contiguous = dt->single_run && dt->size == dt->extent;
    uz_datatype_builtin[slot] = dt;
}

/* MPI_LB and MPI_UB, the MPI-1 bound markers (removed in MPI-3.0, kept as
 * an extension): no data and no extent, only a sticky lower or upper bound
 * at the displacement they are placed at (dt_create.c). */
static void init_marker(MPI_Datatype handle, const char *name, int sticky)
{
    uint32_t slot = SLOT(handle);
    uz_datatype *dt = &builtin_storage[slot];
    uz_object_init_builtin(&dt->obj, UZ_MAGIC_DATATYPE);
    dt->committed = 1;
    dt->basic_kind = UZ_BASIC_NONE;
    dt->predefined = 1;
    dt->combiner = MPI_COMBINER_NAMED;
    dt->align = 1;
    dt->sticky = sticky | UZ_DT_MARKER;
    strncpy(dt->name, name, sizeof(dt->name) - 1);
    dt->layout = uz_dl_build(NULL, 0);
    dt->single_run = dt->contiguous = 1;
    uz_datatype_builtin[slot] = dt;
}

static void init_all(void)
{
    /* Pair types refer to the basic info of their parts: those first. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < NDESCS; i++)
            if ((builtin_descs[i].kind == UZ_BASIC_PAIR) == pass)
                init_one(&builtin_descs[i]);
    init_marker(MPI_LB, "MPI_LB", UZ_DT_STICKY_LB);
    init_marker(MPI_UB, "MPI_UB", UZ_DT_STICKY_UB);
}

void uz_datatype_init_builtins(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_all);
}

int uz_datatype_builtin_slot(const uz_datatype *dt)
{
    if (dt >= builtin_storage && dt < builtin_storage + UZ_DATATYPE_TABLE_SIZE)
        return (int)(dt - builtin_storage);
    return -1;
}

MPI_Datatype uz_datatype_handle(const uz_datatype *dt)
{
    if (dt >= builtin_storage && dt < builtin_storage + UZ_DATATYPE_TABLE_SIZE)
        return (MPI_Datatype)((uintptr_t)MPI_DATATYPE_NULL + (uintptr_t)(dt - builtin_storage));
    return (MPI_Datatype)dt;
}
