/*
 * dt_external32.c — MPI_Pack_external / MPI_Unpack_external /
 * MPI_Pack_external_size against the standard's representation, byte for
 * byte: big-endian, MPI_LONG in 4 bytes, MPI_LONG_DOUBLE as IEEE binary128
 * (converted from the x87 80-bit format, rounding to nearest even on the
 * way back), complex numbers as two reals, pair types as their two parts,
 * derived types with no padding.
 */
#include <math.h>
#include <stdbool.h>
#include <wchar.h>

#include "dt_check.h"

static const char *const X32 = "external32";

/* Pack count elements and compare with the expected bytes; unpack them
 * back and compare with `back` (the original, unless narrowing changes
 * it) over `back_len` bytes. */
static void check_ext(const char *name, const void *in, int count, MPI_Datatype t,
                      const unsigned char *want, int nwant, const void *back, size_t back_len)
{
    unsigned char out[512];
    MPI_Aint pos = 0, size;
    CHECK_MPI(MPI_Pack_external_size(X32, count, t, &size));
    CHECK(size == nwant, "%s: external32 size %ld, expected %d", name, (long)size, nwant);
    CHECK_MPI(MPI_Pack_external(X32, in, count, t, out, sizeof(out), &pos));
    CHECK(pos == nwant, "%s: packed %ld bytes, expected %d", name, (long)pos, nwant);
    for (int i = 0; i < nwant && i < pos; i++) {
        if (out[i] != want[i]) {
            char got[200] = "", exp[200] = "";
            for (int k = 0; k < nwant && k < 40; k++) {
                sprintf(got + strlen(got), "%02x", out[k]);
                sprintf(exp + strlen(exp), "%02x", want[k]);
            }
            CHECK(0, "%s: byte %d differs:\n   got %s\n  want %s", name, i, got, exp);
            break;
        }
    }
    unsigned char again[512];
    memset(again, 0xee, sizeof(again));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, out, nwant, &pos, again, count, t));
    CHECK(pos == nwant, "%s: unpacked %ld bytes", name, (long)pos);
    if (back != NULL)
        CHECK(memcmp(again, back, back_len) == 0, "%s: unpacked value differs", name);
}

#define BYTES(...) ((const unsigned char[]){ __VA_ARGS__ }), (int)sizeof((const unsigned char[]){ __VA_ARGS__ })

static void test_integers(void)
{
    int i[3] = { 0x01020304, -2, 0 };
    check_ext("int", i, 3, MPI_INT, BYTES(1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0), i,
              sizeof(i));
    short s[2] = { 0x0102, -1 };
    check_ext("short", s, 2, MPI_SHORT, BYTES(1, 2, 0xff, 0xff), s, sizeof(s));
    unsigned short us = 0xabcd;
    check_ext("unsigned short", &us, 1, MPI_UNSIGNED_SHORT, BYTES(0xab, 0xcd), &us, sizeof(us));
    long long ll = 0x0102030405060708LL;
    check_ext("long long", &ll, 1, MPI_LONG_LONG, BYTES(1, 2, 3, 4, 5, 6, 7, 8), &ll, sizeof(ll));
    /* MPI_LONG is 4 bytes in external32: values that fit survive, the sign
     * is extended on the way back. */
    long l[2] = { 0x12345678L, -5L };
    check_ext("long", l, 2, MPI_LONG, BYTES(0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xfb), l,
              sizeof(l));
    unsigned long ul = 0xfffffffeUL;
    check_ext("unsigned long", &ul, 1, MPI_UNSIGNED_LONG, BYTES(0xff, 0xff, 0xff, 0xfe), &ul,
              sizeof(ul));
    MPI_Aint a = -3;
    check_ext("MPI_AINT", &a, 1, MPI_AINT, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd),
              &a, sizeof(a));
    int64_t i64 = 0x1122334455667788LL;
    check_ext("int64_t", &i64, 1, MPI_INT64_T, BYTES(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88),
              &i64, sizeof(i64));
    uint16_t u16 = 0x8001;
    check_ext("uint16_t", &u16, 1, MPI_UINT16_T, BYTES(0x80, 0x01), &u16, sizeof(u16));
    bool b[2] = { true, false };
    check_ext("bool", b, 2, MPI_C_BOOL, BYTES(1, 0), b, sizeof(b));
    char c[3] = { 'A', 'b', 0 };
    check_ext("char", c, 3, MPI_CHAR, BYTES(0x41, 0x62, 0), c, sizeof(c));
    wchar_t w = L'A';
    check_ext("wchar", &w, 1, MPI_WCHAR, BYTES(0, 0, 0, 0x41), &w, sizeof(w));
    int fi = 7;     /* Fortran INTEGER and LOGICAL are 4-byte integers */
    check_ext("MPI_INTEGER", &fi, 1, MPI_INTEGER, BYTES(0, 0, 0, 7), &fi, sizeof(fi));
}

static void test_reals(void)
{
    float f[2] = { 1.0f, -2.5f };
    check_ext("float", f, 2, MPI_FLOAT, BYTES(0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0), f, sizeof(f));
    double d[2] = { 1.0, 0.1 };
    check_ext("double", d, 2, MPI_DOUBLE,
              BYTES(0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a), d,
              sizeof(d));
    float cf[2] = { 1.0f, -2.0f };
    check_ext("float complex", cf, 1, MPI_C_FLOAT_COMPLEX,
              BYTES(0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0), cf, sizeof(cf));
    check_ext("MPI_COMPLEX", cf, 1, MPI_COMPLEX, BYTES(0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0), cf,
              sizeof(cf));
    double cd[2] = { -1.0, 2.0 };
    check_ext("double complex", cd, 1, MPI_C_DOUBLE_COMPLEX,
              BYTES(0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0), cd, sizeof(cd));
}

/* Long double: binary128, big-endian.  The x87 value's bytes above the
 * 80 used ones are padding, so only those 10 are compared on the way
 * back. */
static void check_ld(const char *name, long double v, const unsigned char *want)
{
    long double back;
    unsigned char out[16];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, &v, 1, MPI_LONG_DOUBLE, out, 16, &pos));
    CHECK(pos == 16 && memcmp(out, want, 16) == 0, "long double %s: wrong bytes", name);
    pos = 0;
    memset(&back, 0x55, sizeof(back));
    CHECK_MPI(MPI_Unpack_external(X32, out, 16, &pos, &back, 1, MPI_LONG_DOUBLE));
    CHECK(memcmp(&back, &v, 10) == 0, "long double %s: does not come back", name);
}

/* Unpack a binary128 given as bytes and compare with an x87 value. */
static void check_quad_in(const char *name, const unsigned char *quad, long double want)
{
    long double got;
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, quad, 16, &pos, &got, 1, MPI_LONG_DOUBLE));
    CHECK(memcmp(&got, &want, 10) == 0, "binary128 %s: converted to %La, expected %La", name, got,
          want);
}

static void test_long_double(void)
{
    MPI_Aint size;
    MPI_Pack_external_size(X32, 1, MPI_LONG_DOUBLE, &size);
    CHECK_EQ(size, 16);
#if __LDBL_MANT_DIG__ == 64
    unsigned char q[16];
    /* 1.5 = 0x3fff.8000... */
    memset(q, 0, 16);
    q[0] = 0x3f, q[1] = 0xff, q[2] = 0x80;
    check_ld("1.5", 1.5L, q);
    memset(q, 0, 16);
    q[0] = 0xc0, q[1] = 0x00;
    check_ld("-2", -2.0L, q);
    memset(q, 0, 16);
    check_ld("0", 0.0L, q);
    q[0] = 0x80;
    check_ld("-0", -0.0L, q);
    memset(q, 0, 16);
    q[0] = 0x7f, q[1] = 0xff;
    check_ld("inf", (long double)INFINITY, q);
    /* The smallest x87 denormal, 2^-16445, is a binary128 denormal too. */
    memset(q, 0, 16);
    q[9] = 0x02;
    check_ld("min denormal", 0x1p-16445L, q);
    /* Any value against the compiler's own conversion to binary128. */
    long double vals[] = { 0.1L, -1.0L / 3, 6.02214076e23L, 1e-4000L, 1.18973149535723176502e+4932L,
                           3.36210314311209350626e-4932L };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        __float128 f = (__float128)vals[i];
        unsigned char le[16], be[16];
        memcpy(le, &f, 16);
        for (int k = 0; k < 16; k++)
            be[k] = le[15 - k];
        char name[32];
        snprintf(name, sizeof(name), "value %zu", i);
        check_ld(name, vals[i], be);
    }
    /* NaN stays NaN. */
    long double nan_in = (long double)NAN, nan_out;
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, &nan_in, 1, MPI_LONG_DOUBLE, q, 16, &pos));
    CHECK(q[0] == 0x7f && q[1] == 0xff, "NaN exponent");
    pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, q, 16, &pos, &nan_out, 1, MPI_LONG_DOUBLE));
    CHECK(isnan(nan_out), "NaN comes back as NaN");
    /* binary128 -> x87 rounds to nearest, ties to even. */
    memset(q, 0, 16);
    q[0] = 0x3f, q[1] = 0xff;
    q[15] = 0x01;                                   /* 1 + 2^-112 */
    check_quad_in("1+2^-112", q, 1.0L);
    memset(q, 0, 16);
    q[0] = 0x3f, q[1] = 0xff, q[9] = 0x01;          /* 1 + 2^-64: a tie, to even */
    check_quad_in("1+2^-64", q, 1.0L);
    q[15] = 0x01;                                   /* just above the tie */
    check_quad_in("1+2^-64+2^-112", q, 1.0L + 0x1p-63L);
    memset(q, 0, 16);
    q[0] = 0x3f, q[1] = 0xff;
    memset(q + 2, 0xff, 14);                        /* 2 - 2^-112 rounds up to 2 */
    check_quad_in("2-2^-112", q, 2.0L);
    /* long double complex and MPI_LONG_DOUBLE_INT */
    long double ldc[2] = { 1.5L, -2.0L };
    unsigned char two[32] = { 0x3f, 0xff, 0x80 };
    two[16] = 0xc0;
    check_ext("long double complex", ldc, 1, MPI_C_LONG_DOUBLE_COMPLEX, two, 32, NULL, 0);
    struct { long double v; int i; } ldi = { 1.5L, 9 };
    unsigned char ldi_x[20] = { 0x3f, 0xff, 0x80 };
    ldi_x[19] = 9;
    check_ext("MPI_LONG_DOUBLE_INT", &ldi, 1, MPI_LONG_DOUBLE_INT, ldi_x, 20, NULL, 0);
#endif
}

static void test_pairs_and_derived(void)
{
    struct { float v; int i; } fi = { 1.0f, 7 };
    check_ext("MPI_FLOAT_INT", &fi, 1, MPI_FLOAT_INT, BYTES(0x3f, 0x80, 0, 0, 0, 0, 0, 7), &fi,
              sizeof(fi));
    struct { double v; int i; } di = { -2.0, 258 };
    check_ext("MPI_DOUBLE_INT", &di, 1, MPI_DOUBLE_INT,
              BYTES(0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2), NULL, 0);
    struct { short v; int i; } si = { -2, 3 };
    check_ext("MPI_SHORT_INT", &si, 1, MPI_SHORT_INT, BYTES(0xff, 0xfe, 0, 0, 0, 3), NULL, 0);
    struct { long v; int i; } li = { 65536, -1 };
    check_ext("MPI_LONG_INT", &li, 1, MPI_LONG_INT, BYTES(0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff), NULL,
              0);
    int two[2] = { 1, 2 };
    check_ext("MPI_2INT", two, 1, MPI_2INT, BYTES(0, 0, 0, 1, 0, 0, 0, 2), two, sizeof(two));

    /* A struct with padding packs without it. */
    struct { char c; double d; } cd[2] = { { 'z', 1.0 }, { 'y', -1.0 } };
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 },
                                     (MPI_Aint[]){ 0, (char *)&cd[0].d - (char *)&cd[0] },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE }, &t));
    MPI_Type_commit(&t);
    check_ext("struct{char,double}", cd, 2, t,
              BYTES('z', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 'y', 0xbf, 0xf0, 0, 0, 0, 0, 0, 0), NULL, 0);
    MPI_Type_free(&t);
    /* A strided vector of shorts. */
    short v[6] = { 1, -1, 2, -2, 3, -3 };
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_SHORT, &t));
    MPI_Type_commit(&t);
    check_ext("vector of short", v, 1, t, BYTES(0, 1, 0, 2, 0, 3), NULL, 0);
    short back[6] = { 0 };
    MPI_Aint pos = 0;
    unsigned char in[6] = { 0, 1, 0, 2, 0, 3 };
    CHECK_MPI(MPI_Unpack_external(X32, in, 6, &pos, back, 1, t));
    CHECK(back[0] == 1 && back[1] == 0 && back[2] == 2 && back[3] == 0 && back[4] == 3,
          "vector unpack leaves the gaps alone");
    /* Mixed: one struct with a long in it packs to the external sizes. */
    MPI_Datatype m;
    struct { long l; float f[2]; } lf = { -7, { 0.5f, 2.0f } };
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 2 },
                                     (MPI_Aint[]){ 0, (char *)&lf.f - (char *)&lf },
                                     (MPI_Datatype[]){ MPI_LONG, MPI_FLOAT }, &m));
    MPI_Type_commit(&m);
    check_ext("struct{long,float[2]}", &lf, 1, m,
              BYTES(0xff, 0xff, 0xff, 0xf9, 0x3f, 0, 0, 0, 0x40, 0, 0, 0), &lf, sizeof(lf));
    MPI_Aint xs;
    MPI_Count xsc;
    CHECK_MPI(MPI_Pack_external_size(X32, 3, m, &xs));
    CHECK_MPI(MPI_Pack_external_size_c(X32, 3, m, &xsc));
    CHECK(xs == 36 && xsc == 36, "external32 size of 3 structs: %ld", (long)xs);
    MPI_Type_free(&m);
    MPI_Type_free(&t);

    /* The _c forms and errors. */
    int vals[2] = { 1, -1 };
    unsigned char buf[8];
    MPI_Count cpos = 0;
    CHECK_MPI(MPI_Pack_external_c(X32, vals, 2, MPI_INT, buf, 8, &cpos));
    CHECK(cpos == 8 && buf[3] == 1 && buf[4] == 0xff, "Pack_external_c");
    cpos = 0;
    int vback[2];
    CHECK_MPI(MPI_Unpack_external_c(X32, buf, 8, &cpos, vback, 2, MPI_INT));
    CHECK(vback[0] == 1 && vback[1] == -1, "Unpack_external_c");
    pos = 0;
    CHECK_CLASS(MPI_Pack_external("native", vals, 1, MPI_INT, buf, 8, &pos),
                MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_CLASS(MPI_Pack_external(X32, vals, 3, MPI_INT, buf, 8, &pos), MPI_ERR_TRUNCATE);
    pos = 4;
    CHECK_CLASS(MPI_Unpack_external(X32, buf, 8, &pos, vback, 2, MPI_INT), MPI_ERR_TRUNCATE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_integers();
    test_reals();
    test_long_double();
    test_pairs_and_derived();
    return uzt_finish("dt_external32");
}
