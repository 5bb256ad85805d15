/*
 * io_shared.c — the shared file pointer (MPI 4.1 section 14.4.4): one
 * pointer for the whole group, used by MPI_File_{read,write}_shared and
 * their nonblocking forms (in some serial order), by the ordered
 * collectives (in rank order exactly) and by the split ordered
 * collectives, moved by the collective MPI_File_seek_shared and read by
 * MPI_File_get_position_shared, independent of each rank's individual
 * pointer, reset by MPI_File_set_view and counted in etypes of the view.
 *
 * Records written through the shared pointer carry their writer and
 * sequence number, so that reading the file back on one rank shows that
 * each appears exactly once and unbroken; ordered data is checked byte by
 * byte at the offsets the rank order gives.  Ranks may be on different
 * hosts: nothing here relies on shared memory, and data written by one
 * rank is read by another only after sync, barrier, sync.
 */
#include "uztest.h"
#include "uzio.h"
#include <unistd.h>
#include <time.h>

static int rank, size;
static char path[512];
static MPI_File fh;

#define FILL 0xEE
#define REC 203 /* record bytes: not a power of two, not aligned */
#define NREC 4  /* records per rank */

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

/* A byte view, the file emptied and then [0, len) filled; both pointers
 * back at 0. */
static void reset_file(long len)
{
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    if (rank == 0 && len > 0) {
        unsigned char *b = malloc(len);
        memset(b, FILL, len);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    sync_all();
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
}

/* Rank 0 only: the whole file through the current (byte) view. */
static unsigned char *read_whole(long *len)
{
    MPI_Offset fsize = 0;
    MPI_Status st;
    int cnt = -1;
    MPI_File_get_size(fh, &fsize);
    unsigned char *b = malloc(fsize + 1);
    CHECK_MPI(MPI_File_read_at(fh, 0, b, (int)fsize, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == fsize, "read %d bytes of a %lld-byte file", cnt, (long long)fsize);
    *len = fsize;
    return b;
}

/* Collective here: every rank looks after everyone's earlier operations
 * and before anyone's next one (a collective seek_shared can return on one
 * rank, which then moves on, before another has even called it). */
static void check_shared_pos(MPI_Offset want, const char *what)
{
    MPI_Offset pos = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == want, "%s: shared position %lld, expected %lld", what, (long long)pos, (long long)want);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ */
/* Records: writer and number in the first 8 bytes, a pattern after    */
/* ------------------------------------------------------------------ */

static void make_record(unsigned char *b, int r, int j)
{
    int32_t h[2] = {r, j};
    memcpy(b, h, 8);
    for (int i = 8; i < REC; i++)
        b[i] = uzt_byte(r, 1000 + j, i);
}

/* The record's id r*NREC+j, or -1 if it is not an intact record. */
static int record_id(const unsigned char *b)
{
    int32_t h[2];
    memcpy(h, b, 8);
    if (h[0] < 0 || h[0] >= size || h[1] < 0 || h[1] >= NREC)
        return -1;
    for (int i = 8; i < REC; i++)
        if (b[i] != uzt_byte(h[0], 1000 + h[1], i))
            return -1;
    return h[0] * NREC + h[1];
}

/* Every rank writes NREC records through the shared pointer, one call
 * each; then the file must hold exactly size*NREC records, each once and
 * whole, and (for blocking calls, which a rank issues one after another)
 * each rank's in its own order. */
static void test_write_shared(int nonblocking)
{
    const char *what = nonblocking ? "iwrite_shared" : "write_shared";
    reset_file(0);
    unsigned char *recs = malloc(NREC * REC);
    MPI_Request req[NREC];
    MPI_Status st[NREC];
    for (int j = 0; j < NREC; j++) {
        make_record(recs + j * REC, rank, j);
        if (nonblocking)
            CHECK_MPI(MPI_File_iwrite_shared(fh, recs + j * REC, REC, MPI_BYTE, &req[j]));
        else
            CHECK_MPI(MPI_File_write_shared(fh, recs + j * REC, REC, MPI_BYTE, &st[j]));
    }
    if (nonblocking)
        CHECK_MPI(MPI_Waitall(NREC, req, st));
    for (int j = 0; j < NREC; j++) {
        int cnt = -1;
        MPI_Get_count(&st[j], MPI_BYTE, &cnt);
        CHECK(cnt == REC, "%s: count %d", what, cnt);
    }
    free(recs);
    sync_all();
    check_shared_pos((MPI_Offset)size * NREC * REC, what);

    if (rank == 0) {
        long len;
        unsigned char *b = read_whole(&len);
        CHECK(len == (long)size * NREC * REC, "%s: file is %ld bytes, expected %ld", what, len,
              (long)size * NREC * REC);
        int *seen = calloc(size * NREC, sizeof *seen), *last = malloc(size * sizeof *last);
        for (int r = 0; r < size; r++)
            last[r] = -1;
        for (long s = 0; s + REC <= len; s += REC) {
            int id = record_id(b + s);
            CHECK(id >= 0, "%s: no intact record at byte %ld", what, s);
            if (id < 0)
                continue;
            seen[id]++;
            if (!nonblocking)
                CHECK(id % NREC > last[id / NREC], "%s: rank %d's record %d after its record %d", what, id / NREC,
                      id % NREC, last[id / NREC]);
            last[id / NREC] = id % NREC;
        }
        for (int id = 0; id < size * NREC; id++)
            CHECK(seen[id] == 1, "%s: rank %d's record %d appears %d times", what, id / NREC, id % NREC, seen[id]);
        free(seen);
        free(last);
        free(b);
    }
}

/* The file of test_write_shared read back through the shared pointer:
 * every read gets one whole record and together the ranks read each
 * record once; after that a read at the end of the file reads nothing. */
static void test_read_shared(int nonblocking)
{
    const char *what = nonblocking ? "iread_shared" : "read_shared";
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    unsigned char *recs = malloc(NREC * REC);
    int ids[NREC];
    MPI_Request req[NREC];
    MPI_Status st[NREC];
    for (int j = 0; j < NREC; j++) {
        if (nonblocking)
            CHECK_MPI(MPI_File_iread_shared(fh, recs + j * REC, REC, MPI_BYTE, &req[j]));
        else
            CHECK_MPI(MPI_File_read_shared(fh, recs + j * REC, REC, MPI_BYTE, &st[j]));
    }
    if (nonblocking)
        CHECK_MPI(MPI_Waitall(NREC, req, st));
    for (int j = 0; j < NREC; j++) {
        int cnt = -1;
        MPI_Get_count(&st[j], MPI_BYTE, &cnt);
        CHECK(cnt == REC, "%s: count %d", what, cnt);
        ids[j] = record_id(recs + j * REC);
        CHECK(ids[j] >= 0, "%s: read %d is not an intact record", what, j);
    }
    int *all = rank == 0 ? malloc(size * NREC * sizeof *all) : NULL;
    MPI_Gather(ids, NREC, MPI_INT, all, NREC, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int *seen = calloc(size * NREC, sizeof *seen);
        for (int i = 0; i < size * NREC; i++)
            if (all[i] >= 0)
                seen[all[i]]++;
        for (int id = 0; id < size * NREC; id++)
            CHECK(seen[id] == 1, "%s: rank %d's record %d read %d times", what, id / NREC, id % NREC, seen[id]);
        free(seen);
        free(all);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos((MPI_Offset)size * NREC * REC, what);
    MPI_Status s1;
    int cnt = -1;
    CHECK_MPI(MPI_File_read_shared(fh, recs, REC, MPI_BYTE, &s1));
    MPI_Get_count(&s1, MPI_BYTE, &cnt);
    CHECK(cnt == 0, "%s: read %d bytes at the end of the file", what, cnt);
    free(recs);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ */
/* Ordered collectives                                                 */
/* ------------------------------------------------------------------ */

/* Rank 1 contributes nothing: an empty part must not disturb the order. */
static long olen(int r)
{
    return r == 1 ? 0 : 10 + 7 * r + (r % 3) * 100;
}

static long oprefix(int r)
{
    long s = 0;
    for (int q = 0; q < r; q++)
        s += olen(q);
    return s;
}

static void ordered_io(int split, int write, void *buf, long n)
{
    MPI_Status st;
    int cnt = -1;
    if (write && split) {
        CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, (int)n, MPI_BYTE));
        CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &st));
    } else if (write) {
        CHECK_MPI(MPI_File_write_ordered(fh, buf, (int)n, MPI_BYTE, &st));
    } else if (split) {
        CHECK_MPI(MPI_File_read_ordered_begin(fh, buf, (int)n, MPI_BYTE));
        CHECK_MPI(MPI_File_read_ordered_end(fh, buf, &st));
    } else {
        CHECK_MPI(MPI_File_read_ordered(fh, buf, (int)n, MPI_BYTE, &st));
    }
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == n, "%s%s: count %d, expected %ld", write ? "write_ordered" : "read_ordered", split ? "_begin/end" : "",
          cnt, n);
}

/* Two rounds of ordered writes (the second continues where the first
 * ended), the file checked byte by byte, then two rounds of ordered reads
 * from 0, each rank getting exactly its own parts. */
static void test_ordered(int split)
{
    const char *what = split ? "ordered begin/end" : "ordered";
    long total = oprefix(size), n = olen(rank);
    reset_file(0);
    unsigned char *a = malloc(n + 1), *b = malloc(n + 1);
    for (int round = 0; round < 2; round++) {
        uzt_fill(a, n, rank, 2000 + round + 10 * split);
        ordered_io(split, 1, a, n);
    }
    check_shared_pos(2 * total, what);
    sync_all();

    if (rank == 0) {
        long len;
        unsigned char *f = read_whole(&len);
        CHECK(len == 2 * total, "%s: file is %ld bytes, expected %ld", what, len, 2 * total);
        long bad = 0;
        for (int round = 0; round < 2; round++)
            for (int r = 0; r < size; r++)
                for (long i = 0; i < olen(r); i++) {
                    long p = round * total + oprefix(r) + i;
                    if (p < len && f[p] != uzt_byte(r, 2000 + round + 10 * split, i) && bad++ < 5)
                        CHECK(0, "%s: byte %ld is not rank %d's byte %ld of round %d", what, p, r, i, round);
                }
        CHECK(bad == 0, "%s: %ld bytes out of rank order", what, bad);
        free(f);
    }

    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    for (int round = 0; round < 2; round++) {
        memset(b, 0, n + 1);
        ordered_io(split, 0, b, n);
        CHECK(uzt_verify(b, n, rank, 2000 + round + 10 * split) < 0, "%s: round %d read someone else's data",
              what, round);
    }
    check_shared_pos(2 * total, what);
    free(a);
    free(b);
}

/* ------------------------------------------------------------------ */
/* Seeking, and the two kinds of pointer                               */
/* ------------------------------------------------------------------ */

static void test_seek_shared(void)
{
    reset_file(1000);
    CHECK_MPI(MPI_File_seek_shared(fh, 100, MPI_SEEK_SET));
    check_shared_pos(100, "seek_shared SET");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_write_shared(fh, "ABCDE", 5, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos(105, "after rank 0's write_shared");
    CHECK_MPI(MPI_File_seek_shared(fh, 20, MPI_SEEK_CUR));
    check_shared_pos(125, "seek_shared CUR +20");
    CHECK_MPI(MPI_File_seek_shared(fh, -25, MPI_SEEK_CUR));
    check_shared_pos(100, "seek_shared CUR -25");
    CHECK_MPI(MPI_File_seek_shared(fh, -10, MPI_SEEK_END));
    check_shared_pos(990, "seek_shared END -10");
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    check_shared_pos(1000, "seek_shared END");
    sync_all();
    if (rank == 0) {
        long len;
        unsigned char *f = read_whole(&len);
        CHECK(len == 1000, "seek_shared: file is %ld bytes", len);
        for (long i = 0; i < len; i++) {
            unsigned char want = i >= 100 && i < 105 ? "ABCDE"[i - 100] : FILL;
            CHECK(f[i] == want, "seek_shared: byte %ld is 0x%02x, expected 0x%02x", i, f[i], want);
        }
        free(f);
    }
}

/* Writes through one pointer leave the other where it was. */
static void test_independent_pointers(void)
{
    reset_file(0);
    unsigned char mine[4], two[2];
    memset(mine, 0x40 + rank, 4);
    memset(two, 0x80 + rank, 2);
    CHECK_MPI(MPI_File_seek(fh, 50 + 2 * rank, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_write_shared(fh, mine, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 50 + 2 * rank, "write_shared moved the individual pointer to %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos(4 * size, "after write_shared");
    CHECK_MPI(MPI_File_write(fh, two, 2, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 52 + 2 * rank, "individual pointer %lld after write", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos(4 * size, "after individual writes");
    sync_all();

    /* And reading: read_shared does not move the individual pointer, read
     * does not move the shared one. */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    unsigned char got[4];
    CHECK_MPI(MPI_File_read_shared(fh, got, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(got[0] >= 0x40 && got[0] < 0x40 + size && got[3] == got[0], "read_shared got %02x..%02x", got[0],
          got[3]);
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 52 + 2 * rank, "read_shared moved the individual pointer to %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_seek(fh, 50 + 2 * rank, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, got, 2, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(got[0] == 0x80 + rank && got[1] == 0x80 + rank, "read at the individual pointer got %02x %02x", got[0],
          got[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos(4 * size, "after individual reads");

    if (rank == 0) {
        long len;
        unsigned char *f = read_whole(&len);
        CHECK(len == 50 + 2 * size, "pointers: file is %ld bytes", len);
        int *seen = calloc(size, sizeof *seen);
        for (int s = 0; s < size && 4 * s + 3 < len; s++) {
            int r = f[4 * s] - 0x40;
            int whole = r >= 0 && r < size && f[4 * s + 1] == f[4 * s] && f[4 * s + 2] == f[4 * s] &&
                        f[4 * s + 3] == f[4 * s];
            CHECK(whole, "pointers: no whole shared record at byte %d", 4 * s);
            if (whole)
                seen[r]++;
        }
        for (int r = 0; r < size; r++) {
            CHECK(seen[r] == 1, "pointers: rank %d's shared record appears %d times", r, seen[r]);
            CHECK(50 + 2 * r + 1 < len && f[50 + 2 * r] == 0x80 + r && f[51 + 2 * r] == 0x80 + r,
                  "pointers: rank %d's individual write not at %d", r, 50 + 2 * r);
        }
        free(seen);
        free(f);
    }
}

/* ------------------------------------------------------------------ */
/* The shared pointer under a view: etype MPI_INT, holes in the file    */
/* ------------------------------------------------------------------ */

#define VDISP 12
/* Byte offset of int e of the view: pairs of ints, then a 4-byte hole. */
static long vbyte(long e)
{
    return VDISP + e / 2 * 12 + e % 2 * 4;
}

static void test_view(void)
{
    long nord = (long)size * (size + 1) / 2; /* ints written in order */
    long total = nord + 3L * size;           /* ... and then 3 per rank */
    long len = vbyte(total - 1) + 4;
    reset_file(len);
    CHECK_MPI(MPI_File_seek_shared(fh, 77, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_seek(fh, 33, MPI_SEEK_SET));

    MPI_Datatype pair, ft;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 0, 12, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, VDISP, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&pair);
    MPI_Type_free(&ft);
    MPI_Offset pos = -1;
    check_shared_pos(0, "set_view resets the shared pointer");
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0, "set_view left the individual pointer at %lld", (long long)pos);

    /* Rank r writes r+1 ints in rank order, then 3 through the shared
     * pointer. */
    int *ord = malloc((rank + 1) * sizeof *ord), *back = malloc((rank + 1) * sizeof *back), sh[3];
    for (int i = 0; i <= rank; i++)
        ord[i] = rank * 100 + i;
    MPI_Status st;
    int cnt = -1;
    CHECK_MPI(MPI_File_write_ordered(fh, ord, rank + 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == rank + 1, "write_ordered under a view: count %d", cnt);
    check_shared_pos(nord, "write_ordered under a view");
    CHECK_MPI(MPI_File_get_byte_offset(fh, nord, &pos));
    CHECK(pos == vbyte(nord), "byte offset of the shared position: %lld, expected %ld", (long long)pos, vbyte(nord));
    for (int i = 0; i < 3; i++)
        sh[i] = -(rank * 100 + i) - 1;
    CHECK_MPI(MPI_File_write_shared(fh, sh, 3, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    check_shared_pos(total, "write_shared under a view");

    CHECK_MPI(MPI_File_seek_shared(fh, 5, MPI_SEEK_SET));
    check_shared_pos(5, "seek_shared SET under a view");
    CHECK_MPI(MPI_File_seek_shared(fh, -2, MPI_SEEK_CUR));
    check_shared_pos(3, "seek_shared CUR under a view");
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    check_shared_pos(total, "seek_shared END under a view");
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0, "shared operations moved the individual pointer to %lld", (long long)pos);
    sync_all();

    /* Read back in rank order through the view. */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    memset(back, 0, (rank + 1) * sizeof *back);
    CHECK_MPI(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(back[i] == rank * 100 + i, "read_ordered under a view: int %d is %d", i, back[i]);
    check_shared_pos(nord, "read_ordered under a view");
    free(ord);
    free(back);

    /* The bytes: ordered ints at their etype positions, then each rank's
     * triple once, whole, at consecutive etypes; holes untouched. */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    if (rank == 0) {
        long flen;
        unsigned char *f = read_whole(&flen);
        CHECK(flen == len, "view: file is %ld bytes, expected %ld", flen, len);
        unsigned char *hole = calloc(flen + 1, 1);
        for (long p = 0; p < flen; p++)
            hole[p] = 1;
        long e = 0;
        int v;
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++, e++) {
                if (vbyte(e) + 4 > flen)
                    continue;
                memcpy(&v, f + vbyte(e), 4);
                memset(hole + vbyte(e), 0, 4);
                CHECK(v == r * 100 + i, "view: ordered int %ld is %d, expected %d", e, v, r * 100 + i);
            }
        int *seen = calloc(size, sizeof *seen);
        for (int s = 0; s < size; s++) {
            int t[3] = {0, 0, 0};
            for (int i = 0; i < 3; i++, e++)
                if (vbyte(e) + 4 <= flen) {
                    memcpy(&t[i], f + vbyte(e), 4);
                    memset(hole + vbyte(e), 0, 4);
                }
            int enc = -t[0] - 1, r = enc / 100;
            int whole = enc % 100 == 0 && r >= 0 && r < size && t[1] == -(r * 100 + 1) - 1 &&
                        t[2] == -(r * 100 + 2) - 1;
            CHECK(whole, "view: no whole triple at etype %ld (%d %d %d)", e - 3, t[0], t[1], t[2]);
            if (whole)
                seen[r]++;
        }
        for (int r = 0; r < size; r++)
            CHECK(seen[r] == 1, "view: rank %d's triple appears %d times", r, seen[r]);
        for (long p = 0; p < flen; p++)
            if (hole[p])
                CHECK(f[p] == FILL, "view: hole byte %ld written (0x%02x)", p, f[p]);
        free(seen);
        free(hole);
        free(f);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_path("shared");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    check_shared_pos(0, "after open");

    test_write_shared(0);
    test_read_shared(0);
    test_write_shared(1);
    test_read_shared(1);
    test_ordered(0);
    test_ordered(1);
    test_seek_shared();
    test_independent_pointers();
    test_view();

    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    return uzt_finish("io_shared");
}
