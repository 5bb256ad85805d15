/*
 * type_query.c — size, extent and true extent of a datatype in every
 * flavour (int, MPI_Aint, _x and _c), and MPI_Get_address.
 *
 * The int form of MPI_Type_size comes from the generated binding, which
 * calls the _c implementation and narrows (MPI_UNDEFINED when it does not
 * fit, as the standard asks).
 */
#include "datatype/datatype.h"

int uz_mpi_Type_size_c(uz_datatype *datatype, MPI_Count *size)
{
    *size = datatype->size;
    return MPI_SUCCESS;
}

int uz_mpi_Type_size_x(uz_datatype *datatype, MPI_Count *size)
{
    *size = datatype->size;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_extent(uz_datatype *datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_extent_c(uz_datatype *datatype, MPI_Count *lb, MPI_Count *extent)
{
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_extent_x(uz_datatype *datatype, MPI_Count *lb, MPI_Count *extent)
{
    return uz_mpi_Type_get_extent_c(datatype, lb, extent);
}

int uz_mpi_Type_get_true_extent(uz_datatype *datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_true_extent_c(uz_datatype *datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_true_extent_x(uz_datatype *datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    return uz_mpi_Type_get_true_extent_c(datatype, true_lb, true_extent);
}
