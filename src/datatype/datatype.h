/*
 * datatype.h — datatype objects as the rest of the library sees them: size,
 * bounds, whether the data is one contiguous run, and for predefined types
 * which basic element they hold (reductions and external32 need that).
 *
 * Moving data described by a datatype (pack, unpack, iovecs for the
 * transports, the serialized form for one-sided operations) goes through
 * dt_engine.h; the flattened layout behind it is private to src/datatype/.
 */
#ifndef UZ_DATATYPE_DATATYPE_H
#define UZ_DATATYPE_DATATYPE_H

#include "base/object.h"

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

struct uz_dt_layout;            /* the flattened form (dt_layout.h) */
struct uz_dt_contents;          /* constructor arguments (get_contents) */
struct uz_attr_list;

typedef struct MPI_ABI_Datatype {
    struct uz_object obj;
    MPI_Count size;             /* bytes of data in one element */
    MPI_Aint lb;                /* lower bound and extent (after resizing) */
    MPI_Aint extent;
    MPI_Aint true_lb;           /* bounds of the bytes actually touched */
    MPI_Aint true_extent;
    int committed;
    /* `count` elements of this type, for ANY count, are exactly count*size
     * bytes at buf + true_lb, in the order the type map gives them: one
     * element is a single run of `size` bytes and extent == size.  Types
     * of size 0 are contiguous.  `single_run` is the weaker fact that one
     * element is `size` bytes at buf + true_lb (so count == 1 is one run
     * even when extent != size, e.g. a resized or padded struct type).
     * uz_dt_is_contig() in dt_engine.h combines the two for a given count. */
    int contiguous;
    int single_run;
    enum uz_basic_kind basic_kind;  /* of `basic` below; NONE when mixed */
    int predefined;             /* a named, predefined type (combiner NAMED) */
    struct uz_dt_layout *layout;    /* flattened form; every type has one */
    char name[MPI_MAX_OBJECT_NAME];

    /* ------------------------------------- private to src/datatype/ */
    int combiner;               /* MPI_COMBINER_* */
    struct uz_dt_contents *contents;    /* NULL for named types */
    /* Every basic element is this predefined type (a pair type counts as
     * one), or NULL: what reductions need (uz_dt_homogeneous_basic). */
    const struct MPI_ABI_Datatype *basic;
    struct uz_attr_list *attrs;
    int align;                  /* alignment for the extent's padding */
    int sticky;                 /* UZ_DT_STICKY_*: bounds set by explicit markers */
    int large;                  /* made by a large-count (_c) constructor */
} uz_datatype;

/* Bounds that explicit markers set are sticky: they, not the data, decide
 * the bounds of every type made from this one (MPI_Type_create_resized sets
 * both, the MPI-1 markers MPI_LB and MPI_UB one each; dt_create.c). */
enum {
    UZ_DT_STICKY_LB = 1,
    UZ_DT_STICKY_UB = 2,
    UZ_DT_MARKER = 4,           /* MPI_LB or MPI_UB itself: only its marker counts */
};

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

/* Slot of a predefined type in uz_datatype_builtin (-1 for others). */
int uz_datatype_builtin_slot(const uz_datatype *dt);

/* Set up the predefined types (idempotent; MPI_Init calls it). */
void uz_datatype_init_builtins(void);

/* Run the delete callbacks of the predefined types' attributes (MPI_Finalize
 * calls it after MPI_COMM_SELF's); a callback's error stops it. */
int uz_datatype_finalize_attrs(void);

#endif /* UZ_DATATYPE_DATATYPE_H */
