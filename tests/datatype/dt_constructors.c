/*
 * dt_constructors.c — every datatype constructor and combiner: hand-computed
 * sizes, bounds and layouts (read back by packing numbered ints), the
 * envelope/contents round trip (the type is rebuilt from what
 * MPI_Type_get_contents returns and must pack the same bytes), large-count
 * variants, dup, resized (MPI_LB/MPI_UB semantics), nested types, Fortran
 * 90 types, names, freeing while in use, and the error classes of invalid
 * arguments.
 */
#include "dt_check.h"

/* ------------------------------------------------- rebuild from contents */

/* Rebuild a type from its envelope and contents, with the int or the _c
 * procedures as the contents say. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    MPI_Count ni, na, nl, nd;
    int comb;
    CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    int *I = malloc((ni + 1) * sizeof(int));
    MPI_Aint *A = malloc((na + 1) * sizeof(MPI_Aint));
    MPI_Count *L = malloc((nl + 1) * sizeof(MPI_Count));
    MPI_Datatype *D = malloc((nd + 1) * sizeof(MPI_Datatype));
    CHECK_MPI(MPI_Type_get_contents_c(t, ni, na, nl, nd, I, A, L, D));
    MPI_Datatype r = MPI_DATATYPE_NULL;
    int large = nl > 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
        CHECK_MPI(MPI_Type_dup(D[0], &r));
        break;
    case MPI_COMBINER_CONTIGUOUS:
        CHECK_MPI(large ? MPI_Type_contiguous_c(L[0], D[0], &r) : MPI_Type_contiguous(I[0], D[0], &r));
        break;
    case MPI_COMBINER_VECTOR:
        CHECK_MPI(large ? MPI_Type_vector_c(L[0], L[1], L[2], D[0], &r)
                        : MPI_Type_vector(I[0], I[1], I[2], D[0], &r));
        break;
    case MPI_COMBINER_HVECTOR:
        CHECK_MPI(large ? MPI_Type_create_hvector_c(L[0], L[1], L[2], D[0], &r)
                        : MPI_Type_create_hvector(I[0], I[1], A[0], D[0], &r));
        break;
    case MPI_COMBINER_INDEXED:
        CHECK_MPI(large ? MPI_Type_indexed_c(L[0], L + 1, L + 1 + L[0], D[0], &r)
                        : MPI_Type_indexed(I[0], I + 1, I + 1 + I[0], D[0], &r));
        break;
    case MPI_COMBINER_HINDEXED:
        CHECK_MPI(large ? MPI_Type_create_hindexed_c(L[0], L + 1, L + 1 + L[0], D[0], &r)
                        : MPI_Type_create_hindexed(I[0], I + 1, A, D[0], &r));
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        CHECK_MPI(large ? MPI_Type_create_indexed_block_c(L[0], L[1], L + 2, D[0], &r)
                        : MPI_Type_create_indexed_block(I[0], I[1], I + 2, D[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        CHECK_MPI(large ? MPI_Type_create_hindexed_block_c(L[0], L[1], L + 2, D[0], &r)
                        : MPI_Type_create_hindexed_block(I[0], I[1], A, D[0], &r));
        break;
    case MPI_COMBINER_STRUCT:
        CHECK_MPI(large ? MPI_Type_create_struct_c(L[0], L + 1, L + 1 + L[0], D, &r)
                        : MPI_Type_create_struct(I[0], I + 1, A, D, &r));
        break;
    case MPI_COMBINER_SUBARRAY:
        if (large) {
            int n = I[0];
            CHECK_MPI(MPI_Type_create_subarray_c(n, L, L + n, L + 2 * n, I[1], D[0], &r));
        } else {
            int n = I[0];
            CHECK_MPI(MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n],
                                               D[0], &r));
        }
        break;
    case MPI_COMBINER_DARRAY:
        if (large) {
            int n = I[2];
            CHECK_MPI(MPI_Type_create_darray_c(I[0], I[1], n, L, I + 3, I + 3 + n, I + 3 + 2 * n,
                                               I[3 + 3 * n], D[0], &r));
        } else {
            int n = I[2];
            CHECK_MPI(MPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n,
                                             I + 3 + 3 * n, I[3 + 4 * n], D[0], &r));
        }
        break;
    case MPI_COMBINER_RESIZED:
        CHECK_MPI(large ? MPI_Type_create_resized_c(D[0], L[0], L[1], &r)
                        : MPI_Type_create_resized(D[0], A[0], A[1], &r));
        break;
    default:
        CHECK(0, "unexpected combiner %d", comb);
    }
    /* Derived types in the contents are new references. */
    for (MPI_Count i = 0; i < nd; i++) {
        int ci, cn, ca, cd;
        MPI_Datatype d = D[i];
        MPI_Type_get_envelope(d, &cn, &ca, &cd, &ci);
        if (ci != MPI_COMBINER_NAMED)
            MPI_Type_free(&d);
    }
    free(I);
    free(A);
    free(L);
    free(D);
    if (r != MPI_DATATYPE_NULL)
        MPI_Type_commit(&r);
    return r;
}

/* The combiner is right, the type rebuilt from its contents is the same,
 * and (for int-made types) the int envelope agrees with the _c one. */
#define CHECK_ROUND_TRIP(t, comb) check_round_trip(__FILE__, __LINE__, #t, t, comb)

static void check_round_trip(const char *file, int line, const char *name, MPI_Datatype t,
                             int want_combiner)
{
    int ni, na, nd, comb;
    MPI_Count cni, cna, cnl, cnd;
    int ccomb;
    MPI_Type_get_envelope_c(t, &cni, &cna, &cnl, &cnd, &ccomb);
    if (ccomb != want_combiner)
        uzt_fail(file, line, "%s: combiner %d, expected %d", name, ccomb, want_combiner);
    int rc = MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (cnl == 0 && (rc != MPI_SUCCESS || ni != cni || na != cna || nd != cnd || comb != ccomb))
        uzt_fail(file, line, "%s: int envelope disagrees with the _c one", name);
    if (cnl > 0 && uzt_class(rc) != MPI_ERR_TYPE)
        uzt_fail(file, line, "%s: int envelope of a large-count type gave class %d", name,
                 uzt_class(rc));
    MPI_Datatype r = rebuild(t);
    if (r == MPI_DATATYPE_NULL || !dt_same_map(t, r, 3))
        uzt_fail(file, line, "%s: the type rebuilt from its contents differs", name);
    if (r != MPI_DATATYPE_NULL)
        MPI_Type_free(&r);
}

static MPI_Datatype committed(MPI_Datatype t)
{
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

/* --------------------------------------------------------------- tests */

static void test_contiguous_vector(void)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 12, 0, 12, 0, 12);
    int m0[] = { 0, 1, 2, 3, 4, 5 };
    CHECK_MAP(t, 2, m0, 6);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_CONTIGUOUS);
    {   /* contents exactly as given */
        int I[1], ni, na, nd, comb;
        MPI_Aint A[1];
        MPI_Datatype D[1];
        MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
        CHECK(ni == 1 && na == 0 && nd == 1, "contiguous envelope %d %d %d", ni, na, nd);
        MPI_Type_get_contents(t, 1, 0, 1, I, A, D);
        CHECK(I[0] == 3 && D[0] == MPI_INT, "contiguous contents");
    }
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free sets the handle to MPI_DATATYPE_NULL");

    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 24, 0, 48, 0, 48);
    int m1[] = { 0, 1, 5, 6, 10, 11, 12, 13, 17, 18, 22, 23 };
    CHECK_MAP(t, 2, m1, 12);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_VECTOR);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_vector(4, 1, -3, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 16, -36, 40, -36, 40);
    int m2[] = { 0, -3, -6, -9 };
    CHECK_MAP(t, 1, m2, 4);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_VECTOR);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hvector(3, 2, 28, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 24, 0, 64, 0, 64);
    int m3[] = { 0, 1, 7, 8, 14, 15, 16, 17, 23, 24, 30, 31 };
    CHECK_MAP(t, 2, m3, 12);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HVECTOR);
    MPI_Type_free(&t);

    /* hvector whose end is not aligned: the extent is padded to int. */
    CHECK_MPI(MPI_Type_create_hvector(2, 1, 5, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 8, 0, 12, 0, 9);
    MPI_Type_free(&t);

    /* Empty types. */
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 0, 0, 0, 0, 0);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_CONTIGUOUS);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_vector(0, 3, 2, MPI_DOUBLE, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
}

static void test_indexed_family(void)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_indexed(3, (int[]){ 2, 0, 3 }, (int[]){ 7, 1, -2 }, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 20, -8, 44, -8, 44);
    int m0[] = { 7, 8, -2, -1, 0, 18, 19, 9, 10, 11 };
    CHECK_MAP(t, 2, m0, 10);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_INDEXED);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, (int[]){ 9, 0, 4 }, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 24, 0, 44, 0, 44);
    int m1[] = { 9, 10, 0, 1, 4, 5, 20, 21, 11, 12, 15, 16 };
    CHECK_MAP(t, 2, m1, 12);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_INDEXED_BLOCK);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hindexed_block(2, 3, (MPI_Aint[]){ 40, 0 }, MPI_INT, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 24, 0, 52, 0, 52);
    int m2[] = { 10, 11, 12, 0, 1, 2 };
    CHECK_MAP(t, 1, m2, 6);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HINDEXED_BLOCK);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hindexed(3, (int[]){ 1, 2, 1 }, (MPI_Aint[]){ 8, 20, 0 }, MPI_INT,
                                       &t));
    t = committed(t);
    CHECK_BOUNDS(t, 16, 0, 28, 0, 28);
    int m3[] = { 2, 5, 6, 0, 9, 12, 13, 7, 16, 19, 20, 14 };
    CHECK_MAP(t, 3, m3, 12);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HINDEXED);
    MPI_Type_free(&t);

    /* Equally spaced equal blocks: the engine folds them into a stride,
     * the layout must not change. */
    CHECK_MPI(MPI_Type_create_indexed_block(4, 1, (int[]){ 0, 3, 6, 9 }, MPI_INT, &t));
    t = committed(t);
    int m4[] = { 0, 3, 6, 9, 10, 13, 16, 19 };
    CHECK_MAP(t, 2, m4, 8);
    MPI_Type_free(&t);
}

static void test_struct(void)
{
    MPI_Datatype v, t;
    CHECK_MPI(MPI_Type_vector(2, 2, 3, MPI_INT, &v));
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 2, 1 }, (MPI_Aint[]){ 0, 40, 100 },
                                     (MPI_Datatype[]){ MPI_INT, v, MPI_INT }, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 40, 0, 104, 0, 104);
    int m0[] = { 0, 10, 11, 13, 14, 15, 16, 18, 19, 25, 26, 36, 37, 39, 40, 41, 42, 44, 45, 51 };
    CHECK_MAP(t, 2, m0, 20);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_STRUCT);
    MPI_Type_free(&t);
    MPI_Type_free(&v);

    /* Padding to the strictest alignment inside (the standard's epsilon). */
    struct { double d; char c; } s;
    MPI_Aint d_c = (char *)&s.c - (char *)&s;
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, d_c },
                                     (MPI_Datatype[]){ MPI_DOUBLE, MPI_CHAR }, &t));
    CHECK_BOUNDS(t, 9, 0, (MPI_Aint)sizeof(s), 0, 9);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_STRUCT);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 2 },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_LONG_DOUBLE }, &t));
    CHECK_BOUNDS(t, 17, 0, 32, 0, 18);
    MPI_Type_free(&t);
    /* A block of length zero takes no part in the bounds. */
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 0 }, (MPI_Aint[]){ 0, 2 },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE }, &t));
    CHECK_BOUNDS(t, 1, 0, 1, 0, 1);
    MPI_Type_free(&t);
    /* Pair types inside a struct. */
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 10 },
                                     (MPI_Datatype[]){ MPI_FLOAT_INT, MPI_CHAR }, &t));
    CHECK_BOUNDS(t, 9, 0, 12, 0, 11);
    MPI_Type_free(&t);
}

/* struct of vector of indexed, with hand-computed layout. */
static void test_nested(void)
{
    MPI_Datatype idx, vec, t;
    CHECK_MPI(MPI_Type_indexed(2, (int[]){ 1, 2 }, (int[]){ 0, 3 }, MPI_INT, &idx));
    CHECK_BOUNDS(idx, 12, 0, 20, 0, 20);
    CHECK_MPI(MPI_Type_vector(3, 1, 2, idx, &vec));
    CHECK_BOUNDS(vec, 36, 0, 100, 0, 100);
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 1, 2 }, (MPI_Aint[]){ 0, 200, 400 },
                                     (MPI_Datatype[]){ vec, MPI_INT, vec }, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 112, 0, 600, 0, 600);
    int m[] = { 0, 3, 4, 10, 13, 14, 20, 23, 24, 50, 100, 103, 104, 110, 113, 114, 120, 123, 124,
                125, 128, 129, 135, 138, 139, 145, 148, 149 };
    CHECK_MAP(t, 1, m, 28);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_STRUCT);
    CHECK_ROUND_TRIP(vec, MPI_COMBINER_VECTOR);
    CHECK_ROUND_TRIP(idx, MPI_COMBINER_INDEXED);

    /* The inner types can be freed while the outer one is in use. */
    MPI_Type_free(&idx);
    MPI_Type_free(&vec);
    CHECK_MAP(t, 1, m, 28);
    /* ... and get_contents still hands them back, as new references. */
    MPI_Datatype D[3];
    int I[4];
    MPI_Aint A[3];
    CHECK_MPI(MPI_Type_get_contents(t, 4, 3, 3, I, A, D));
    CHECK(I[0] == 3 && I[1] == 1 && I[3] == 2 && A[2] == 400 && D[1] == MPI_INT,
          "struct contents");
    int want_vec[] = { 0, 3, 4, 10, 13, 14, 20, 23, 24 };
    CHECK_MAP(D[0], 1, want_vec, 9);
    CHECK_ROUND_TRIP(D[0], MPI_COMBINER_VECTOR);
    MPI_Type_free(&D[0]);
    MPI_Type_free(&D[2]);
    MPI_Type_free(&t);

    /* Deep chains of constructors stay correct: a doubling one (11
     * levels) and a struct chain deeper than the cursor's frames, which
     * the engine flattens. */
    MPI_Datatype cur = MPI_INT;
    int total = 1;
    while (total < 2048) {
        MPI_Datatype next;
        MPI_Aint lb, ext;
        MPI_Type_get_extent(cur, &lb, &ext);
        CHECK_MPI(MPI_Type_create_hindexed(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, ext + 4 }, cur,
                                           &next));
        if (cur != MPI_INT)
            MPI_Type_free(&cur);
        cur = next;
        total *= 2;
    }
    cur = committed(cur);
    MPI_Count sz;
    MPI_Type_size_x(cur, &sz);
    CHECK_EQ(sz, (MPI_Count)total * 4);
    /* x(L) = x(L-1) followed by x(L-1) shifted by ext(L-1) + 1 ints. */
    static int want[4096];
    int n = 1, ext = 1;
    want[0] = 0;
    while (n < total) {
        for (int i = 0; i < n; i++)
            want[n + i] = want[i] + ext + 1;
        n *= 2;
        ext = 2 * ext + 1;
    }
    CHECK_MAP(cur, 1, want, total);
    MPI_Type_free(&cur);

    cur = MPI_INT;
    for (int level = 1; level <= 40; level++) {
        MPI_Datatype next;
        MPI_Aint lb, e;
        MPI_Type_get_extent(cur, &lb, &e);
        CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, e + 4 },
                                         (MPI_Datatype[]){ cur, MPI_INT }, &next));
        if (cur != MPI_INT)
            MPI_Type_free(&cur);
        cur = next;
    }
    cur = committed(cur);
    for (int i = 0; i <= 40; i++)
        want[i] = 2 * i;
    CHECK_MAP(cur, 1, want, 41);
    CHECK_BOUNDS(cur, 41 * 4, 0, 81 * 4, 0, 81 * 4);
    for (int i = 0; i <= 40; i++)
        want[41 + i] = 81 + 2 * i;
    CHECK_MAP(cur, 2, want, 82);
    MPI_Type_free(&cur);
}

static void test_resized_dup(void)
{
    MPI_Datatype r, t;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &r));
    r = committed(r);
    CHECK_BOUNDS(r, 4, -4, 12, 0, 4);
    CHECK_ROUND_TRIP(r, MPI_COMBINER_RESIZED);
    CHECK_MPI(MPI_Type_contiguous(3, r, &t));
    t = committed(t);
    CHECK_BOUNDS(t, 12, -4, 36, 0, 28);
    int m[] = { 0, 3, 6, 9, 12, 15 };
    CHECK_MAP(t, 2, m, 6);
    MPI_Type_free(&t);

    /* Explicit bounds are sticky: only markers count in a struct that
     * contains a resized type, and no padding is added (the MPI_LB/MPI_UB
     * rule). */
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 40 },
                                     (MPI_Datatype[]){ r, MPI_DOUBLE }, &t));
    CHECK_BOUNDS(t, 12, -4, 12, 0, 48);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 100, 0 },
                                     (MPI_Datatype[]){ r, MPI_CHAR }, &t));
    CHECK_BOUNDS(t, 5, 96, 12, 0, 104);
    MPI_Type_free(&t);

    /* Resized to the same extent keeps a contiguous layout contiguous. */
    MPI_Datatype d;
    CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &d));
    CHECK_MPI(MPI_Type_create_resized_c(d, -8, 32, &t));
    CHECK_BOUNDS(t, 8, -8, 32, 0, 8);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_RESIZED);
    MPI_Type_free(&t);
    MPI_Type_free(&d);

    /* dup: same layout, combiner DUP, committed state kept. */
    MPI_Datatype v, dv;
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    v = committed(v);
    CHECK_MPI(MPI_Type_dup(v, &dv));
    CHECK_ROUND_TRIP(dv, MPI_COMBINER_DUP);
    CHECK(dt_same_map(v, dv, 3), "dup packs the same");
    int ni, na, nd, comb;
    MPI_Datatype D[1];
    MPI_Type_get_envelope(dv, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1, "dup envelope");
    MPI_Type_get_contents(dv, 0, 0, 1, NULL, NULL, D);
    CHECK(D[0] == v, "dup contents return the original handle");
    MPI_Type_free(&D[0]);
    int pos = 0;
    char out[64];
    CHECK_MPI(MPI_Pack(dt_numbers(), 1, dv, out, sizeof(out), &pos, MPI_COMM_WORLD));
    MPI_Type_free(&dv);
    MPI_Type_free(&v);
    MPI_Type_free(&r);

    /* dup of a predefined type */
    CHECK_MPI(MPI_Type_dup(MPI_DOUBLE, &dv));
    CHECK_BOUNDS(dv, 8, 0, 8, 0, 8);
    CHECK_ROUND_TRIP(dv, MPI_COMBINER_DUP);
    MPI_Type_free(&dv);
}

static void test_large_count(void)
{
    MPI_Datatype t, u;
    CHECK_MPI(MPI_Type_contiguous_c(3, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_CONTIGUOUS);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t));
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &u));
    CHECK(dt_same_map(t, u, 2), "vector_c == vector");
    CHECK_ROUND_TRIP(t, MPI_COMBINER_VECTOR);
    {
        MPI_Count ni, na, nl, nd, L[3];
        int comb;
        MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb);
        CHECK(ni == 0 && na == 0 && nl == 3 && nd == 1, "vector_c envelope");
        MPI_Datatype D[1];
        MPI_Type_get_contents_c(t, 0, 0, 3, 1, NULL, NULL, L, D);
        CHECK(L[0] == 3 && L[1] == 2 && L[2] == 5, "vector_c contents");
        int I[3];
        MPI_Aint A[1];
        CHECK_CLASS(MPI_Type_get_contents(t, 3, 1, 1, I, A, D), MPI_ERR_TYPE);
    }
    MPI_Type_free(&t);
    MPI_Type_free(&u);
    CHECK_MPI(MPI_Type_create_hvector_c(3, 2, 28, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HVECTOR);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_indexed_c(3, (MPI_Count[]){ 2, 0, 3 }, (MPI_Count[]){ 7, 1, -2 }, MPI_INT,
                                 &t));
    int m0[] = { 7, 8, -2, -1, 0, 18, 19, 9, 10, 11 };
    t = committed(t);
    CHECK_MAP(t, 2, m0, 10);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_INDEXED);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_hindexed_c(3, (MPI_Count[]){ 1, 2, 1 }, (MPI_Count[]){ 8, 20, 0 },
                                         MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HINDEXED);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, (MPI_Count[]){ 9, 0, 4 }, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_INDEXED_BLOCK);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_hindexed_block_c(2, 3, (MPI_Count[]){ 40, 0 }, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_HINDEXED_BLOCK);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_struct_c(2, (MPI_Count[]){ 1, 3 }, (MPI_Count[]){ 0, 16 },
                                       (MPI_Datatype[]){ MPI_DOUBLE, MPI_INT }, &t));
    CHECK_BOUNDS(t, 20, 0, 32, 0, 28);
    CHECK_ROUND_TRIP(t, MPI_COMBINER_STRUCT);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_subarray_c(2, (MPI_Count[]){ 4, 5 }, (MPI_Count[]){ 2, 3 },
                                         (MPI_Count[]){ 1, 1 }, MPI_ORDER_C, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_SUBARRAY);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_darray_c(4, 3, 2, (MPI_Count[]){ 5, 7 },
                                       (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
                                       (int[]){ MPI_DISTRIBUTE_DFLT_DARG, 2 }, (int[]){ 2, 2 },
                                       MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_DARRAY);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, 0, 8, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_RESIZED);
    MPI_Type_free(&t);
}

static void test_array_round_trips(void)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_subarray(3, (int[]){ 4, 5, 6 }, (int[]){ 2, 3, 2 },
                                       (int[]){ 1, 1, 3 }, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_SUBARRAY);
    {
        int ni, na, nd, comb, I[11];
        MPI_Aint A[1];
        MPI_Datatype D[1];
        MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
        CHECK(ni == 11 && na == 0 && nd == 1, "subarray envelope");
        MPI_Type_get_contents(t, 11, 0, 1, I, A, D);
        CHECK(I[0] == 3 && I[1] == 4 && I[4] == 2 && I[9] == 3 && I[10] == MPI_ORDER_FORTRAN &&
              D[0] == MPI_DOUBLE, "subarray contents");
    }
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_darray(6, 4, 2, (int[]){ 10, 7 },
                                     (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
                                     (int[]){ MPI_DISTRIBUTE_DFLT_DARG, 2 }, (int[]){ 3, 2 },
                                     MPI_ORDER_C, MPI_FLOAT, &t));
    CHECK_ROUND_TRIP(t, MPI_COMBINER_DARRAY);
    MPI_Type_free(&t);
}

static void test_predefined_and_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, ni, na, nd, comb;
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10, "name of MPI_DOUBLE: %s", name);
    MPI_Type_get_name(MPI_2INT, name, &len);
    CHECK(strcmp(name, "MPI_2INT") == 0, "name of MPI_2INT: %s", name);
    MPI_Type_get_envelope(MPI_FLOAT_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
    CHECK_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);

    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_Type_get_name(t, name, &len);
    CHECK(len == 0 && name[0] == 0, "a new type has an empty name");
    CHECK_MPI(MPI_Type_set_name(t, "pair of ints"));
    MPI_Type_get_name(t, name, &len);
    CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "set name: %s", name);
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[299] = 0;
    CHECK_MPI(MPI_Type_set_name(t, longname));
    MPI_Type_get_name(t, name, &len);
    CHECK_EQ(len, MPI_MAX_OBJECT_NAME - 1);
    MPI_Type_free(&t);

    /* The pair types, bounds as the C compiler lays them out. */
    struct { double v; int i; } di;
    struct { short v; int i; } si;
    struct { long double v; int i; } ldi;
    CHECK_BOUNDS(MPI_DOUBLE_INT, 12, 0, (MPI_Aint)sizeof(di), 0, 12);
    CHECK_BOUNDS(MPI_SHORT_INT, 6, 0, (MPI_Aint)sizeof(si), 0, 8);
    CHECK_BOUNDS(MPI_LONG_DOUBLE_INT, (MPI_Count)sizeof(long double) + 4, 0, (MPI_Aint)sizeof(ldi),
                 0, (MPI_Aint)sizeof(long double) + 4);
    CHECK_BOUNDS(MPI_2INT, 8, 0, 8, 0, 8);

    /* match_size, f90 types, value_index */
    MPI_Datatype m;
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    CHECK(m == MPI_DOUBLE_PRECISION, "match REAL 8");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK(m == MPI_INTEGER, "match INTEGER 4");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
    CHECK(m == MPI_DOUBLE_COMPLEX, "match COMPLEX 16");
    CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_match_size(77, 4, &m), MPI_ERR_ARG);

    MPI_Datatype f, f2;
    CHECK_MPI(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &f));
    CHECK_MPI(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &f2));
    CHECK(f == f2, "the same f90 arguments give the same handle");
    CHECK_BOUNDS(f, 8, 0, 8, 0, 8);
    MPI_Type_get_envelope(f, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0, "f90 real envelope");
    int I[2];
    MPI_Type_get_contents(f, 2, 0, 0, I, NULL, NULL);
    CHECK(I[0] == 10 && I[1] == MPI_UNDEFINED, "f90 real contents");
    CHECK_CLASS(MPI_Type_free(&f), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_create_f90_integer(5, &f));
    CHECK_BOUNDS(f, 4, 0, 4, 0, 4);
    MPI_Type_get_envelope(f, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1, "f90 integer envelope");
    CHECK_MPI(MPI_Type_create_f90_complex(3, 20, &f));
    CHECK_BOUNDS(f, 8, 0, 8, 0, 8);
    CHECK_CLASS(MPI_Type_create_f90_real(40, 5000, &f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_f90_integer(40, &f), MPI_ERR_ARG);

    MPI_Datatype p;
    CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &p));
    CHECK(p == MPI_DOUBLE_INT, "value_index double,int");
    CHECK_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &p));
    CHECK(p == MPI_DATATYPE_NULL, "value_index char,int");
}

static void test_errors(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, v;
    CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(-1, NULL, NULL, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct(-1, NULL, NULL, NULL, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_vector(2, 1, 1, (MPI_Datatype)0x2ff, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                                       (MPI_Datatype[]){ MPI_INT, MPI_DATATYPE_NULL }, &t),
                MPI_ERR_TYPE);
    /* Negative blocklengths are invalid counts, in arrays as in scalars. */
    CHECK_CLASS(MPI_Type_indexed(2, (int[]){ 1, -1 }, (int[]){ 0, 4 }, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_hindexed(2, (int[]){ -3, 1 }, (MPI_Aint[]){ 0, 4 }, MPI_INT, &t),
                MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_struct(1, (int[]){ -1 }, (MPI_Aint[]){ 0 },
                                       (MPI_Datatype[]){ MPI_INT }, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_create_indexed_block(2, -1, (int[]){ 0, 4 }, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_indexed(2, NULL, (int[]){ 0, 4 }, MPI_INT, &t), MPI_ERR_ARG);

    /* subarray / darray */
    CHECK_CLASS(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 5 }, (int[]){ 0 }, MPI_ORDER_C,
                                         MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 2 }, (int[]){ 3 }, MPI_ORDER_C,
                                         MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(1, (int[]){ 0 }, (int[]){ 0 }, (int[]){ 0 }, MPI_ORDER_C,
                                         MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 2 }, (int[]){ 0 }, 99, MPI_INT,
                                         &t), MPI_ERR_ARG);
    int gs[1] = { 10 }, di[1] = { MPI_DISTRIBUTE_BLOCK }, da[1] = { MPI_DISTRIBUTE_DFLT_DARG },
        ps[1] = { 2 };
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, gs, di, da, ps, 77, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Type_create_darray(3, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* psizes do not multiply to size */
    CHECK_CLASS(MPI_Type_create_darray(2, 2, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* rank out of range */
    di[0] = 1234;
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* unknown distribution */
    di[0] = MPI_DISTRIBUTE_BLOCK;
    da[0] = 4;
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* 2 blocks of 4 do not cover 10 */
    di[0] = MPI_DISTRIBUTE_NONE;
    da[0] = MPI_DISTRIBUTE_DFLT_DARG;
    CHECK_CLASS(MPI_Type_create_darray(2, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* NONE needs psize 1 */
    ps[0] = 0;
    di[0] = MPI_DISTRIBUTE_CYCLIC;
    CHECK_CLASS(MPI_Type_create_darray(1, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* psize 0 */
    ps[0] = 1;
    da[0] = -2;
    CHECK_CLASS(MPI_Type_create_darray(1, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);   /* negative cyclic block */

    /* Freeing predefined types; using uncommitted types for data. */
    MPI_Datatype pre = MPI_INT;
    CHECK_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    CHECK(pre == MPI_INT, "a failed free leaves the handle alone");
    pre = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_commit(&pre), MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &v));
    int in[2] = { 1, 2 }, pos = 0;
    char out[16];
    CHECK_CLASS(MPI_Pack(in, 1, v, out, sizeof(out), &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Unpack(out, sizeof(out), &pos, in, 1, v, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_free(&v);

    /* contents arrays too small */
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    int I[2];
    MPI_Datatype D[1];
    CHECK_CLASS(MPI_Type_get_contents(v, 2, 0, 1, I, NULL, D), MPI_ERR_ARG);
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_contiguous_vector();
    test_indexed_family();
    test_struct();
    test_nested();
    test_resized_dup();
    test_large_count();
    test_array_round_trips();
    test_predefined_and_names();
    test_errors();
    return uzt_finish("dt_constructors");
}
