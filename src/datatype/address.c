/*
 * address.c — address arithmetic on MPI_Aint (MPI_Aint_add, MPI_Aint_diff,
 * MPI_Get_address): done on char pointers so that it is defined for
 * addresses of any object, as the standard intends.
 */
#include <mpi.h>

MPI_Aint uz_mpi_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((char *)base + disp);
}

MPI_Aint uz_mpi_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((char *)addr1 - (char *)addr2);
}

int uz_mpi_Get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}
