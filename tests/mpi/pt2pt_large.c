/*
 * pt2pt_large.c — messages of many MiB between pairs of ranks (0-1, 2-3,
 * ...; an odd last rank only takes part in the verdict), in both
 * directions: into memory never written before and into memory used
 * before, at an address that is not page-aligned, from and into strided
 * vectors of long runs (with gaps of less and more than a page), several
 * at once, and a receive too short for its message.  Every received byte,
 * every byte around the data that must stay untouched, the status and the
 * count are checked.  The same program runs with cross-memory attach off
 * (the ring carries the data) and, with the argument "prefault", only
 * receives one message into fresh memory and then into the same memory
 * again, for pt2pt_large_prefault.sh to compare with the shm transport's
 * counter.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "uztest.h"

static int rank, size, partner;
static size_t nbytes;           /* of data per message */
static int seq;

/* Memory the process has never written: the kernel maps its pages on the
 * first write, as for a buffer just malloc'd. */
static unsigned char *fresh(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pt2pt_large: cannot map %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void release(unsigned char *p, size_t n)
{
    munmap(p, n);
}

/* A vector of `nblk` blocks of `blk` bytes, `stride` bytes apart. */
static MPI_Datatype vector(size_t nblk, size_t blk, size_t stride)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_vector((int)nblk, (int)blk, (int)stride, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

/* Where stream byte i lies in a vector layout (blk, stride). */
static size_t at(size_t i, size_t blk, size_t stride)
{
    return i / blk * stride + i % blk;
}

static void check_status(const MPI_Status *st, MPI_Datatype type, int count, const char *what)
{
    int got = -1;
    CHECK(st->MPI_SOURCE == partner, "%s: status source %d, expected %d", what, st->MPI_SOURCE, partner);
    CHECK(st->MPI_TAG == seq, "%s: status tag %d, expected %d", what, st->MPI_TAG, seq);
    MPI_Get_count(st, type, &got);
    CHECK(got == count, "%s: count %d, expected %d", what, got, count);
}

/* Bytes [from, to) of buf must still be zero. */
static void check_untouched(const unsigned char *buf, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; i++)
        if (buf[i]) {
            CHECK(0, "%s: byte %zu outside the data was written", what, i);
            return;
        }
}

/* The lower rank of a pair sends first, so each case runs both ways. */
static int sends_first(void)
{
    return rank < partner;
}

/* ---------------------------------------------------------------- cases */

/* Contiguous bytes into `rbuf` (offset `skew` into a mapping of n + skew
 * + 1 bytes, zero around the data). */
static void contiguous(unsigned char *map, size_t skew, const char *what)
{
    unsigned char *sbuf = malloc(nbytes);
    uzt_fill(sbuf, nbytes, rank, seq);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_first() == (turn == 0)) {
            CHECK_MPI(MPI_Send(sbuf, (int)nbytes, MPI_BYTE, partner, seq, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(map + skew, (int)nbytes, MPI_BYTE, partner, seq, MPI_COMM_WORLD, &st));
            check_status(&st, MPI_BYTE, (int)nbytes, what);
            long bad = uzt_verify(map + skew, nbytes, partner, seq);
            CHECK(bad < 0, "%s: %zu bytes, byte %ld wrong", what, nbytes, bad);
            check_untouched(map, 0, skew, what);
            check_untouched(map, skew + nbytes, skew + nbytes + 1, what);
        }
    }
    free(sbuf);
    seq++;
}

/* The sender's buffer is a vector (blk, stride); the receiver's contiguous. */
static void strided_send(size_t blk, size_t stride, const char *what)
{
    size_t nblk = nbytes / blk, data = nblk * blk, extent = (nblk - 1) * stride + blk;
    MPI_Datatype t = vector(nblk, blk, stride);
    unsigned char *sbuf = malloc(extent), *rbuf = fresh(data + 1);
    uzt_fill(sbuf, extent, rank, seq);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_first() == (turn == 0)) {
            CHECK_MPI(MPI_Send(sbuf, 1, t, partner, seq, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(rbuf, (int)data, MPI_BYTE, partner, seq, MPI_COMM_WORLD, &st));
            check_status(&st, MPI_BYTE, (int)data, what);
            for (size_t i = 0; i < data; i++)
                if (rbuf[i] != uzt_byte(partner, seq, at(i, blk, stride))) {
                    CHECK(0, "%s: stream byte %zu wrong", what, i);
                    break;
                }
            check_untouched(rbuf, data, data + 1, what);
        }
    }
    MPI_Type_free(&t);
    free(sbuf);
    release(rbuf, data + 1);
    seq++;
}

/* The sender's buffer is contiguous; the receiver's a vector (blk, stride)
 * in fresh memory, whose gaps must stay zero. */
static void strided_recv(size_t blk, size_t stride, const char *what)
{
    size_t nblk = nbytes / blk, data = nblk * blk, extent = (nblk - 1) * stride + blk;
    MPI_Datatype t = vector(nblk, blk, stride);
    unsigned char *sbuf = malloc(data), *rbuf = fresh(extent + 1);
    uzt_fill(sbuf, data, rank, seq);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_first() == (turn == 0)) {
            CHECK_MPI(MPI_Send(sbuf, (int)data, MPI_BYTE, partner, seq, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(rbuf, 1, t, partner, seq, MPI_COMM_WORLD, &st));
            check_status(&st, t, 1, what);
            size_t next = 0;    /* first byte not yet checked */
            for (size_t b = 0; b < nblk; b++) {
                size_t start = b * stride;
                check_untouched(rbuf, next, start, what);
                long bad = -1;
                for (size_t i = 0; i < blk && bad < 0; i++)
                    if (rbuf[start + i] != uzt_byte(partner, seq, b * blk + i))
                        bad = (long)(b * blk + i);
                CHECK(bad < 0, "%s: stream byte %ld wrong", what, bad);
                next = start + blk;
            }
            check_untouched(rbuf, next, extent + 1, what);
        }
    }
    MPI_Type_free(&t);
    free(sbuf);
    release(rbuf, extent + 1);
    seq++;
}

/* Three messages at once, received in the opposite order of their tags. */
static void several(void)
{
    enum { K = 3 };
    size_t n = nbytes / K;
    unsigned char *sbuf[K], *rbuf[K];
    MPI_Request req[2 * K];
    for (int k = 0; k < K; k++) {
        sbuf[k] = malloc(n);
        rbuf[k] = fresh(n);
        uzt_fill(sbuf[k], n, rank, seq + k);
    }
    for (int k = 0; k < K; k++)
        CHECK_MPI(MPI_Irecv(rbuf[K - 1 - k], (int)n, MPI_BYTE, partner, seq + K - 1 - k, MPI_COMM_WORLD,
                            &req[k]));
    for (int k = 0; k < K; k++)
        CHECK_MPI(MPI_Isend(sbuf[k], (int)n, MPI_BYTE, partner, seq + k, MPI_COMM_WORLD, &req[K + k]));
    MPI_Status st[2 * K];
    CHECK_MPI(MPI_Waitall(2 * K, req, st));
    for (int k = 0; k < K; k++) {
        int tag = seq + K - 1 - k, count = -1;
        MPI_Get_count(&st[k], MPI_BYTE, &count);
        CHECK(st[k].MPI_TAG == tag && st[k].MPI_SOURCE == partner && count == (int)n,
              "several: message %d: tag %d source %d count %d", k, st[k].MPI_TAG, st[k].MPI_SOURCE, count);
        long bad = uzt_verify(rbuf[K - 1 - k], n, partner, tag);
        CHECK(bad < 0, "several: message with tag %d: byte %ld wrong", tag, bad);
    }
    for (int k = 0; k < K; k++) {
        free(sbuf[k]);
        release(rbuf[k], n);
    }
    seq += K;
}

/* A receive of half the message: MPI_ERR_TRUNCATE, the first half delivered,
 * nothing written past the buffer. */
static void truncated(void)
{
    size_t half = nbytes / 2;
    unsigned char *sbuf = malloc(nbytes), *rbuf = fresh(nbytes);
    uzt_fill(sbuf, nbytes, rank, seq);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_first() == (turn == 0)) {
            CHECK_MPI(MPI_Send(sbuf, (int)nbytes, MPI_BYTE, partner, seq, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int rc = MPI_Recv(rbuf, (int)half, MPI_BYTE, partner, seq, MPI_COMM_WORLD, &st);
            CHECK(uzt_class(rc) == MPI_ERR_TRUNCATE, "truncated: error class %d, expected MPI_ERR_TRUNCATE",
                  uzt_class(rc));
            CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == seq, "truncated: status source %d tag %d",
                  st.MPI_SOURCE, st.MPI_TAG);
            long bad = uzt_verify(rbuf, half, partner, seq);
            CHECK(bad < 0, "truncated: byte %ld wrong", bad);
            check_untouched(rbuf, half, nbytes, "truncated");
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(sbuf);
    release(rbuf, nbytes);
    seq++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner = rank ^ 1;
    /* 24 MiB per message with one pair, less with more ranks (they share
     * two cores); always a multiple of the page size. */
    nbytes = (size_t)(48 / size) << 20;
    if (nbytes < (4 << 20))
        nbytes = 4 << 20;
    if (nbytes > (24 << 20))
        nbytes = 24 << 20;
    int prefault_only = argc > 1 && strcmp(argv[1], "prefault") == 0;
    if (partner < size) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        unsigned char *map = fresh(nbytes + page);
        contiguous(map, 0, "contiguous into fresh memory");
        contiguous(map, 0, "contiguous into used memory");
        release(map, nbytes + page);
        if (!prefault_only) {
            map = fresh(nbytes + page);
            contiguous(map, 3, "contiguous at an odd address");
            release(map, nbytes + page);
            strided_send(40 * 1024 + 8, 56 * 1024, "vector of 40 KiB runs to contiguous");
            strided_recv(40 * 1024 + 8, 56 * 1024, "contiguous to a vector of 40 KiB runs");
            strided_recv(20 * 1024 + 100, 21 * 1024, "contiguous to a vector with 1 KiB gaps");
            several();
            truncated();
        }
    }
    return uzt_finish(prefault_only ? "pt2pt_large prefault" : "pt2pt_large");
}
