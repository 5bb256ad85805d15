/*
 * uzf.h — what the Fortran glue (generated gen/fort_*.c and the hand-written
 * files beside this one) uses to turn Fortran arguments into C ones.
 *
 * The glue is its own library, libmpifort.so, on top of libmpi_abi.so.1 and
 * using only its public C interface (the PMPI_ names), so that the C
 * library stays exactly the standard ABI.  It knows gfortran's conventions:
 * every argument by address, INTEGER is a C int (MPI_Fint), LOGICAL is an
 * int holding 1 or 0, a CHARACTER argument's length follows the other
 * arguments as a size_t, and a BIND(C) procedure gets TYPE(*),
 * DIMENSION(..) and CHARACTER(LEN=*) arguments as C descriptors
 * (ISO_Fortran_binding.h).
 */
#ifndef UZF_H
#define UZF_H

#include <stddef.h>
#include <stdint.h>

#include <ISO_Fortran_binding.h>
#include <mpi.h>

#define UZF_EXPORT __attribute__((visibility("default")))

/* A Fortran procedure passed as an argument (EXTERNAL or PROCEDURE(...)):
 * called back with its own interface, cast at the call. */
typedef void (*uzf_proc)(void);

/* ----------------------------------------------------------- sentinels */

/* The common blocks of mpif.h and the modules (sentinels.c defines them);
 * a Fortran sentinel is recognised by its address. */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern MPI_Fint mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1];
extern char mpi_fortran_argvs_null_[1];

static inline void *uzf_buffer(void *p)
{
    if (p == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (p == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == (void *)&mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return p;
}

static inline int uzf_is_sentinel(const void *p)
{
    return p == (void *)&mpi_fortran_bottom_ || p == (void *)&mpi_fortran_in_place_ ||
           p == (void *)&mpi_fortran_buffer_automatic_;
}

/* The Fortran status is the C one (MPI_STATUS_SIZE = 8 integers). */
static inline MPI_Status *uzf_status(MPI_Fint *s)
{
    return s == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)s;
}

static inline MPI_Status *uzf_statuses(MPI_Fint *s)
{
    return s == mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status *)s;
}

static inline int *uzf_errcodes(MPI_Fint *e)
{
    return e == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : e;
}

static inline int *uzf_weights(const MPI_Fint *w)
{
    if (w == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (w == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return (int *)w;
}

/* ------------------------------------------------------------ logicals */

/* gfortran's .TRUE. and .FALSE.; the C library is told so at load time
 * (MPI_Abi_set_fortran_booleans, see sentinels.c). */
enum { UZF_TRUE = 1, UZF_FALSE = 0 };

static inline int uzf_logical(MPI_Fint v)
{
    return v != UZF_FALSE;
}

static inline MPI_Fint uzf_to_logical(int c)
{
    return c ? UZF_TRUE : UZF_FALSE;
}

static inline void uzf_logicals_out(MPI_Fint *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = uzf_to_logical(v[i]);
}

/* ------------------------------------------------------------- indices */

/* Fortran counts request indices from 1. */
static inline void uzf_index_out(MPI_Fint *i)
{
    if (*i >= 0)
        (*i)++;
}

static inline void uzf_indices_out(MPI_Fint *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i]++;
}

/* ------------------------------------------------------------- strings */

/* A CHARACTER argument as a C string: trailing blanks removed, NUL added.
 * malloc'd; NULL when out of memory. */
char *uzf_str_in(const char *s, size_t len);

/* Copy a C string into a CHARACTER argument, truncated or blank-padded to
 * its length. */
void uzf_str_out(char *dst, size_t dst_len, const char *src);

/* ---------------------------------------------------- temporary arrays */

/* Arrays of C handles: on the stack up to UZF_NLOCAL entries, else malloc'd. */
enum { UZF_NLOCAL = 32 };

void *uzf_tmp(void *local, size_t local_bytes, int n, size_t elem);
void uzf_tmp_free(void *p, void *local);

/* Lengths of handle arrays the standard sizes by the communicator. */
int uzf_comm_peers(MPI_Comm comm);
int uzf_neighbor_degree(MPI_Comm comm, int out);

/* ---------------------------------------------------- attribute values */

/* A value set from Fortran as C stores it: the address of a cell holding
 * it (attr_values.c); NULL when out of memory. */
void *uzf_attr_cell_new(MPI_Aint value);

/* What Fortran reads of a C attribute value: a cell's integer, or the
 * address itself for a value C set. */
MPI_Aint uzf_attr_fortran_value(void *v);

/* Free the cell at v, if v is one (its attribute is gone). */
void uzf_attr_cell_free(void *v);

/* -------------------------------------------------------------- errors */

/* An error found by the glue itself, raised through the error handler of
 * comm (a Fortran handle; NULL: MPI_COMM_WORLD) as C would; returns the code. */
int uzf_raise(const MPI_Fint *comm, int errclass, const char *message);
int uzf_nomem(void);

/* ------------------------------------------- mpi_f08 choice buffers */

/* A TYPE(*), DIMENSION(..) buffer with its count and datatype.  A
 * non-contiguous array section becomes one element of a datatype that
 * walks the section (freed by uzf_cbuf_end), when each element of the
 * array is one element of the datatype and count covers the section. */
struct uzf_cbuf {
    void *addr;
    MPI_Count count;
    MPI_Fint datatype;
    MPI_Datatype tmp;
};

int uzf_cbuf_begin(struct uzf_cbuf *b, const CFI_cdesc_t *d, MPI_Count count, MPI_Fint datatype,
                   const MPI_Fint *comm);
void uzf_cbuf_end(struct uzf_cbuf *b);

/* A buffer without a datatype must be contiguous. */
int uzf_cdesc_contiguous(const CFI_cdesc_t *d, const MPI_Fint *comm);

#endif /* UZF_H */
