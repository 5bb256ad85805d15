/*
 * op_kernels.c — the arithmetic of the predefined reduction operations:
 * one loop per (operation, element type), looked up through a table.
 *
 * A kernel works on the packed form of its elements (dt_engine.h): values
 * follow one another with no padding.  For the MINLOC/MAXLOC pair types
 * that means the index sits right after the value (a packed MPI_SHORT_INT
 * is 6 bytes), so pair kernels load and store through memcpy.
 *
 * Which operation applies to which type follows MPI-4.1 §6.9.2, with the
 * extension MPICH's test suite relies on that MPI_CHAR counts as a C
 * integer.  MPI_REPLACE and MPI_NO_OP apply to every type (one-sided
 * accumulate uses them through uz_op_apply).
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll/op_kernels.h"

/* ------------------------------------------------------------ element loops */

/* The loops are compiled three times on x86-64, for the baseline, AVX2
 * and AVX-512, and the loader picks one for this CPU (GCC's
 * target_clones): an accumulate of 32 KiB of doubles in cache went from
 * 49 to 70 (AVX2) and 97 GB/s (AVX-512) here, and reductions feel it
 * too.  Not under AddressSanitizer or ThreadSanitizer: the loader runs the
 * clones' resolvers before the sanitizer's runtime is up, and a
 * ThreadSanitizer build crashed at load. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KERNEL_CLONES
#endif

#define LOOP(name, T, EXPR)                                                   \
    KERNEL_CLONES static void name(const void *in_, void *io_, size_t n)     \
    {                                                                         \
        const T *in = in_;                                                    \
        T *io = io_;                                                          \
        for (size_t i = 0; i < n; i++) {                                      \
            T a = in[i], b = io[i];                                           \
            io[i] = (EXPR);                                                   \
        }                                                                     \
    }

#define ARITH(sfx, T)                                                         \
    LOOP(sum_##sfx, T, (T)(a + b))                                            \
    LOOP(prod_##sfx, T, (T)(a * b))                                           \
    LOOP(min_##sfx, T, a < b ? a : b)                                         \
    LOOP(max_##sfx, T, a > b ? a : b)

#define LOGICAL(sfx, T)                                                       \
    LOOP(land_##sfx, T, (T)((a != 0) && (b != 0)))                            \
    LOOP(lor_##sfx, T, (T)((a != 0) || (b != 0)))                             \
    LOOP(lxor_##sfx, T, (T)((a != 0) != (b != 0)))

#define BITWISE(sfx, T)                                                       \
    LOOP(band_##sfx, T, (T)(a & b))                                           \
    LOOP(bor_##sfx, T, (T)(a | b))                                            \
    LOOP(bxor_##sfx, T, (T)(a ^ b))

/* Signed sums wrap in unsigned arithmetic: overflow is the user's
 * business, but it must not be undefined behaviour in the library. */
#define INTEGER(sfx, T, U)                                                    \
    LOOP(sum_##sfx, T, (T)((U)a + (U)b))                                      \
    LOOP(prod_##sfx, T, (T)((U)a * (U)b))                                     \
    LOOP(min_##sfx, T, a < b ? a : b)                                         \
    LOOP(max_##sfx, T, a > b ? a : b)                                         \
    LOGICAL(sfx, T)                                                           \
    BITWISE(sfx, T)

INTEGER(i8, int8_t, uint8_t)
INTEGER(i16, int16_t, uint16_t)
INTEGER(i32, int32_t, uint32_t)
INTEGER(i64, int64_t, uint64_t)
INTEGER(u8, uint8_t, uint8_t)
INTEGER(u16, uint16_t, uint16_t)
INTEGER(u32, uint32_t, uint32_t)
INTEGER(u64, uint64_t, uint64_t)
#ifdef __SIZEOF_INT128__
INTEGER(i128, __int128, unsigned __int128)
#endif

ARITH(f32, float)
ARITH(f64, double)
ARITH(f80, long double)
#ifdef __FLT16_MANT_DIG__
ARITH(f16, _Float16)
#endif
#ifdef __SIZEOF_FLOAT128__
ARITH(f128, __float128)
#endif

LOOP(sum_c32, float _Complex, a + b)
LOOP(prod_c32, float _Complex, a * b)
LOOP(sum_c64, double _Complex, a + b)
LOOP(prod_c64, double _Complex, a * b)
LOOP(sum_c80, long double _Complex, a + b)
LOOP(prod_c80, long double _Complex, a * b)

/* Complex types C has no native form for here: pairs of reals. */
#define CPAIR(sfx, T)                                                         \
    static void sum_##sfx(const void *in_, void *io_, size_t n)              \
    {                                                                         \
        const T *in = in_;                                                    \
        T *io = io_;                                                          \
        for (size_t i = 0; i < 2 * n; i++)                                    \
            io[i] = in[i] + io[i];                                            \
    }                                                                         \
    static void prod_##sfx(const void *in_, void *io_, size_t n)             \
    {                                                                         \
        const T *in = in_;                                                    \
        T *io = io_;                                                          \
        for (size_t i = 0; i < n; i++) {                                      \
            T ar = in[2 * i], ai = in[2 * i + 1];                             \
            T br = io[2 * i], bi = io[2 * i + 1];                             \
            io[2 * i] = ar * br - ai * bi;                                    \
            io[2 * i + 1] = ar * bi + ai * br;                                \
        }                                                                     \
    }
#ifdef __FLT16_MANT_DIG__
CPAIR(c16, _Float16)
#endif
#ifdef __SIZEOF_FLOAT128__
CPAIR(c128, __float128)
#endif

/* C bool and Fortran LOGICAL: the logical operations only.  A Fortran
 * .TRUE. is any non-zero value; the result is 1 or 0 as gfortran stores. */
LOGICAL(b8, uint8_t)
LOGICAL(b16, uint16_t)
LOGICAL(b32, uint32_t)
LOGICAL(b64, uint64_t)
#ifdef __SIZEOF_INT128__
LOGICAL(b128, unsigned __int128)
#endif

/* ------------------------------------------------------------------ pairs */

/* MINLOC keeps the smaller value; on a tie, the smaller index.  MAXLOC
 * likewise with the larger value. */
#define PAIR(sfx, V, I)                                                       \
    static void minloc_##sfx(const void *in_, void *io_, size_t n)           \
    {                                                                         \
        const unsigned char *in = in_;                                        \
        unsigned char *io = io_;                                              \
        for (size_t k = 0; k < n; k++, in += sizeof(V) + sizeof(I),           \
                                       io += sizeof(V) + sizeof(I)) {         \
            V a, b;                                                           \
            I ia, ib;                                                         \
            memcpy(&a, in, sizeof(V));                                        \
            memcpy(&b, io, sizeof(V));                                        \
            memcpy(&ia, in + sizeof(V), sizeof(I));                           \
            memcpy(&ib, io + sizeof(V), sizeof(I));                           \
            if (a < b || (a == b && ia < ib))                                 \
                memcpy(io, in, sizeof(V) + sizeof(I));                        \
        }                                                                     \
    }                                                                         \
    static void maxloc_##sfx(const void *in_, void *io_, size_t n)           \
    {                                                                         \
        const unsigned char *in = in_;                                        \
        unsigned char *io = io_;                                              \
        for (size_t k = 0; k < n; k++, in += sizeof(V) + sizeof(I),           \
                                       io += sizeof(V) + sizeof(I)) {         \
            V a, b;                                                           \
            I ia, ib;                                                         \
            memcpy(&a, in, sizeof(V));                                        \
            memcpy(&b, io, sizeof(V));                                        \
            memcpy(&ia, in + sizeof(V), sizeof(I));                           \
            memcpy(&ib, io + sizeof(V), sizeof(I));                           \
            if (a > b || (a == b && ia < ib))                                 \
                memcpy(io, in, sizeof(V) + sizeof(I));                        \
        }                                                                     \
    }
PAIR(float_int, float, int)
PAIR(double_int, double, int)
PAIR(long_int, long, int)
PAIR(2int, int, int)
PAIR(short_int, short, int)
PAIR(long_double_int, long double, int)
PAIR(2float, float, float)
PAIR(2double, double, double)

/* ------------------------------------------------------ replace and no-op */

/* Element size does not matter to these: callers pass bytes as n. */
static void replace_bytes(const void *in, void *io, size_t n)
{
    memmove(io, in, n);
}

static void no_op(const void *in, void *io, size_t n)
{
    (void)in, (void)io, (void)n;
}

/* ------------------------------------------------------------------ table */

/* Element types the kernels know. */
enum kt {
    KT_NONE,
    KT_I8, KT_I16, KT_I32, KT_I64, KT_I128,
    KT_U8, KT_U16, KT_U32, KT_U64,
    KT_F16, KT_F32, KT_F64, KT_F80, KT_F128,
    KT_C16, KT_C32, KT_C64, KT_C80, KT_C128,
    KT_B8, KT_B16, KT_B32, KT_B64, KT_B128,       /* bool and Fortran logicals */
    KT_BYTE,
    KT_P_FLOAT_INT, KT_P_DOUBLE_INT, KT_P_LONG_INT, KT_P_2INT, KT_P_SHORT_INT,
    KT_P_LONG_DOUBLE_INT, KT_P_2FLOAT, KT_P_2DOUBLE,
    KT_COUNT
};

enum ok { OK_SUM, OK_PROD, OK_MIN, OK_MAX, OK_LAND, OK_LOR, OK_LXOR, OK_BAND, OK_BOR, OK_BXOR,
          OK_MINLOC, OK_MAXLOC, OK_COUNT };

#define INT_ROW(sfx) { sum_##sfx, prod_##sfx, min_##sfx, max_##sfx, land_##sfx, lor_##sfx,   \
                       lxor_##sfx, band_##sfx, bor_##sfx, bxor_##sfx, NULL, NULL }
#define FLOAT_ROW(sfx) { sum_##sfx, prod_##sfx, min_##sfx, max_##sfx }
#define COMPLEX_ROW(sfx) { sum_##sfx, prod_##sfx }
#define LOGICAL_ROW(sfx) { [OK_LAND] = land_##sfx, [OK_LOR] = lor_##sfx, [OK_LXOR] = lxor_##sfx }
#define PAIR_ROW(sfx) { [OK_MINLOC] = minloc_##sfx, [OK_MAXLOC] = maxloc_##sfx }

static const uz_op_kernel kernels[KT_COUNT][OK_COUNT] = {
    [KT_I8] = INT_ROW(i8), [KT_I16] = INT_ROW(i16), [KT_I32] = INT_ROW(i32), [KT_I64] = INT_ROW(i64),
#ifdef __SIZEOF_INT128__
    [KT_I128] = INT_ROW(i128),
#endif
    [KT_U8] = INT_ROW(u8), [KT_U16] = INT_ROW(u16), [KT_U32] = INT_ROW(u32), [KT_U64] = INT_ROW(u64),
#ifdef __FLT16_MANT_DIG__
    [KT_F16] = FLOAT_ROW(f16), [KT_C16] = COMPLEX_ROW(c16),
#endif
    [KT_F32] = FLOAT_ROW(f32), [KT_F64] = FLOAT_ROW(f64), [KT_F80] = FLOAT_ROW(f80),
#ifdef __SIZEOF_FLOAT128__
    [KT_F128] = FLOAT_ROW(f128), [KT_C128] = COMPLEX_ROW(c128),
#endif
    [KT_C32] = COMPLEX_ROW(c32), [KT_C64] = COMPLEX_ROW(c64), [KT_C80] = COMPLEX_ROW(c80),
    [KT_B8] = LOGICAL_ROW(b8), [KT_B16] = LOGICAL_ROW(b16), [KT_B32] = LOGICAL_ROW(b32),
    [KT_B64] = LOGICAL_ROW(b64),
#ifdef __SIZEOF_INT128__
    [KT_B128] = LOGICAL_ROW(b128),
#endif
    [KT_BYTE] = { [OK_BAND] = band_u8, [OK_BOR] = bor_u8, [OK_BXOR] = bxor_u8 },
    [KT_P_FLOAT_INT] = PAIR_ROW(float_int), [KT_P_DOUBLE_INT] = PAIR_ROW(double_int),
    [KT_P_LONG_INT] = PAIR_ROW(long_int), [KT_P_2INT] = PAIR_ROW(2int),
    [KT_P_SHORT_INT] = PAIR_ROW(short_int), [KT_P_LONG_DOUBLE_INT] = PAIR_ROW(long_double_int),
    [KT_P_2FLOAT] = PAIR_ROW(2float), [KT_P_2DOUBLE] = PAIR_ROW(2double),
};

static enum kt sized(int size, enum kt k1, enum kt k2, enum kt k4, enum kt k8, enum kt k16)
{
    switch (size) {
    case 1: return k1;
    case 2: return k2;
    case 4: return k4;
    case 8: return k8;
    case 16: return k16;
    default: return KT_NONE;
    }
}

static enum kt pair_kind(MPI_Datatype h)
{
    if (h == MPI_FLOAT_INT) return KT_P_FLOAT_INT;
    if (h == MPI_DOUBLE_INT) return KT_P_DOUBLE_INT;
    if (h == MPI_LONG_INT) return KT_P_LONG_INT;
    if (h == MPI_2INT || h == MPI_2INTEGER) return KT_P_2INT;
    if (h == MPI_SHORT_INT) return KT_P_SHORT_INT;
    if (h == MPI_LONG_DOUBLE_INT) return KT_P_LONG_DOUBLE_INT;
    if (h == MPI_2REAL) return KT_P_2FLOAT;
    if (h == MPI_2DOUBLE_PRECISION) return KT_P_2DOUBLE;
    return KT_NONE;
}

static enum kt kernel_type(const uz_datatype *basic)
{
    MPI_Datatype h = uz_datatype_handle(basic);
    int size = (int)basic->size;
    if (h == MPI_C_BOOL || h == MPI_CXX_BOOL)
        return sized(size, KT_B8, KT_B16, KT_B32, KT_B64, KT_B128);
    switch (basic->basic_kind) {
    case UZ_BASIC_INT:
    case UZ_BASIC_CHAR:         /* MPICH's extension: characters are small integers */
        return sized(size, KT_I8, KT_I16, KT_I32, KT_I64, KT_I128);
    case UZ_BASIC_UINT:
        return sized(size, KT_U8, KT_U16, KT_U32, KT_U64, KT_NONE);
    case UZ_BASIC_FLOAT:
        return sized(size, KT_NONE, KT_F16, KT_F32, KT_F64, KT_F128);
    case UZ_BASIC_LONG_DOUBLE:
        return KT_F80;
    case UZ_BASIC_COMPLEX:
        switch (size) {
        case 4: return KT_C16;
        case 8: return KT_C32;
        case 16: return KT_C64;
        case 32: return KT_C128;
        default: return KT_NONE;
        }
    case UZ_BASIC_LONG_DOUBLE_COMPLEX:
        return KT_C80;
    case UZ_BASIC_BOOL:
    case UZ_BASIC_LOGICAL:
        return sized(size, KT_B8, KT_B16, KT_B32, KT_B64, KT_B128);
    case UZ_BASIC_BYTE:
        return KT_BYTE;
    case UZ_BASIC_PAIR:
        return pair_kind(h);
    default:
        return KT_NONE;
    }
}

static int op_index(MPI_Op h)
{
    if (h == MPI_SUM) return OK_SUM;
    if (h == MPI_PROD) return OK_PROD;
    if (h == MPI_MIN) return OK_MIN;
    if (h == MPI_MAX) return OK_MAX;
    if (h == MPI_LAND) return OK_LAND;
    if (h == MPI_LOR) return OK_LOR;
    if (h == MPI_LXOR) return OK_LXOR;
    if (h == MPI_BAND) return OK_BAND;
    if (h == MPI_BOR) return OK_BOR;
    if (h == MPI_BXOR) return OK_BXOR;
    if (h == MPI_MINLOC) return OK_MINLOC;
    if (h == MPI_MAXLOC) return OK_MAXLOC;
    return -1;
}

uz_op_kernel uz_op_kernel_find(const uz_op *op, const uz_datatype *basic, int *bytewise)
{
    MPI_Op h = uz_op_handle(op);
    *bytewise = 0;
    if (h == MPI_REPLACE || h == MPI_NO_OP) {
        *bytewise = 1;
        return h == MPI_REPLACE ? replace_bytes : no_op;
    }
    int o = op_index(h);
    if (o < 0 || basic == NULL)
        return NULL;
    enum kt t = kernel_type(basic);
    return t == KT_NONE ? NULL : kernels[t][o];
}
