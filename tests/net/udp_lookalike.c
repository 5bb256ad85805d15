/*
 * udp_lookalike.c — messages whose bytes look like the udp transport's own
 * headers arrive intact, and the sender never makes a datagram the
 * receiver could misread.
 *
 * In an offloaded run, udp sends every other segment read from the user's
 * buffer with its header last, and the receiver tells such a datagram by
 * its first two bytes not being the header's magic and version
 * (udp_wire.h).  A payload that begins with those two bytes must therefore
 * go header first.  Every message here is the magic and version repeated,
 * at one alignment or the other, so that every segment of one of the two
 * begins with them wherever the segments are cut; udp_lookalike.sh checks
 * that the sender kept such headers first, that it put others last, and
 * that the receiver found no datagram malformed.  Sizes cover eager and
 * rendezvous messages, blocking and not, in both directions; every byte
 * is checked.
 *
 *   udp_lookalike
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UDP_WIRE_MAGIC and UDP_WIRE_VERSION (udp_wire.h): should they change
 * without this, no payload looks like a header any more and
 * udp_lookalike.sh fails ("never met a look-alike payload"). */
enum { MAGIC = 0xB5, VERSION = 2, ROUNDS = 3 };

static const size_t sizes[] = { 20000, 65536, 200001, 1 << 20, (3 << 20) + 7 };

static unsigned char expected(size_t i, int phase, int k)
{
    /* Mostly the two bytes, with a count in every 4099th byte so that a
     * segment delivered twice or in the wrong place shows. */
    if (i % 4099 == 4098)
        return (unsigned char)(i / 4099 + (size_t)k);
    return (i + (size_t)phase) % 2 ? VERSION : MAGIC;
}

static void fill(unsigned char *buf, size_t n, int phase, int k)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = expected(i, phase, k);
}

static int check(const unsigned char *buf, size_t n, int phase, int k, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != expected(i, phase, k)) {
            fprintf(stderr, "udp_lookalike: %s of %zu bytes, phase %d: byte %zu is 0x%02x, expected 0x%02x\n",
                    what, n, phase, i, buf[i], expected(i, phase, k));
            return 1;
        }
    return 0;
}

/* Receive message k of n bytes from peer into buf and check every byte;
 * returns the failures found. */
static int receive_checked(unsigned char *buf, size_t n, int peer, int phase, int k, const char *what)
{
    MPI_Status st;
    int got = -1;
    memset(buf, 0, n);
    MPI_Recv(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    if (got != (int)n || st.MPI_SOURCE != peer || st.MPI_TAG != k) {
        fprintf(stderr, "udp_lookalike: %s %d: count %d, source %d, tag %d\n", what, k, got, st.MPI_SOURCE,
                st.MPI_TAG);
        return 1;
    }
    return check(buf, n, phase, k, what);
}

int main(int argc, char **argv)
{
    int rank, size, failures = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "udp_lookalike: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t most = sizes[sizeof(sizes) / sizeof(sizes[0]) - 1];
    unsigned char *out = malloc(most), *in = malloc(most);
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int peer = 1 - rank, k = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (int phase = 0; phase < 2; phase++, k++) {
                size_t n = sizes[s];
                int nonblocking = (k + round) % 2;
                /* Rank 0 sends, rank 1 echoes: both directions. */
                if (rank == 0) {
                    fill(out, n, phase, k);
                    if (nonblocking) {
                        MPI_Request r;
                        MPI_Isend(out, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &r);
                        MPI_Wait(&r, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Send(out, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
                    }
                    failures += receive_checked(in, n, peer, phase, k, "echo");
                } else {
                    failures += receive_checked(in, n, peer, phase, k, "message");
                    memcpy(out, in, n);
                    MPI_Send(out, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
                }
            }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "udp_lookalike: %d failures\n" : "udp_lookalike: all %d messages intact\n", all ? all : 2 * k);
    free(out);
    free(in);
    MPI_Finalize();
    return all != 0;
}
