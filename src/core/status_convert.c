/*
 * status_convert.c — MPI_Status between C, Fortran (INTEGER array) and
 * Fortran 2008 (TYPE(MPI_Status)).  With the standard ABI all three are the
 * same eight ints, so each conversion is a copy.
 */
#include <string.h>

#include "base/errors.h"

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_Status must be MPI_F_STATUS_SIZE Fortran integers");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status layout");

static int copy_status(void *dst, const void *src, const char *fn)
{
    if (src == NULL || dst == NULL)
        return uz_err_make(MPI_ERR_ARG, "%s: a status argument is NULL (MPI_STATUS_IGNORE "
                           "cannot be converted)", fn);
    memcpy(dst, src, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int uz_mpi_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return copy_status(f_status, c_status, "MPI_Status_c2f");
}

int uz_mpi_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return copy_status(c_status, f_status, "MPI_Status_f2c");
}

int uz_mpi_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return copy_status(f08_status, c_status, "MPI_Status_c2f08");
}

int uz_mpi_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return copy_status(c_status, f08_status, "MPI_Status_f082c");
}

int uz_mpi_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    return copy_status(f08_status, f_status, "MPI_Status_f2f08");
}

int uz_mpi_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    return copy_status(f_status, f08_status, "MPI_Status_f082f");
}
