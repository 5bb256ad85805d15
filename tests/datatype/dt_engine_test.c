/*
 * dt_engine_test.c — the datatype engine's internal interface
 * (datatype/dt_engine.h) that the request layer, transports and one-sided
 * operations use: the cursor packing and unpacking in pieces of odd sizes
 * from odd offsets, seeking, iovec generation (coverage, merging, limits),
 * the contiguity flags, element counting both ways, homogeneous basic
 * types, the serialized form (round trip, and rejection of corrupt input),
 * retain/release, and the attribute engine's kind checks.
 *
 * Linked against the library's objects, since these symbols are hidden in
 * libmpi_abi.so.
 */
#include "dt_check.h"

#include "base/attr.h"
#include "datatype/dt_engine.h"

enum { SENT = 0xa5 };

static unsigned char *mem;              /* user memory the types describe */
static unsigned char *whole, *pieces;   /* packed streams */
static unsigned char *out1, *out2;      /* unpack targets */
enum { MEM = 1 << 20, ORIGIN = MEM / 2 };

static uz_datatype *obj(MPI_Datatype t)
{
    return uz_datatype_get(t);
}

/* Pseudo-random sizes, reproducible. */
static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* Types whose copies overlap in memory: unpacking into them is not
 * well-defined (later bytes win), so only packing is compared. */
static int overlapping;

static void check_cursor(const char *name, MPI_Datatype t, int count)
{
    uz_datatype *dt = obj(t);
    size_t total = (size_t)count * (size_t)dt->size;
    if (total > MEM / 4) {
        CHECK(0, "%s too large for the test", name);
        return;
    }
    uzt_fill(mem, MEM, 3, count);
    const void *buf = mem + ORIGIN;
    CHECK_EQ(uz_dt_pack(buf, count, dt, whole), total);

    /* Pack in pieces of sizes 1, 2, 3, ... and random ones. */
    for (int mode = 0; mode < 3; mode++) {
        struct uz_dt_cursor c;
        uz_dt_cursor_init(&c, buf, count, dt);
        CHECK_EQ(uz_dt_cursor_remaining(&c), total);
        size_t done = 0, step = 1;
        while (done < total) {
            size_t want = mode == 0 ? step++ : mode == 1 ? 7 : 1 + rnd(97);
            size_t got = uz_dt_cursor_pack(&c, pieces + done, want);
            size_t left = total - done;
            CHECK(got == (want < left ? want : left), "%s: piece of %zu gave %zu", name, want, got);
            if (got == 0)
                break;
            done += got;
        }
        CHECK(uz_dt_cursor_pack(&c, pieces, 10) == 0, "%s: pack after the end", name);
        CHECK(memcmp(whole, pieces, total) == 0, "%s: piecewise pack (mode %d) differs", name,
              mode);
    }

    /* Seek anywhere and pack a little. */
    for (int k = 0; k < 200 && total > 0; k++) {
        size_t off = k < 3 ? (k == 0 ? 0 : k == 1 ? total - 1 : total / 2) : rnd((unsigned)total);
        size_t len = 1 + rnd(41);
        struct uz_dt_cursor c;
        uz_dt_cursor_init(&c, buf, count, dt);
        uz_dt_cursor_seek(&c, off);
        CHECK_EQ(uz_dt_cursor_remaining(&c), total - off);
        size_t got = uz_dt_cursor_pack(&c, pieces, len);
        size_t exp = len < total - off ? len : total - off;
        if (got != exp || memcmp(pieces, whole + off, got) != 0) {
            CHECK(0, "%s: pack of %zu at offset %zu wrong", name, len, off);
            break;
        }
    }

    /* Unpack in pieces into a sentinel buffer: same as the whole unpack. */
    memset(out1, SENT, MEM);
    memset(out2, SENT, MEM);
    CHECK_EQ(uz_dt_unpack(out1 + ORIGIN, count, dt, whole, total), total);
    struct uz_dt_cursor c;
    uz_dt_cursor_init(&c, out2 + ORIGIN, count, dt);
    size_t done = 0;
    while (done < total) {
        size_t got = uz_dt_cursor_unpack(&c, whole + done, 1 + rnd(29));
        if (got == 0)
            break;
        done += got;
    }
    CHECK_EQ(done, total);
    CHECK(memcmp(out1, out2, MEM) == 0, "%s: piecewise unpack differs", name);
    /* Again in large pieces, which hold several whole instances of inner
     * nodes (the unpack loops that work on many instances at once). */
    memset(out2, SENT, MEM);
    uz_dt_cursor_init(&c, out2 + ORIGIN, count, dt);
    for (done = 0; done < total;) {
        size_t got = uz_dt_cursor_unpack(&c, whole + done, 1 + rnd((unsigned)(total / 3 + 1)));
        if (got == 0)
            break;
        done += got;
    }
    CHECK_EQ(done, total);
    CHECK(memcmp(out1, out2, MEM) == 0, "%s: unpack in large pieces differs", name);
    /* ... and the unpacked data packs back to the same stream. */
    CHECK_EQ(uz_dt_pack(out1 + ORIGIN, count, dt, pieces), total);
    CHECK(memcmp(whole, pieces, total) == 0, "%s: pack(unpack(x)) != x", name);

    /* A partial unpack at an odd offset touches only its bytes. */
    if (total > 10 && !overlapping) {
        size_t off = 1 + rnd((unsigned)(total - 5)), len = 1 + rnd((unsigned)(total - off));
        memset(out2, SENT, MEM);
        uz_dt_cursor_init(&c, out2 + ORIGIN, count, dt);
        uz_dt_cursor_seek(&c, off);
        CHECK_EQ(uz_dt_cursor_unpack(&c, whole + off, len), len);
        memset(pieces, SENT, total);
        memcpy(pieces + off, whole + off, len);
        memset(out1, SENT, MEM);
        uz_dt_unpack(out1 + ORIGIN, count, dt, pieces, total);
        /* out1 now has SENT where the stream had SENT: the same as out2
         * wherever bytes of [off, off+len) did not land. */
        CHECK(memcmp(out1, out2, MEM) == 0, "%s: partial unpack at %zu+%zu", name, off, len);
    }

    /* iovecs: their memory, in order, is the packed stream. */
    for (int max_iov = 1; max_iov <= 5; max_iov += 2) {
        struct uz_dt_cursor ic;
        struct iovec iov[5];
        uz_dt_cursor_init(&ic, buf, count, dt);
        size_t at = 0;
        for (int calls = 0; calls < 1000000; calls++) {
            size_t bytes, limit = calls % 3 == 0 ? (size_t)-1 : 1 + rnd(300);
            int n = uz_dt_cursor_iov(&ic, iov, max_iov, limit, &bytes);
            if (n == 0)
                break;
            size_t sum = 0;
            for (int i = 0; i < n; i++) {
                CHECK(iov[i].iov_len > 0, "%s: empty iovec", name);
                if (at + sum + iov[i].iov_len > total) {
                    CHECK(0, "%s: iovecs run past the stream", name);
                    return;
                }
                if (memcmp(iov[i].iov_base, whole + at + sum, iov[i].iov_len) != 0)
                    CHECK(0, "%s: iovec %d at stream offset %zu has the wrong bytes", name, i,
                          at + sum);
                if (i > 0)
                    CHECK((char *)iov[i - 1].iov_base + iov[i - 1].iov_len != iov[i].iov_base,
                          "%s: adjacent runs were not merged", name);
                sum += iov[i].iov_len;
            }
            CHECK(sum == bytes && bytes <= limit, "%s: iov byte count %zu/%zu (limit %zu)", name,
                  sum, bytes, limit);
            at += sum;
        }
        CHECK(at == total, "%s: iovecs cover %zu of %zu bytes", name, at, total);
    }
}

static void check_serialize(const char *name, MPI_Datatype t)
{
    uz_datatype *dt = obj(t), *r = NULL;
    size_t n = uz_dt_serialized_size(dt);
    unsigned char *ser = malloc(n);
    uz_dt_serialize(dt, ser);
    CHECK_MPI(uz_dt_deserialize(ser, n, &r));
    if (r == NULL) {
        free(ser);
        return;
    }
    CHECK(r->size == dt->size && r->lb == dt->lb && r->extent == dt->extent &&
          r->true_lb == dt->true_lb && r->true_extent == dt->true_extent && r->committed &&
          r->contiguous == dt->contiguous && r->single_run == dt->single_run,
          "%s: rebuilt bounds differ", name);
    CHECK(uz_dt_homogeneous_basic(r) == uz_dt_homogeneous_basic(dt), "%s: rebuilt basic", name);
    uzt_fill(mem, MEM, 9, 1);
    size_t a = uz_dt_pack(mem + ORIGIN, 2, dt, whole), b = uz_dt_pack(mem + ORIGIN, 2, r, pieces);
    CHECK(a == b && memcmp(whole, pieces, a) == 0, "%s: rebuilt type packs differently", name);
    for (MPI_Count e = 0; e <= 2 * dt->size; e++)
        if (uz_dt_elements(dt, e) != uz_dt_elements(r, e)) {
            CHECK(0, "%s: rebuilt type counts elements differently", name);
            break;
        }
    uz_dt_release(r);

    /* Corruption never crashes: every single-byte change is either
     * refused or yields a type whose data stays where it was. */
    CHECK(uz_dt_deserialize(ser, n - 1, &r) != MPI_SUCCESS, "%s: short buffer accepted", name);
    CHECK(uz_dt_deserialize(ser, 8, &r) != MPI_SUCCESS, "%s: header-only buffer accepted", name);
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            ser[i] ^= (unsigned char)(1u << bit);
            r = NULL;
            if (uz_dt_deserialize(ser, n, &r) == MPI_SUCCESS) {
                CHECK(r->true_lb == dt->true_lb && r->true_extent == dt->true_extent,
                      "%s: a corrupt layout moved the data", name);
                uz_dt_pack(mem + ORIGIN, 1, r, pieces);
                uz_dt_release(r);
            }
            ser[i] ^= (unsigned char)(1u << bit);
        }
    }
    free(ser);
}

static void check_elements(const char *name, MPI_Datatype t)
{
    uz_datatype *dt = obj(t);
    for (MPI_Count b = 0; b <= 3 * dt->size; b++) {
        MPI_Count e = uz_dt_elements(dt, b);
        if (e != MPI_UNDEFINED && uz_dt_elements_to_bytes(dt, e) != b) {
            CHECK(0, "%s: %lld bytes are %lld elements, which are %lld bytes", name,
                  (long long)b, (long long)e, (long long)uz_dt_elements_to_bytes(dt, e));
            break;
        }
    }
    MPI_Count per = uz_dt_elements(dt, dt->size);
    for (MPI_Count e = 0; e <= 3 * per; e++)
        if (uz_dt_elements(dt, uz_dt_elements_to_bytes(dt, e)) != e) {
            CHECK(0, "%s: elements(bytes(%lld)) differs", name, (long long)e);
            break;
        }
}

/* Check a type; frees it unless keep. */
static void check_type_keep(const char *name, MPI_Datatype t, int keep)
{
    MPI_Type_commit(&t);
    for (int count = 1; count <= 3; count++)
        check_cursor(name, t, count);
    check_serialize(name, t);
    check_elements(name, t);
    if (!keep)
        MPI_Type_free(&t);
}

static void check_type(const char *name, MPI_Datatype t)
{
    check_type_keep(name, t, 0);
}

static void test_many_types(void)
{
    MPI_Datatype t, u, v;
    MPI_Type_vector(7, 3, 5, MPI_INT, &t);
    check_type("vector ints", t);
    MPI_Type_vector(50, 1, 3, MPI_CHAR, &t);
    check_type("vector chars", t);
    MPI_Type_vector(9, 2, 3, MPI_SHORT, &t);
    check_type("vector shorts", t);
    MPI_Type_vector(6, 1, 4, MPI_DOUBLE, &t);
    check_type("vector doubles", t);
    MPI_Type_vector(5, 1, 2, MPI_C_DOUBLE_COMPLEX, &t);
    check_type("vector 16-byte", t);
    MPI_Type_vector(4, 3, 7, MPI_LONG_DOUBLE, &t);
    check_type("vector 48-byte blocks", t);
    MPI_Type_vector(5, 2, -3, MPI_FLOAT, &t);
    check_type("negative stride", t);
    /* Runs of every length class the copy loops tell apart: 16-byte moves
     * with an overlapping tail, whole 64-byte groups, memcpy beyond 2 KiB. */
    for (int len = 17; len <= 2049; len = len < 100 ? len + 15 : len * 2 - 1) {
        char name[48];
        snprintf(name, sizeof(name), "vector of %d-byte runs", len);
        MPI_Type_vector(len < 1000 ? 7 : 3, len, len + 9, MPI_CHAR, &t);
        check_type(name, t);
    }
    MPI_Type_vector(3, 2048, 2100, MPI_CHAR, &t);
    check_type("vector of 2048-byte runs", t);
    MPI_Type_vector(3, 2049, 2100, MPI_CHAR, &t);
    check_type("vector of 2049-byte runs", t);
    MPI_Type_create_hvector(4, 5, 3, MPI_CHAR, &t);
    overlapping = 1;
    check_type("overlapping hvector", t);
    overlapping = 0;
    MPI_Type_indexed(4, (int[]){ 3, 1, 0, 2 }, (int[]){ 10, 0, 5, 4 }, MPI_INT, &t);
    check_type("indexed", t);
    struct { char c; double d; short s; } rec;
    MPI_Type_create_struct(3, (int[]){ 1, 1, 1 },
                           (MPI_Aint[]){ 0, (char *)&rec.d - (char *)&rec, (char *)&rec.s - (char *)&rec },
                           (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE, MPI_SHORT }, &u);
    MPI_Type_commit(&u);
    check_type_keep("struct", u, 1);
    MPI_Type_contiguous(3, u, &t);
    check_type("contig of struct", t);
    MPI_Type_create_subarray(3, (int[]){ 6, 5, 7 }, (int[]){ 3, 2, 4 }, (int[]){ 1, 2, 3 },
                             MPI_ORDER_C, MPI_FLOAT, &t);
    check_type("subarray 3d", t);
    MPI_Type_create_subarray(2, (int[]){ 6, 5 }, (int[]){ 3, 2 }, (int[]){ 1, 2 },
                             MPI_ORDER_FORTRAN, u, &t);
    check_type("subarray of struct", t);
    MPI_Type_create_darray(6, 3, 2, (int[]){ 11, 13 },
                           (int[]){ MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK }, (int[]){ 3, 5 },
                           (int[]){ 2, 3 }, MPI_ORDER_C, MPI_DOUBLE, &t);
    check_type("darray", t);
    MPI_Type_vector(40, 1, 40, MPI_FLOAT, &v);
    MPI_Type_create_hvector(40, 1, 4, v, &t);
    check_type("transpose", t);
    MPI_Type_free(&v);
    /* Columns of doubles, of 16-byte complexes, rows running backwards,
     * columns not starting at the origin, and too few columns to be
     * unpacked row by row. */
    MPI_Type_vector(33, 1, 37, MPI_DOUBLE, &v);
    MPI_Type_create_hvector(37, 1, 8, v, &t);
    check_type("transpose of doubles", t);
    MPI_Type_free(&v);
    MPI_Type_vector(9, 1, 12, MPI_C_DOUBLE_COMPLEX, &v);
    MPI_Type_create_hvector(12, 1, 16, v, &t);
    check_type("transpose of complexes", t);
    MPI_Type_free(&v);
    MPI_Type_vector(25, 1, -30, MPI_FLOAT, &v);
    MPI_Type_create_hvector(30, 1, 4, v, &t);
    check_type("transpose, rows backwards", t);
    MPI_Type_free(&v);
    /* (48 columns: the third copy of the 11 ends at column 37, so copies
     * never wrap onto the next row) */
    MPI_Type_create_subarray(2, (int[]){ 20, 48 }, (int[]){ 17, 1 }, (int[]){ 2, 5 },
                             MPI_ORDER_C, MPI_INT, &v);
    MPI_Datatype col;
    MPI_Type_create_resized(v, 0, 4, &col);
    MPI_Type_free(&v);
    MPI_Type_contiguous(11, col, &t);
    check_type("columns of a subarray", t);
    MPI_Type_free(&col);
    MPI_Type_vector(50, 1, 3, MPI_FLOAT, &v);
    MPI_Type_create_hvector(3, 1, 4, v, &t);
    check_type_keep("three columns", t, 1);
    MPI_Type_contiguous(2, t, &col);
    check_type("two transposes", col);
    MPI_Type_free(&t);
    MPI_Type_free(&v);
    MPI_Type_create_resized(MPI_INT, -4, 16, &v);
    MPI_Type_contiguous(5, v, &t);
    check_type("contig of resized", t);
    MPI_Type_create_struct(4, (int[]){ 1, 2, 1, 3 }, (MPI_Aint[]){ 0, 24, 64, 100 },
                           (MPI_Datatype[]){ MPI_FLOAT_INT, MPI_SHORT_INT, MPI_INT, MPI_LONG_DOUBLE_INT },
                           &t);
    check_type("struct of pairs", t);
    /* With the resized int inside, the struct's bounds are the markers'
     * (lb 60, extent 16), so consecutive copies overlap. */
    MPI_Type_create_struct(4, (int[]){ 1, 2, 1, 3 }, (MPI_Aint[]){ 0, 24, 64, 100 },
                           (MPI_Datatype[]){ MPI_FLOAT_INT, MPI_SHORT_INT, v, MPI_LONG_DOUBLE_INT },
                           &t);
    overlapping = 1;
    check_type("struct with markers", t);
    overlapping = 0;
    MPI_Type_free(&v);
    /* struct of vector of indexed */
    MPI_Datatype idx, vec;
    MPI_Type_indexed(3, (int[]){ 1, 2, 3 }, (int[]){ 0, 3, 9 }, MPI_DOUBLE, &idx);
    MPI_Type_vector(3, 2, 4, idx, &vec);
    MPI_Type_create_struct(3, (int[]){ 2, 1, 1 }, (MPI_Aint[]){ 0, 3000, 3100 },
                           (MPI_Datatype[]){ vec, MPI_CHAR, u }, &t);
    check_type("struct of vector of indexed", t);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    /* deeper than the cursor has frames */
    MPI_Datatype cur = MPI_INT;
    for (int level = 0; level < 30; level++) {
        MPI_Datatype next;
        MPI_Aint lb, e;
        MPI_Type_get_extent(cur, &lb, &e);
        MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, e + 2 },
                               (MPI_Datatype[]){ cur, MPI_SHORT }, &next);
        if (cur != MPI_INT)
            MPI_Type_free(&cur);
        cur = next;
    }
    check_type("30 levels", cur);
    MPI_Type_free(&u);
    MPI_Type_contiguous(0, MPI_INT, &t);
    MPI_Type_commit(&t);
    {
        struct uz_dt_cursor c;
        struct iovec iov[2];
        size_t bytes = 99;
        uz_dt_cursor_init(&c, mem, 5, obj(t));
        CHECK(uz_dt_cursor_pack(&c, whole, 10) == 0 && uz_dt_cursor_iov(&c, iov, 2, 10, &bytes) == 0 &&
              bytes == 0, "empty type");
        CHECK_EQ(uz_dt_elements(obj(t), 0), 0);
    }
    MPI_Type_free(&t);
}

static void test_contig_flags(void)
{
    MPI_Datatype t;
    struct { MPI_Datatype t; int contiguous, single_run; const char *name; } cases[6];
    MPI_Type_contiguous(3, MPI_INT, &cases[0].t);
    cases[0] = (typeof(cases[0])){ cases[0].t, 1, 1, "contiguous" };
    MPI_Type_vector(3, 2, 2, MPI_INT, &t);
    cases[1] = (typeof(cases[1])){ t, 1, 1, "vector stride == blocklength" };
    MPI_Type_vector(3, 1, 2, MPI_INT, &t);
    cases[2] = (typeof(cases[2])){ t, 0, 0, "strided vector" };
    MPI_Type_create_resized(MPI_INT, 0, 8, &t);
    cases[3] = (typeof(cases[3])){ t, 0, 1, "resized int" };
    MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                           (MPI_Datatype[]){ MPI_DOUBLE, MPI_CHAR }, &t);
    cases[4] = (typeof(cases[4])){ t, 0, 1, "padded struct" };
    MPI_Type_create_hindexed(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 4, 0 }, MPI_INT, &t);
    cases[5] = (typeof(cases[5])){ t, 0, 0, "blocks out of order" };
    for (int i = 0; i < 6; i++) {
        uz_datatype *dt = obj(cases[i].t);
        CHECK(dt->contiguous == cases[i].contiguous && dt->single_run == cases[i].single_run,
              "%s: contiguous %d single_run %d", cases[i].name, dt->contiguous, dt->single_run);
        CHECK(uz_dt_is_contig(dt, 1) == cases[i].single_run &&
              uz_dt_is_contig(dt, 2) == cases[i].contiguous, "%s: uz_dt_is_contig", cases[i].name);
        MPI_Type_free(&cases[i].t);
    }
    CHECK(obj(MPI_INT)->contiguous && !obj(MPI_DOUBLE_INT)->contiguous &&
          obj(MPI_DOUBLE_INT)->single_run && !obj(MPI_SHORT_INT)->single_run &&
          obj(MPI_FLOAT_INT)->contiguous, "predefined contiguity");
    /* A contiguous type with a non-zero true_lb: data at buf + true_lb. */
    MPI_Type_create_hindexed(1, (int[]){ 4 }, (MPI_Aint[]){ 12 }, MPI_INT, &t);
    MPI_Type_commit(&t);
    CHECK(obj(t)->single_run && obj(t)->true_lb == 12, "offset run");
    MPI_Type_free(&t);
}

static void test_basic_and_lifetime(void)
{
    MPI_Datatype t;
    MPI_Type_vector(100, 1, 2, MPI_DOUBLE, &t);
    CHECK_EQ(uz_dt_mean_run(obj(t)), 8);
    MPI_Type_free(&t);
    MPI_Type_vector(10, 32, 64, MPI_DOUBLE, &t);
    CHECK_EQ(uz_dt_mean_run(obj(t)), 256);
    MPI_Type_free(&t);
    MPI_Type_create_struct(3, (int[]){ 1, 1, 1 }, (MPI_Aint[]){ 0, 8, 16 },
                           (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE, MPI_SHORT }, &t);
    CHECK_EQ(uz_dt_mean_run(obj(t)), 11 / 2);     /* the double and the short touch */
    MPI_Type_free(&t);
    CHECK_EQ(uz_dt_mean_run(obj(MPI_DOUBLE)), 8);
    MPI_Type_vector(3, 2, 5, MPI_INT, &t);
    CHECK(uz_dt_homogeneous_basic(obj(t)) == obj(MPI_INT), "vector of int is int");
    MPI_Type_free(&t);
    MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                           (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE }, &t);
    CHECK(uz_dt_homogeneous_basic(obj(t)) == NULL, "mixed struct has no basic type");
    MPI_Type_free(&t);
    MPI_Type_contiguous(4, MPI_2INT, &t);
    CHECK(uz_dt_homogeneous_basic(obj(t)) == obj(MPI_2INT), "pairs stay pairs");
    MPI_Type_free(&t);
    MPI_Type_create_struct(2, (int[]){ 1, 0 }, (MPI_Aint[]){ 0, 8 },
                           (MPI_Datatype[]){ MPI_FLOAT, MPI_DOUBLE }, &t);
    CHECK(uz_dt_homogeneous_basic(obj(t)) == obj(MPI_FLOAT), "empty blocks do not count");
    MPI_Type_free(&t);

    /* A pending operation keeps a freed type alive. */
    MPI_Type_vector(4, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    uz_datatype *dt = obj(t);
    uz_dt_retain(dt);
    MPI_Type_free(&t);
    int src[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, dst[4];
    CHECK_EQ(uz_dt_pack(src, 1, dt, dst), 16);
    CHECK(dst[0] == 0 && dst[1] == 2 && dst[2] == 4 && dst[3] == 6, "freed type still works");
    uz_dt_release(dt);
}

static void test_attr_kinds(void)
{
    int comm_kv, flag;
    void *v;
    CHECK_MPI(uz_keyval_create(UZ_ATTR_COMM, NULL, NULL, NULL, &comm_kv));
    CHECK_CLASS(MPI_Type_set_attr(MPI_INT, comm_kv, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_INT, comm_kv, &v, &flag), MPI_ERR_KEYVAL);
    int k = comm_kv;
    CHECK_CLASS(MPI_Type_free_keyval(&k), MPI_ERR_KEYVAL);
    /* The engine serves other kinds through the same calls. */
    struct uz_attr_list *list = NULL, *copy = NULL;
    CHECK_MPI(uz_attr_set(UZ_ATTR_COMM, (void *)0x101, &list, comm_kv, (void *)5));
    CHECK_MPI(uz_attr_copy_all(UZ_ATTR_COMM, (void *)0x101, list, (void *)0x102, &copy));
    CHECK_EQ(uz_attr_count(copy), 0);   /* null copy function */
    CHECK_MPI(uz_attr_get(UZ_ATTR_COMM, list, comm_kv, &v, &flag));
    CHECK(flag && v == (void *)5, "comm attribute");
    CHECK_MPI(uz_attr_delete_all(UZ_ATTR_COMM, (void *)0x101, &list));
    CHECK(list == NULL, "list released");
    CHECK_MPI(uz_keyval_free(UZ_ATTR_COMM, &comm_kv));
    CHECK_EQ(comm_kv, MPI_KEYVAL_INVALID);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    mem = malloc(MEM);
    whole = malloc(MEM);
    pieces = malloc(MEM);
    out1 = malloc(MEM);
    out2 = malloc(MEM);
    test_many_types();
    test_contig_flags();
    test_basic_and_lifetime();
    test_attr_kinds();
    free(mem);
    free(whole);
    free(pieces);
    free(out1);
    free(out2);
    return uzt_finish("dt_engine_test");
}
