/*
 * comm_dup.c — duplicates: nested dups with traffic on every level at
 * once (same source, same tag: only the context keeps them apart),
 * MPI_Comm_compare, MPI_Comm_idup (several pending at once, overlapped
 * with point-to-point that needs the other ranks to progress), dups with
 * info, names, MPI_Comm_free deferred while a receive is pending, and
 * MPI_Comm_get_parent.
 */
#include "uztest.h"

enum { LEVELS = 5 };

static int n, me;

/* Post a receive from the left on every level, send to the right on
 * every level in the opposite order, then check every level got its own
 * message; collectives on every level follow, interleaved. */
static void traffic_all_levels(MPI_Comm *comms, int levels)
{
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    int got[LEVELS], sent[LEVELS];
    MPI_Request rr[LEVELS], sr[LEVELS];
    for (int l = 0; l < levels; l++)
        CHECK_MPI(MPI_Irecv(&got[l], 1, MPI_INT, left, 3, comms[l], &rr[l]));
    for (int l = levels - 1; l >= 0; l--) {
        sent[l] = 1000 * l + me;
        CHECK_MPI(MPI_Isend(&sent[l], 1, MPI_INT, right, 3, comms[l], &sr[l]));
    }
    /* Wildcard receives too: a message on one level never satisfies another. */
    int any[LEVELS];
    MPI_Request ar[LEVELS];
    for (int l = 0; l < levels; l++)
        CHECK_MPI(MPI_Irecv(&any[l], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[l], &ar[l]));
    for (int l = levels - 1; l >= 0; l--) {
        int v = 5000 + 1000 * l + me;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 9, comms[l]));
    }
    MPI_Status st[LEVELS];
    CHECK_MPI(MPI_Waitall(levels, rr, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(levels, sr, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(levels, ar, st));
    for (int l = 0; l < levels; l++) {
        CHECK(got[l] == 1000 * l + left, "level %d got %d, expected %d", l, got[l], 1000 * l + left);
        CHECK(any[l] == 5000 + 1000 * l + left, "level %d wildcard got %d, expected %d", l, any[l],
              5000 + 1000 * l + left);
        CHECK_EQ(st[l].MPI_SOURCE, left);
        CHECK_EQ(st[l].MPI_TAG, 9);
    }
    for (int l = 0; l < levels; l++) {
        int v = me + l, sum = 0;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[l]));
        CHECK_EQ(sum, n * (n - 1) / 2 + n * l);
    }
}

static void test_nested(void)
{
    MPI_Comm comms[LEVELS];
    comms[0] = MPI_COMM_WORLD;
    for (int l = 1; l < LEVELS; l++)
        CHECK_MPI(MPI_Comm_dup(comms[l - 1], &comms[l]));
    traffic_all_levels(comms, LEVELS);

    int res;
    CHECK_MPI(MPI_Comm_compare(comms[1], comms[3], &res));
    CHECK_EQ(res, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_compare(comms[2], comms[2], &res));
    CHECK_EQ(res, MPI_IDENT);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, comms[4], &res));
    CHECK_EQ(res, MPI_CONGRUENT);

    MPI_Comm rev, half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &rev);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    CHECK_EQ(res, n == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    CHECK_MPI(MPI_Comm_compare(half, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, n == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res));
    CHECK_EQ(res, n == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);

    /* Free in an order other than creation, then dup again: the new ones
     * must still be separate from the survivors. */
    MPI_Comm_free(&comms[2]);
    MPI_Comm_free(&comms[1]);
    CHECK_MPI(MPI_Comm_dup(comms[3], &comms[1]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[2]));
    traffic_all_levels(comms, LEVELS);
    for (int l = 1; l < LEVELS; l++)
        CHECK_MPI(MPI_Comm_free(&comms[l]));
}

static void test_self(void)
{
    MPI_Comm s;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &s));
    int size, rank, v = 42, got = 0;
    MPI_Comm_size(s, &size);
    MPI_Comm_rank(s, &rank);
    CHECK_EQ(size, 1);
    CHECK_EQ(rank, 0);
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, s, MPI_STATUS_IGNORE));
    CHECK_EQ(got, 42);
    MPI_Comm_free(&s);
}

static void test_idup(void)
{
    /* Two idups pending at once, overlapped with a ring exchange on the
     * world that needs every other rank to get past its idup calls. */
    MPI_Comm a, b;
    MPI_Request req[2];
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &a, &req[0]));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &b, &req[1]));
    int right = (me + 1) % n, left = (me - 1 + n) % n, got = -1;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_EQ(got, left);
    /* A blocking dup while the idups may still be running. */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    MPI_Comm comms[LEVELS] = { MPI_COMM_WORLD, a, b, c, MPI_COMM_WORLD };
    traffic_all_levels(comms, 4);

    /* idup of an idup'd communicator, completed with MPI_Test. */
    MPI_Comm d;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_idup(a, &d, &r));
    int flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    comms[3] = d;
    traffic_all_levels(comms, 4);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

static void test_info_and_names(void)
{
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm a, b, c;
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &a));
    char v[MPI_MAX_INFO_VAL];
    int flag = 0, len = sizeof(v);
    CHECK_MPI(MPI_Comm_get_info(a, &got));
    MPI_Info_get_string(got, "mpi_assert_no_any_tag", &len, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "dup_with_info: hint not kept");
    MPI_Info_free(&got);

    /* A plain dup copies the hints; set_info replaces them. */
    CHECK_MPI(MPI_Comm_dup(a, &b));
    CHECK_MPI(MPI_Comm_get_info(b, &got));
    len = sizeof(v);
    flag = 0;
    MPI_Info_get_string(got, "mpi_assert_no_any_tag", &len, v, &flag);
    CHECK(flag, "dup did not copy the hints");
    MPI_Info_free(&got);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "uzura_test_key", "7");
    CHECK_MPI(MPI_Comm_set_info(b, info));
    CHECK_MPI(MPI_Comm_get_info(b, &got));
    len = sizeof(v);
    flag = 0;
    MPI_Info_get_string(got, "uzura_test_key", &len, v, &flag);
    CHECK(flag && strcmp(v, "7") == 0, "set_info: hint not kept");
    MPI_Info_free(&got);

    MPI_Request r;
    CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_get_info(c, &got));
    len = sizeof(v);
    flag = 0;
    MPI_Info_get_string(got, "uzura_test_key", &len, v, &flag);
    CHECK(flag, "idup_with_info: hint not kept");
    MPI_Info_free(&got);
    MPI_Info_free(&info);

    /* Names: every communicator, predefined ones included; dups do not
     * inherit them. */
    char name[MPI_MAX_OBJECT_NAME];
    int nl;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &nl));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world is named '%s'", name);
    CHECK_MPI(MPI_Comm_set_name(a, "level-a"));
    CHECK_MPI(MPI_Comm_get_name(a, name, &nl));
    CHECK(strcmp(name, "level-a") == 0 && nl == 7, "name '%s' (%d)", name, nl);
    CHECK_MPI(MPI_Comm_get_name(b, name, &nl));
    CHECK(nl == 0, "a dup inherited the name '%s'", name);
    CHECK_MPI(MPI_Comm_set_name(MPI_COMM_SELF, "my-self"));
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &nl));
    CHECK(strcmp(name, "my-self") == 0, "self is named '%s'", name);
    MPI_Comm_set_name(MPI_COMM_SELF, "MPI_COMM_SELF");

    int inter = -1;
    CHECK_MPI(MPI_Comm_test_inter(a, &inter));
    CHECK_EQ(inter, 0);
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent without spawn is not MPI_COMM_NULL");
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
}

/* MPI_Comm_free with sends and receives pending (a rendezvous-sized
 * synchronous send among them): they complete normally, with the right
 * data, and a new duplicate made meanwhile never sees their messages
 * although source and tag are the same. */
static void test_deferred_free(void)
{
    enum { BIG = 1 << 18 };
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    char *out = malloc(BIG), *in = malloc(BIG);
    uzt_fill(out, BIG, me, 1);
    MPI_Comm d, e;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Request r[5];
    int small = -1, v1 = me * 10 + 1, x = -1, v2 = me * 10 + 2;
    CHECK_MPI(MPI_Irecv(in, BIG, MPI_CHAR, left, 4, d, &r[0]));
    CHECK_MPI(MPI_Issend(out, BIG, MPI_CHAR, right, 4, d, &r[1]));
    CHECK_MPI(MPI_Irecv(&small, 1, MPI_INT, left, 5, d, &r[2]));
    CHECK_MPI(MPI_Isend(&v1, 1, MPI_INT, right, 5, d, &r[3]));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "freed handle is not MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, left, 5, e, &r[4]));
    CHECK_MPI(MPI_Send(&v2, 1, MPI_INT, right, 5, e));
    CHECK_MPI(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
    CHECK_EQ(small, left * 10 + 1);
    CHECK_EQ(x, left * 10 + 2);
    CHECK(uzt_verify(in, BIG, left, 1) < 0, "deferred free: large message corrupted");
    CHECK_MPI(MPI_Comm_free(&e));
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_nested();
    test_self();
    test_idup();
    test_info_and_names();
    test_deferred_free();
    return uzt_finish("comm_dup");
}
