/*
 * comm_construct.c — MPI_Comm_split (colours, keys with ties, MPI_UNDEFINED,
 * splits of splits), MPI_Comm_create (one group, and disjoint groups),
 * MPI_Comm_create_group, MPI_Comm_split_type (shared memory and the
 * hardware-guided kinds), and creating and freeing many communicators so
 * that context ids must be reused.  Every new communicator is checked for
 * its members and their order, then carries point-to-point and collective
 * traffic.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <unistd.h>

#include "uztest.h"

static int n, me;

/* World rank of rank r of comm. */
static int world_of(MPI_Comm comm, int r)
{
    MPI_Group g, w;
    int out;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &r, w, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

/* comm must hold exactly the world ranks want[0..count) in that order;
 * then a ring exchange and an allreduce must see the right peers. */
static void expect_comm(MPI_Comm comm, const int *want, int count, const char *what)
{
    int size, rank;
    CHECK_MPI(MPI_Comm_size(comm, &size));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK(size == count, "%s: size %d, expected %d", what, size, count);
    if (size != count)
        return;
    for (int i = 0; i < count; i++)
        CHECK(world_of(comm, i) == want[i], "%s: rank %d is world %d, expected %d", what, i,
              world_of(comm, i), want[i]);
    CHECK(want[rank] == me, "%s: my rank %d holds world %d", what, rank, want[rank]);

    int right = (rank + 1) % size, left = (rank - 1 + size) % size, got = -1;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, comm,
                           MPI_STATUS_IGNORE));
    CHECK(got == want[left], "%s: ring got world %d from the left, expected %d", what, got,
          want[left]);
    int sum = 0, expect = 0;
    for (int i = 0; i < count; i++)
        expect += want[i];
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == expect, "%s: allreduce %d, expected %d", what, sum, expect);
}

/* Reference: world ranks with colour c, ordered by (key, world rank). */
static int reference_split(int (*color)(int), int (*key)(int), int c, int *out)
{
    int k = 0;
    for (int r = 0; r < n; r++)
        if (color(r) == c)
            out[k++] = r;
    for (int i = 1; i < k; i++)         /* insertion sort: stable on world rank */
        for (int j = i; j > 0 && key(out[j]) < key(out[j - 1]); j--) {
            int t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return k;
}

static int color_mod3(int r) { return r % 3; }
static int key_ties(int r) { return (n - r) / 2; }         /* pairs share a key */
static int color_undef(int r) { return r % 4 == 3 ? MPI_UNDEFINED : r % 2; }
static int key_zero(int r) { return 0; }
static int color_all(int r) { return 5; }
static int key_neg(int r) { return -r; }

static void check_split(int (*color)(int), int (*key)(int), const char *what)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color(me), key(me), &c));
    if (color(me) == MPI_UNDEFINED) {
        CHECK(c == MPI_COMM_NULL, "%s: MPI_UNDEFINED did not give MPI_COMM_NULL", what);
        return;
    }
    int want[64];
    int k = reference_split(color, key, color(me), want);
    expect_comm(c, want, k, what);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "%s: freed handle is not MPI_COMM_NULL", what);
}

static void test_split(void)
{
    check_split(color_mod3, key_ties, "split mod 3 with tied keys");
    check_split(color_undef, key_zero, "split with MPI_UNDEFINED");
    check_split(color_all, key_neg, "split reversing");

    /* A split of a split: halves, then each half by parity of its rank. */
    MPI_Comm half, quarter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me < n / 2, me, &half));
    int hr;
    MPI_Comm_rank(half, &hr);
    CHECK_MPI(MPI_Comm_split(half, hr % 2, -hr, &quarter));
    int want[64], k = 0;
    for (int r = n - 1; r >= 0; r--) {
        int rh = (r < n / 2) ? r : r - n / 2;       /* rank of r in its half */
        if ((r < n / 2) == (me < n / 2) && rh % 2 == hr % 2)
            want[k++] = r;
    }
    expect_comm(quarter, want, k, "split of a split");
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);
}

static void test_create(void)
{
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = { { 0, n - 1, 2 } };
    MPI_Group_range_incl(world, 1, range, &evens);

    /* Everyone passes the same group. */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    int want[64], k = 0;
    for (int r = 0; r < n; r += 2)
        want[k++] = r;
    if (me % 2 == 0) {
        expect_comm(c, want, k, "create evens");
        MPI_Comm_free(&c);
    } else {
        CHECK(c == MPI_COMM_NULL, "create: a non-member got a communicator");
    }

    /* Disjoint groups (MPI-2.2): each rank passes its own parity's group. */
    MPI_Group mine;
    int prange[1][3] = { { me % 2, n - 1, 2 } };
    MPI_Group_range_incl(world, 1, prange, &mine);
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
    k = 0;
    for (int r = me % 2; r < n; r += 2)
        want[k++] = r;
    expect_comm(c, want, k, "create disjoint");
    MPI_Comm_free(&c);

    /* create_group: only the members call, the two parities at once with
     * different tags, the odd group in reverse order. */
    MPI_Group g;
    int order[64];
    k = 0;
    if (me % 2 == 0) {
        for (int r = 0; r < n; r += 2)
            order[k++] = r;
    } else {
        for (int r = n - 1; r >= 0; r--)
            if (r % 2)
                order[k++] = r;
    }
    MPI_Group_incl(world, k, order, &g);
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, me % 2 ? 77 : 78, &c));
    expect_comm(c, order, k, "create_group");
    /* And a create_group inside the new communicator, of its first half. */
    MPI_Comm sub = MPI_COMM_NULL;
    int cr;
    MPI_Comm_rank(c, &cr);
    if (cr < (k + 1) / 2) {
        MPI_Group cg, h;
        MPI_Comm_group(c, &cg);
        int hr[1][3] = { { 0, (k + 1) / 2 - 1, 1 } };
        MPI_Group_range_incl(cg, 1, hr, &h);
        CHECK_MPI(MPI_Comm_create_group(c, h, 0, &sub));
        expect_comm(sub, order, (k + 1) / 2, "create_group of create_group");
        MPI_Comm_free(&sub);
        MPI_Group_free(&h);
        MPI_Group_free(&cg);
    }
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Group_free(&mine);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
}

static void test_split_type(void)
{
    MPI_Comm c;
    int all[64];
    for (int r = 0; r < n; r++)
        all[r] = r;

    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, n - me, MPI_INFO_NULL, &c));
    int rev[64];
    for (int r = 0; r < n; r++)
        rev[r] = n - 1 - r;
    expect_comm(c, rev, n, "split_type shared (one host, reversed keys)");
    MPI_Comm_free(&c);

    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
    expect_comm(c, all, n, "hw_guided mpi_shared_memory");
    MPI_Comm_free(&c);

    MPI_Info_set(info, "mpi_hw_resource_type", "machine");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
    expect_comm(c, all, n, "hw_guided machine");
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_info(c, &used));
    MPI_Info_get_string(used, "mpi_hw_resource_type", &(int){ sizeof(value) }, value, &flag);
    CHECK(flag && strcmp(value, "machine") == 0, "hw_guided: info of the result lacks the type");
    MPI_Info_free(&used);
    MPI_Comm_free(&c);

    MPI_Info_set(info, "mpi_hw_resource_type", "no-such-resource");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
    CHECK(c == MPI_COMM_NULL, "hw_guided with an unknown type gave a communicator");

    /* Bind each rank to one CPU: "core" then groups the ranks on a CPU
     * (if CPUs are cores here, which /sys says for this machine). */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t old, one;
    sched_getaffinity(0, sizeof(old), &old);
    CPU_ZERO(&one);
    CPU_SET(me % ncpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) == 0) {
        MPI_Info_set(info, "mpi_hw_resource_type", "hwthread");
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
        int want[64], k = 0;
        for (int r = 0; r < n; r++)
            if (r % ncpu == me % ncpu)
                want[k++] = r;
        expect_comm(c, want, k, "hw_guided hwthread after binding");
        MPI_Comm_free(&c);

        /* Unguided: a strict subset of the world, or nothing. */
        MPI_Info chosen;
        MPI_Info_create(&chosen);
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, chosen, &c));
        if (c != MPI_COMM_NULL) {
            int s;
            MPI_Comm_size(c, &s);
            CHECK(s < n, "hw_unguided gave a communicator as large as the parent");
            /* The level chosen comes back in the info argument. */
            flag = 0;
            MPI_Info_get_string(chosen, "mpi_hw_resource_type", &(int){ sizeof(value) }, value,
                                &flag);
            CHECK(flag, "hw_unguided did not record its level in the info argument");
            MPI_Comm_free(&c);
        }
        MPI_Info_free(&chosen);
        sched_setaffinity(0, sizeof(old), &old);
    }
    MPI_Info_free(&info);
}

/* More communicators than there are context ids, freed as they go: ids
 * must come back.  A few are kept alive across the loop to make holes. */
static void test_reuse(void)
{
    MPI_Comm keep[3];
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &keep[i]));
    for (int i = 0; i < 5000; i++) {
        MPI_Comm c;
        int rc = MPI_Comm_split(MPI_COMM_WORLD, (me + i) % 2, i % 3 ? me : -me, &c);
        CHECK(rc == MPI_SUCCESS, "split %d failed (context ids not reused?)", i);
        if (rc != MPI_SUCCESS)
            break;
        if (i % 997 == 0) {
            int v = 1, sum = 0, s;
            MPI_Comm_size(c, &s);
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
            CHECK_EQ(sum, s);
        }
        MPI_Comm_free(&c);
    }
    for (int i = 0; i < 3; i++)
        MPI_Comm_free(&keep[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_split();
    test_create();
    test_split_type();
    test_reuse();
    return uzt_finish("comm_construct");
}
