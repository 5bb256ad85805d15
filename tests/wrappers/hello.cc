// hello.cc — a C++ program using mpi.h through mpicxx: the header must be
// valid C++ (extern "C", casts in the handle constants) and link as C.
#include <iostream>
#include <string>
#include <vector>

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1, size = 0, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> version(MPI_MAX_LIBRARY_VERSION_STRING);
    MPI_Get_library_version(version.data(), &len);
    std::string library(version.data(), static_cast<size_t>(len));
    std::cout << "C++ rank " << rank << " of " << size << " on "
              << library.substr(0, library.find(' ')) << std::endl;
    MPI_Finalize();
    return 0;
}
