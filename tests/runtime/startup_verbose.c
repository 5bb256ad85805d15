/*
 * startup_verbose.c — the MPI program behind startup_verbose.sh: starts at
 * the thread level named by argv[1] (single, multiple), checks it got it,
 * then moves 1 MiB between pairs of ranks (r and r^1) so that large
 * messages take whichever path the start-up report announced (cross-memory
 * attach or the pipelined copy), and checks every byte.
 */
#include "uztest.h"

enum { BYTES = 1 << 20 };

int main(int argc, char **argv)
{
    int want = argc > 1 && strcmp(argv[1], "multiple") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    int provided = -1, rank, size;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, want, &provided));
    CHECK_EQ(provided, want);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    unsigned char *out = malloc(BYTES), *in = malloc(BYTES);
    CHECK(out && in, "out of memory");
    if (peer < size && out && in) {
        MPI_Status st;
        uzt_fill(out, BYTES, rank, 7);
        memset(in, 0, BYTES);
        CHECK_MPI(MPI_Sendrecv(out, BYTES, MPI_BYTE, peer, 7, in, BYTES, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
        CHECK_EQ(st.MPI_SOURCE, peer);
        CHECK_EQ(st.MPI_TAG, 7);
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_EQ(count, BYTES);
        long bad = uzt_verify(in, BYTES, peer, 7);
        CHECK(bad < 0, "byte %ld of the 1 MiB from rank %d is wrong", bad, peer);
    }
    free(out);
    free(in);
    return uzt_finish("startup_verbose");
}
