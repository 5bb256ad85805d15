/*
 * removed_mpi1.c — the MPI-1 procedures that MPI-3.0 removed and MPICH still
 * provides (MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hvector/hindexed/
 * struct, MPI_Errhandler_create/get/set), kept so that old programs build
 * and run.  Each is its replacement under another name: the generated entry
 * point checks the arguments as the replacement's does and raises errors
 * under the old name, and this file only forwards.  The MPI_LB and MPI_UB
 * markers they were used with are predefined datatypes (datatype/builtin.c)
 * whose bounds the datatype engine keeps sticky (datatype/dt_create.c).
 */
#include "binding/binding.h"
#include "uz_mpi_impl.h"

int uz_mpi_Address(const void *location, MPI_Aint *address)
{
    return uz_mpi_Get_address(location, address);
}

int uz_mpi_Type_extent(uz_datatype *datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return uz_mpi_Type_get_extent(datatype, &lb, extent);
}

int uz_mpi_Type_lb(uz_datatype *datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return uz_mpi_Type_get_extent(datatype, displacement, &extent);
}

int uz_mpi_Type_ub(uz_datatype *datatype, MPI_Aint *displacement)
{
    MPI_Aint lb, extent;
    int err = uz_mpi_Type_get_extent(datatype, &lb, &extent);
    if (err == MPI_SUCCESS)
        *displacement = lb + extent;
    return err;
}

int uz_mpi_Type_hvector(int count, int blocklength, MPI_Aint stride, uz_datatype *oldtype,
                        MPI_Datatype *newtype)
{
    return uz_mpi_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int uz_mpi_Type_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                         uz_datatype *oldtype, MPI_Datatype *newtype)
{
    return uz_mpi_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}

int uz_mpi_Type_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                       const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return uz_mpi_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                                     newtype);
}

int uz_mpi_Errhandler_create(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    return uz_mpi_Comm_create_errhandler(comm_errhandler_fn, errhandler);
}

int uz_mpi_Errhandler_get(uz_comm *comm, MPI_Errhandler *errhandler)
{
    return uz_mpi_Comm_get_errhandler(comm, errhandler);
}

int uz_mpi_Errhandler_set(uz_comm *comm, uz_errhandler *errhandler)
{
    return uz_mpi_Comm_set_errhandler(comm, errhandler);
}
