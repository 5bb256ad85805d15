/*
 * io_atomic.c — atomic mode (MPI 4.1 section 14.6.1): with
 * MPI_File_set_atomicity(fh, true), conflicting accesses by different
 * processes behave as if they happened one after another, so overlapping
 * writes never interleave inside one write and a reader sees each write
 * entirely or not at all.  Also MPI_File_get_atomicity.
 *
 * Every byte a rank writes is uzt_byte(rank, seq, file position), so the
 * writer of any byte can be told from the byte and its position.  Ranks
 * write at once, repeatedly:
 *   - all the same range, of 7 bytes, a page and a bit, and 1 MiB + 3
 *     (many pages, several file-system blocks);
 *   - staggered ranges (rank r from r*s/3 on), so that regions are covered
 *     by 2 or 3 writers;
 *   - through a noncontiguous view (blocks of 3 ints with 2-int holes,
 *     about 400 KB), one write each;
 * then sync, barrier, sync, and the file must be what some serial order
 * of the writes gives: every stretch of bytes covered by the same writers
 * holds one of them whole, and the "overwrote" relation between writers
 * has no cycle (a noncontiguous write split between two writers makes
 * one).  Holes keep the fill written before.
 * Then one rank reads a range over and over, in atomic mode, while the
 * others write it: each read must be the old content or one write whole.
 * Nothing relies on shared memory; the ranks only share the file.
 */
#include "uztest.h"
#include "uzio.h"
#include <unistd.h>
#include <time.h>

static int rank, size;
static char path[512];
static MPI_File fh;

#define FILL 0xEE
#define BASE 1001L  /* where the written ranges start: unaligned */
#define ITER 4      /* rounds of simultaneous writes per case */
#define NB 20000    /* blocks of the noncontiguous view */
#define BLK 12L     /* bytes of data per block ... */
#define TILE 20L    /* ... per 20 bytes of file */

/* ------------------------------------------------------------------ */
/* Scratch file                                                        */
/* ------------------------------------------------------------------ */

static void make_path(const char *tag)
{
    uzio_scratch_name(path, (int)sizeof path, "uzura_", tag, ".dat");
}

static void sync_all(void)
{
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
}

static void byte_view(void)
{
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
}

static void reset_file(long len)
{
    byte_view();
    CHECK_MPI(MPI_File_set_size(fh, 0));
    if (rank == 0) {
        unsigned char *b = malloc(len);
        memset(b, FILL, len);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    sync_all();
}

/* The noncontiguous view: from BASE, blocks of 3 ints every 5 ints. */
static void holey_view(void)
{
    MPI_Datatype ft;
    MPI_Type_vector(NB, 3, 5, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, BASE, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);
}

/* File position of byte i of the memory buffer written through it. */
static long holey_pos(long i)
{
    return BASE + i / BLK * TILE + i % BLK;
}

/* ------------------------------------------------------------------ */
/* Which writer covers which byte, and the serial-order check           */
/* ------------------------------------------------------------------ */

enum shape { SAME, STAGGERED, HOLEY };
static enum shape cur_shape;
static long cur_len; /* bytes each writer writes */

static long stagger(int w)
{
    return (long)w * (cur_len / 3);
}

static int covers(int w, long p)
{
    switch (cur_shape) {
    case SAME:
        return p >= BASE && p < BASE + cur_len;
    case STAGGERED:
        return p >= BASE + stagger(w) && p < BASE + stagger(w) + cur_len;
    case HOLEY:
        return p >= BASE && p < BASE + NB * TILE && (p - BASE) % TILE < BLK;
    }
    return 0;
}

static long region_end(void)
{
    switch (cur_shape) {
    case SAME:
        return BASE + cur_len;
    case STAGGERED:
        return BASE + stagger(size - 1) + cur_len;
    case HOLEY:
        return BASE + (NB - 1) * TILE + BLK;
    }
    return 0;
}

/* f holds the file's bytes [0, len).  Every maximal stretch covered by
 * the same set of writers must be wholly one of them; writer a precedes
 * writer b if b's bytes are where both wrote, and that relation must be
 * acyclic (size <= 64). */
static void check_serial(const unsigned char *f, long len, int seq, const char *what)
{
    static unsigned char after[64][64];
    memset(after, 0, sizeof after);
    long bad = 0;
    for (long p = 0; p < len;) {
        uint64_t mask = 0;
        for (int w = 0; w < size; w++)
            if (covers(w, p))
                mask |= 1ull << w;
        long q = p + 1;
        for (; q < len; q++) {
            uint64_t m = 0;
            for (int w = 0; w < size; w++)
                if (covers(w, q))
                    m |= 1ull << w;
            if (m != mask)
                break;
        }
        if (mask == 0) {
            for (long i = p; i < q; i++)
                if (f[i] != FILL && bad++ < 3)
                    CHECK(0, "%s: byte %ld outside every write is 0x%02x", what, i, f[i]);
        } else {
            int winner = -1;
            for (int w = 0; w < size && winner < 0; w++) {
                if (!(mask >> w & 1))
                    continue;
                long i = p;
                while (i < q && f[i] == uzt_byte(w, seq, i))
                    i++;
                if (i == q)
                    winner = w;
            }
            if (winner < 0 && bad++ < 3) {
                /* Say how the stretch starts, to show the mix. */
                int w0 = -1;
                for (int w = 0; w < size; w++)
                    if ((mask >> w & 1) && f[p] == uzt_byte(w, seq, p))
                        w0 = w;
                CHECK(0, "%s: bytes [%ld, %ld) are no single writer's (first byte from rank %d)", what, p, q, w0);
            }
            if (winner >= 0)
                for (int w = 0; w < size; w++)
                    if ((mask >> w & 1) && w != winner)
                        after[w][winner] = 1;
        }
        p = q;
    }
    /* Transitive closure; a cycle shows as a writer after itself. */
    for (int k = 0; k < size; k++)
        for (int i = 0; i < size; i++)
            if (after[i][k])
                for (int j = 0; j < size; j++)
                    if (after[k][j])
                        after[i][j] = 1;
    for (int w = 0; w < size; w++)
        CHECK(!after[w][w], "%s: no serial order explains the file (rank %d both before and after another)", what,
              w);
    CHECK(bad == 0, "%s: %ld stretches wrong", what, bad);
}

/* ------------------------------------------------------------------ */
/* Simultaneous overlapping writes                                     */
/* ------------------------------------------------------------------ */

static void overlapping_writes(enum shape shape, long bytes, int seq0, const char *what)
{
    cur_shape = shape;
    cur_len = bytes;
    long end = region_end();
    reset_file(end + 7); /* a little fill after every write too */
    if (shape == HOLEY)
        holey_view();
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    unsigned char *buf = malloc(bytes), *f = malloc(end + 7);
    long off = shape == STAGGERED ? BASE + stagger(rank) : BASE;
    for (int it = 0; it < ITER; it++) {
        int seq = seq0 + it;
        for (long i = 0; i < bytes; i++)
            buf[i] = uzt_byte(rank, seq, shape == HOLEY ? holey_pos(i) : off + i);
        MPI_Barrier(MPI_COMM_WORLD);
        if (shape == HOLEY)
            CHECK_MPI(MPI_File_write_at(fh, 0, buf, (int)(bytes / 4), MPI_INT, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_File_write_at(fh, off, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE));
        sync_all();
        /* The first and the last rank look (on different hosts in the
         * namespace runs), through a byte view so that holes show too. */
        if (shape == HOLEY)
            byte_view();
        if (rank == 0 || rank == size - 1) {
            MPI_Status st;
            int cnt = -1;
            CHECK_MPI(MPI_File_read_at(fh, 0, f, (int)(end + 7), MPI_BYTE, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == end + 7, "%s: read %d bytes of %ld", what, cnt, end + 7);
            char w[160];
            snprintf(w, sizeof w, "%s, round %d", what, it);
            check_serial(f, end + 7, seq, w);
        }
        if (shape == HOLEY)
            holey_view();
        MPI_Barrier(MPI_COMM_WORLD); /* nobody writes while someone looks */
    }
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    free(buf);
    free(f);
}

/* ------------------------------------------------------------------ */
/* A reader while the others write                                     */
/* ------------------------------------------------------------------ */

#define RITER 6 /* writes per writer */

/* The writer and round whose write buf is, -2 for the fill (old data),
 * -1 for neither. */
static int whose(const unsigned char *buf, long n, long (*pos)(long), int seq0, int *round)
{
    long i = 0;
    while (i < n && buf[i] == FILL)
        i++;
    if (i == n)
        return -2;
    for (int w = 0; w < size - 1; w++)
        for (int it = 0; it < RITER; it++) {
            for (i = 0; i < n && buf[i] == uzt_byte(w, seq0 + it, pos(i)); i++)
                ;
            if (i == n) {
                *round = it;
                return w;
            }
        }
    return -1;
}

static long plain_pos(long i)
{
    return BASE + i;
}

static void concurrent_reader(int holey, int seq0)
{
    const char *what = holey ? "reader, noncontiguous view" : "reader, 1 MiB";
    long n = holey ? NB * BLK : (1L << 20) + 3;
    long (*pos)(long) = holey ? holey_pos : plain_pos;
    reset_file(holey ? holey_pos(n - 1) + 1 : BASE + n);
    if (holey)
        holey_view();
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    unsigned char *buf = malloc(n);
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < size - 1) {
        for (int it = 0; it < RITER; it++) {
            for (long i = 0; i < n; i++)
                buf[i] = uzt_byte(rank, seq0 + it, pos(i));
            if (holey)
                CHECK_MPI(MPI_File_write_at(fh, 0, buf, (int)(n / 4), MPI_INT, &st));
            else
                CHECK_MPI(MPI_File_write_at(fh, BASE, buf, (int)n, MPI_BYTE, &st));
        }
        MPI_Send(NULL, 0, MPI_BYTE, size - 1, 7, MPI_COMM_WORLD);
    } else {
        MPI_Request *done = malloc(size * sizeof *done);
        for (int w = 0; w < size - 1; w++)
            MPI_Irecv(NULL, 0, MPI_BYTE, w, 7, MPI_COMM_WORLD, &done[w]);
        int finished = 0, reads = 0, w = -1, round = -1;
        while (!finished || reads < 2) {
            if (!finished)
                MPI_Testall(size - 1, done, &finished, MPI_STATUSES_IGNORE);
            int cnt = -1;
            if (holey)
                CHECK_MPI(MPI_File_read_at(fh, 0, buf, (int)(n / 4), MPI_INT, &st));
            else
                CHECK_MPI(MPI_File_read_at(fh, BASE, buf, (int)n, MPI_BYTE, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == n, "%s: read %d bytes of %ld", what, cnt, n);
            w = whose(buf, n, pos, seq0, &round);
            CHECK(w != -1, "%s: read %d saw neither the old data nor one write whole", what, reads);
            reads++;
        }
        /* The last read began after every write had ended. */
        CHECK(w >= 0 && round == RITER - 1, "%s: the last read saw writer %d's round %d, not a last write", what, w,
              round);
        free(done);
    }
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_path("atomic");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    int flag = -1;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "a file opens in atomic mode (%d)", flag);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag != 0, "atomicity still off after set_atomicity(true)");
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomicity still on after set_atomicity(false)");

    if (size <= 64) {
        overlapping_writes(SAME, 7, 100, "same 7 bytes");
        overlapping_writes(SAME, 4096 + 13, 200, "same page and a bit");
        overlapping_writes(SAME, (1L << 20) + 3, 300, "same 1 MiB + 3");
        overlapping_writes(STAGGERED, 4096 + 13, 400, "staggered page and a bit");
        overlapping_writes(STAGGERED, (1L << 20) + 3, 500, "staggered 1 MiB + 3");
        overlapping_writes(HOLEY, NB * BLK, 600, "noncontiguous view");
    }
    if (size > 1) {
        concurrent_reader(0, 700);
        concurrent_reader(1, 800);
    }

    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    return uzt_finish("io_atomic");
}
