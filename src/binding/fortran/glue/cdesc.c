/*
 * cdesc.c — choice buffers of `use mpi_f08` (TYPE(*), DIMENSION(..)).
 *
 * gfortran hands a BIND(C) procedure a C descriptor of the actual
 * argument: base address, element length, and per dimension an extent
 * and a byte stride.  A contiguous array, a scalar or a sentinel goes to C
 * as its address.  A non-contiguous section (a(1:n:2), b(i,:)) is
 * described to C as one element of a derived datatype that walks it: a
 * nest of MPI_Type_create_hvector over the caller's datatype, one level
 * per dimension.  That is exact when each array element is one element of
 * the datatype and the count covers the whole section, which is how such
 * buffers are used; anything else is refused with MPI_ERR_BUFFER rather
 * than read wrongly.  The datatype is freed right after the call: a
 * pending nonblocking operation keeps its own reference.
 */
#include "uzf.h"

static const char not_described[] =
    "a non-contiguous array section can be a buffer only when each array element is one "
    "element of the datatype and count covers the section (MPI_SUBARRAYS_SUPPORTED is .FALSE.)";
static const char not_contiguous[] =
    "this buffer argument must be contiguous (a non-contiguous array section was passed)";

int uzf_cbuf_begin(struct uzf_cbuf *b, const CFI_cdesc_t *d, MPI_Count count, MPI_Fint datatype,
                   const MPI_Fint *comm)
{
    b->addr = d->base_addr;
    b->count = count;
    b->datatype = datatype;
    b->tmp = MPI_DATATYPE_NULL;
    if (d->rank == 0 || count == 0 || uzf_is_sentinel(d->base_addr) || CFI_is_contiguous(d))
        return MPI_SUCCESS;

    MPI_Datatype base = PMPI_Type_f2c(datatype);
    MPI_Aint lb, extent;
    MPI_Count elements = 1;
    for (int i = 0; i < d->rank; i++)
        elements *= d->dim[i].extent;
    if (PMPI_Type_get_extent(base, &lb, &extent) != MPI_SUCCESS ||
        extent != (MPI_Aint)d->elem_len || elements != count)
        return uzf_raise(comm, MPI_ERR_BUFFER, not_described);

    MPI_Datatype t = base;
    for (int i = 0; i < d->rank; i++) {
        MPI_Datatype next;
        int rc = PMPI_Type_create_hvector((int)d->dim[i].extent, 1, d->dim[i].sm, t, &next);
        if (t != base)
            PMPI_Type_free(&t);
        if (rc != MPI_SUCCESS)
            return rc;
        t = next;
    }
    int rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
        PMPI_Type_free(&t);
        return rc;
    }
    b->tmp = t;
    b->count = 1;
    b->datatype = PMPI_Type_c2f(t);
    return MPI_SUCCESS;
}

void uzf_cbuf_end(struct uzf_cbuf *b)
{
    if (b->tmp != MPI_DATATYPE_NULL)
        PMPI_Type_free(&b->tmp);
}

int uzf_cdesc_contiguous(const CFI_cdesc_t *d, const MPI_Fint *comm)
{
    if (d->rank == 0 || uzf_is_sentinel(d->base_addr) || CFI_is_contiguous(d))
        return MPI_SUCCESS;
    return uzf_raise(comm, MPI_ERR_BUFFER, not_contiguous);
}
