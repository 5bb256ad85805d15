/*
 * comm_group.c — process groups: queries, translation, comparison, set
 * operations, inclusion and exclusion by lists and ranges, MPI_GROUP_EMPTY,
 * and the errors of invalid ranks, each with its class.
 *
 * Expected answers are written out by hand for the world group of n
 * processes (ranks 0..n-1), so they hold at every process count.
 */
#include "uztest.h"

static int n, me;

/* The members of g as world ranks. */
static void members(MPI_Group g, int *out, int *count)
{
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(g, count);
    int idx[64];
    for (int i = 0; i < *count; i++)
        idx[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, *count, idx, world, out));
    MPI_Group_free(&world);
}

static void expect_members(MPI_Group g, const int *want, int count, const char *what)
{
    int got[64], k;
    members(g, got, &k);
    CHECK(k == count, "%s: size %d, expected %d", what, k, count);
    for (int i = 0; i < k && i < count; i++)
        CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i],
              want[i]);
    int r;
    MPI_Group_rank(g, &r);
    int mine = MPI_UNDEFINED;
    for (int i = 0; i < count; i++)
        if (want[i] == me)
            mine = i;
    CHECK(r == mine, "%s: my rank %d, expected %d", what, r, mine);
}

static void test_queries(MPI_Group world)
{
    int s, r;
    CHECK_MPI(MPI_Group_size(world, &s));
    CHECK_MPI(MPI_Group_rank(world, &r));
    CHECK_EQ(s, n);
    CHECK_EQ(r, me);
    CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &s));
    CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK_EQ(s, 0);
    CHECK_EQ(r, MPI_UNDEFINED);

    MPI_Group self;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
    int zero = 0, w;
    CHECK_MPI(MPI_Group_translate_ranks(self, 1, &zero, world, &w));
    CHECK_EQ(w, me);
    int res;
    CHECK_MPI(MPI_Group_compare(self, world, &res));
    CHECK_EQ(res, n == 1 ? MPI_IDENT : MPI_UNEQUAL);
    MPI_Group_free(&self);
}

static void test_translate(MPI_Group world)
{
    /* Reverse group: world rank i is rank n-1-i. */
    int rev_ranks[64], in[64], out[64];
    for (int i = 0; i < n; i++)
        rev_ranks[i] = n - 1 - i;
    MPI_Group rev;
    CHECK_MPI(MPI_Group_incl(world, n, rev_ranks, &rev));
    for (int i = 0; i < n; i++)
        in[i] = i;
    in[n] = MPI_PROC_NULL;
    CHECK_MPI(MPI_Group_translate_ranks(world, n + 1, in, rev, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == n - 1 - i, "translate %d -> %d, expected %d", i, out[i], n - 1 - i);
    CHECK_EQ(out[n], MPI_PROC_NULL);

    int res;
    CHECK_MPI(MPI_Group_compare(world, rev, &res));
    CHECK_EQ(res, n == 1 ? MPI_IDENT : MPI_SIMILAR);

    /* Into the even ranks: odd ones are MPI_UNDEFINED. */
    MPI_Group even;
    int evens[] = { 0, n - 1, 2 };
    CHECK_MPI(MPI_Group_range_incl(world, 1, (int (*)[3])evens, &even));
    CHECK_MPI(MPI_Group_translate_ranks(world, n, in, even, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d into evens -> %d", i, out[i]);
    /* Zero ranks is fine, even with NULL arrays. */
    CHECK_MPI(MPI_Group_translate_ranks(world, 0, NULL, even, NULL));
    MPI_Group_free(&even);
    MPI_Group_free(&rev);
}

static void test_set_ops(MPI_Group world)
{
    /* A = evens, B = ranks 0, 1 and the last rank, in the order last, 0, 1. */
    int a_ranks[64], na = 0, b_ranks[3] = { n - 1, 0, 1 }, nb = n >= 3 ? 3 : n;
    if (n == 2) {
        b_ranks[0] = 1;
        b_ranks[1] = 0;
    }
    for (int i = 0; i < n; i += 2)
        a_ranks[na++] = i;
    MPI_Group a, b, u, x, d, d2;
    CHECK_MPI(MPI_Group_incl(world, na, a_ranks, &a));
    CHECK_MPI(MPI_Group_incl(world, nb, b_ranks, &b));

    /* Union: A's order, then B's members not in A in B's order. */
    int want[64], k = 0;
    for (int i = 0; i < na; i++)
        want[k++] = a_ranks[i];
    for (int i = 0; i < nb; i++)
        if (b_ranks[i] % 2)
            want[k++] = b_ranks[i];
    CHECK_MPI(MPI_Group_union(a, b, &u));
    expect_members(u, want, k, "union");

    /* Intersection: A's members in B, in A's order. */
    k = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (a_ranks[i] == b_ranks[j])
                want[k++] = a_ranks[i];
    CHECK_MPI(MPI_Group_intersection(a, b, &x));
    expect_members(x, want, k, "intersection");

    /* Difference A \ B. */
    k = 0;
    for (int i = 0; i < na; i++) {
        int inb = 0;
        for (int j = 0; j < nb; j++)
            inb |= a_ranks[i] == b_ranks[j];
        if (!inb)
            want[k++] = a_ranks[i];
    }
    CHECK_MPI(MPI_Group_difference(a, b, &d));
    expect_members(d, want, k, "difference");

    /* X \ X is empty, and empty results may be freed like any group. */
    CHECK_MPI(MPI_Group_difference(a, a, &d2));
    int s, res;
    MPI_Group_size(d2, &s);
    CHECK_EQ(s, 0);
    CHECK_MPI(MPI_Group_compare(d2, MPI_GROUP_EMPTY, &res));
    CHECK_EQ(res, MPI_IDENT);
    CHECK_MPI(MPI_Group_free(&d2));
    CHECK(d2 == MPI_GROUP_NULL, "freed group handle is not MPI_GROUP_NULL");

    /* Union with the empty group is the group itself. */
    MPI_Group ue;
    CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, b, &ue));
    CHECK_MPI(MPI_Group_compare(ue, b, &res));
    CHECK_EQ(res, MPI_IDENT);
    MPI_Group_free(&ue);

    /* Compare: a permutation of the same members is SIMILAR. */
    MPI_Group u2;
    CHECK_MPI(MPI_Group_union(b, a, &u2));
    CHECK_MPI(MPI_Group_compare(u, u2, &res));
    int same_order = 1;
    int m1[64], m2[64], k1, k2;
    members(u, m1, &k1);
    members(u2, m2, &k2);
    for (int i = 0; i < k1; i++)
        same_order &= m1[i] == m2[i];
    CHECK_EQ(res, same_order ? MPI_IDENT : MPI_SIMILAR);

    MPI_Group_free(&u2);
    MPI_Group_free(&u);
    MPI_Group_free(&x);
    MPI_Group_free(&d);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
}

static void test_incl_excl(MPI_Group world)
{
    MPI_Group g;
    int want[64], k;

    /* excl keeps the remaining members in order. */
    int ex[2] = { 0, n - 1 };
    int nex = n > 1 ? 2 : 1;
    CHECK_MPI(MPI_Group_excl(world, nex, ex, &g));
    k = 0;
    for (int i = 1; i < n - 1; i++)
        want[k++] = i;
    expect_members(g, want, k, "excl");
    MPI_Group_free(&g);

    /* incl of nothing is MPI_GROUP_EMPTY; excl of nothing is the group. */
    CHECK_MPI(MPI_Group_incl(world, 0, NULL, &g));
    CHECK(g == MPI_GROUP_EMPTY, "incl of 0 ranks is not MPI_GROUP_EMPTY");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_excl(world, 0, NULL, &g));
    int res;
    MPI_Group_compare(g, world, &res);
    CHECK_EQ(res, MPI_IDENT);
    MPI_Group_free(&g);

    /* range_incl with several triplets, a negative stride among them:
     * (n-1 .. 0 step -3) then (1 .. n-1 step 3). */
    int ranges[2][3] = { { n - 1, 0, -3 }, { 1, n - 1, 3 } };
    k = 0;
    for (int r = n - 1; r >= 0; r -= 3)
        want[k++] = r;
    int first_k = k;
    for (int r = 1; r <= n - 1; r += 3) {
        int dup = 0;
        for (int i = 0; i < first_k; i++)
            dup |= want[i] == r;
        if (!dup)
            want[k++] = r;
    }
    /* Only use the second range when it does not repeat a rank. */
    int nranges = n > 1 ? 2 : 1;
    for (int r = 1; r <= n - 1; r += 3)
        for (int i = 0; i < first_k; i++)
            if (want[i] == r)
                nranges = 1;
    if (nranges == 1)
        k = first_k;
    CHECK_MPI(MPI_Group_range_incl(world, nranges, ranges, &g));
    expect_members(g, want, k, "range_incl");
    MPI_Group_free(&g);

    /* range_excl of every other rank leaves the odd ones. */
    int evens[1][3] = { { 0, n - 1, 2 } };
    CHECK_MPI(MPI_Group_range_excl(world, 1, evens, &g));
    k = 0;
    for (int i = 1; i < n; i += 2)
        want[k++] = i;
    expect_members(g, want, k, "range_excl");
    MPI_Group_free(&g);

    /* A range whose stride overshoots "last" still includes "first". */
    int single[1][3] = { { n - 1, n - 1, 5 } };
    CHECK_MPI(MPI_Group_range_incl(world, 1, single, &g));
    want[0] = n - 1;
    expect_members(g, want, 1, "range_incl single");
    MPI_Group_free(&g);
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS, "%s succeeded, expected class %d", what, cls);
    CHECK(uzt_class(rc) == cls, "%s: error class %d, expected %d", what, uzt_class(rc), cls);
}

static void test_errors(MPI_Group world)
{
    MPI_Group g = MPI_GROUP_NULL;
    int bad[2] = { n, 0 }, neg[1] = { -1 }, twice[2] = { 0, 0 }, out[2];
    expect_class(MPI_Group_incl(world, 1, bad, &g), MPI_ERR_RANK, "incl of rank n");
    expect_class(MPI_Group_incl(world, 1, neg, &g), MPI_ERR_RANK, "incl of rank -1");
    expect_class(MPI_Group_excl(world, 1, bad, &g), MPI_ERR_RANK, "excl of rank n");
    if (n > 1)
        expect_class(MPI_Group_incl(world, 2, twice, &g), MPI_ERR_RANK, "incl of a rank twice");
    expect_class(MPI_Group_translate_ranks(world, 1, bad, world, out), MPI_ERR_RANK,
                 "translate of rank n");
    int r_out[1][3] = { { 0, n, 1 } }, r_zero[1][3] = { { 0, 0, 0 } };
    expect_class(MPI_Group_range_incl(world, 1, r_out, &g), MPI_ERR_RANK, "range past the end");
    expect_class(MPI_Group_range_excl(world, 1, r_out, &g), MPI_ERR_RANK, "range_excl past the end");
    expect_class(MPI_Group_range_incl(world, 1, r_zero, &g), MPI_ERR_ARG, "range with stride 0");
    int r_overlap[2][3] = { { 0, n - 1, 1 }, { 0, 0, 1 } };
    expect_class(MPI_Group_range_incl(world, 2, r_overlap, &g), MPI_ERR_RANK, "overlapping ranges");
    expect_class(MPI_Group_size(MPI_GROUP_NULL, out), MPI_ERR_GROUP, "size of MPI_GROUP_NULL");
    MPI_Group null = MPI_GROUP_NULL;
    expect_class(MPI_Group_free(&null), MPI_ERR_GROUP, "free of MPI_GROUP_NULL");
    CHECK(g == MPI_GROUP_NULL, "a failed call changed its output handle");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Group world;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    test_queries(world);
    test_translate(world);
    test_set_ops(world);
    test_incl_excl(world);
    test_errors(world);
    CHECK_MPI(MPI_Group_free(&world));
    return uzt_finish("comm_group");
}
