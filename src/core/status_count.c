/*
 * status_count.c — what a status says about the data received, in units
 * of a datatype: MPI_Get_count, MPI_Get_elements(_x) and
 * MPI_Status_set_elements(_x).  A status holds the number of bytes
 * received (pt2pt/status.h); the datatype engine turns bytes into elements
 * and back.  The int forms come from the generated binding, which narrows
 * the _c results.
 */
#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "pt2pt/status.h"

static int ignored(void)
{
    return uz_err_make(MPI_ERR_ARG, "invalid argument: status is MPI_STATUS_IGNORE");
}

int uz_mpi_Get_count_c(const MPI_Status *status, uz_datatype *datatype, MPI_Count *count)
{
    if (status == NULL)
        return ignored();
    MPI_Count bytes = uz_status_bytes(status);
    if (datatype->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % datatype->size ? MPI_UNDEFINED : bytes / datatype->size;
    return MPI_SUCCESS;
}

int uz_mpi_Get_elements_c(const MPI_Status *status, uz_datatype *datatype, MPI_Count *count)
{
    if (status == NULL)
        return ignored();
    *count = uz_dt_elements(datatype, uz_status_bytes(status));
    return MPI_SUCCESS;
}

int uz_mpi_Get_elements_x(const MPI_Status *status, uz_datatype *datatype, MPI_Count *count)
{
    return uz_mpi_Get_elements_c(status, datatype, count);
}

int uz_mpi_Status_set_elements_c(MPI_Status *status, uz_datatype *datatype, MPI_Count count)
{
    if (status == NULL)
        return ignored();
    if (count < 0)
        return uz_err_make(MPI_ERR_COUNT, "invalid count %lld (argument count)", (long long)count);
    uz_status_set_bytes(status, uz_dt_elements_to_bytes(datatype, count));
    return MPI_SUCCESS;
}

int uz_mpi_Status_set_elements_x(MPI_Status *status, uz_datatype *datatype, MPI_Count count)
{
    return uz_mpi_Status_set_elements_c(status, datatype, count);
}
