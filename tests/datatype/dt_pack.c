/*
 * dt_pack.c — MPI_Pack / MPI_Unpack / MPI_Pack_size with every byte
 * checked: for every predefined type and many derived ones, the packed
 * bytes are exactly the data bytes of the type map in order, and unpacking
 * them into a buffer full of a sentinel restores those bytes and touches
 * no other (padding, gaps).  Also: several items packed one after another,
 * the large-count forms, truncation errors and empty packs.
 */
#include "dt_check.h"

enum { SENTINEL = 0xee, MAXBUF = 1 << 16 };

static unsigned char src[MAXBUF], packed[MAXBUF], dst[MAXBUF], expect[MAXBUF];

/* Byte ranges [off, off+len) of one element that hold data, in type-map
 * order. */
struct region {
    int off, len;
};

/* Pack `count` elements at src+base, check the packed bytes against the
 * regions (element k starts k*extent later), unpack into a sentinel buffer
 * and check that exactly the regions came back. */
static void check_regions(const char *name, MPI_Datatype t, int count, MPI_Aint extent,
                          const struct region *r, int nr, int base)
{
    int size, pos = 0;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
    uzt_fill(src, sizeof(src), 1, count);
    memset(expect, SENTINEL, sizeof(expect));
    int k = 0;
    for (int e = 0; e < count; e++) {
        for (int i = 0; i < nr; i++) {
            int at = base + (int)(e * extent) + r[i].off;
            memcpy(packed + k, src + at, (size_t)r[i].len);
            memcpy(expect + at, src + at, (size_t)r[i].len);
            k += r[i].len;
        }
    }
    CHECK(size == k, "%s: MPI_Pack_size %d, expected %d", name, size, k);
    static unsigned char out[MAXBUF];
    CHECK_MPI(MPI_Pack(src + base, count, t, out, sizeof(out), &pos, MPI_COMM_WORLD));
    CHECK(pos == k, "%s: packed %d bytes, expected %d", name, pos, k);
    for (int i = 0; i < k; i++)
        if (out[i] != packed[i]) {
            CHECK(0, "%s: packed byte %d is %02x, expected %02x", name, i, out[i], packed[i]);
            break;
        }
    memset(dst, SENTINEL, sizeof(dst));
    pos = 0;
    CHECK_MPI(MPI_Unpack(out, k, &pos, dst + base, count, t, MPI_COMM_WORLD));
    CHECK(pos == k, "%s: unpack consumed %d bytes, expected %d", name, pos, k);
    for (size_t i = 0; i < sizeof(dst); i++)
        if (dst[i] != expect[i]) {
            CHECK(0, "%s: after unpack byte %ld is %02x, expected %02x", name, (long)i - base,
                  dst[i], expect[i]);
            break;
        }
}

#define ONE_REGION(sz) ((struct region[]){ { 0, (sz) } }), 1

static void test_predefined(void)
{
    static const struct { MPI_Datatype t; const char *name; int size; } plain[] = {
        { MPI_CHAR, "MPI_CHAR", 1 }, { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1 },
        { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1 }, { MPI_BYTE, "MPI_BYTE", 1 },
        { MPI_PACKED, "MPI_PACKED", 1 }, { MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t) },
        { MPI_SHORT, "MPI_SHORT", 2 }, { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2 },
        { MPI_INT, "MPI_INT", 4 }, { MPI_UNSIGNED, "MPI_UNSIGNED", 4 },
        { MPI_LONG, "MPI_LONG", sizeof(long) }, { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long) },
        { MPI_LONG_LONG, "MPI_LONG_LONG", 8 }, { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8 },
        { MPI_FLOAT, "MPI_FLOAT", 4 }, { MPI_DOUBLE, "MPI_DOUBLE", 8 },
        { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double) },
        { MPI_C_BOOL, "MPI_C_BOOL", 1 }, { MPI_CXX_BOOL, "MPI_CXX_BOOL", 1 },
        { MPI_INT8_T, "MPI_INT8_T", 1 }, { MPI_UINT8_T, "MPI_UINT8_T", 1 },
        { MPI_INT16_T, "MPI_INT16_T", 2 }, { MPI_UINT16_T, "MPI_UINT16_T", 2 },
        { MPI_INT32_T, "MPI_INT32_T", 4 }, { MPI_UINT32_T, "MPI_UINT32_T", 4 },
        { MPI_INT64_T, "MPI_INT64_T", 8 }, { MPI_UINT64_T, "MPI_UINT64_T", 8 },
        { MPI_AINT, "MPI_AINT", 8 }, { MPI_COUNT, "MPI_COUNT", 8 }, { MPI_OFFSET, "MPI_OFFSET", 8 },
        { MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 8 },
        { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16 },
        { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double) },
        { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8 },
        { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16 },
        { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double) },
        { MPI_CHARACTER, "MPI_CHARACTER", 1 }, { MPI_LOGICAL, "MPI_LOGICAL", 4 },
        { MPI_INTEGER, "MPI_INTEGER", 4 }, { MPI_REAL, "MPI_REAL", 4 },
        { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8 }, { MPI_COMPLEX, "MPI_COMPLEX", 8 },
        { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16 },
        { MPI_LOGICAL1, "MPI_LOGICAL1", 1 }, { MPI_LOGICAL2, "MPI_LOGICAL2", 2 },
        { MPI_LOGICAL4, "MPI_LOGICAL4", 4 }, { MPI_LOGICAL8, "MPI_LOGICAL8", 8 },
        { MPI_LOGICAL16, "MPI_LOGICAL16", 16 },
        { MPI_INTEGER1, "MPI_INTEGER1", 1 }, { MPI_INTEGER2, "MPI_INTEGER2", 2 },
        { MPI_INTEGER4, "MPI_INTEGER4", 4 }, { MPI_INTEGER8, "MPI_INTEGER8", 8 },
        { MPI_INTEGER16, "MPI_INTEGER16", 16 }, { MPI_REAL2, "MPI_REAL2", 2 },
        { MPI_REAL4, "MPI_REAL4", 4 }, { MPI_REAL8, "MPI_REAL8", 8 }, { MPI_REAL16, "MPI_REAL16", 16 },
        { MPI_COMPLEX4, "MPI_COMPLEX4", 4 }, { MPI_COMPLEX8, "MPI_COMPLEX8", 8 },
        { MPI_COMPLEX16, "MPI_COMPLEX16", 16 }, { MPI_COMPLEX32, "MPI_COMPLEX32", 32 },
        { MPI_2INT, "MPI_2INT", 8 }, { MPI_2REAL, "MPI_2REAL", 8 },
        { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16 }, { MPI_2INTEGER, "MPI_2INTEGER", 8 },
        { MPI_FLOAT_INT, "MPI_FLOAT_INT", 8 },
    };
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        MPI_Aint lb, ext;
        int size;
        MPI_Type_get_extent(plain[i].t, &lb, &ext);
        MPI_Type_size(plain[i].t, &size);
        CHECK(size == plain[i].size && ext == size && lb == 0, "%s: size %d extent %ld",
              plain[i].name, size, (long)ext);
        for (int count = 0; count <= 7; count += 7)
            check_regions(plain[i].name, plain[i].t, count, ext, ONE_REGION(plain[i].size), 64);
        check_regions(plain[i].name, plain[i].t, 1, ext, ONE_REGION(plain[i].size), 3);
    }
    /* The pair types with padding: value and index only. */
    struct { double v; int i; } di;
    struct { long v; int i; } li;
    struct { short v; int i; } si;
    struct { long double v; int i; } ldi;
    check_regions("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 5, sizeof(di),
                  (struct region[]){ { 0, 8 }, { (int)((char *)&di.i - (char *)&di), 4 } }, 2, 64);
    check_regions("MPI_LONG_INT", MPI_LONG_INT, 5, sizeof(li),
                  (struct region[]){ { 0, sizeof(long) }, { (int)((char *)&li.i - (char *)&li), 4 } },
                  2, 64);
    check_regions("MPI_SHORT_INT", MPI_SHORT_INT, 5, sizeof(si),
                  (struct region[]){ { 0, 2 }, { (int)((char *)&si.i - (char *)&si), 4 } }, 2, 64);
    check_regions("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 5, sizeof(ldi),
                  (struct region[]){ { 0, sizeof(long double) },
                                     { (int)((char *)&ldi.i - (char *)&ldi), 4 } }, 2, 64);
}

static void test_derived(void)
{
    MPI_Datatype t, v, s;
    /* vector of doubles with gaps */
    CHECK_MPI(MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &t));
    MPI_Type_commit(&t);
    check_regions("vector(4,3,5,double)", t, 3, 4 * 5 * 8 - 2 * 8,
                  (struct region[]){ { 0, 24 }, { 40, 24 }, { 80, 24 }, { 120, 24 } }, 4, 128);
    MPI_Type_free(&t);
    /* a column of chars: blocks of one byte */
    CHECK_MPI(MPI_Type_vector(6, 1, 7, MPI_CHAR, &t));
    MPI_Type_commit(&t);
    check_regions("char column", t, 4, 36,
                  (struct region[]){ { 0, 1 }, { 7, 1 }, { 14, 1 }, { 21, 1 }, { 28, 1 }, { 35, 1 } },
                  6, 64);
    MPI_Type_free(&t);
    /* struct { char; double; short } with padding, and its resized form */
    struct rec { char c; double d; short s; } rr;
    int oc = 0, od = (int)((char *)&rr.d - (char *)&rr), os = (int)((char *)&rr.s - (char *)&rr);
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 1, 1 }, (MPI_Aint[]){ oc, od, os },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE, MPI_SHORT }, &s));
    MPI_Type_commit(&s);
    check_regions("struct rec", s, 9, sizeof(rr),
                  (struct region[]){ { oc, 1 }, { od, 8 }, { os, 2 } }, 3, 64);
    /* Type map order differs from memory order. */
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 1, 1 }, (MPI_Aint[]){ os, oc, od },
                                     (MPI_Datatype[]){ MPI_SHORT, MPI_CHAR, MPI_DOUBLE }, &t));
    MPI_Type_commit(&t);
    check_regions("struct rec reordered", t, 4, sizeof(rr),
                  (struct region[]){ { os, 2 }, { oc, 1 }, { od, 8 } }, 3, 64);
    MPI_Type_free(&t);
    /* hindexed of that struct, overlapping nothing, odd byte offsets */
    CHECK_MPI(MPI_Type_create_hindexed(2, (int[]){ 2, 1 }, (MPI_Aint[]){ 101, 3 }, s, &t));
    MPI_Type_commit(&t);
    {
        int e = (int)sizeof(rr);
        struct region r[] = { { 101 + oc, 1 }, { 101 + od, 8 }, { 101 + os, 2 },
                              { 101 + e + oc, 1 }, { 101 + e + od, 8 }, { 101 + e + os, 2 },
                              { 3 + oc, 1 }, { 3 + od, 8 }, { 3 + os, 2 } };
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        check_regions("hindexed of struct", t, 2, ext, r, 9, 64 - (int)lb);
    }
    MPI_Type_free(&t);
    /* contiguous and dense vectors are one run */
    CHECK_MPI(MPI_Type_vector(3, 2, 2, MPI_INT, &v));
    CHECK_MPI(MPI_Type_contiguous(4, v, &t));
    MPI_Type_commit(&t);
    check_regions("contig(vector dense)", t, 3, 96, ONE_REGION(96), 64);
    MPI_Type_free(&t);
    MPI_Type_free(&v);
    /* subarray of the struct */
    CHECK_MPI(MPI_Type_create_subarray(2, (int[]){ 3, 4 }, (int[]){ 2, 2 }, (int[]){ 1, 1 },
                                       MPI_ORDER_C, s, &t));
    MPI_Type_commit(&t);
    {
        int e = (int)sizeof(rr);
        struct region r[12];
        int n = 0, cells[] = { 5, 6, 9, 10 };
        for (int c = 0; c < 4; c++) {
            r[n++] = (struct region){ cells[c] * e + oc, 1 };
            r[n++] = (struct region){ cells[c] * e + od, 8 };
            r[n++] = (struct region){ cells[c] * e + os, 2 };
        }
        check_regions("subarray of struct", t, 2, 12 * e, r, 12, 64);
    }
    MPI_Type_free(&t);
    MPI_Type_free(&s);
}

/* Items packed one after another into one buffer, and unpacked in turn. */
static void test_sequence(void)
{
    int a = 12345, a2 = 0;
    double col[5][3], col2[5][3];
    struct { float f; char c; } rec[2] = { { 1.5f, 'x' }, { -2.25f, 'y' } }, rec2[2];
    MPI_Datatype column, rect;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            col[i][j] = i * 10 + j;
    memset(col2, 0, sizeof(col2));
    memset(rec2, 0, sizeof(rec2));
    CHECK_MPI(MPI_Type_vector(5, 1, 3, MPI_DOUBLE, &column));
    MPI_Type_commit(&column);
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 },
                                     (MPI_Aint[]){ 0, (char *)&rec[0].c - (char *)&rec[0] },
                                     (MPI_Datatype[]){ MPI_FLOAT, MPI_CHAR }, &rect));
    MPI_Type_commit(&rect);
    char buf[256];
    int pos = 0, s1, s2, s3;
    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1);
    MPI_Pack_size(1, column, MPI_COMM_WORLD, &s2);
    MPI_Pack_size(2, rect, MPI_COMM_WORLD, &s3);
    CHECK(s1 == 4 && s2 == 40 && s3 == 10, "pack sizes %d %d %d", s1, s2, s3);
    CHECK_MPI(MPI_Pack(&a, 1, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(&col[0][1], 1, column, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(rec, 2, rect, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, s1 + s2 + s3);
    int end = pos;
    pos = 0;
    CHECK_MPI(MPI_Unpack(buf, end, &pos, &a2, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(buf, end, &pos, &col2[0][1], 1, column, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(buf, end, &pos, rec2, 2, rect, MPI_COMM_WORLD));
    CHECK_EQ(pos, end);
    CHECK_EQ(a2, 12345);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            CHECK(col2[i][j] == (j == 1 ? col[i][j] : 0), "column element %d,%d", i, j);
    CHECK(rec2[0].f == 1.5f && rec2[0].c == 'x' && rec2[1].f == -2.25f && rec2[1].c == 'y',
          "records");
    /* A packed buffer can be sent as MPI_PACKED and read as the types. */
    double colvals[5];
    pos = 4;
    CHECK_MPI(MPI_Unpack(buf, end, &pos, colvals, 5, MPI_DOUBLE, MPI_COMM_WORLD));
    for (int i = 0; i < 5; i++)
        CHECK(colvals[i] == col[i][1], "column as doubles %d", i);

    /* Errors: no room, not enough data, bad position. */
    pos = 0;
    CHECK_CLASS(MPI_Pack(col, 1, column, buf, 39, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 250;
    CHECK_CLASS(MPI_Pack(&a, 2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK_EQ(pos, 250);
    pos = 0;
    CHECK_CLASS(MPI_Unpack(buf, 30, &pos, col2, 1, column, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = -1;
    CHECK_CLASS(MPI_Pack(&a, 1, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 0;
    CHECK_CLASS(MPI_Pack(&a, -1, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    /* Nothing to pack: position unchanged. */
    pos = 7;
    CHECK_MPI(MPI_Pack(NULL, 0, column, buf, 7, &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, 7);

    /* Large-count forms. */
    MPI_Count cpos = 0, csize;
    CHECK_MPI(MPI_Pack_size_c(3, column, MPI_COMM_WORLD, &csize));
    CHECK_EQ(csize, 120);
    CHECK_MPI(MPI_Pack_c(&col[0][2], 1, column, buf, sizeof(buf), &cpos, MPI_COMM_WORLD));
    CHECK_EQ(cpos, 40);
    memset(col2, 0, sizeof(col2));
    cpos = 0;
    CHECK_MPI(MPI_Unpack_c(buf, 40, &cpos, &col2[0][0], 1, column, MPI_COMM_WORLD));
    for (int i = 0; i < 5; i++)
        CHECK(col2[i][0] == col[i][2], "large-count unpack %d", i);
    MPI_Type_free(&column);
    MPI_Type_free(&rect);
}

/* The transpose of UZURA Figure 1, in one process: pack with the
 * vector+hvector type, unpack as plain floats. */
static void test_transpose_pack(void)
{
    enum { N = 100 };
    static float a[N][N], b[N][N];
    MPI_Aint sz, lb;
    MPI_Datatype row, xpose;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (float)(i * N + j);
    MPI_Type_get_extent(MPI_FLOAT, &lb, &sz);
    CHECK_MPI(MPI_Type_vector(N, 1, N, MPI_FLOAT, &row));
    CHECK_MPI(MPI_Type_create_hvector(N, 1, sz, row, &xpose));
    CHECK_MPI(MPI_Type_commit(&xpose));
    static char buf[N * N * 4];
    int pos = 0;
    CHECK_MPI(MPI_Pack(a, 1, xpose, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    pos = 0;
    CHECK_MPI(MPI_Unpack(buf, sizeof(buf), &pos, b, N * N, MPI_FLOAT, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            bad += b[i][j] != a[j][i];
    CHECK(bad == 0, "transpose: %d elements wrong", bad);
    MPI_Type_free(&row);
    MPI_Type_free(&xpose);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_predefined();
    test_derived();
    test_sequence();
    test_transpose_pack();
    return uzt_finish("dt_pack");
}
