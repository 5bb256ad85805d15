/*
 * io_datarep.c — file data representations (MPI 4.1 section 14.5):
 *   - "native": the file holds the memory bytes;
 *   - "internal": whatever the implementation likes, so only the round
 *     trip and MPI_File_get_view's name are checked;
 *   - "external32": ints, doubles, shorts, long longs and floats written
 *     one type per call and then as one struct, the raw file bytes read
 *     back through a native byte view and compared with big-endian
 *     encodings of the standard's sizes (4, 8, 2, 8, 4; no padding)
 *     computed here by shifting, the values read back under external32,
 *     and MPI_File_get_type_extent giving the external32 sizes; long
 *     doubles as IEEE binary128;
 *   - user representations from MPI_Register_datarep: one with
 *     MPI_CONVERSION_FN_NULL both ways (the file holds native bytes), and
 *     one that stores ints XOR-ed with a key (conversion functions below), through a view with
 *     holes so that conversions start mid-buffer: the file bytes, the
 *     round trip, that the functions were called with the extra state, and
 *     the same with MPI_Register_datarep_c;
 *   - errors: registering a name twice (or a predefined one) is
 *     MPI_ERR_DUP_DATAREP, an unknown name in MPI_File_set_view is
 *     MPI_ERR_UNSUPPORTED_DATAREP.
 * Each rank writes its own part of the file; rank 0 checks every byte.
 * Where MPICH (ROMIO) does not do what the standard says, the check runs
 * only on Uzura; the comment there says what MPICH does.
 */
#include "uztest.h"
#include "uzio.h"
#include <stddef.h>
#include <unistd.h>
#include <time.h>

static int rank, size, is_uzura;
static char path[512];
static MPI_File fh;

#define FILL 0xEE

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

static void view(MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft, const char *rep)
{
    CHECK_MPI(MPI_File_set_view(fh, disp, et, ft, rep, MPI_INFO_NULL));
}

static void reset_file(long len)
{
    view(0, MPI_BYTE, MPI_BYTE, "native");
    CHECK_MPI(MPI_File_set_size(fh, 0));
    if (rank == 0 && len > 0) {
        unsigned char *b = malloc(len);
        memset(b, FILL, len);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    sync_all();
}

/* Rank 0, collective around it: the raw file must be exp[0, len). */
static void check_raw(const unsigned char *exp, long len, const char *what)
{
    view(0, MPI_BYTE, MPI_BYTE, "native");
    if (rank == 0) {
        MPI_Offset fsize = -1;
        MPI_File_get_size(fh, &fsize);
        CHECK(fsize == len, "%s: file is %lld bytes, expected %ld", what, (long long)fsize, len);
        unsigned char *got = calloc(len + 1, 1);
        CHECK_MPI(MPI_File_read_at(fh, 0, got, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        long bad = 0;
        for (long i = 0; i < len; i++)
            if (got[i] != exp[i] && bad++ < 6)
                CHECK(0, "%s: file byte %ld is 0x%02x, expected 0x%02x", what, i, got[i], exp[i]);
        CHECK(bad == 0, "%s: %ld bytes wrong", what, bad);
        free(got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_rep(const char *want)
{
    MPI_Offset d;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING] = "";
    CHECK_MPI(MPI_File_get_view(fh, &d, &e, &f, rep));
    CHECK(strcmp(rep, want) == 0, "get_view datarep '%s', expected '%s'", rep, want);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(e, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&e);
    MPI_Type_get_envelope(f, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&f);
}

/* ------------------------------------------------------------------ */
/* The record every rank writes                                        */
/* ------------------------------------------------------------------ */

struct rec {
    int iv[3];
    double dv[3];
    short sv[3];
    long long lv[2];
    float fv[2];
};
#define REC_EXT32 (3 * 4 + 3 * 8 + 3 * 2 + 2 * 8 + 2 * 4) /* 66 */

static struct rec make_rec(int r)
{
    struct rec x;
    memset(&x, 0, sizeof x);
    x.iv[0] = 1, x.iv[1] = -2, x.iv[2] = 0x12345678 + r;
    x.dv[0] = 1.5, x.dv[1] = -0.0, x.dv[2] = -1234.5e100 * (r + 1);
    x.sv[0] = -1, x.sv[1] = 0x1234, x.sv[2] = (short)(r - 3);
    x.lv[0] = -3, x.lv[1] = 0x0102030405060708LL + r;
    x.fv[0] = 3.25f, x.fv[1] = -0.1f * (r + 1);
    return x;
}

static MPI_Datatype rec_type(void)
{
    int bl[5] = {3, 3, 3, 2, 2};
    MPI_Aint d[5] = {offsetof(struct rec, iv), offsetof(struct rec, dv), offsetof(struct rec, sv),
                     offsetof(struct rec, lv), offsetof(struct rec, fv)};
    MPI_Datatype ty[5] = {MPI_INT, MPI_DOUBLE, MPI_SHORT, MPI_LONG_LONG, MPI_FLOAT}, t, rt;
    MPI_Type_create_struct(5, bl, d, ty, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct rec), &rt);
    MPI_Type_free(&t);
    MPI_Type_commit(&rt);
    return rt;
}

static unsigned char *put_be(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    return p + n;
}

/* The external32 bytes of rank r's record, in member order, no padding. */
static void rec_ext32(int r, unsigned char *p)
{
    struct rec x = make_rec(r);
    for (int i = 0; i < 3; i++)
        p = put_be(p, (uint32_t)x.iv[i], 4);
    for (int i = 0; i < 3; i++) {
        uint64_t b;
        memcpy(&b, &x.dv[i], 8);
        p = put_be(p, b, 8);
    }
    for (int i = 0; i < 3; i++)
        p = put_be(p, (uint16_t)x.sv[i], 2);
    for (int i = 0; i < 2; i++)
        p = put_be(p, (uint64_t)x.lv[i], 8);
    for (int i = 0; i < 2; i++) {
        uint32_t b;
        memcpy(&b, &x.fv[i], 4);
        p = put_be(p, b, 4);
    }
}

/* Members compared bitwise (-0.0 must stay negative). */
static int rec_equal(const struct rec *a, const struct rec *b)
{
    return !memcmp(a->iv, b->iv, sizeof a->iv) && !memcmp(a->dv, b->dv, sizeof a->dv) &&
           !memcmp(a->sv, b->sv, sizeof a->sv) && !memcmp(a->lv, b->lv, sizeof a->lv) &&
           !memcmp(a->fv, b->fv, sizeof a->fv);
}

/* ------------------------------------------------------------------ */
/* native and internal                                                 */
/* ------------------------------------------------------------------ */

static void test_native(void)
{
    reset_file(0);
    int v[4] = {rank, -rank - 1, 0x01020304, 0x7fffffff};
    view(16L * rank, MPI_INT, MPI_INT, "native");
    check_rep("native");
    CHECK_MPI(MPI_File_write_at_all(fh, 0, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    sync_all();
    unsigned char *exp = malloc(16L * size);
    for (int r = 0; r < size; r++) {
        int w[4] = {r, -r - 1, 0x01020304, 0x7fffffff};
        memcpy(exp + 16L * r, w, 16);
    }
    check_raw(exp, 16L * size, "native");
    free(exp);
}

/* Offsets in etypes of a whole record: no assumption about its size. */
static void test_internal(void)
{
    reset_file(0);
    MPI_Datatype rt = rec_type();
    view(0, rt, rt, "internal");
    if (is_uzura) /* MPICH: get_view says "native" */
        check_rep("internal");
    MPI_Aint ext = -1;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext > 0, "internal: extent of MPI_INT %ld", (long)ext);
    struct rec x = make_rec(rank), y;
    CHECK_MPI(MPI_File_write_at_all(fh, rank, &x, 1, rt, MPI_STATUS_IGNORE));
    sync_all();
    memset(&y, 0, sizeof y);
    int other = (rank + 1) % size; /* read another rank's record */
    CHECK_MPI(MPI_File_read_at_all(fh, other, &y, 1, rt, MPI_STATUS_IGNORE));
    x = make_rec(other);
    CHECK(rec_equal(&x, &y), "internal: rank %d's record did not survive the round trip", other);
    MPI_Type_free(&rt);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ */
/* external32                                                          */
/* ------------------------------------------------------------------ */

static void test_external32(void)
{
    reset_file(0);
    const long R = REC_EXT32;
    struct rec x = make_rec(rank), y;
    MPI_Datatype rt = rec_type();
    MPI_Status st;
    int cnt;
    view(0, MPI_BYTE, MPI_BYTE, "external32");
    check_rep("external32");

    /* One type per call through the individual pointer... */
    CHECK_MPI(MPI_File_seek(fh, rank * R, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_write(fh, x.iv, 3, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "external32: write count %d", cnt);
    CHECK_MPI(MPI_File_write(fh, x.dv, 3, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write(fh, x.sv, 3, MPI_SHORT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write(fh, x.lv, 2, MPI_LONG_LONG, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write(fh, x.fv, 2, MPI_FLOAT, MPI_STATUS_IGNORE));
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == rank * R + R, "external32: position %lld after the record, expected %ld (sizes in the file)",
          (long long)pos, rank * R + R);
    /* ... and the whole record as one struct, after everyone's.  MPICH
     * 5.0.2 dies (SIGILL) in MPI_Pack_external_size, called from
     * MPI_File_write_at_all, on any struct that mixes basic types. */
    int nparts = is_uzura ? 2 : 1;
    if (is_uzura)
        CHECK_MPI(MPI_File_write_at_all(fh, (size + rank) * R, &x, 1, rt, MPI_STATUS_IGNORE));
    sync_all();

    unsigned char *exp = malloc(nparts * size * R);
    for (int r = 0; r < size; r++)
        for (int part = 0; part < nparts; part++)
            rec_ext32(r, exp + (part * size + r) * R);
    check_raw(exp, nparts * size * R, "external32 file bytes");
    free(exp);

    /* Back under external32, another rank's record each way. */
    view(0, MPI_BYTE, MPI_BYTE, "external32");
    int other = (rank + 1) % size;
    struct rec want = make_rec(other);
    memset(&y, 0, sizeof y);
    CHECK_MPI(MPI_File_seek(fh, other * R, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, y.iv, 3, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "external32: read count %d", cnt);
    CHECK_MPI(MPI_File_read(fh, y.dv, 3, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read(fh, y.sv, 3, MPI_SHORT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read(fh, y.lv, 2, MPI_LONG_LONG, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read(fh, y.fv, 2, MPI_FLOAT, MPI_STATUS_IGNORE));
    CHECK(rec_equal(&want, &y), "external32: rank %d's record read back type by type differs", other);
    if (is_uzura) {
        memset(&y, 0, sizeof y);
        CHECK_MPI(MPI_File_read_at_all(fh, (size + other) * R, &y, 1, rt, MPI_STATUS_IGNORE));
        CHECK(rec_equal(&want, &y), "external32: rank %d's record read back as a struct differs", other);
    }

    /* Extents in the file are the external32 sizes. */
    struct {
        MPI_Datatype t;
        const char *name;
        MPI_Aint ext;
        int uzura_only; /* MPICH says 8 for MPI_LONG (while its
                         * MPI_Pack_external_size says 4) */
    } ex[] = {
        {MPI_CHAR, "MPI_CHAR", 1, 0},
        {MPI_SHORT, "MPI_SHORT", 2, 0},
        {MPI_INT, "MPI_INT", 4, 0},
        {MPI_FLOAT, "MPI_FLOAT", 4, 0},
        {MPI_DOUBLE, "MPI_DOUBLE", 8, 0},
        {MPI_LONG_LONG, "MPI_LONG_LONG", 8, 0},
        {MPI_INT64_T, "MPI_INT64_T", 8, 0},
        {MPI_C_BOOL, "MPI_C_BOOL", 1, 0},
        {MPI_AINT, "MPI_AINT", 8, 0},
        {MPI_OFFSET, "MPI_OFFSET", 8, 0},
        {MPI_COUNT, "MPI_COUNT", 8, 0},
        {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 0},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16, 0},
        {MPI_LONG, "MPI_LONG", 4, 1},
        {MPI_WCHAR, "MPI_WCHAR", 4, 0},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        MPI_Aint e = -1;
        if (ex[i].uzura_only && !is_uzura)
            continue;
        CHECK_MPI(MPI_File_get_type_extent(fh, ex[i].t, &e));
        CHECK(e == ex[i].ext, "external32: MPI_File_get_type_extent(%s) = %ld, expected %ld", ex[i].name, (long)e,
              (long)ex[i].ext);
    }
    MPI_Datatype c3, v;
    MPI_Type_contiguous(3, MPI_INT, &c3);
    MPI_Type_vector(2, 1, 3, MPI_SHORT, &v);
    MPI_Type_commit(&c3); /* MPICH refuses uncommitted types here */
    MPI_Type_commit(&v);
    MPI_Aint e = -1;
    CHECK_MPI(MPI_File_get_type_extent(fh, c3, &e));
    CHECK(e == 12, "external32: extent of 3 contiguous ints %ld", (long)e);
    CHECK_MPI(MPI_File_get_type_extent(fh, v, &e));
    CHECK(e == 8, "external32: extent of vector(2,1,3,MPI_SHORT) %ld", (long)e);
    MPI_Type_free(&c3);
    MPI_Type_free(&v);
    MPI_Type_free(&rt);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_LONG_DOUBLE is an IEEE binary128 in external32, whatever the
 * native long double is; values exact in a double are encoded here from
 * the double's fields. */
static void put_binary128(unsigned char *p, double d)
{
    uint64_t b, hi, lo = 0;
    memcpy(&b, &d, 8);
    uint64_t sign = b >> 63, exp = b >> 52 & 0x7ff, frac = b & ((1ull << 52) - 1);
    hi = sign << 63;
    if (exp != 0) { /* normal numbers and zeros only */
        hi |= (exp - 1023 + 16383) << 48 | frac >> 4;
        lo = frac << 60;
    }
    put_be(put_be(p, hi, 8), lo, 8);
}

static void test_external32_long_double(void)
{
    reset_file(0);
    double d[3] = {1.5, -0.375 * (rank + 1), 1e300};
    long double ld[3] = {d[0], d[1], d[2]}, back[3] = {0, 0, 0};
    view(0, MPI_BYTE, MPI_BYTE, "external32");
    CHECK_MPI(MPI_File_write_at(fh, 48L * rank, ld, 3, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    sync_all();
    unsigned char *exp = malloc(48L * size);
    for (int r = 0; r < size; r++) {
        double e[3] = {1.5, -0.375 * (r + 1), 1e300};
        for (int i = 0; i < 3; i++)
            put_binary128(exp + 48L * r + 16 * i, e[i]);
    }
    check_raw(exp, 48L * size, "external32 long double");
    free(exp);
    view(0, MPI_BYTE, MPI_BYTE, "external32");
    int other = (rank + 1) % size;
    CHECK_MPI(MPI_File_read_at(fh, 48L * other, back, 3, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    CHECK(back[0] == 1.5L && back[1] == (long double)(-0.375 * (other + 1)) && back[2] == (long double)1e300,
          "external32: long doubles read back as %Lg %Lg %Lg", back[0], back[1], back[2]);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ */
/* A user representation: ints XOR-ed with a key                       */
/* ------------------------------------------------------------------ */

struct xstate {
    uint32_t key;
    int reads, writes, extents, wrong_type;
};
static struct xstate xs = {0x5A5AA5A5u, 0, 0, 0, 0};

/* Only MPI_INT is ever passed to the I/O calls here, so the user buffer
 * is an array of ints and position counts ints into it. */
static int xor_convert(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset position,
                       void *extra, int to_file)
{
    struct xstate *s = extra;
    if (dt != MPI_INT) {
        s->wrong_type++;
        return MPI_ERR_TYPE;
    }
    uint32_t *u = (uint32_t *)userbuf + position, *f = filebuf;
    for (MPI_Count i = 0; i < count; i++) {
        if (to_file)
            f[i] = u[i] ^ s->key;
        else
            u[i] = f[i] ^ s->key;
    }
    if (to_file)
        s->writes++;
    else
        s->reads++;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *extra)
{
    return xor_convert(userbuf, dt, count, filebuf, position, extra, 0);
}

static int xor_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *extra)
{
    return xor_convert(userbuf, dt, count, filebuf, position, extra, 1);
}

#if MPI_VERSION >= 4
static int xor_read_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset position,
                      void *extra)
{
    return xor_convert(userbuf, dt, count, filebuf, position, extra, 0);
}

static int xor_write_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset position,
                       void *extra)
{
    return xor_convert(userbuf, dt, count, filebuf, position, extra, 1);
}
#endif

/* Every basic type keeps its native size in this representation. */
static int xor_extent(MPI_Datatype dt, MPI_Aint *ext, void *extra)
{
    int s = 0;
    ((struct xstate *)extra)->extents++;
    MPI_Type_size(dt, &s);
    *ext = s;
    return MPI_SUCCESS;
}

/* Rank r's 10 ints go through a view of every other int from 80*r on,
 * so that the conversion functions see pieces that start mid-buffer. */
#define XN 10
static int xval(int r, int i)
{
    return r * 1000 + i * 7 - 3;
}

static void test_user_rep(const char *name)
{
    reset_file(80L * size);
    MPI_Datatype ft;
    MPI_Type_vector(XN, 1, 2, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    view(80L * rank, MPI_INT, ft, name);
    MPI_Type_free(&ft);
    check_rep(name);
    int v[XN], back[XN];
    for (int i = 0; i < XN; i++)
        v[i] = xval(rank, i);
    xs.reads = xs.writes = 0;
    CHECK_MPI(MPI_File_write_at_all(fh, 0, v, XN / 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_seek(fh, XN / 2, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_write(fh, v + XN / 2, XN - XN / 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(xs.writes > 0, "%s: the write conversion function was not called", name);
    CHECK(v[0] == xval(rank, 0), "%s: the write converted the user's buffer in place", name);
    sync_all();

    /* Another rank's ints, converted back. */
    int other = (rank + 1) % size;
    MPI_Type_vector(XN, 1, 2, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    view(80L * other, MPI_INT, ft, name);
    MPI_Type_free(&ft);
    memset(back, 0, sizeof back);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, XN, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(xs.reads > 0, "%s: the read conversion function was not called", name);
    for (int i = 0; i < XN; i++)
        CHECK(back[i] == xval(other, i), "%s: rank %d's int %d read back as %d", name, other, i, back[i]);
    CHECK(xs.wrong_type == 0, "%s: a conversion function got a type other than MPI_INT", name);

    unsigned char *exp = malloc(80L * size);
    memset(exp, FILL, 80L * size);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < XN; i++) {
            uint32_t w = (uint32_t)xval(r, i) ^ xs.key;
            memcpy(exp + 80L * r + 8 * i, &w, 4);
        }
    check_raw(exp, 80L * size, name);
    free(exp);
}

/* Registered with MPI_CONVERSION_FN_NULL both ways: "MPI will not attempt
 * to invoke" them and accesses use the native representation, so the
 * file holds the memory bytes. */
static void test_null_conversions(void)
{
    reset_file(0);
    view(40L * rank, MPI_INT, MPI_INT, "uzura_plain");
    check_rep("uzura_plain");
    int v[XN];
    for (int i = 0; i < XN; i++)
        v[i] = xval(rank, i);
    CHECK_MPI(MPI_File_write_at_all(fh, 0, v, XN, MPI_INT, MPI_STATUS_IGNORE));
    sync_all();
    unsigned char *exp = malloc(40L * size);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < XN; i++) {
            int w = xval(r, i);
            memcpy(exp + 40L * r + 4 * i, &w, 4);
        }
    check_raw(exp, 40L * size, "uzura_plain");
    free(exp);
}

static void test_errors(void)
{
    /* Errors of calls without a file handle go to MPI_FILE_NULL's handler
     * (ERRORS_RETURN by default); be sure anyway. */
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Register_datarep("uzura_plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, xor_extent, &xs);
    CHECK(uzt_class(rc) == MPI_ERR_DUP_DATAREP, "registering uzura_plain twice: class %d, expected %d",
          uzt_class(rc), MPI_ERR_DUP_DATAREP);
    if (is_uzura) {
        rc = MPI_Register_datarep("uzura_xor", xor_read, xor_write, xor_extent, &xs);
        CHECK(uzt_class(rc) == MPI_ERR_DUP_DATAREP, "registering uzura_xor twice: class %d, expected %d",
              uzt_class(rc), MPI_ERR_DUP_DATAREP);
        /* MPICH: registering "external32" succeeds (ROMIO looks only at
         * the names registered before). */
        rc = MPI_Register_datarep("external32", xor_read, xor_write, xor_extent, &xs);
        CHECK(uzt_class(rc) == MPI_ERR_DUP_DATAREP, "registering external32: class %d, expected %d", uzt_class(rc),
              MPI_ERR_DUP_DATAREP);
    }
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no_such_representation", MPI_INFO_NULL);
    CHECK(uzt_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "set_view with an unknown datarep: class %d, expected %d",
          uzt_class(rc), MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    is_uzura = strstr(lib, "Uzura") != NULL;
    make_path("datarep");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    test_native();
    test_internal();
    test_external32();
    test_external32_long_double();
    CHECK_MPI(MPI_Register_datarep("uzura_plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, xor_extent, &xs));
    /* MPICH registers a representation without conversion functions but
     * refuses it in MPI_File_set_view ("Only native data representation
     * currently supported"), and refuses conversion functions in
     * MPI_Register_datarep ("Read and Write datarep conversions are
     * currently not supported by MPI-IO"). */
    if (is_uzura) {
        test_null_conversions();
        CHECK_MPI(MPI_Register_datarep("uzura_xor", xor_read, xor_write, xor_extent, &xs));
        test_user_rep("uzura_xor");
#if MPI_VERSION >= 4
        CHECK_MPI(MPI_Register_datarep_c("uzura_xor_c", xor_read_c, xor_write_c, xor_extent, &xs));
        test_user_rep("uzura_xor_c");
#endif
        CHECK(xs.extents > 0, "the extent function was never called");
    }
    test_errors();

    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    return uzt_finish("io_datarep");
}
