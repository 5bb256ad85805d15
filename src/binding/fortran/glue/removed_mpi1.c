/*
 * removed_mpi1.c — the mpif.h / `use mpi` entry points of the MPI-1
 * procedures MPI-3.0 removed (MPI_ADDRESS, MPI_TYPE_EXTENT/LB/UB,
 * MPI_TYPE_HVECTOR/HINDEXED/STRUCT, MPI_ERRHANDLER_CREATE/SET/GET), kept for
 * old programs; their interfaces come from tools/gen/fortran_removed.py.
 *
 * In their MPI-1 bindings addresses, displacements, strides and extents are
 * default INTEGERs.  Values going in are widened to MPI_Aint; a value
 * coming out that does not fit (the address of anything above 2 GiB, as
 * most are in a position-independent executable) is MPI_ERR_ARG naming the
 * procedure, never a silently truncated address: MPI_GET_ADDRESS and the
 * MPI_TYPE_CREATE_ procedures take INTEGER(KIND=MPI_ADDRESS_KIND).  Each
 * calls the C procedure of the same name, so that errors name it too.
 */
#define UZURA_NO_DEPRECATION_WARNINGS 1     /* the C procedures are the point here */

#include <limits.h>

#include "uzf.h"
#include "uzf_core.h"

/* An MPI_Aint result stored in a default INTEGER, or MPI_ERR_ARG. */
static int store_int(int rc, MPI_Aint value, MPI_Fint *out, const char *message)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (value < INT_MIN || value > INT_MAX)
        return uzf_raise(NULL, MPI_ERR_ARG, message);
    *out = (MPI_Fint)value;
    return MPI_SUCCESS;
}

UZF_EXPORT void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    int rc = PMPI_Address(uzf_buffer(location), &a);
    *ierror = store_int(rc, a, address,
                        "MPI_ADDRESS: the address does not fit in a default INTEGER "
                        "(MPI_GET_ADDRESS returns it as INTEGER(KIND=MPI_ADDRESS_KIND))");
}
UZF_EXPORT void mpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_address_")));

UZF_EXPORT void pmpi_type_extent_(const MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror)
{
    MPI_Aint e = 0;
    int rc = PMPI_Type_extent(PMPI_Type_f2c(*datatype), &e);
    *ierror = store_int(rc, e, extent, "MPI_TYPE_EXTENT: the extent does not fit in a default INTEGER "
                                       "(use MPI_TYPE_GET_EXTENT)");
}
UZF_EXPORT void mpi_type_extent_(const MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_type_extent_")));

UZF_EXPORT void pmpi_type_lb_(const MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint d = 0;
    int rc = PMPI_Type_lb(PMPI_Type_f2c(*datatype), &d);
    *ierror = store_int(rc, d, displacement, "MPI_TYPE_LB: the lower bound does not fit in a default "
                                             "INTEGER (use MPI_TYPE_GET_EXTENT)");
}
UZF_EXPORT void mpi_type_lb_(const MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_type_lb_")));

UZF_EXPORT void pmpi_type_ub_(const MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint d = 0;
    int rc = PMPI_Type_ub(PMPI_Type_f2c(*datatype), &d);
    *ierror = store_int(rc, d, displacement, "MPI_TYPE_UB: the upper bound does not fit in a default "
                                             "INTEGER (use MPI_TYPE_GET_EXTENT)");
}
UZF_EXPORT void mpi_type_ub_(const MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_type_ub_")));

UZF_EXPORT void pmpi_type_hvector_(const MPI_Fint *count, const MPI_Fint *blocklength, const MPI_Fint *stride,
                                   const MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride, PMPI_Type_f2c(*oldtype), &t);
    if (rc == MPI_SUCCESS)
        *newtype = PMPI_Type_c2f(t);
    *ierror = rc;
}
UZF_EXPORT void mpi_type_hvector_(const MPI_Fint *count, const MPI_Fint *blocklength, const MPI_Fint *stride,
                                  const MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_type_hvector_")));

/* INTEGER displacements widened to MPI_Aint (NULL when out of memory). */
static MPI_Aint *widen(const MPI_Fint *disp, MPI_Fint count, MPI_Aint *local, size_t local_bytes)
{
    MPI_Aint *d = uzf_tmp(local, local_bytes, count, sizeof(MPI_Aint));
    for (MPI_Fint i = 0; d != NULL && i < count; i++)
        d[i] = disp[i];
    return d;
}

UZF_EXPORT void pmpi_type_hindexed_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                                    const MPI_Fint *displacements, const MPI_Fint *oldtype, MPI_Fint *newtype,
                                    MPI_Fint *ierror)
{
    MPI_Aint local[UZF_NLOCAL];
    MPI_Aint *d = widen(displacements, *count, local, sizeof(local));
    if (d == NULL) {
        *ierror = uzf_nomem();
        return;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_hindexed(*count, blocklengths, d, PMPI_Type_f2c(*oldtype), &t);
    if (rc == MPI_SUCCESS)
        *newtype = PMPI_Type_c2f(t);
    uzf_tmp_free(d, local);
    *ierror = rc;
}
UZF_EXPORT void mpi_type_hindexed_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                                   const MPI_Fint *displacements, const MPI_Fint *oldtype, MPI_Fint *newtype,
                                   MPI_Fint *ierror) __attribute__((weak, alias("pmpi_type_hindexed_")));

UZF_EXPORT void pmpi_type_struct_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                                  const MPI_Fint *displacements, const MPI_Fint *types, MPI_Fint *newtype,
                                  MPI_Fint *ierror)
{
    MPI_Aint local[UZF_NLOCAL];
    MPI_Datatype local_types[UZF_NLOCAL];
    MPI_Aint *d = widen(displacements, *count, local, sizeof(local));
    MPI_Datatype *ct = uzf_tmp(local_types, sizeof(local_types), *count, sizeof(MPI_Datatype));
    int rc;
    if (d == NULL || ct == NULL) {
        rc = uzf_nomem();
    } else {
        for (MPI_Fint i = 0; i < *count; i++)
            ct[i] = PMPI_Type_f2c(types[i]);
        MPI_Datatype t = MPI_DATATYPE_NULL;
        rc = PMPI_Type_struct(*count, blocklengths, d, ct, &t);
        if (rc == MPI_SUCCESS)
            *newtype = PMPI_Type_c2f(t);
    }
    if (d != NULL)
        uzf_tmp_free(d, local);
    if (ct != NULL)
        uzf_tmp_free(ct, local_types);
    *ierror = rc;
}
UZF_EXPORT void mpi_type_struct_(const MPI_Fint *count, const MPI_Fint *blocklengths,
                                 const MPI_Fint *displacements, const MPI_Fint *types, MPI_Fint *newtype,
                                 MPI_Fint *ierror) __attribute__((weak, alias("pmpi_type_struct_")));

/* A Fortran error handler needs the glue's trampoline: the same one as
 * MPI_COMM_CREATE_ERRHANDLER's. */
UZF_EXPORT void pmpi_errhandler_create_(uzf_proc function, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = uzf_Comm_create_errhandler(function, errhandler);
}
UZF_EXPORT void mpi_errhandler_create_(uzf_proc function, MPI_Fint *errhandler, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_errhandler_create_")));

UZF_EXPORT void pmpi_errhandler_set_(const MPI_Fint *comm, const MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = PMPI_Errhandler_set(PMPI_Comm_f2c(*comm), PMPI_Errhandler_f2c(*errhandler));
}
UZF_EXPORT void mpi_errhandler_set_(const MPI_Fint *comm, const MPI_Fint *errhandler, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_errhandler_set_")));

UZF_EXPORT void pmpi_errhandler_get_(const MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Errhandler_get(PMPI_Comm_f2c(*comm), &eh);
    if (rc == MPI_SUCCESS)
        *errhandler = PMPI_Errhandler_c2f(eh);
    *ierror = rc;
}
UZF_EXPORT void mpi_errhandler_get_(const MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror)
    __attribute__((weak, alias("pmpi_errhandler_get_")));
