/*
 * tcp_stranger.c — ranks that keep talking while strangers knock at their
 * ports (tcp_stranger.sh drives it).
 *
 * Every rank exchanges checked messages with every other rank — small
 * ones, eager ones and rendezvous ones — round after round, until the
 * file named by argv[1] exists (the script creates it once the strangers
 * are done), and at least argv[2] seconds have passed.  Whatever the
 * strangers send must change nothing: every byte arrives as sent, no
 * message comes from nowhere, and the job ends normally.
 */
#include <time.h>
#include <unistd.h>

#include "uztest.h"

static const size_t sizes[] = { 8, 3000, 70000, 600000 };
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One round: every rank sends one message of each size to every other. */
static void round_trip(int rank, int size, int round, unsigned char *out, unsigned char *in)
{
    size_t max = sizes[NSIZES - 1];
    MPI_Request *req = malloc(sizeof(*req) * (size_t)size * 2 * NSIZES);
    int n = 0;
    for (int s = 0; s < NSIZES; s++) {
        for (int peer = 0; peer < size; peer++) {
            if (peer == rank)
                continue;
            CHECK_MPI(MPI_Irecv(in + ((size_t)peer * NSIZES + s) * max, (int)sizes[s], MPI_BYTE, peer, s,
                                MPI_COMM_WORLD, &req[n++]));
        }
    }
    for (int s = 0; s < NSIZES; s++) {
        unsigned char *buf = out + (size_t)s * max;
        for (size_t i = 0; i < sizes[s]; i++)
            buf[i] = uzt_byte(rank, round * NSIZES + s, i);
        for (int peer = 0; peer < size; peer++)
            if (peer != rank)
                CHECK_MPI(MPI_Isend(buf, (int)sizes[s], MPI_BYTE, peer, s, MPI_COMM_WORLD, &req[n++]));
    }
    CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int peer = 0; peer < size; peer++) {
        if (peer == rank)
            continue;
        for (int s = 0; s < NSIZES; s++) {
            const unsigned char *buf = in + ((size_t)peer * NSIZES + s) * max;
            size_t bad = 0;
            for (size_t i = 0; i < sizes[s]; i++)
                bad += buf[i] != uzt_byte(peer, round * NSIZES + s, i);
            CHECK(bad == 0, "round %d: %zu of %zu bytes from rank %d differ", round, bad, sizes[s], peer);
        }
    }
    free(req);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *stop_file = argc > 1 ? argv[1] : "/nonexistent";
    double min_seconds = argc > 2 ? atof(argv[2]) : 0, start = now();
    size_t max = sizes[NSIZES - 1];
    unsigned char *out = malloc(max * NSIZES), *in = malloc(max * NSIZES * (size_t)size);
    int round = 0, stop = 0;
    while (!stop) {
        round_trip(rank, size, round++, out, in);
        if (rank == 0)
            stop = (access(stop_file, F_OK) == 0 && now() - start >= min_seconds) || now() - start > 60;
        CHECK_MPI(MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (!stop)
            usleep(2000);
    }
    /* Nothing may be left over: no message that nobody sent. */
    int flag = 1;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message nobody sent is waiting");
    free(out);
    free(in);
    int failures = uzt_failures, total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("tcp_stranger: %s after %d rounds (%d failures, %d ranks)\n", total ? "FAILED" : "passed", round,
               total, size);
    MPI_Finalize();
    return failures ? 1 : 0;
}
