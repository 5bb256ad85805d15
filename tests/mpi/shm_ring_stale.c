/*
 * shm_ring_stale.c — a ring slot whose first word was last written as
 * payload must never pass for the start of the next record.
 *
 * The receiver of a shm ring polls the first word of the slot where the
 * next record starts and takes the record when that word equals the
 * expected position + 1.  Any slot may start a record one day, so a slot
 * that last held the middle of a long record must have been cleared first
 * (shm_ring.c).  Rank 0 writes exactly the word that would fool the
 * receiver one lap later into every slot its long messages cover (it reads
 * the ring position from the transport's state: this program links the
 * library's objects), then walks the whole next lap with one-slot messages
 * in lockstep, so that the receiver is always polling a slot before the
 * sender has written it.  Every byte of every message is checked.  Runs at
 * np 2 (ranks 0 and 1 only; others wait at the barrier).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm_ring_test.h"

enum { LONG_BYTES = 3000, LAPS = 3, HDR_BYTES = 16 };

#define CHECK(cond, ...) SHM_CHECK("shm_ring_stale", cond, __VA_ARGS__)

static uint32_t slots_for(size_t record)
{
    return (uint32_t)((8 + record + sizeof(struct shm_slot) - 1) / sizeof(struct shm_slot));
}

/* Payload offset of the first word of slot k of a record (k >= 1): records
 * start 8 bytes into their first slot, the payload HDR_BYTES later. */
static size_t word_offset(uint32_t k)
{
    return (size_t)k * sizeof(struct shm_slot) - 8 - HDR_BYTES;
}

/* The long message: a byte pattern, with the words that would be taken for
 * the sequence numbers one lap after `start`. */
static void fill_long(unsigned char *buf, uint64_t start, uint32_t ring_slots)
{
    for (size_t i = 0; i < LONG_BYTES; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    uint32_t need = slots_for(HDR_BYTES + LONG_BYTES);
    for (uint32_t k = 1; k < need; k++) {
        size_t off = word_offset(k);
        if (off + 8 > LONG_BYTES)
            break;
        uint32_t fake_seq = (uint32_t)(start + k + ring_slots + 1);
        uint32_t fake_len = 40;        /* a plausible one-slot record */
        memcpy(buf + off, &fake_seq, 4);
        memcpy(buf + off + 4, &fake_len, 4);
    }
}

/* Where the next record of `bytes` to local peer `tx` will start. */
static uint64_t next_start(const struct shm_tx *tx, size_t bytes)
{
    uint64_t p = tx->produced;
    uint32_t idx = (uint32_t)p & uz_shm.ring_mask;
    uint32_t need = slots_for(bytes);
    return idx + need > uz_shm.ring_slots ? p + (uz_shm.ring_slots - idx) : p;
}

int main(int argc, char **argv)
{
    int rank;
    /* The walk needs the whole ring in turn: with the hot start a sender
     * in lockstep would go back to slot 0 long before the lap ends (both
     * ways back write the same WRAP record and clear slot 0 alike). */
    setenv("UZURA_SHM_RING_HOT", "0", 1);
    if (shm_test_start(&argc, &argv, &rank))
        return 77;
    unsigned char *buf = malloc(LONG_BYTES), *expect = malloc(LONG_BYTES);
    uint32_t ring_slots = 0;
    int peer_local = shm_test_local_of(rank == 0 ? 1 : 0);
    ring_slots = uz_shm.ring_slots;
    long lap_messages = ring_slots / slots_for(HDR_BYTES + LONG_BYTES) + 2;
    long walked = 0;

    for (int lap = 0; rank < 2 && lap < LAPS; lap++) {
        /* A lap of long messages, each followed by the position it was
         * crafted for, so that the receiver can check every byte. */
        for (long m = 0; m < lap_messages; m++) {
            uint64_t start;
            if (rank == 0) {
                CHECK(peer_local >= 0, "rank 1 is not local");
                start = next_start(&uz_shm.tx[peer_local], HDR_BYTES + LONG_BYTES);
                fill_long(buf, start, ring_slots);
                MPI_Send(buf, LONG_BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Send(&start, 1, MPI_UINT64_T, 1, 2, MPI_COMM_WORLD);
            } else {
                MPI_Status st;
                int n;
                memset(buf, 0, LONG_BYTES);
                MPI_Recv(buf, LONG_BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(n == LONG_BYTES, "long message %ld of lap %d: %d bytes", m, lap, n);
                MPI_Recv(&start, 1, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                fill_long(expect, start, ring_slots);
                for (size_t i = 0; i < LONG_BYTES; i++)
                    if (buf[i] != expect[i]) {
                        CHECK(0, "long message %ld of lap %d: byte %zu is %u, not %u", m, lap, i, buf[i],
                              expect[i]);
                        break;
                    }
            }
        }
        /* Two laps of one-slot messages in lockstep (the long messages
         * spanned more than one): the receiver polls each slot before the
         * sender writes it. */
        for (uint32_t i = 0; i < 2 * ring_slots; i++, walked++) {
            int32_t v = (int32_t)walked, got = -1;
            MPI_Status st;
            if (rank == 0) {
                MPI_Send(&v, 1, MPI_INT32_T, 1, 3, MPI_COMM_WORLD);
                MPI_Recv(&got, 1, MPI_INT32_T, 1, 4, MPI_COMM_WORLD, &st);
                CHECK(got == -v, "reply %ld: %d", walked, got);
            } else {
                MPI_Recv(&got, 1, MPI_INT32_T, 0, 3, MPI_COMM_WORLD, &st);
                int n;
                MPI_Get_count(&st, MPI_INT32_T, &n);
                CHECK(got == v && n == 1 && st.MPI_SOURCE == 0 && st.MPI_TAG == 3,
                      "one-slot message %ld: value %d, count %d, source %d, tag %d", walked, got, n,
                      st.MPI_SOURCE, st.MPI_TAG);
                got = -got;
                MPI_Send(&got, 1, MPI_INT32_T, 0, 4, MPI_COMM_WORLD);
            }
        }
    }
    int all = shm_test_all_failures();
    if (rank == 0)
        printf("shm_ring_stale: %d laps of %u slots, %ld one-slot messages: %s\n", LAPS, ring_slots, walked,
               all ? "FAILED" : "ok");
    free(buf);
    free(expect);
    MPI_Finalize();
    return all ? 1 : 0;
}
