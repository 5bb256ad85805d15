/* main.c — the find_package test's program: which library it runs on, and its rank. */
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
