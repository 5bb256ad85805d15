/*
 * datatype.h — datatype objects as the rest of the library sees them: size,
 * bounds, whether the data is one contiguous run, and for predefined types
 * which basic element they hold (reductions and external32 need that).
 */
#ifndef UZ_DATATYPE_DATATYPE_H
#define UZ_DATATYPE_DATATYPE_H

#include "core/object.h"

/* The element kind of a predefined type, used by reductions and by the
 * external32 conversion. */
enum uz_basic_kind {
    UZ_BASIC_NONE = 0,          /* derived, or a type with no arithmetic */
    UZ_BASIC_INT,               /* signed integer of `size` bytes */
    UZ_BASIC_UINT,              /* unsigned integer */
    UZ_BASIC_FLOAT,             /* binary floating point (2, 4, 8, 16 bytes) */
    UZ_BASIC_LONG_DOUBLE,       /* x87 extended precision stored in 16 bytes */
    UZ_BASIC_COMPLEX,           /* pair of floats of size/2 each */
    UZ_BASIC_LONG_DOUBLE_COMPLEX,
    UZ_BASIC_BOOL,              /* C/C++ bool */
    UZ_BASIC_LOGICAL,           /* Fortran LOGICAL */
    UZ_BASIC_CHAR,              /* characters: no arithmetic, but not bytes */
    UZ_BASIC_BYTE,              /* MPI_BYTE, MPI_PACKED: raw bytes */
    UZ_BASIC_PAIR,              /* value+index pairs for MINLOC/MAXLOC */
};

struct uz_dt_layout;            /* the flattened form (datatype engine) */

typedef struct MPI_ABI_Datatype {
    struct uz_object obj;
    MPI_Count size;             /* bytes of data in one element */
    MPI_Aint lb;                /* lower bound and extent (after resizing) */
    MPI_Aint extent;
    MPI_Aint true_lb;           /* bounds of the bytes actually touched */
    MPI_Aint true_extent;
    int committed;
    /* One element is `size` contiguous bytes at true_lb and extent == size,
     * so `count` elements are one run: the fast path of every transfer. */
    int contiguous;
    enum uz_basic_kind basic_kind;
    int predefined;             /* a named, predefined type */
    struct uz_dt_layout *layout;    /* NULL for contiguous predefined types */
    char name[MPI_MAX_OBJECT_NAME];
} uz_datatype;

/* Predefined handles index this table (handle value - MPI_DATATYPE_NULL). */
enum { UZ_DATATYPE_TABLE_SIZE = 0x100 };
extern uz_datatype *uz_datatype_builtin[UZ_DATATYPE_TABLE_SIZE];

static inline uz_datatype *uz_datatype_get(MPI_Datatype h)
{
    if (uz_handle_is_predefined(h)) {
        uintptr_t i = (uintptr_t)h - (uintptr_t)MPI_DATATYPE_NULL;
        return i < UZ_DATATYPE_TABLE_SIZE ? uz_datatype_builtin[i] : NULL;
    }
    return uz_object_check(h, UZ_MAGIC_DATATYPE);
}

MPI_Datatype uz_datatype_handle(const uz_datatype *dt);

void uz_datatype_init_builtins(void);

#endif /* UZ_DATATYPE_DATATYPE_H */
