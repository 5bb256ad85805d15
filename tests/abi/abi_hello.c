/*
 * abi_hello.c — built by one MPI's standard-ABI wrapper and run on another's
 * libmpi_abi.so.1: prints its rank and the first word of the library's
 * version string, which names the library it really ran on.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int rank, size, len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(version, &len);
    version[strcspn(version, " \n")] = '\0';
    printf("rank %d of %d on %s\n", rank, size, version);
    MPI_Finalize();
    return 0;
}
