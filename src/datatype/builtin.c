/*
 * builtin.c — the predefined datatypes: their sizes on this platform, their
 * element kinds and names, and the table that predefined handles index.
 */
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>
#include <complex.h>

#include "datatype/datatype.h"

uz_datatype *uz_datatype_builtin[UZ_DATATYPE_TABLE_SIZE];

static uz_datatype builtin_storage[UZ_DATATYPE_TABLE_SIZE];

/* The pair types of MINLOC/MAXLOC are laid out as C structs; their extents
 * include the padding the compiler puts after the index. */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_short_int { short v; int i; };
struct pair_long_double_int { long double v; int i; };

struct builtin_desc {
    MPI_Datatype handle;
    const char *name;
    MPI_Count size;
    MPI_Aint extent;
    enum uz_basic_kind kind;
    MPI_Aint true_extent;       /* 0: same as extent */
};

static const struct builtin_desc builtin_descs[] = {
    { MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), sizeof(MPI_Aint), UZ_BASIC_INT },
    { MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), sizeof(MPI_Count), UZ_BASIC_INT },
    { MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), sizeof(MPI_Offset), UZ_BASIC_INT },
    { MPI_PACKED, "MPI_PACKED", 1, 1, UZ_BASIC_BYTE },
    { MPI_SHORT, "MPI_SHORT", sizeof(short), sizeof(short), UZ_BASIC_INT },
    { MPI_INT, "MPI_INT", sizeof(int), sizeof(int), UZ_BASIC_INT },
    { MPI_LONG, "MPI_LONG", sizeof(long), sizeof(long), UZ_BASIC_INT },
    { MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), sizeof(long long), UZ_BASIC_INT },
    { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(short), sizeof(short), UZ_BASIC_UINT },
    { MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(int), sizeof(int), UZ_BASIC_UINT },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), sizeof(long), UZ_BASIC_UINT },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(long long), sizeof(long long), UZ_BASIC_UINT },
    { MPI_FLOAT, "MPI_FLOAT", sizeof(float), sizeof(float), UZ_BASIC_FLOAT },
    { MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", sizeof(float complex), sizeof(float complex), UZ_BASIC_COMPLEX },
    { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(float complex), sizeof(float complex), UZ_BASIC_COMPLEX },
    { MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), sizeof(double), UZ_BASIC_FLOAT },
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double complex), sizeof(double complex), UZ_BASIC_COMPLEX },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(double complex), sizeof(double complex), UZ_BASIC_COMPLEX },
    { MPI_LOGICAL, "MPI_LOGICAL", 4, 4, UZ_BASIC_LOGICAL },
    { MPI_INTEGER, "MPI_INTEGER", 4, 4, UZ_BASIC_INT },
    { MPI_REAL, "MPI_REAL", 4, 4, UZ_BASIC_FLOAT },
    { MPI_COMPLEX, "MPI_COMPLEX", 8, 8, UZ_BASIC_COMPLEX },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8, UZ_BASIC_FLOAT },
    { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16, UZ_BASIC_COMPLEX },
    { MPI_CHARACTER, "MPI_CHARACTER", 1, 1, UZ_BASIC_CHAR },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), sizeof(long double), UZ_BASIC_LONG_DOUBLE },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double complex), sizeof(long double complex), UZ_BASIC_LONG_DOUBLE_COMPLEX },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double complex), sizeof(long double complex), UZ_BASIC_LONG_DOUBLE_COMPLEX },
    { MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float) + sizeof(int), sizeof(struct pair_float_int), UZ_BASIC_PAIR,
      offsetof(struct pair_float_int, i) + sizeof(int) },
    { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double) + sizeof(int), sizeof(struct pair_double_int), UZ_BASIC_PAIR,
      offsetof(struct pair_double_int, i) + sizeof(int) },
    { MPI_LONG_INT, "MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(struct pair_long_int), UZ_BASIC_PAIR,
      offsetof(struct pair_long_int, i) + sizeof(int) },
    { MPI_2INT, "MPI_2INT", 2 * sizeof(int), 2 * sizeof(int), UZ_BASIC_PAIR },
    { MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short) + sizeof(int), sizeof(struct pair_short_int), UZ_BASIC_PAIR,
      offsetof(struct pair_short_int, i) + sizeof(int) },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(struct pair_long_double_int), UZ_BASIC_PAIR,
      offsetof(struct pair_long_double_int, i) + sizeof(int) },
    { MPI_2REAL, "MPI_2REAL", 8, 8, UZ_BASIC_PAIR },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16, UZ_BASIC_PAIR },
    { MPI_2INTEGER, "MPI_2INTEGER", 8, 8, UZ_BASIC_PAIR },
    { MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), sizeof(bool), UZ_BASIC_BOOL },
    { MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(bool), sizeof(bool), UZ_BASIC_BOOL },
    { MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), sizeof(wchar_t), UZ_BASIC_CHAR },
    { MPI_INT8_T, "MPI_INT8_T", 1, 1, UZ_BASIC_INT },
    { MPI_UINT8_T, "MPI_UINT8_T", 1, 1, UZ_BASIC_UINT },
    { MPI_CHAR, "MPI_CHAR", 1, 1, UZ_BASIC_CHAR },
    { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, UZ_BASIC_INT },
    { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, UZ_BASIC_UINT },
    { MPI_BYTE, "MPI_BYTE", 1, 1, UZ_BASIC_BYTE },
    { MPI_INT16_T, "MPI_INT16_T", 2, 2, UZ_BASIC_INT },
    { MPI_UINT16_T, "MPI_UINT16_T", 2, 2, UZ_BASIC_UINT },
    { MPI_INT32_T, "MPI_INT32_T", 4, 4, UZ_BASIC_INT },
    { MPI_UINT32_T, "MPI_UINT32_T", 4, 4, UZ_BASIC_UINT },
    { MPI_INT64_T, "MPI_INT64_T", 8, 8, UZ_BASIC_INT },
    { MPI_UINT64_T, "MPI_UINT64_T", 8, 8, UZ_BASIC_UINT },
    { MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1, UZ_BASIC_LOGICAL },
    { MPI_INTEGER1, "MPI_INTEGER1", 1, 1, UZ_BASIC_INT },
    { MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2, UZ_BASIC_LOGICAL },
    { MPI_INTEGER2, "MPI_INTEGER2", 2, 2, UZ_BASIC_INT },
    { MPI_REAL2, "MPI_REAL2", 2, 2, UZ_BASIC_FLOAT },
    { MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4, UZ_BASIC_LOGICAL },
    { MPI_INTEGER4, "MPI_INTEGER4", 4, 4, UZ_BASIC_INT },
    { MPI_REAL4, "MPI_REAL4", 4, 4, UZ_BASIC_FLOAT },
    { MPI_COMPLEX4, "MPI_COMPLEX4", 4, 4, UZ_BASIC_COMPLEX },
    { MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8, UZ_BASIC_LOGICAL },
    { MPI_INTEGER8, "MPI_INTEGER8", 8, 8, UZ_BASIC_INT },
    { MPI_REAL8, "MPI_REAL8", 8, 8, UZ_BASIC_FLOAT },
    { MPI_COMPLEX8, "MPI_COMPLEX8", 8, 8, UZ_BASIC_COMPLEX },
    { MPI_LOGICAL16, "MPI_LOGICAL16", 16, 16, UZ_BASIC_LOGICAL },
    { MPI_INTEGER16, "MPI_INTEGER16", 16, 16, UZ_BASIC_INT },
    { MPI_REAL16, "MPI_REAL16", 16, 16, UZ_BASIC_FLOAT },
    { MPI_COMPLEX16, "MPI_COMPLEX16", 16, 16, UZ_BASIC_COMPLEX },
    { MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32, UZ_BASIC_COMPLEX },
};

void uz_datatype_init_builtins(void)
{
    for (size_t i = 0; i < sizeof(builtin_descs) / sizeof(builtin_descs[0]); i++) {
        const struct builtin_desc *d = &builtin_descs[i];
        uintptr_t slot = (uintptr_t)d->handle - (uintptr_t)MPI_DATATYPE_NULL;
        uz_datatype *dt = &builtin_storage[slot];
        uz_object_init_builtin(&dt->obj, UZ_MAGIC_DATATYPE);
        dt->size = d->size;
        dt->lb = 0;
        dt->extent = d->extent;
        dt->true_lb = 0;
        dt->true_extent = d->true_extent ? d->true_extent : d->extent;
        dt->committed = 1;
        dt->contiguous = d->size == d->extent && dt->true_extent == d->extent;
        dt->basic_kind = d->kind;
        dt->predefined = 1;
        dt->layout = NULL;
        strncpy(dt->name, d->name, sizeof(dt->name) - 1);
        uz_datatype_builtin[slot] = dt;
    }
}

MPI_Datatype uz_datatype_handle(const uz_datatype *dt)
{
    if (dt >= builtin_storage && dt < builtin_storage + UZ_DATATYPE_TABLE_SIZE)
        return (MPI_Datatype)((uintptr_t)MPI_DATATYPE_NULL + (uintptr_t)(dt - builtin_storage));
    return (MPI_Datatype)dt;
}
