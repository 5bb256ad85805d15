/*
 * error_procs.c — the MPI procedures about errors: MPI_Error_class,
 * MPI_Error_string and the user additions (MPI_Add_error_*,
 * MPI_Remove_error_*).
 */
#include <string.h>

#include "base/errors.h"

int uz_mpi_Error_class(int errorcode, int *errorclass)
{
    if (!uz_err_code_is_valid(errorcode))
        return uz_err_make(MPI_ERR_ARG, "invalid error code %d (argument errorcode)", errorcode);
    *errorclass = uz_err_class(errorcode);
    return MPI_SUCCESS;
}

int uz_mpi_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!uz_err_code_is_valid(errorcode))
        return uz_err_make(MPI_ERR_ARG, "invalid error code %d (argument errorcode)", errorcode);
    uz_err_string(errorcode, string, MPI_MAX_ERROR_STRING);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

int uz_mpi_Add_error_class(int *errorclass) { return uz_err_add_class(errorclass); }
int uz_mpi_Add_error_code(int errorclass, int *errorcode) { return uz_err_add_code(errorclass, errorcode); }
int uz_mpi_Add_error_string(int errorcode, const char *string) { return uz_err_add_string(errorcode, string); }
int uz_mpi_Remove_error_class(int errorclass) { return uz_err_remove_class(errorclass); }
int uz_mpi_Remove_error_code(int errorcode) { return uz_err_remove_code(errorcode); }
int uz_mpi_Remove_error_string(int errorcode) { return uz_err_remove_string(errorcode); }
