/*
 * dynproc_mpmd.c — an MPMD launch, "mpiexec -n A prog first : -n B prog
 * second" (what MPI_Comm_spawn_multiple asks of mpiexec): one
 * MPI_COMM_WORLD of A + B ranks, the first program's ranks first, each
 * rank's MPI_APPNUM its program's index and its own arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size, *appnum, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        CHECK(0, "usage: dynproc_mpmd first|second <A> <B>");
        return uzt_finish("dynproc_mpmd");
    }
    int a = atoi(argv[2]), b = atoi(argv[3]);
    CHECK_EQ(size, a + b);
    int second = strcmp(argv[1], "second") == 0;
    CHECK_EQ(second, rank >= a);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag, "MPI_APPNUM is not set");
    if (flag)
        CHECK_EQ(*appnum, second);
    int count = 0;
    CHECK_MPI(MPI_Allreduce(&second, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(count, b);
    return uzt_finish("dynproc_mpmd");
}
