/*
 * type_f90.c — the datatypes that name a type by what it can hold rather
 * than by its name: MPI_Type_match_size, MPI_Type_create_f90_{integer,
 * real,complex} (for the Fortran bindings to come) and
 * MPI_Type_get_value_index.
 *
 * An f90 type is the predefined Fortran type of the size gfortran's
 * SELECTED_INT_KIND / SELECTED_REAL_KIND would pick, seen through a
 * combiner of its own (MPI_COMBINER_F90_*) whose contents are (p, r).  The
 * standard makes them predefined: they cannot be freed, and the same
 * arguments give the same handle, so they are made once and cached.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

int uz_mpi_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER
          : size == 8 ? MPI_INTEGER8 : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_REAL:
        t = size == 2 ? MPI_REAL2 : size == 4 ? MPI_REAL : size == 8 ? MPI_DOUBLE_PRECISION
          : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        t = size == 4 ? MPI_COMPLEX4 : size == 8 ? MPI_COMPLEX : size == 16 ? MPI_DOUBLE_COMPLEX
          : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
        break;
    default:
        return uz_err_make(MPI_ERR_ARG, "invalid typeclass %d", typeclass);
    }
    if (t == MPI_DATATYPE_NULL)
        return uz_err_make(MPI_ERR_ARG, "no predefined type of typeclass %d has size %d",
                           typeclass, size);
    *datatype = t;
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- f90 types */

struct f90_type {
    struct f90_type *next;
    int combiner, p, r;
    uz_datatype *dt;
};

static struct f90_type *f90_cache;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

static int f90_get(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&f90_lock);
    struct f90_type *f = f90_cache;
    while (f != NULL && (f->combiner != combiner || f->p != p || f->r != r))
        f = f->next;
    if (f == NULL) {
        const uz_datatype *b = uz_datatype_get(base);
        uz_datatype *dt = uz_object_alloc(sizeof(*dt));
        f = malloc(sizeof(*f));
        if (dt != NULL && f != NULL) {
            *dt = *b;
            uz_object_init_builtin(&dt->obj, UZ_MAGIC_DATATYPE);
            dt->predefined = 0;
            dt->attrs = NULL;
            dt->contents = NULL;
            dt->layout = uz_dl_copy(b->layout);
        }
        int ints[2] = { p, r }, ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
        if (combiner == MPI_COMBINER_F90_INTEGER)
            ints[0] = r;
        if (dt == NULL || f == NULL || dt->layout == NULL ||
            uz_dt_set_contents(dt, combiner, ni, ints, 0, NULL, 0, NULL, 0, NULL)) {
            if (dt != NULL) {
                free(dt->layout);
                uz_object_free(dt, sizeof(*dt));
            }
            free(f);
            f = NULL;
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a Fortran 90 datatype");
        } else {
            *f = (struct f90_type){ f90_cache, combiner, p, r, dt };
            f90_cache = f;
        }
    }
    if (f != NULL)
        *newtype = (MPI_Datatype)f->dt;
    pthread_mutex_unlock(&f90_lock);
    return err;
}

/* The Fortran REAL kind for precision p and range r (either may be
 * MPI_UNDEFINED): 4, 8 or 16 bytes, 0 if none is enough. */
static int real_bytes(int p, int r)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p < 0 || r < 0)
        return 0;
    if (p <= 6 && r <= 37)
        return 4;
    if (p <= 15 && r <= 307)
        return 8;
    if (p <= 33 && r <= 4931)
        return 16;
    return 0;
}

static int f90_args(int p, int r)
{
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return uz_err_make(MPI_ERR_ARG, "p and r cannot both be MPI_UNDEFINED");
    return uz_err_make(MPI_ERR_ARG, "no Fortran type has precision %d and range %d", p, r);
}

int uz_mpi_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    int n = p == MPI_UNDEFINED && r == MPI_UNDEFINED ? 0 : real_bytes(p, r);
    if (n == 0)
        return f90_args(p, r);
    return f90_get(MPI_COMBINER_F90_REAL, p, r,
                   n == 4 ? MPI_REAL4 : n == 8 ? MPI_REAL8 : MPI_REAL16, newtype);
}

int uz_mpi_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    int n = p == MPI_UNDEFINED && r == MPI_UNDEFINED ? 0 : real_bytes(p, r);
    if (n == 0)
        return f90_args(p, r);
    return f90_get(MPI_COMBINER_F90_COMPLEX, p, r,
                   n == 4 ? MPI_COMPLEX8 : n == 8 ? MPI_COMPLEX16 : MPI_COMPLEX32, newtype);
}

int uz_mpi_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype base = r < 0 ? MPI_DATATYPE_NULL : r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2
                      : r <= 9 ? MPI_INTEGER4 : r <= 18 ? MPI_INTEGER8 : r <= 38 ? MPI_INTEGER16
                      : MPI_DATATYPE_NULL;
    if (base == MPI_DATATYPE_NULL)
        return uz_err_make(MPI_ERR_ARG, "no Fortran INTEGER kind has range %d", r);
    return f90_get(MPI_COMBINER_F90_INTEGER, 0, r, base, newtype);
}

/* ----------------------------------------------------------- value/index */

int uz_mpi_Type_get_value_index(uz_datatype *value_type, uz_datatype *index_type,
                                MPI_Datatype *pair_type)
{
    static const struct { MPI_Datatype value, index, pair; } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
    };
    MPI_Datatype v = uz_datatype_handle(value_type), i = uz_datatype_handle(index_type);
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
        if (pairs[k].value == v && pairs[k].index == i)
            *pair_type = pairs[k].pair;
    return MPI_SUCCESS;
}
