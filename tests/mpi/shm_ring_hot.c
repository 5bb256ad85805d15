/*
 * shm_ring_hot.c — the shm ring's hot start (UZURA_SHM_RING_HOT): a sender
 * whose receiver keeps up goes back to slot 0 instead of round the ring,
 * a receiver behind still gets the whole ring, and every byte arrives
 * whichever way the records went.
 *
 * Rank 0 streams messages of mixed sizes (8 B to 16 KiB, eager) to rank 1
 * in three phases: ping-pong (the receiver has read everything at each
 * send), one way with the receiver keeping up, and one way while the
 * receiver sleeps (records pile up past the hot start, up to the ring's
 * end).  After the first two, the sender's next position must lie within
 * the hot start plus one record; during the third it must have gone past
 * it.  It reads the position from the transport's state, so it links the
 * library's objects.  Runs at np 2 (others wait at the barrier).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm_ring_test.h"

enum { MAX_BYTES = 16000, STREAM = 2000, PILE = 48, HOT = 8192 };

#define CHECK(cond, ...) SHM_CHECK("shm_ring_hot", cond, __VA_ARGS__)

static size_t size_of(long i)
{
    static const size_t sizes[] = { 8, 100, 1000, 3000, 4096, 9000, MAX_BYTES, 64 };
    return sizes[i % 8];
}

static void fill(unsigned char *b, size_t n, long i)
{
    for (size_t k = 0; k < n; k++)
        b[k] = (unsigned char)(k * 31 + i * 7 + 1);
}

static void check(const unsigned char *b, size_t n, long i, const MPI_Status *st)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == (int)n, "message %ld: %d bytes, expected %zu", i, count, n);
    for (size_t k = 0; k < n; k++)
        if (b[k] != (unsigned char)(k * 31 + i * 7 + 1)) {
            CHECK(0, "message %ld: byte %zu is %u", i, k, b[k]);
            return;
        }
}

/* Bytes of the ring's record slots before the sender's next record. */
static size_t sender_offset(int peer_local)
{
    const struct shm_tx *tx = &uz_shm.tx[peer_local];
    return ((uint32_t)tx->produced & uz_shm.ring_mask) * sizeof(struct shm_slot);
}

/* Messages [first, first + n) from rank 0 to rank 1; `pong`: rank 1
 * answers each; `lag`: rank 1 sleeps first, so that they pile up.
 * Returns the sender's furthest position after a send (rank 0). */
static size_t phase(int rank, int peer_local, unsigned char *buf, long first, long n, int pong, int lag)
{
    MPI_Status st;
    size_t furthest = 0;
    if (rank == 0) {
        for (long i = first; i < first + n; i++) {
            fill(buf, size_of(i), i);
            MPI_Send(buf, (int)size_of(i), MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            if (sender_offset(peer_local) > furthest)
                furthest = sender_offset(peer_local);
            if (pong)
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        if (lag)
            usleep(200 * 1000);
        for (long i = first; i < first + n; i++) {
            memset(buf, 0, MAX_BYTES);
            MPI_Recv(buf, MAX_BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
            check(buf, size_of(i), i, &st);
            if (pong)
                MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    /* Both agree that everything was read before the next phase. */
    MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - rank, 3, NULL, 0, MPI_BYTE, 1 - rank, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return furthest;
}

int main(int argc, char **argv)
{
    int rank;
    char hot[32];
    snprintf(hot, sizeof(hot), "%d", HOT);
    setenv("UZURA_SHM_RING_HOT", hot, 1);
    if (shm_test_start(&argc, &argv, &rank))
        return 77;
    int peer_local = shm_test_local_of(1);
    size_t ring = (size_t)uz_shm.ring_slots * sizeof(struct shm_slot);
    size_t bound = HOT + MAX_BYTES + 2 * sizeof(struct shm_slot);
    unsigned char *buf = malloc(MAX_BYTES);
    size_t furthest = 0;
    if (rank < 2) {
        size_t ponged = phase(rank, peer_local, buf, 0, STREAM, 1, 0);
        if (rank == 0)
            CHECK(ponged <= bound && sender_offset(peer_local) <= bound,
                  "ping-pong: the sender went to %zu of a %zu-byte ring, ended at %zu", ponged, ring,
                  sender_offset(peer_local));
        /* One way with the receiver keeping up: timing decides how far. */
        phase(rank, peer_local, buf, STREAM, STREAM, 0, 0);
        furthest = phase(rank, peer_local, buf, 2 * STREAM, PILE, 0, 1);
        if (rank == 0)
            CHECK(furthest > bound, "with the receiver asleep the records stayed within %zu bytes", furthest);
        phase(rank, peer_local, buf, 2 * STREAM + PILE, STREAM, 1, 0);
        if (rank == 0)
            CHECK(sender_offset(peer_local) <= bound, "after the pile and ping-pong the sender is at %zu",
                  sender_offset(peer_local));
    }
    int all = shm_test_all_failures();
    if (rank == 0)
        printf("shm_ring_hot: ring %zu bytes, hot start %d, furthest while piled %zu: %s\n", ring, HOT, furthest,
               all ? "FAILED" : "ok");
    free(buf);
    MPI_Finalize();
    return all ? 1 : 0;
}
