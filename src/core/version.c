/*
 * version.c — what the library says about itself: MPI version, library
 * version, the standard-ABI version, and the host name.
 */
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/info.h"

int uz_mpi_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int uz_mpi_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Uzura %d.%d.%d (MPI %d.%d, standard ABI %d.%d)",
                     UZURA_VERSION_MAJOR, UZURA_VERSION_MINOR, UZURA_VERSION_PATCH,
                     MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}

int uz_mpi_Abi_get_version(int *abi_major, int *abi_minor)
{
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

int uz_mpi_Abi_get_info(MPI_Info *info)
{
    uz_info *i = uz_info_new();
    char buf[16];
    if (!i)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating the ABI info");
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Aint));
    uz_info_set(i, "mpi_aint_size", buf);
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Count));
    uz_info_set(i, "mpi_count_size", buf);
    snprintf(buf, sizeof(buf), "%zu", sizeof(MPI_Offset));
    uz_info_set(i, "mpi_offset_size", buf);
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

int uz_mpi_Get_processor_name(char *name, int *resultlen)
{
    size_t n = strnlen(uz_rt.processor_name, MPI_MAX_PROCESSOR_NAME - 1);
    memcpy(name, uz_rt.processor_name, n);
    name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
