/*
 * coll_ops.c — reduction operations: every predefined op on every
 * predefined type, accepted exactly where MPI-4.1 §6.9.2 defines it (else
 * MPI_ERR_OP) and computing the right values, through MPI_Allreduce,
 * MPI_Reduce and MPI_Reduce_local; user operations (MPI_Op_create and
 * _c) on derived datatypes; a non-commutative user operation reduced in
 * rank order by every reduction (Reduce at every root, Allreduce, Scan,
 * Exscan, Reduce_scatter(_block)), blocking and nonblocking; and the
 * argument errors collectives report themselves.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>

#include "uztest.h"

static int rank, size;

/* ------------------------------------------------------------ type table */

enum group { G_INT, G_UINT, G_FINT, G_FLOAT, G_COMPLEX, G_LOGICAL, G_BOOL, G_BYTE, G_CHAR, G_MULTI, G_PAIR };

struct tcase {
    MPI_Datatype t;
    const char *name;
    enum group g;
    int size;                   /* bytes of one element (of one part for complex and pairs) */
};

#define T(h, g, sz) { h, #h, g, sz }
static const struct tcase types[] = {
    T(MPI_CHAR, G_CHAR, 1), T(MPI_SIGNED_CHAR, G_INT, 1), T(MPI_UNSIGNED_CHAR, G_UINT, 1),
    T(MPI_SHORT, G_INT, 2), T(MPI_UNSIGNED_SHORT, G_UINT, 2), T(MPI_INT, G_INT, 4), T(MPI_UNSIGNED, G_UINT, 4),
    T(MPI_LONG, G_INT, 8), T(MPI_UNSIGNED_LONG, G_UINT, 8), T(MPI_LONG_LONG, G_INT, 8),
    T(MPI_UNSIGNED_LONG_LONG, G_UINT, 8), T(MPI_INT8_T, G_INT, 1), T(MPI_INT16_T, G_INT, 2),
    T(MPI_INT32_T, G_INT, 4), T(MPI_INT64_T, G_INT, 8), T(MPI_UINT8_T, G_UINT, 1), T(MPI_UINT16_T, G_UINT, 2),
    T(MPI_UINT32_T, G_UINT, 4), T(MPI_UINT64_T, G_UINT, 8), T(MPI_AINT, G_MULTI, 8), T(MPI_OFFSET, G_MULTI, 8),
    T(MPI_COUNT, G_MULTI, 8), T(MPI_INTEGER, G_FINT, 4), T(MPI_INTEGER1, G_FINT, 1), T(MPI_INTEGER2, G_FINT, 2),
    T(MPI_INTEGER4, G_FINT, 4), T(MPI_INTEGER8, G_FINT, 8), T(MPI_FLOAT, G_FLOAT, 4), T(MPI_DOUBLE, G_FLOAT, 8),
    T(MPI_LONG_DOUBLE, G_FLOAT, 16), T(MPI_REAL, G_FLOAT, 4), T(MPI_DOUBLE_PRECISION, G_FLOAT, 8),
    T(MPI_REAL4, G_FLOAT, 4), T(MPI_REAL8, G_FLOAT, 8),
    T(MPI_C_FLOAT_COMPLEX, G_COMPLEX, 4), T(MPI_C_DOUBLE_COMPLEX, G_COMPLEX, 8),
    T(MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX, 16), T(MPI_COMPLEX, G_COMPLEX, 4), T(MPI_DOUBLE_COMPLEX, G_COMPLEX, 8),
    T(MPI_C_BOOL, G_BOOL, 1), T(MPI_LOGICAL, G_LOGICAL, 4), T(MPI_BYTE, G_BYTE, 1),
    T(MPI_2INT, G_PAIR, 4), T(MPI_FLOAT_INT, G_PAIR, 4), T(MPI_DOUBLE_INT, G_PAIR, 8), T(MPI_LONG_INT, G_PAIR, 8),
    T(MPI_SHORT_INT, G_PAIR, 2), T(MPI_LONG_DOUBLE_INT, G_PAIR, 16), T(MPI_2REAL, G_PAIR, 4),
    T(MPI_2DOUBLE_PRECISION, G_PAIR, 8), T(MPI_2INTEGER, G_PAIR, 4),
};
enum { NTYPES = sizeof(types) / sizeof(types[0]) };

struct ocase {
    MPI_Op op;
    const char *name;
};
static const struct ocase ops[] = {
    { MPI_SUM, "MPI_SUM" }, { MPI_PROD, "MPI_PROD" }, { MPI_MIN, "MPI_MIN" }, { MPI_MAX, "MPI_MAX" },
    { MPI_LAND, "MPI_LAND" }, { MPI_LOR, "MPI_LOR" }, { MPI_LXOR, "MPI_LXOR" }, { MPI_BAND, "MPI_BAND" },
    { MPI_BOR, "MPI_BOR" }, { MPI_BXOR, "MPI_BXOR" }, { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
};
enum { NOPS = sizeof(ops) / sizeof(ops[0]) };

/* Is op defined on this type?  -1: the standard does not say (Fortran
 * integers with logical ops), not checked. */
static int allowed(MPI_Op op, enum group g)
{
    int integer = g == G_INT || g == G_UINT || g == G_FINT || g == G_MULTI || g == G_CHAR;
    if (op == MPI_SUM || op == MPI_PROD)
        return integer || g == G_FLOAT || g == G_COMPLEX;
    if (op == MPI_MIN || op == MPI_MAX)
        return integer || g == G_FLOAT;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
        if (g == G_FINT || g == G_MULTI)
            return -1;
        return g == G_INT || g == G_UINT || g == G_LOGICAL || g == G_BOOL || g == G_CHAR;
    }
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return integer || g == G_BYTE;
    return g == G_PAIR;
}

/* ---------------------------------------------------- element access */

static int is_signed(const struct tcase *c)
{
    return c->g == G_INT || c->g == G_FINT || c->g == G_MULTI || c->g == G_CHAR;
}

static long double get_num(const struct tcase *c, const void *p, int size_bytes, int is_float)
{
    if (is_float) {
        if (size_bytes == 4) return *(const float *)p;
        if (size_bytes == 8) return *(const double *)p;
        return *(const long double *)p;
    }
    int64_t v = 0;
    switch (size_bytes) {
    case 1: v = is_signed(c) ? *(const int8_t *)p : *(const uint8_t *)p; break;
    case 2: v = is_signed(c) ? *(const int16_t *)p : *(const uint16_t *)p; break;
    case 4: v = is_signed(c) ? *(const int32_t *)p : (int64_t)*(const uint32_t *)p; break;
    case 8: v = *(const int64_t *)p; break;
    }
    return (long double)v;
}

static void put_num(void *p, int size_bytes, int is_float, long double x)
{
    if (is_float) {
        if (size_bytes == 4) *(float *)p = (float)x;
        else if (size_bytes == 8) *(double *)p = (double)x;
        else *(long double *)p = x;
        return;
    }
    int64_t v = (int64_t)x;
    switch (size_bytes) {
    case 1: *(int8_t *)p = (int8_t)v; break;
    case 2: *(int16_t *)p = (int16_t)v; break;
    case 4: *(int32_t *)p = (int32_t)v; break;
    case 8: *(int64_t *)p = v; break;
    }
}

/* The value rank r gives element i for op: small numbers whose results are
 * exact in every type (products stay below 16, sums below 100). */
static long double input(MPI_Op op, int r, int i)
{
    if (op == MPI_PROD)
        return r < 2 && (i % 2) ? 2 : 1;
    if (op == MPI_LAND)
        return (r + i) % 4 != 3;
    if (op == MPI_LOR || op == MPI_LXOR)
        return (r + i) % 3 == 0;
    if (op == MPI_BAND)
        return 0x7f & ~(1 << ((r + i) % 7));
    if (op == MPI_BOR || op == MPI_BXOR)
        return 1 << ((r + i) % 7);
    if (op == MPI_MIN || op == MPI_MAX || op == MPI_MINLOC || op == MPI_MAXLOC)
        return (r * 5 + i * 3) % 7 + 1;
    return (r % 4) + 1 + (i % 3);
}

static long double expected(MPI_Op op, int i, long double *index)
{
    long double acc = input(op, 0, i);
    *index = 0;
    for (int r = 1; r < size; r++) {
        long double x = input(op, r, i);
        if (op == MPI_SUM) acc += x;
        else if (op == MPI_PROD) acc *= x;
        else if (op == MPI_MIN) acc = x < acc ? x : acc;
        else if (op == MPI_MAX) acc = x > acc ? x : acc;
        else if (op == MPI_LAND) acc = acc && x;
        else if (op == MPI_LOR) acc = acc || x;
        else if (op == MPI_LXOR) acc = (acc != 0) != (x != 0);
        else if (op == MPI_BAND) acc = (long double)((long)acc & (long)x);
        else if (op == MPI_BOR) acc = (long double)((long)acc | (long)x);
        else if (op == MPI_BXOR) acc = (long double)((long)acc ^ (long)x);
        else if (op == MPI_MINLOC && x < acc) { acc = x; *index = r; }
        else if (op == MPI_MAXLOC && x > acc) { acc = x; *index = r; }
    }
    return acc;
}

/* Pair types: value part and index part kinds. */
static void pair_parts(MPI_Datatype t, int *vsize, int *vfloat, int *isize, int *ifloat, MPI_Aint *ioff)
{
    *ifloat = 0;
    *isize = 4;
    if (t == MPI_2INT || t == MPI_2INTEGER) { *vsize = 4; *vfloat = 0; *ioff = 4; }
    else if (t == MPI_FLOAT_INT) { *vsize = 4; *vfloat = 1; *ioff = 4; }
    else if (t == MPI_DOUBLE_INT) { *vsize = 8; *vfloat = 1; *ioff = 8; }
    else if (t == MPI_LONG_INT) { *vsize = 8; *vfloat = 0; *ioff = 8; }
    else if (t == MPI_SHORT_INT) { *vsize = 2; *vfloat = 0; *ioff = 4; }
    else if (t == MPI_LONG_DOUBLE_INT) { *vsize = 16; *vfloat = 1; *ioff = 16; }
    else if (t == MPI_2REAL) { *vsize = 4; *vfloat = 1; *ifloat = 1; *ioff = 4; }
    else { *vsize = 8; *vfloat = 1; *isize = 8; *ifloat = 1; *ioff = 8; }
}

enum { N = 9 };

static void fill(const struct tcase *c, MPI_Op op, unsigned char *buf, MPI_Aint ext, int r)
{
    for (int i = 0; i < N; i++) {
        unsigned char *p = buf + i * ext;
        long double x = input(op, r, i);
        switch (c->g) {
        case G_FLOAT:
            put_num(p, c->size, 1, x);
            break;
        case G_COMPLEX:
            put_num(p, c->size, 1, x);
            put_num(p + c->size, c->size, 1, op == MPI_PROD ? 0 : r);
            break;
        case G_PAIR: {
            int vs, vf, is, ifl;
            MPI_Aint io;
            pair_parts(c->t, &vs, &vf, &is, &ifl, &io);
            put_num(p, vs, vf, x);
            put_num(p + io, is, ifl, r);
            break;
        }
        case G_BOOL:
            *(bool *)p = x != 0;
            break;
        default:
            put_num(p, c->size, 0, x);
            break;
        }
    }
}

static void verify(const struct tcase *c, MPI_Op op, const unsigned char *buf, MPI_Aint ext, const char *how)
{
    for (int i = 0; i < N; i++) {
        const unsigned char *p = buf + i * ext;
        long double index, want = expected(op, i, &index), got, got_index = 0;
        switch (c->g) {
        case G_FLOAT:
            got = get_num(c, p, c->size, 1);
            break;
        case G_COMPLEX: {
            got = get_num(c, p, c->size, 1);
            long double im = get_num(c, p + c->size, c->size, 1), want_im = 0;
            if (op == MPI_SUM)
                for (int r = 0; r < size; r++)
                    want_im += r;
            CHECK(im == want_im, "%s %s %s: element %d imaginary part %Lg, expected %Lg", how, c->name,
                  op == MPI_SUM ? "MPI_SUM" : "MPI_PROD", i, im, want_im);
            break;
        }
        case G_PAIR: {
            int vs, vf, is, ifl;
            MPI_Aint io;
            pair_parts(c->t, &vs, &vf, &is, &ifl, &io);
            got = get_num(c, p, vs, vf);
            got_index = get_num(c, p + io, is, ifl);
            break;
        }
        case G_BOOL:
            got = *(const bool *)p;
            want = want != 0;
            break;
        case G_LOGICAL:
            got = get_num(c, p, c->size, 0) != 0;
            want = want != 0;
            break;
        default:
            got = get_num(c, p, c->size, 0);
            break;
        }
        if (got != want || (c->g == G_PAIR && got_index != index)) {
            CHECK(0, "%s %s op %d: element %d is %Lg (index %Lg), expected %Lg (index %Lg)", how, c->name,
                  (int)(intptr_t)op, i, got, got_index, want, index);
            return;
        }
    }
}

static void test_predefined(void)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        const struct tcase *c = &types[ti];
        MPI_Aint lb, ext;
        MPI_Type_get_extent(c->t, &lb, &ext);
        unsigned char *in = calloc(N, ext), *out = calloc(N, ext), *all = calloc(N, ext);
        for (int oi = 0; oi < NOPS; oi++) {
            MPI_Op op = ops[oi].op;
            int ok = allowed(op, c->g);
            /* Validity: Reduce_local says yes or MPI_ERR_OP. */
            fill(c, op, in, ext, 0);
            int rc = MPI_Reduce_local(in, out, N, c->t, op);
            if (ok >= 0)
                CHECK(ok ? rc == MPI_SUCCESS : uzt_class(rc) == MPI_ERR_OP,
                      "MPI_Reduce_local(%s, %s) returned class %d, expected %s", ops[oi].name, c->name,
                      uzt_class(rc), ok ? "success" : "MPI_ERR_OP");
            if (ok != 1)
                continue;
            /* Values: Allreduce, Reduce to the last rank, and Reduce_local
             * over every rank's input in rank order. */
            fill(c, op, in, ext, rank);
            CHECK_MPI(MPI_Allreduce(in, out, N, c->t, op, MPI_COMM_WORLD));
            verify(c, op, out, ext, "MPI_Allreduce");
            memset(out, 0, N * ext);
            CHECK_MPI(MPI_Reduce(in, out, N, c->t, op, size - 1, MPI_COMM_WORLD));
            if (rank == size - 1)
                verify(c, op, out, ext, "MPI_Reduce");
            fill(c, op, all, ext, size - 1);
            for (int r = size - 2; r >= 0; r--) {
                fill(c, op, in, ext, r);
                CHECK_MPI(MPI_Reduce_local(in, all, N, c->t, op));
            }
            verify(c, op, all, ext, "MPI_Reduce_local");
        }
        free(in);
        free(out);
        free(all);
    }
}

/* ----------------------------------------------- non-commutative user op */

/* Each element is an affine map x -> a x + b (mod 2^32); combining f op g
 * gives g after f, composition: not commutative, associative.  The
 * reduction of ranks 0..p-1 in order is a known map. */
struct affine {
    uint32_t a, b;
};

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    struct affine *f = in, *g = inout;
    for (int i = 0; i < *len; i++) {
        /* inout = in op inout = inout(in(x)) */
        uint32_t a = g[i].a * f[i].a, b = g[i].a * f[i].b + g[i].b;
        g[i].a = a;
        g[i].b = b;
    }
}

static void compose_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    int n = (int)*len;
    compose(in, inout, &n, dt);
}

static struct affine map_of(int r, int i)
{
    return (struct affine){ (uint32_t)(2 * r + 3 + i), (uint32_t)(r * 7 + i + 1) };
}

/* Composition of ranks [from, to) in order. */
static struct affine chain(int from, int to, int i)
{
    struct affine acc = { 1, 0 };
    for (int r = from; r < to; r++) {
        struct affine f = map_of(r, i);
        acc = (struct affine){ f.a * acc.a, f.a * acc.b + f.b };
    }
    return acc;
}

static void check_maps(const struct affine *got, int n, int from, int to, int base, const char *how)
{
    for (int i = 0; i < n; i++) {
        struct affine want = chain(from, to, base + i);
        if (got[i].a != want.a || got[i].b != want.b) {
            CHECK(0, "%s: element %d is (%u,%u), expected (%u,%u) (ranks %d..%d in order)", how, i, got[i].a,
                  got[i].b, want.a, want.b, from, to - 1);
            return;
        }
    }
}

static void test_noncommutative(MPI_Op op, MPI_Datatype t, const char *opname)
{
    /* Vectors long enough that algorithms which split them do so. */
    enum { M = 3000 };
    struct affine *in = malloc(sizeof(*in) * M * size), *out = malloc(sizeof(*out) * M * size);
    char how[96];
    for (int i = 0; i < M * size; i++)
        in[i] = map_of(rank, i);
    for (int n = 1; n <= M; n = n == 1 ? 50 : n * 60) {
        for (int root = 0; root < size; root++) {
            memset(out, 0, sizeof(*out) * n);
            CHECK_MPI(MPI_Reduce(in, out, n, t, op, root, MPI_COMM_WORLD));
            snprintf(how, sizeof(how), "%s MPI_Reduce n=%d root=%d", opname, n, root);
            if (rank == root)
                check_maps(out, n, 0, size, 0, how);
        }
        CHECK_MPI(MPI_Allreduce(in, out, n, t, op, MPI_COMM_WORLD));
        snprintf(how, sizeof(how), "%s MPI_Allreduce n=%d", opname, n);
        check_maps(out, n, 0, size, 0, how);
        MPI_Request req;
        CHECK_MPI(MPI_Iallreduce(in, out, n, t, op, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        snprintf(how, sizeof(how), "%s MPI_Iallreduce n=%d", opname, n);
        check_maps(out, n, 0, size, 0, how);
        CHECK_MPI(MPI_Scan(in, out, n, t, op, MPI_COMM_WORLD));
        snprintf(how, sizeof(how), "%s MPI_Scan n=%d", opname, n);
        check_maps(out, n, 0, rank + 1, 0, how);
        CHECK_MPI(MPI_Exscan(in, out, n, t, op, MPI_COMM_WORLD));
        snprintf(how, sizeof(how), "%s MPI_Exscan n=%d", opname, n);
        if (rank > 0)
            check_maps(out, n, 0, rank, 0, how);
        CHECK_MPI(MPI_Reduce_scatter_block(in, out, n, t, op, MPI_COMM_WORLD));
        snprintf(how, sizeof(how), "%s MPI_Reduce_scatter_block n=%d", opname, n);
        check_maps(out, n, 0, size, rank * n, how);
    }
    free(in);
    free(out);
}

/* ---------------------------------------------- user op, derived datatype */

/* A struct {int; double} with a hole, summed field by field by a user op
 * that is told the struct datatype. */
struct rec {
    int i;
    double d;
};
static MPI_Datatype rec_type;

static void rec_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == rec_type, "user function got a different datatype");
    struct rec *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        b[k].i += a[k].i;
        b[k].d += a[k].d;
    }
}

static void test_user_derived(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(struct rec, i), offsetof(struct rec, d) };
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, disp, tys, &rec_type);
    MPI_Type_commit(&rec_type);
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(rec_sum, 1, &op));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(op, &commute));
    CHECK_EQ(commute, 1);
    for (int n = 1; n <= 5000; n *= 70) {
        struct rec *in = malloc(sizeof(*in) * n), *out = malloc(sizeof(*out) * n);
        for (int k = 0; k < n; k++)
            in[k] = (struct rec){ rank + k, 0.5 * rank + k };
        CHECK_MPI(MPI_Allreduce(in, out, n, rec_type, op, MPI_COMM_WORLD));
        for (int k = 0; k < n; k++) {
            int wi = size * (size - 1) / 2 + size * k;
            double wd = 0.25 * size * (size - 1) + size * k;
            if (out[k].i != wi || out[k].d != wd) {
                CHECK(0, "user op on struct type n=%d: element %d is (%d,%g), expected (%d,%g)", n, k, out[k].i,
                      out[k].d, wi, wd);
                break;
            }
        }
        free(in);
        free(out);
    }
    CHECK_MPI(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
    MPI_Type_free(&rec_type);
}

/* --------------------------------------------------------------- errors */

static void test_errors(void)
{
    int a[4] = { 0 }, b[4] = { 0 };
    double d[4] = { 0 };
    int rc = MPI_Allreduce(a, b, 4, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "MPI_SUM on MPI_BYTE: class %d", uzt_class(rc));
    rc = MPI_Allreduce(d, d + 2, 2, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "MPI_BAND on MPI_DOUBLE: class %d", uzt_class(rc));
    rc = MPI_Reduce(a, b, 2, MPI_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "MPI_MINLOC on MPI_INT: class %d", uzt_class(rc));
    rc = MPI_Allreduce(a, b, 2, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "MPI_REPLACE in MPI_Allreduce: class %d", uzt_class(rc));
    rc = MPI_Allreduce(a, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_BUFFER, "aliased buffers: class %d", uzt_class(rc));
    if (size > 1) {
        /* Rank 1's mistake is caught before anything is sent; its
         * corrected call then completes the others' reduction. */
        if (rank == 1) {
            rc = MPI_Reduce(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            CHECK(uzt_class(rc) == MPI_ERR_BUFFER, "MPI_IN_PLACE at a non-root: class %d", uzt_class(rc));
        }
        CHECK_MPI(MPI_Reduce(a, b, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    }
    MPI_Op sum = MPI_SUM;
    rc = MPI_Op_free(&sum);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "freeing MPI_SUM: class %d", uzt_class(rc));
    int commute = 0;
    CHECK_MPI(MPI_Op_commutative(MPI_MAX, &commute));
    CHECK_EQ(commute, 1);
    rc = MPI_Reduce_local(a, b, 2, MPI_INT, MPI_OP_NULL);
    CHECK(uzt_class(rc) == MPI_ERR_OP, "MPI_OP_NULL: class %d", uzt_class(rc));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    test_predefined();

    MPI_Datatype affine_t;
    MPI_Type_contiguous(2, MPI_UINT32_T, &affine_t);
    MPI_Type_commit(&affine_t);
    MPI_Op op, op_c;
    CHECK_MPI(MPI_Op_create(compose, 0, &op));
    CHECK_MPI(MPI_Op_create_c(compose_c, 0, &op_c));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(op, &commute));
    CHECK_EQ(commute, 0);
    test_noncommutative(op, affine_t, "MPI_Op_create");
    test_noncommutative(op_c, affine_t, "MPI_Op_create_c");
    MPI_Op_free(&op);
    MPI_Op_free(&op_c);
    MPI_Type_free(&affine_t);

    test_user_derived();
    test_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    return uzt_finish("coll_ops");
}
