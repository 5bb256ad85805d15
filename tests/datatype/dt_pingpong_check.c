/*
 * dt_pingpong_check.c — every byte of rendezvous and eager messages whose
 * send or receive side (or both) is a strided vector, as bench/dtype_pingpong
 * moves them, checked.
 *
 * Each rank sends to the next rank and receives from the previous one
 * (MPI_Sendrecv, so a rank is a sender and a receiver at the same time),
 * then the same with MPI_Isend/MPI_Irecv and the receive posted late
 * (unexpected rendezvous).  Shapes: contiguous to vector, vector to
 * contiguous, vector to vector and contiguous to contiguous; vectors of
 * blocks of 8, 64, 512 and 8192 bytes every twice that, which select the
 * different paths (staged through a buffer, pulled as runs, packed through
 * the ring); sizes around the eager limit (16 KiB), the staging piece
 * (32 KiB), the bulk chunk (128 KiB) and up to a few MiB; and a receive
 * buffer larger than the message.  The gaps of a strided receive buffer
 * must be left untouched.
 */
#include "uztest.h"

enum { GAP = 0xee };

struct shape {
    size_t block;       /* bytes per block; 0 = contiguous */
};

/* Memory offset of message byte i in a buffer of this shape. */
static size_t offset_of(struct shape s, size_t i)
{
    return s.block ? (i / s.block) * 2 * s.block + i % s.block : i;
}

static size_t span_of(struct shape s, size_t bytes)
{
    return s.block ? 2 * bytes : bytes;
}

/* The datatype and count describing `bytes` message bytes (a multiple of
 * the block). */
static void type_of(struct shape s, size_t bytes, MPI_Datatype *t, int *count)
{
    if (!s.block) {
        *t = MPI_BYTE;
        *count = (int)bytes;
        return;
    }
    int per = (int)(s.block / 8);
    CHECK_MPI(MPI_Type_vector((int)(bytes / s.block), per, 2 * per, MPI_DOUBLE, t));
    CHECK_MPI(MPI_Type_commit(t));
    *count = 1;
}

static void fill(unsigned char *buf, struct shape s, size_t bytes, int src, int seq)
{
    memset(buf, GAP, span_of(s, bytes));
    for (size_t i = 0; i < bytes; i++)
        buf[offset_of(s, i)] = uzt_byte(src, seq, i);
}

/* Check `bytes` message bytes and that nothing else of `cap` bytes of
 * capacity changed. */
static void verify(const unsigned char *buf, struct shape s, size_t bytes, size_t cap, int src, int seq,
                   const char *what)
{
    long bad = -1;
    for (size_t i = 0; i < bytes && bad < 0; i++)
        if (buf[offset_of(s, i)] != uzt_byte(src, seq, i))
            bad = (long)i;
    CHECK(bad < 0, "%s: message byte %ld of %zu wrong (block %zu)", what, bad, bytes, s.block);
    size_t span = span_of(s, cap);
    long gap = -1;
    for (size_t i = 0; i < span && gap < 0; i++) {
        int inside = s.block ? (i % (2 * s.block)) < s.block && (i / (2 * s.block)) * s.block < bytes
                             : i < bytes;
        if (!inside && buf[i] != GAP)
            gap = (long)i;
    }
    CHECK(gap < 0, "%s: byte %ld outside the message changed (block %zu, %zu bytes)", what, gap, s.block,
          bytes);
}

static void exchange(struct shape ss, struct shape rs, size_t bytes, size_t extra, int seq, int late)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    size_t cap = bytes + extra;
    unsigned char *sbuf = malloc(span_of(ss, bytes));
    unsigned char *rbuf = malloc(span_of(rs, cap));
    MPI_Datatype st, rt;
    int sc, rc;
    type_of(ss, bytes, &st, &sc);
    type_of(rs, cap, &rt, &rc);
    fill(sbuf, ss, bytes, rank, seq);
    memset(rbuf, GAP, span_of(rs, cap));
    MPI_Status status;
    if (!late) {
        CHECK_MPI(MPI_Sendrecv(sbuf, sc, st, to, seq, rbuf, rc, rt, from, seq, MPI_COMM_WORLD, &status));
    } else {
        MPI_Request req[2];
        CHECK_MPI(MPI_Isend(sbuf, sc, st, to, seq, MPI_COMM_WORLD, &req[0]));
        /* Let the request to send arrive before the receive is posted. */
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(from, seq, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Irecv(rbuf, rc, rt, from, seq, MPI_COMM_WORLD, &req[1]));
        MPI_Status sts[2];
        CHECK_MPI(MPI_Waitall(2, req, sts));
        status = sts[1];
    }
    int got = -1;
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &got));
    CHECK_EQ(got, (int)bytes);
    char what[96];
    snprintf(what, sizeof(what), "%zu bytes, send block %zu, receive block %zu%s", bytes, ss.block, rs.block,
             late ? ", late receive" : "");
    verify(rbuf, rs, bytes, cap, from, seq, what);
    if (st != MPI_BYTE)
        MPI_Type_free(&st);
    if (rt != MPI_BYTE)
        MPI_Type_free(&rt);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("dt_pingpong_check: needs 2 or more processes (skipped)\n");
        MPI_Finalize();
        return 77;
    }
    static const size_t sizes[] = {
        8192, 16384, 16384 + 8192, 24576, 32768, 32768 + 8192, 65536,
        131072 - 8192, 131072, 131072 + 8192, 262144 + 8192, 1048576, 4194304 + 8192,
    };
    static const size_t blocks[] = { 0, 8, 64, 512, 8192 };
    int seq = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (size_t a = 0; a < sizeof(blocks) / sizeof(blocks[0]); a++) {
            for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
                /* One strided side with every block, and both strided with
                 * equal blocks, keep the run short. */
                if (blocks[a] && blocks[b] && blocks[a] != blocks[b])
                    continue;
                struct shape ss = { blocks[a] }, rs = { blocks[b] };
                exchange(ss, rs, sizes[k], 0, seq++ % 30000, 0);
                exchange(ss, rs, sizes[k], 0, seq++ % 30000, 1);
                /* A receive buffer larger than the message. */
                exchange(ss, rs, sizes[k], 3 * 8192, seq++ % 30000, 0);
            }
        }
    }
    /* Sizes that are not a multiple of a large block: 8-byte blocks only. */
    static const size_t odd[] = { 16384 - 8, 16384 + 8, 32768 - 8, 32768 + 8, 131072 + 24, 1048576 - 8 };
    for (size_t k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
        struct shape c = { 0 }, v = { 8 };
        exchange(c, v, odd[k], 0, seq++ % 30000, 0);
        exchange(v, c, odd[k], 0, seq++ % 30000, 0);
        exchange(v, v, odd[k], 0, seq++ % 30000, 1);
        exchange(c, v, odd[k], 40, seq++ % 30000, 1);
    }
    return uzt_finish("dt_pingpong_check");
}
