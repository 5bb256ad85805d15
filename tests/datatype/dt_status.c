/*
 * dt_status.c — MPI_Get_count, MPI_Get_elements(_x, _c) and
 * MPI_Status_set_elements(_x, _c) on statuses that say how many bytes
 * arrived (made with uz_status_set_bytes, as the request layer will),
 * including partial receives of derived types that end inside an element
 * of the type or inside a basic element, and MPI_Status_set_elements on
 * derived types of every shape (issue 22): what MPI_Get_elements returns is
 * exactly what was set, and MPI_Get_count is the number of whole types or
 * MPI_UNDEFINED, as MPICH 5 and Open MPI 5 answer too.
 */
#include "dt_check.h"
#include "pt2pt/status.h"

static MPI_Status with_bytes(MPI_Count bytes)
{
    MPI_Status s;
    memset(&s, 0, sizeof(s));
    uz_status_set_bytes(&s, bytes);
    return s;
}

#define CHECK_COUNTS(t, bytes, want_count, want_elems) \
    check_counts(__FILE__, __LINE__, #t, t, bytes, want_count, want_elems)

static void check_counts(const char *file, int line, const char *name, MPI_Datatype t,
                         MPI_Count bytes, MPI_Count want_count, MPI_Count want_elems)
{
    MPI_Status s = with_bytes(bytes);
    int c = -1, e = -1;
    MPI_Count cc = -1, ec = -1, ex = -1;
    CHECK_MPI(MPI_Get_count(&s, t, &c));
    CHECK_MPI(MPI_Get_count_c(&s, t, &cc));
    CHECK_MPI(MPI_Get_elements(&s, t, &e));
    CHECK_MPI(MPI_Get_elements_c(&s, t, &ec));
    CHECK_MPI(MPI_Get_elements_x(&s, t, &ex));
    int wc = want_count > 2147483647 ? MPI_UNDEFINED : (int)want_count;
    int we = want_elems > 2147483647 ? MPI_UNDEFINED : (int)want_elems;
    if (cc != want_count || c != wc || ec != want_elems || ex != want_elems || e != we)
        uzt_fail(file, line, "%s with %lld bytes: count %d/%lld elements %d/%lld/%lld, expected "
                 "count %lld elements %lld", name, (long long)bytes, c, (long long)cc, e,
                 (long long)ec, (long long)ex, (long long)want_count, (long long)want_elems);
}

static void test_basic(void)
{
    const MPI_Count U = MPI_UNDEFINED;
    CHECK_COUNTS(MPI_INT, 12, 3, 3);
    CHECK_COUNTS(MPI_INT, 6, U, U);
    CHECK_COUNTS(MPI_INT, 0, 0, 0);
    CHECK_COUNTS(MPI_DOUBLE, 24, 3, 3);
    CHECK_COUNTS(MPI_BYTE, 3000000000LL, 3000000000LL, 3000000000LL);  /* int forms: UNDEFINED */
    /* Pair types hold two basic elements each (their type maps have two
     * entries). */
    CHECK_COUNTS(MPI_2INT, 8, 1, 2);
    CHECK_COUNTS(MPI_2INT, 12, U, 3);
    CHECK_COUNTS(MPI_DOUBLE_INT, 32, U, 5);
    CHECK_COUNTS(MPI_DOUBLE_INT, 36, 3, 6);
    CHECK_COUNTS(MPI_SHORT_INT, 8, U, 3);       /* 6-byte pairs: a pair and a short */
    CHECK_COUNTS(MPI_SHORT_INT, 9, U, U);
    CHECK_COUNTS(MPI_SHORT_INT, 14, U, 5);
    CHECK_COUNTS(MPI_LONG_DOUBLE_INT, (MPI_Count)sizeof(long double), U, 1);
}

static void test_derived(void)
{
    const MPI_Count U = MPI_UNDEFINED;
    MPI_Datatype t;
    /* struct {int; double} (12 bytes, 2 elements) */
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                                     (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE }, &t));
    MPI_Type_commit(&t);
    CHECK_COUNTS(t, 24, 2, 4);
    CHECK_COUNTS(t, 28, U, 5);
    CHECK_COUNTS(t, 30, U, U);      /* ends inside a double */
    CHECK_COUNTS(t, 36, 3, 6);
    CHECK_COUNTS(t, 4, U, 1);
    MPI_Type_free(&t);

    /* struct {char; short; double}: element sizes 1, 2, 8 */
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 1, 1 }, (MPI_Aint[]){ 0, 2, 8 },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_SHORT, MPI_DOUBLE }, &t));
    MPI_Type_commit(&t);
    MPI_Count want[12] = { 0, 1, U, 2, U, U, U, U, U, U, U, 3 };
    for (int b = 0; b <= 11; b++)
        CHECK_COUNTS(t, b, b == 0 ? 0 : b == 11 ? 1 : U, want[b]);
    CHECK_COUNTS(t, 11 * 1000 + 3, U, 3002);
    MPI_Type_free(&t);

    /* vector(3, 2, 5) of ints: 6 elements of 4 bytes per item */
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &t));
    MPI_Type_commit(&t);
    for (int b = 0; b <= 48; b++)
        CHECK_COUNTS(t, b, b % 24 ? U : b / 24, b % 4 ? U : b / 4);
    MPI_Type_free(&t);

    /* struct of vector of indexed (28 ints) with a double tail */
    MPI_Datatype idx, vec;
    CHECK_MPI(MPI_Type_indexed(2, (int[]){ 1, 2 }, (int[]){ 0, 3 }, MPI_INT, &idx));
    CHECK_MPI(MPI_Type_vector(3, 1, 2, idx, &vec));
    CHECK_MPI(MPI_Type_create_struct(3, (int[]){ 1, 1, 2 }, (MPI_Aint[]){ 0, 200, 400 },
                                     (MPI_Datatype[]){ vec, MPI_DOUBLE, vec }, &t));
    MPI_Type_commit(&t);
    /* 9 ints, a double, 18 ints: 116 bytes, 28 elements */
    for (int b = 0; b <= 2 * 116; b += 4) {
        int in = b % 116, k = b / 116;
        MPI_Count e = in <= 36 ? in / 4 : in < 44 ? (in == 40 ? U : 9) : 10 + (in - 44) / 4;
        if (in > 36 && in < 44)
            e = U;
        CHECK_COUNTS(t, b, in ? U : k, e == U ? U : k * 28 + e);
    }
    MPI_Type_free(&t);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);

    /* A type with no data. */
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    MPI_Type_commit(&t);
    CHECK_COUNTS(t, 0, 0, 0);
    MPI_Type_free(&t);
}

static void test_set_elements(void)
{
    MPI_Status s;
    int c;
    MPI_Count cc;
    CHECK_MPI(MPI_Status_set_elements(&s, MPI_INT, 5));
    CHECK_MPI(MPI_Get_count(&s, MPI_INT, &c));
    CHECK_EQ(c, 5);
    CHECK_EQ(uz_status_bytes(&s), 20);
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_struct(2, (int[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                                     (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE }, &t));
    MPI_Type_commit(&t);
    CHECK_MPI(MPI_Status_set_elements(&s, t, 3));   /* one item and an int */
    CHECK_EQ(uz_status_bytes(&s), 16);
    CHECK_MPI(MPI_Get_elements(&s, t, &c));
    CHECK_EQ(c, 3);
    CHECK_MPI(MPI_Get_count(&s, t, &c));
    CHECK_EQ(c, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements_x(&s, t, 4));
    CHECK_MPI(MPI_Get_count(&s, t, &c));
    CHECK_EQ(c, 2);
    CHECK_MPI(MPI_Status_set_elements_c(&s, MPI_BYTE, 5000000000LL));
    CHECK_MPI(MPI_Get_count_c(&s, MPI_BYTE, &cc));
    CHECK_EQ(cc, 5000000000LL);
    CHECK_MPI(MPI_Get_count(&s, MPI_BYTE, &c));
    CHECK_EQ(c, MPI_UNDEFINED);
    CHECK_MPI(MPI_Status_set_elements(&s, MPI_2INT, 3));
    CHECK_EQ(uz_status_bytes(&s), 12);
    MPI_Type_free(&t);

    CHECK_CLASS(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Get_elements(&s, MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Status_set_elements(&s, MPI_INT, -1), MPI_ERR_COUNT);
}

/* MPI_Status_set_elements(_x, _c) with every element count up to three
 * types and a bit, then MPI_Get_elements(_x) and MPI_Get_count. */
static void check_set_round_trip(const char *name, MPI_Datatype t, MPI_Count per_type)
{
    for (MPI_Count n = 0; n <= 3 * per_type + 2; n++) {
        MPI_Status s;
        int e = -7, c = -7;
        MPI_Count ex = -7, cc = -7;
        MPI_Count want_count = n % per_type ? MPI_UNDEFINED : n / per_type;
        CHECK_MPI(MPI_Status_set_elements_x(&s, t, n));
        CHECK_MPI(MPI_Get_elements(&s, t, &e));
        CHECK_MPI(MPI_Get_elements_x(&s, t, &ex));
        CHECK_MPI(MPI_Get_count(&s, t, &c));
        CHECK_MPI(MPI_Get_count_c(&s, t, &cc));
        CHECK(e == n && ex == n && c == want_count && cc == want_count,
              "%s: set %lld elements, got elements %d/%lld count %d/%lld (want count %lld)", name,
              (long long)n, e, (long long)ex, c, (long long)cc, (long long)want_count);
        CHECK_MPI(MPI_Status_set_elements(&s, t, (int)n));
        CHECK_MPI(MPI_Get_elements_c(&s, t, &ex));
        CHECK(ex == n, "%s: int set %lld, got %lld", name, (long long)n, (long long)ex);
    }
}

static void test_set_elements_derived(void)
{
    MPI_Datatype t, u, v;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &t));
    MPI_Type_commit(&t);
    check_set_round_trip("contiguous(4, int)", t, 4);
    CHECK_MPI(MPI_Type_vector(3, 2, 5, t, &u));         /* 24 ints */
    MPI_Type_commit(&u);
    check_set_round_trip("vector of contiguous", u, 24);
    CHECK_MPI(MPI_Type_create_resized(u, -8, 1000, &v));
    MPI_Type_commit(&v);
    check_set_round_trip("resized vector", v, 24);
    MPI_Type_free(&v);
    MPI_Type_free(&u);
    MPI_Type_free(&t);

    /* Mixed sizes, pair types (two elements each) and empty blocks. */
    CHECK_MPI(MPI_Type_create_struct(4, (int[]){ 2, 0, 3, 1 }, (MPI_Aint[]){ 0, 16, 24, 64 },
                                     (MPI_Datatype[]){ MPI_CHAR, MPI_INT, MPI_SHORT_INT,
                                                       MPI_C_LONG_DOUBLE_COMPLEX }, &t));
    MPI_Type_commit(&t);
    check_set_round_trip("struct", t, 2 + 6 + 1);
    CHECK_MPI(MPI_Type_create_hindexed(2, (int[]){ 2, 1 }, (MPI_Aint[]){ 500, 0 }, t, &u));
    MPI_Type_commit(&u);
    check_set_round_trip("hindexed of struct, out of order", u, 27);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_contiguous(3, MPI_2INT, &t));
    MPI_Type_commit(&t);
    check_set_round_trip("contiguous(3, MPI_2INT)", t, 6);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_subarray(2, (int[]){ 5, 6 }, (int[]){ 2, 3 }, (int[]){ 1, 2 },
                                       MPI_ORDER_FORTRAN, MPI_DOUBLE_INT, &t));
    MPI_Type_commit(&t);
    check_set_round_trip("subarray of MPI_DOUBLE_INT", t, 12);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_basic();
    test_derived();
    test_set_elements();
    test_set_elements_derived();
    return uzt_finish("dt_status");
}
