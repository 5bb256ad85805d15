/*
 * datarep.c — MPI_Register_datarep with Fortran conversion procedures.
 * C's callbacks receive an extra_state pointer to a record of the Fortran
 * procedures and the user's extra state (kept for the life of the
 * program, as a data representation cannot be unregistered).  The
 * predefined MPI_CONVERSION_FN_NULL(_C) reaches C as its NULL constant.
 */
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void conversion_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                           MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void conversion_fn_c(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra_state,
                       MPI_Fint *ierror);

struct datarep {
    uzf_proc read, write, extent;
    MPI_Aint extra_state;
};

UZF_EXPORT void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                                        void *filebuf, MPI_Offset *position,
                                        MPI_Aint *extra_state, MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}

UZF_EXPORT void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count,
                                          void *filebuf, MPI_Offset *position,
                                          MPI_Aint *extra_state, MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}

static int convert(uzf_proc fn, void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                   MPI_Offset position, struct datarep *d)
{
    MPI_Fint fdt = PMPI_Type_c2f(datatype), fcount = count, ierror = MPI_SUCCESS;
    ((conversion_fn *)fn)(userbuf, &fdt, &fcount, filebuf, &position, &d->extra_state, &ierror);
    return ierror;
}

static int convert_c(uzf_proc fn, void *userbuf, MPI_Datatype datatype, MPI_Count count,
                     void *filebuf, MPI_Offset position, struct datarep *d)
{
    MPI_Fint fdt = PMPI_Type_c2f(datatype), ierror = MPI_SUCCESS;
    ((conversion_fn_c *)fn)(userbuf, &fdt, &count, filebuf, &position, &d->extra_state, &ierror);
    return ierror;
}

static int read_fn(void *u, MPI_Datatype t, int n, void *f, MPI_Offset p, void *x)
{
    return convert(((struct datarep *)x)->read, u, t, n, f, p, x);
}

static int write_fn(void *u, MPI_Datatype t, int n, void *f, MPI_Offset p, void *x)
{
    return convert(((struct datarep *)x)->write, u, t, n, f, p, x);
}

static int read_fn_c(void *u, MPI_Datatype t, MPI_Count n, void *f, MPI_Offset p, void *x)
{
    return convert_c(((struct datarep *)x)->read, u, t, n, f, p, x);
}

static int write_fn_c(void *u, MPI_Datatype t, MPI_Count n, void *f, MPI_Offset p, void *x)
{
    return convert_c(((struct datarep *)x)->write, u, t, n, f, p, x);
}

static int extent(MPI_Datatype datatype, MPI_Aint *ext, void *x)
{
    struct datarep *d = x;
    MPI_Fint fdt = PMPI_Type_c2f(datatype), ierror = MPI_SUCCESS;
    ((extent_fn *)d->extent)(&fdt, ext, &d->extra_state, &ierror);
    return ierror;
}

static int is_null(uzf_proc fn)
{
    return fn == (uzf_proc)mpi_conversion_fn_null_ || fn == (uzf_proc)mpi_conversion_fn_null_c_;
}

static int register_datarep(const char *datarep, size_t datarep_len, uzf_proc rd, uzf_proc wr,
                            uzf_proc ext, const MPI_Aint *extra_state, int large)
{
    struct datarep *d = malloc(sizeof(*d));
    char *name = uzf_str_in(datarep, datarep_len);
    if (!d || !name) {
        free(d);
        free(name);
        return uzf_nomem();
    }
    *d = (struct datarep){ rd, wr, ext, *extra_state };
    int rc;
    if (large)
        rc = PMPI_Register_datarep_c(name, is_null(rd) ? MPI_CONVERSION_FN_NULL_C : read_fn_c,
                                     is_null(wr) ? MPI_CONVERSION_FN_NULL_C : write_fn_c, extent, d);
    else
        rc = PMPI_Register_datarep(name, is_null(rd) ? MPI_CONVERSION_FN_NULL : read_fn,
                                   is_null(wr) ? MPI_CONVERSION_FN_NULL : write_fn, extent, d);
    free(name);
    if (rc != MPI_SUCCESS)
        free(d);
    return rc;
}

int uzf_Register_datarep(const char *datarep, size_t datarep_len, uzf_proc read_conversion_fn,
                         uzf_proc write_conversion_fn, uzf_proc dtype_file_extent_fn,
                         const MPI_Aint *extra_state)
{
    return register_datarep(datarep, datarep_len, read_conversion_fn, write_conversion_fn,
                            dtype_file_extent_fn, extra_state, 0);
}

int uzf_Register_datarep_c(const char *datarep, size_t datarep_len, uzf_proc read_conversion_fn,
                           uzf_proc write_conversion_fn, uzf_proc dtype_file_extent_fn,
                           const MPI_Aint *extra_state)
{
    return register_datarep(datarep, datarep_len, read_conversion_fn, write_conversion_fn,
                            dtype_file_extent_fn, extra_state, 1);
}
