/*
 * io_access.c — every data access routine of MPI-IO with explicit offsets
 * and individual file pointers (MPI-4.1 §14.4), written against the
 * standard alone and checked with MPICH (ROMIO):
 *
 *  - MPI_File_write/read, write_at/read_at, write_all/read_all,
 *    write_at_all/read_at_all, the nonblocking iwrite/iread,
 *    iwrite_at/iread_at, iwrite_all/iread_all, iwrite_at_all/iread_at_all
 *    (writes completed with MPI_Wait, reads with MPI_Test), the split
 *    collectives write_all_begin/end, read_all_begin/end,
 *    write_at_all_begin/end, read_at_all_begin/end, and the large-count
 *    _c form of every one: each rank writes its block, then after
 *    sync-barrier-sync reads its neighbour's back through the same routine
 *    family; every byte depends on the writer, the routine and the file
 *    position; statuses are checked with MPI_Get_count and
 *    MPI_Get_elements (their _c forms for the _c routines) on MPI_BYTE,
 *    MPI_INT and a three-int contiguous type; bytes behind the buffer are
 *    untouched;
 *  - the individual file pointer: after each kind of access
 *    MPI_File_get_position is where the access ended (for nonblocking
 *    ones as soon as they are started), and explicit-offset accesses leave
 *    it alone; MPI_File_seek with MPI_SEEK_SET, MPI_SEEK_CUR (forwards and
 *    back) and MPI_SEEK_END, and MPI_File_get_byte_offset;
 *  - reads crossing or beyond the end of file: a short count (zero beyond
 *    it), no error, memory behind the data untouched;
 *  - count 0 accesses of every kind: a zero count, nothing written, the
 *    pointer unmoved; a collective write where half the ranks give 0;
 *  - a noncontiguous memory datatype (vector) with the file contiguous,
 *    independent and collective, in both directions; the gaps in memory
 *    are untouched by reads;
 *  - a file offset beyond 4 GiB: 8 bytes per rank at 5 GiB with write_at,
 *    read back by the neighbour, MPI_File_get_size above 4 GiB (a sparse
 *    file, deleted after).
 *
 * Files live in $UZURA_TEST_TMPDIR (else $TMPDIR, else /tmp) under a name
 * unique to the run and are removed at the end; the ranks share only the
 * file system.
 */
#include "uztest.h"
#include "uzio.h"

#include <limits.h>
#include <time.h>
#include <unistd.h>

static int rank, size;

/* ------------------------------------------------------------ scratch files */

static char base[PATH_MAX - 64];
static char made[8][PATH_MAX];
static int nmade;

static void make_base(const char *prog)
{
    uzio_scratch_name(base, (int)sizeof base, "", prog, "");
}

static const char *scratch(const char *what)
{
    char *p = made[nmade < 8 ? nmade++ : 7];
    snprintf(p, PATH_MAX, "%s.%s", base, what);
    return p;
}

static void remove_scratch(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < nmade; i++)
            unlink(made[i]);
}

/* ----------------------------------------------------------------- patterns */

/* The bytes rank `src` wrote in test `seq` at file position `pos`. */
static void fill_at(unsigned char *b, size_t n, int src, int seq, MPI_Offset pos)
{
    for (size_t i = 0; i < n; i++)
        b[i] = uzt_byte(src, seq, (size_t)pos + i);
}

static long bad_at(const unsigned char *b, size_t n, int src, int seq, MPI_Offset pos)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != uzt_byte(src, seq, (size_t)pos + i))
            return (long)i;
    return -1;
}

static long not_byte(const unsigned char *b, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return (long)i;
    return -1;
}

/* Writes of one rank visible to the others (nonatomic mode, §14.6.1). */
static void settle(MPI_File fh)
{
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
}

/* Count and elements of a status, with the _c functions when `big`. */
static void check_status(const MPI_Status *st, MPI_Datatype t, int big, long count, long elements,
                         const char *what, int line)
{
    long c, e;
    if (big) {
        MPI_Count cc = -2, ec = -2;
        CHECK_MPI(MPI_Get_count_c(st, t, &cc));
        CHECK_MPI(MPI_Get_elements_c(st, t, &ec));
        c = (long)cc, e = (long)ec;
    } else {
        int ci = -2, ei = -2;
        CHECK_MPI(MPI_Get_count(st, t, &ci));
        CHECK_MPI(MPI_Get_elements(st, t, &ei));
        c = ci, e = ei;
    }
    if (c != count || e != elements)
        uzt_fail(__FILE__, line, "%s: status count %ld elements %ld, expected %ld and %ld", what, c, e, count,
                 elements);
}

static void check_position(MPI_File fh, MPI_Offset want, const char *what, int line)
{
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    if (pos != want)
        uzt_fail(__FILE__, line, "%s: position %lld, expected %lld", what, (long long)pos, (long long)want);
}

/* ------------------------------------------------- one access of each kind */

enum kind {
    K_PLAIN, K_AT, K_ALL, K_AT_ALL, K_I, K_I_AT, K_I_ALL, K_I_AT_ALL, K_SPLIT_ALL, K_SPLIT_AT_ALL, NKIND
};
static const char *const kind_name[NKIND] = {
    "write/read", "write_at/read_at", "write_all/read_all", "write_at_all/read_at_all",
    "iwrite/iread", "iwrite_at/iread_at", "iwrite_all/iread_all", "iwrite_at_all/iread_at_all",
    "write_all_begin/end", "write_at_all_begin/end",
};

static int explicit_offset(enum kind k)
{
    return k == K_AT || k == K_AT_ALL || k == K_I_AT || k == K_I_AT_ALL || k == K_SPLIT_AT_ALL;
}

/* Where the pointer is put before an explicit-offset access, which must
 * leave it there. */
enum { PARKED = 3 };

/* The plain or large-count form of a routine. */
#define CALL(name, ...) (big ? name##_c(__VA_ARGS__) : name(__VA_ARGS__))

/* Writes (wr) or reads n items of t at file offset off with routine kind
 * k (_c when big), checking the pointer before and after completion;
 * the status in *st. */
static void access_op(int wr, enum kind k, int big, MPI_File fh, MPI_Offset off, void *buf, int n,
                      MPI_Datatype t, MPI_Status *st, int line)
{
    int tsize;
    MPI_Type_size(t, &tsize);
    int expl = explicit_offset(k);
    MPI_Offset after = expl ? PARKED : off + (MPI_Offset)n * tsize;
    CHECK_MPI(MPI_File_seek(fh, expl ? PARKED : off, MPI_SEEK_SET));
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    switch (k) {
    case K_PLAIN:
        rc = wr ? CALL(MPI_File_write, fh, buf, n, t, st) : CALL(MPI_File_read, fh, buf, n, t, st);
        break;
    case K_AT:
        rc = wr ? CALL(MPI_File_write_at, fh, off, buf, n, t, st) : CALL(MPI_File_read_at, fh, off, buf, n, t, st);
        break;
    case K_ALL:
        rc = wr ? CALL(MPI_File_write_all, fh, buf, n, t, st) : CALL(MPI_File_read_all, fh, buf, n, t, st);
        break;
    case K_AT_ALL:
        rc = wr ? CALL(MPI_File_write_at_all, fh, off, buf, n, t, st)
                : CALL(MPI_File_read_at_all, fh, off, buf, n, t, st);
        break;
    case K_I:
        rc = wr ? CALL(MPI_File_iwrite, fh, buf, n, t, &rq) : CALL(MPI_File_iread, fh, buf, n, t, &rq);
        break;
    case K_I_AT:
        rc = wr ? CALL(MPI_File_iwrite_at, fh, off, buf, n, t, &rq)
                : CALL(MPI_File_iread_at, fh, off, buf, n, t, &rq);
        break;
    case K_I_ALL:
        rc = wr ? CALL(MPI_File_iwrite_all, fh, buf, n, t, &rq) : CALL(MPI_File_iread_all, fh, buf, n, t, &rq);
        break;
    case K_I_AT_ALL:
        rc = wr ? CALL(MPI_File_iwrite_at_all, fh, off, buf, n, t, &rq)
                : CALL(MPI_File_iread_at_all, fh, off, buf, n, t, &rq);
        break;
    case K_SPLIT_ALL:
        rc = wr ? CALL(MPI_File_write_all_begin, fh, buf, n, t) : CALL(MPI_File_read_all_begin, fh, buf, n, t);
        if (rc == MPI_SUCCESS)
            rc = wr ? MPI_File_write_all_end(fh, buf, st) : MPI_File_read_all_end(fh, buf, st);
        break;
    case K_SPLIT_AT_ALL:
        rc = wr ? CALL(MPI_File_write_at_all_begin, fh, off, buf, n, t)
                : CALL(MPI_File_read_at_all_begin, fh, off, buf, n, t);
        if (rc == MPI_SUCCESS)
            rc = wr ? MPI_File_write_at_all_end(fh, buf, st) : MPI_File_read_at_all_end(fh, buf, st);
        break;
    default:
        break;
    }
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        uzt_fail(__FILE__, line, "%s%s (%s): %s", kind_name[k], big ? " _c" : "", wr ? "write" : "read", msg);
        return;
    }
    if (k == K_I || k == K_I_AT || k == K_I_ALL || k == K_I_AT_ALL) {
        /* The pointer moves when the operation starts (§14.4.3). */
        check_position(fh, after, kind_name[k], line);
        if (wr) {
            CHECK_MPI(MPI_Wait(&rq, st));
        } else {
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Test(&rq, &flag, st));
        }
        CHECK(rq == MPI_REQUEST_NULL, "%s: the completed request is not MPI_REQUEST_NULL", kind_name[k]);
    }
    check_position(fh, after, kind_name[k], line);
}
#define ACCESS(wr, k, big, fh, off, buf, n, t, st) access_op((wr), (k), (big), (fh), (off), (buf), (n), (t), (st), __LINE__)

/* ------------------------------------------------------ the routine matrix */

enum { B = 3072 };             /* bytes of each rank's block: a multiple of 12 */
static MPI_Datatype tri;       /* three contiguous ints */
static int block_seq = -1;     /* the seq of what every block holds now */

static void one_kind(MPI_File fh, enum kind k, int big)
{
    MPI_Datatype types[3] = { MPI_BYTE, MPI_INT, tri };
    MPI_Datatype t = types[(k + big) % 3];
    int tsize, per = t == tri ? 3 : 1;
    MPI_Type_size(t, &tsize);
    int n = B / tsize, seq = 100 + 20 * big + k;
    char what[80];
    snprintf(what, sizeof(what), "%s%s", kind_name[k], big ? " (_c)" : "");
    unsigned char *w = malloc(B), *r = malloc(B + 64);
    MPI_Status st;

    fill_at(w, B, rank, seq, (MPI_Offset)rank * B);
    ACCESS(1, k, big, fh, (MPI_Offset)rank * B, w, n, t, &st);
    check_status(&st, t, big, n, (long)n * per, what, __LINE__);
    settle(fh);

    int nb = (rank + 1) % size;
    memset(r, 0xA5, B + 64);
    ACCESS(0, k, big, fh, (MPI_Offset)nb * B, r, n, t, &st);
    check_status(&st, t, big, n, (long)n * per, what, __LINE__);
    long bad = bad_at(r, B, nb, seq, (MPI_Offset)nb * B);
    CHECK(bad < 0, "%s: byte %ld of rank %d's block is wrong", what, bad, nb);
    CHECK(not_byte(r + B, 64, 0xA5) < 0, "%s: the read wrote behind the buffer", what);
    block_seq = seq;
    MPI_Barrier(MPI_COMM_WORLD); /* nobody overwrites a block still being read */
    free(w);
    free(r);
}

/* ------------------------------------------------------------- the pointer */

static void seeks(MPI_File fh)
{
    MPI_Offset end = (MPI_Offset)size * B, disp = -1;
    CHECK_MPI(MPI_File_seek(fh, 10, MPI_SEEK_SET));
    check_position(fh, 10, "SEEK_SET 10", __LINE__);
    CHECK_MPI(MPI_File_seek(fh, 5, MPI_SEEK_CUR));
    check_position(fh, 15, "SEEK_CUR +5", __LINE__);
    CHECK_MPI(MPI_File_seek(fh, -7, MPI_SEEK_CUR));
    check_position(fh, 8, "SEEK_CUR -7", __LINE__);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    check_position(fh, end, "SEEK_END 0", __LINE__);
    CHECK_MPI(MPI_File_seek(fh, -12, MPI_SEEK_END));
    check_position(fh, end - 12, "SEEK_END -12", __LINE__);
    CHECK_MPI(MPI_File_get_byte_offset(fh, end - 12, &disp));
    CHECK(disp == end - 12, "MPI_File_get_byte_offset gave %lld under the default view", (long long)disp);

    /* A read at the pointer from there: the last 12 bytes of the last rank. */
    unsigned char b[12];
    MPI_Status st;
    CHECK_MPI(MPI_File_read(fh, b, 3, MPI_INT, &st));
    check_status(&st, MPI_INT, 0, 3, 3, "read after SEEK_END", __LINE__);
    CHECK(bad_at(b, 12, size - 1, block_seq, end - 12) < 0, "read after SEEK_END: wrong bytes");
    check_position(fh, end, "after reading to the end", __LINE__);
    CHECK_MPI(MPI_File_seek(fh, -(MPI_Offset)B, MPI_SEEK_CUR));
    check_position(fh, end - B, "SEEK_CUR back a block", __LINE__);
    /* Past the end is allowed: the pointer just sits there. */
    CHECK_MPI(MPI_File_seek(fh, 100, MPI_SEEK_END));
    check_position(fh, end + 100, "SEEK_END +100", __LINE__);
}

/* ---------------------------------------------------------- the end of file */

static void short_reads(MPI_File fh)
{
    MPI_Offset end = (MPI_Offset)size * B;
    int last = size - 1;
    unsigned char b[160];
    MPI_Status st;

    /* 8 ints asked, 3 there. */
    memset(b, 0xA5, sizeof(b));
    CHECK_MPI(MPI_File_read_at(fh, end - 12, b, 8, MPI_INT, &st));
    check_status(&st, MPI_INT, 0, 3, 3, "read_at across the end", __LINE__);
    CHECK(bad_at(b, 12, last, block_seq, end - 12) < 0, "read_at across the end: wrong bytes");
    CHECK(not_byte(b + 12, sizeof(b) - 12, 0xA5) < 0, "read_at across the end wrote past the data");

    /* 100 bytes at the pointer, 5 there. */
    memset(b, 0xA5, sizeof(b));
    CHECK_MPI(MPI_File_seek(fh, end - 5, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, b, 100, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 0, 5, 5, "read across the end", __LINE__);
    CHECK(bad_at(b, 5, last, block_seq, end - 5) < 0, "read across the end: wrong bytes");
    CHECK(not_byte(b + 5, sizeof(b) - 5, 0xA5) < 0, "read across the end wrote past the data");

    /* Entirely beyond the end: nothing. */
    memset(b, 0xA5, sizeof(b));
    CHECK_MPI(MPI_File_read_at(fh, end + 100, b, 8, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 0, 0, 0, "read_at beyond the end", __LINE__);
    CHECK_MPI(MPI_File_read_at_c(fh, end, b, 8, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 1, 0, 0, "read_at_c at the end", __LINE__);
    CHECK(not_byte(b, sizeof(b), 0xA5) < 0, "a read beyond the end wrote to memory");

    /* Nonblocking, and the large-count form, across the end. */
    MPI_Request rq;
    CHECK_MPI(MPI_File_iread_at(fh, end - 4, b, 16, MPI_BYTE, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    check_status(&st, MPI_BYTE, 0, 4, 4, "iread_at across the end", __LINE__);
    CHECK(bad_at(b, 4, last, block_seq, end - 4) < 0, "iread_at across the end: wrong bytes");
    CHECK_MPI(MPI_File_read_at_c(fh, end - 24, b, 4, tri, &st));
    check_status(&st, tri, 1, 2, 6, "read_at_c of tri across the end", __LINE__);
    CHECK(bad_at(b, 24, last, block_seq, end - 24) < 0, "read_at_c across the end: wrong bytes");

    /* Collective: each rank's read crosses the end by a different amount. */
    int have = 4 * (rank % 3 + 1);
    memset(b, 0xA5, sizeof(b));
    int rc = MPI_File_read_at_all(fh, end - have, b, 16, MPI_INT, &st);
    CHECK(rc == MPI_SUCCESS, "read_at_all across the end: rc %d", rc);
    CHECK(bad_at(b, have, last, block_seq, end - have) < 0, "read_at_all across the end: wrong bytes");
    check_status(&st, MPI_INT, 0, have / 4, have / 4, "read_at_all across the end", __LINE__);
}

/* -------------------------------------------------------------- count zero */

static void zero_counts(MPI_File fh)
{
    unsigned char b[16];
    MPI_Status st;
    MPI_Offset off = (MPI_Offset)rank * B;
    for (int big = 0; big < 2; big++)
        for (int k = 0; k < NKIND; k++) {
            char what[80];
            snprintf(what, sizeof(what), "count 0 %s%s", kind_name[k], big ? " (_c)" : "");
            memset(b, 0xA5, sizeof(b));
            ACCESS(1, k, big, fh, off, b, 0, MPI_INT, &st);
            check_status(&st, MPI_INT, big, 0, 0, what, __LINE__);
            ACCESS(0, k, big, fh, off, b, 0, MPI_INT, &st);
            check_status(&st, MPI_INT, big, 0, 0, what, __LINE__);
            CHECK(not_byte(b, sizeof(b), 0xA5) < 0, "%s: the read wrote to memory", what);
        }
    settle(fh);
    MPI_Offset sz = -1;
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == (MPI_Offset)size * B, "count 0 writes changed the size to %lld", (long long)sz);

    /* A collective write where odd ranks give nothing: their blocks stay. */
    int seq = 150, old = block_seq;
    unsigned char *w = malloc(B), *r = malloc(B);
    fill_at(w, B, rank, seq, off);
    CHECK_MPI(MPI_File_write_at_all(fh, off, w, rank % 2 ? 0 : B, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 0, rank % 2 ? 0 : B, rank % 2 ? 0 : B, "write_at_all, odd ranks 0", __LINE__);
    settle(fh);
    for (int q = 0; q < size; q++) {
        CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)q * B, r, B, MPI_BYTE, &st));
        long bad = bad_at(r, B, q, q % 2 ? old : seq, (MPI_Offset)q * B);
        CHECK(bad < 0, "write_at_all with zero counts: byte %ld of block %d is wrong", bad, q);
    }
    /* Put every block back to one seq for the tests after. */
    MPI_Barrier(MPI_COMM_WORLD);
    fill_at(w, B, rank, old, off);
    CHECK_MPI(MPI_File_write_at_all(fh, off, w, B, MPI_BYTE, &st));
    settle(fh);
    free(w);
    free(r);
}

/* --------------------------------------------------- noncontiguous memory */

enum { VB = 8, VL = 2, VS = 3 }; /* 8 blocks of 2 ints every 3 ints */

/* The bytes the file gets from n vectors laid over memory m. */
static void gather(unsigned char *out, const unsigned char *m, int n, MPI_Aint extent)
{
    for (int v = 0; v < n; v++)
        for (int j = 0; j < VB; j++)
            memcpy(out + (v * VB + j) * VL * 4, m + v * extent + j * VS * 4, VL * 4);
}

static void vector_memory(MPI_File fh)
{
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(VB, VL, VS, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    MPI_Aint lb, extent;
    MPI_Type_get_extent(vec, &lb, &extent);
    enum { DATA = VB * VL * 4 };                       /* 64 bytes per vector */
    size_t mlen = 2 * (size_t)extent;
    unsigned char *m = malloc(mlen), *want = malloc(2 * DATA), *r = malloc(mlen);
    MPI_Status st;
    int nb = (rank + 1) % size;

    for (int coll = 0; coll < 2; coll++) {
        int n = coll ? 2 : 1, seq = 160 + coll;
        MPI_Offset off = (MPI_Offset)rank * B + 512 * coll, nboff = (MPI_Offset)nb * B + 512 * coll;
        const char *what = coll ? "vector memory, write_at_all/read_at_all" : "vector memory, write_at/read_at";
        fill_at(m, mlen, rank, seq, 0);
        if (coll)
            CHECK_MPI(MPI_File_write_at_all(fh, off, m, n, vec, &st));
        else
            CHECK_MPI(MPI_File_write_at(fh, off, m, n, vec, &st));
        check_status(&st, vec, 0, n, n * VB * VL, what, __LINE__);
        settle(fh);

        /* The neighbour's data, read contiguously. */
        fill_at(m, mlen, nb, seq, 0);
        gather(want, m, n, extent);
        memset(r, 0, mlen);
        CHECK_MPI(MPI_File_read_at(fh, nboff, r, n * DATA, MPI_BYTE, &st));
        check_status(&st, MPI_BYTE, 0, n * DATA, n * DATA, what, __LINE__);
        CHECK(memcmp(r, want, n * DATA) == 0, "%s: the file does not hold the vector's elements in order", what);

        /* Read back through the vector: elements land, gaps stay. */
        fill_at(m, mlen, rank, seq, 0);
        memset(r, 0x5A, mlen);
        if (coll)
            CHECK_MPI(MPI_File_read_at_all(fh, off, r, n, vec, &st));
        else
            CHECK_MPI(MPI_File_read_at(fh, off, r, n, vec, &st));
        check_status(&st, vec, 0, n, n * VB * VL, what, __LINE__);
        for (int v = 0; v < n; v++)
            for (int j = 0; j < VS * VB; j++) {
                size_t at = v * extent + j * 4;
                if (at + 4 > (size_t)(v + 1) * extent)
                    break;
                int inside = j % VS < VL;
                CHECK(inside ? memcmp(r + at, m + at, 4) == 0 : not_byte(r + at, 4, 0x5A) < 0,
                      "%s: vector %d int %d %s", what, v, j, inside ? "is wrong" : "(a gap) was written");
            }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_Type_free(&vec));
    free(m);
    free(want);
    free(r);
}

/* ----------------------------------------------------------- beyond 4 GiB */

static void beyond_4gib(void)
{
    const char *p = scratch("5gib");
    MPI_File fh = MPI_FILE_NULL;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    if (fh == MPI_FILE_NULL)
        return;
    const MPI_Offset at = (MPI_Offset)5 << 30;
    unsigned char b[8];
    MPI_Status st;
    fill_at(b, 8, rank, 170, at + 8 * rank);
    CHECK_MPI(MPI_File_write_at(fh, at + 8 * rank, b, 8, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 0, 8, 8, "write_at at 5 GiB", __LINE__);
    settle(fh);
    MPI_Offset sz = -1;
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == at + 8 * size && sz > ((MPI_Offset)4 << 30), "size %lld after writing at 5 GiB", (long long)sz);

    int nb = (rank + 1) % size;
    memset(b, 0, 8);
    CHECK_MPI(MPI_File_read_at(fh, at + 8 * nb, b, 8, MPI_BYTE, &st));
    check_status(&st, MPI_BYTE, 0, 8, 8, "read_at at 5 GiB", __LINE__);
    CHECK(bad_at(b, 8, nb, 170, at + 8 * nb) < 0, "read back at 5 GiB: wrong bytes");
    /* The individual pointer reaches there too. */
    CHECK_MPI(MPI_File_seek(fh, at + 8 * nb, MPI_SEEK_SET));
    memset(b, 0, 8);
    CHECK_MPI(MPI_File_read(fh, b, 2, MPI_INT, &st));
    check_status(&st, MPI_INT, 0, 2, 2, "read at the pointer at 5 GiB", __LINE__);
    CHECK(bad_at(b, 8, nb, 170, at + 8 * nb) < 0, "read at the pointer at 5 GiB: wrong bytes");
    check_position(fh, at + 8 * nb + 8, "after reading at 5 GiB", __LINE__);
    /* A hole reads as zeros. */
    CHECK_MPI(MPI_File_read_at(fh, at - 8, b, 8, MPI_BYTE, &st));
    CHECK(not_byte(b, 8, 0) < 0, "the hole before 5 GiB does not read as zeros");
    CHECK_MPI(MPI_File_close(&fh));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
        CHECK(access(p, F_OK) != 0, "the 5 GiB file is still there after MPI_File_delete");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_base("io_access");
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &tri));
    CHECK_MPI(MPI_Type_commit(&tri));

    const char *p = scratch("data");
    MPI_File fh = MPI_FILE_NULL;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    if (fh != MPI_FILE_NULL) {
        for (int big = 0; big < 2; big++)
            for (int k = 0; k < NKIND; k++)
                one_kind(fh, k, big);
        seeks(fh);
        short_reads(fh);
        zero_counts(fh);
        vector_memory(fh);
        CHECK_MPI(MPI_File_close(&fh));
    }
    beyond_4gib();

    CHECK_MPI(MPI_Type_free(&tri));
    remove_scratch();
    return uzt_finish("io_access");
}
