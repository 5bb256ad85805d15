/*
 * comm_inter.c — intercommunicators: MPI_Intercomm_create (leaders other
 * than rank 0), the group queries, point-to-point across (specific and
 * wildcard sources), dup and idup with traffic on both at once, split,
 * MPI_Comm_create on an intercommunicator, MPI_Intercomm_merge with every
 * combination of "high", and MPI_Intercomm_create_from_groups.
 *
 * The world is split into the even ranks (group A) and the odd ranks
 * (group B); with one process there is nothing to test.
 */
#include "uztest.h"

static int n, me;

static int world_of_group(MPI_Group g, int r)
{
    MPI_Group w;
    int out;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &r, w, &out);
    MPI_Group_free(&w);
    return out;
}

/* The world ranks of group A (evens) or B (odds). */
static int side_members(int side, int *out)
{
    int k = 0;
    for (int r = side; r < n; r += 2)
        out[k++] = r;
    return k;
}

/* Check an intercommunicator between my side and the other. */
static void expect_inter(MPI_Comm ic, const char *what)
{
    int mine[64], theirs[64];
    int nm = side_members(me % 2, mine), nt = side_members(1 - me % 2, theirs);
    int flag, size, rsize, rank;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "%s: not an intercommunicator", what);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &rank);
    CHECK(size == nm && rsize == nt, "%s: sizes %d/%d, expected %d/%d", what, size, rsize, nm, nt);
    CHECK(rank == me / 2, "%s: rank %d, expected %d", what, rank, me / 2);
    MPI_Group lg, rg;
    MPI_Comm_group(ic, &lg);
    MPI_Comm_remote_group(ic, &rg);
    for (int i = 0; i < nm && i < size; i++)
        CHECK(world_of_group(lg, i) == mine[i], "%s: local %d", what, i);
    for (int i = 0; i < nt && i < rsize; i++)
        CHECK(world_of_group(rg, i) == theirs[i], "%s: remote %d", what, i);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
}

/* Every local rank r sends to remote rank r % rsize; every rank receives
 * from those remote ranks that chose it, first with specific sources,
 * then with MPI_ANY_SOURCE.  Values carry the sender's world rank. */
static void cross_traffic(MPI_Comm ic, int tag)
{
    int size, rsize, rank;
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &rank);
    int theirs[64];
    side_members(1 - me % 2, theirs);
    MPI_Request req[130];
    int got[64], nreq = 0, expect = 0;
    for (int r = 0; r < rsize; r++)
        if (r % size == rank)
            CHECK_MPI(MPI_Irecv(&got[expect++], 1, MPI_INT, r, tag, ic, &req[nreq++]));
    int dest = rank % rsize;
    CHECK_MPI(MPI_Send(&me, 1, MPI_INT, dest, tag, ic));
    CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int r = 0, k = 0; r < rsize; r++)
        if (r % size == rank) {
            CHECK(got[k] == theirs[r], "cross traffic: from remote %d got world %d, expected %d", r,
                  got[k], theirs[r]);
            k++;
        }

    /* Wildcards: the status names the remote rank. */
    CHECK_MPI(MPI_Send(&me, 1, MPI_INT, dest, tag + 1, ic));
    for (int k = 0; k < expect; k++) {
        int v;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag + 1, ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && theirs[st.MPI_SOURCE] == v,
              "wildcard: source %d with world %d", st.MPI_SOURCE, v);
    }
}

static MPI_Comm make_inter(MPI_Comm local, int tag)
{
    /* A's leader is its rank 0 (world 0); B's is its rank 1 when it has
     * two members (world 3), else its rank 0 (world 1). */
    int nb = n / 2;
    int b_leader = nb >= 2 ? 1 : 0;
    int local_leader = me % 2 == 0 ? 0 : b_leader;
    int remote_leader = me % 2 == 0 ? 2 * b_leader + 1 : 0;
    MPI_Comm ic;
    CHECK_MPI(MPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, remote_leader, tag, &ic));
    return ic;
}

static void check_merge(MPI_Comm ic, int high_a, int high_b)
{
    MPI_Comm m;
    CHECK_MPI(MPI_Intercomm_merge(ic, me % 2 ? high_b : high_a, &m));
    /* Low group first; on a tie the group holding world rank 0 (A). */
    int a_first = high_a != high_b ? !high_a : 1;
    int order[64], k = 0;
    int first = a_first ? 0 : 1;
    k += side_members(first, order);
    k += side_members(1 - first, order + k);
    int size, rank, flag;
    MPI_Comm_size(m, &size);
    MPI_Comm_rank(m, &rank);
    MPI_Comm_test_inter(m, &flag);
    CHECK(!flag && size == n, "merge: inter %d size %d", flag, size);
    MPI_Group g;
    MPI_Comm_group(m, &g);
    for (int i = 0; i < n; i++)
        CHECK(world_of_group(g, i) == order[i], "merge(%d,%d): rank %d is world %d, expected %d",
              high_a, high_b, i, world_of_group(g, i), order[i]);
    MPI_Group_free(&g);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK_EQ(sum, n * (n - 1) / 2);
    int right = (rank + 1) % n, left = (rank + n - 1) % n, got = -1;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, m,
                           MPI_STATUS_IGNORE));
    CHECK_EQ(got, order[left]);
    MPI_Comm_free(&m);
}

static void test_create_and_traffic(MPI_Comm local)
{
    MPI_Comm ic = make_inter(local, 42);
    expect_inter(ic, "intercomm_create");
    cross_traffic(ic, 10);

    /* A dup, and traffic on both with the same tags at once. */
    MPI_Comm d, e;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_dup(ic, &d));
    CHECK_MPI(MPI_Comm_idup(ic, &e, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    expect_inter(d, "dup of intercomm");
    expect_inter(e, "idup of intercomm");
    int res;
    CHECK_MPI(MPI_Comm_compare(ic, d, &res));
    CHECK_EQ(res, MPI_CONGRUENT);
    int rsize, rank;
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &rank);
    int vals[3] = { me, me + 100, me + 200 }, got[3] = { -1, -1, -1 };
    MPI_Request rq[6];
    int nr = 0;
    /* Exchange with the remote rank of the same index, when both exist. */
    int lsize;
    MPI_Comm_size(ic, &lsize);
    if (rank < rsize) {
        MPI_Comm cs[3] = { ic, d, e };
        for (int i = 0; i < 3; i++)
            CHECK_MPI(MPI_Irecv(&got[i], 1, MPI_INT, rank, 5, cs[i], &rq[nr++]));
        for (int i = 2; i >= 0; i--)
            CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, rank, 5, cs[i], &rq[nr++]));
        CHECK_MPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
        int theirs[64];
        side_members(1 - me % 2, theirs);
        for (int i = 0; i < 3; i++)
            CHECK(got[i] == theirs[rank] + 100 * i, "dup level %d got %d, expected %d", i, got[i],
                  theirs[rank] + 100 * i);
    }
    cross_traffic(d, 20);
    cross_traffic(e, 30);

    check_merge(ic, 0, 1);
    check_merge(ic, 1, 0);
    check_merge(ic, 0, 0);
    check_merge(d, 1, 1);

    /* Split: colour = rank parity on both sides; a colour with no remote
     * members gives MPI_COMM_NULL. */
    MPI_Comm sp;
    CHECK_MPI(MPI_Comm_split(ic, rank % 2, -rank, &sp));
    int lsz = 0, rsz = 0;
    for (int r = 0; r < lsize; r++)
        lsz += r % 2 == rank % 2;
    for (int r = 0; r < rsize; r++)
        rsz += r % 2 == rank % 2;
    if (rsz == 0) {
        CHECK(sp == MPI_COMM_NULL, "split of intercomm: expected MPI_COMM_NULL");
    } else {
        int s1, s2, r1;
        MPI_Comm_size(sp, &s1);
        MPI_Comm_remote_size(sp, &s2);
        MPI_Comm_rank(sp, &r1);
        CHECK(s1 == lsz && s2 == rsz, "split of intercomm: sizes %d/%d, expected %d/%d", s1, s2,
              lsz, rsz);
        /* Keys are -rank: the highest local rank of the colour is rank 0. */
        int expect_rank = 0;
        for (int r = rank + 1; r < lsize; r++)
            expect_rank += r % 2 == rank % 2;
        CHECK_EQ(r1, expect_rank);
        int v = me, w = -1;
        /* Rank 0 of each side exchanges with the other's rank 0. */
        if (r1 == 0) {
            CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, sp, MPI_STATUS_IGNORE));
            CHECK(w >= 0 && w % 2 != me % 2, "split of intercomm: got world %d from across", w);
        }
        MPI_Comm_free(&sp);
    }

    /* MPI_Comm_create on the intercommunicator: each side keeps its first
     * ceil(size/2) ranks. */
    MPI_Group lg, half;
    MPI_Comm_group(ic, &lg);
    int range[1][3] = { { 0, (lsize + 1) / 2 - 1, 1 } };
    MPI_Group_range_incl(lg, 1, range, &half);
    MPI_Comm cc;
    CHECK_MPI(MPI_Comm_create(ic, half, &cc));
    if (rank < (lsize + 1) / 2) {
        int s1, s2;
        MPI_Comm_size(cc, &s1);
        MPI_Comm_remote_size(cc, &s2);
        CHECK(s1 == (lsize + 1) / 2 && s2 == (rsize + 1) / 2, "create on intercomm: %d/%d", s1, s2);
        if (rank < s2) {
            int w = -1;
            CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, rank, 2, &w, 1, MPI_INT, rank, 2, cc,
                                   MPI_STATUS_IGNORE));
            int theirs[64];
            side_members(1 - me % 2, theirs);
            CHECK_EQ(w, theirs[rank]);
        }
        MPI_Comm_free(&cc);
    } else {
        CHECK(cc == MPI_COMM_NULL, "create on intercomm: non-member got a communicator");
    }
    MPI_Group_free(&half);
    MPI_Group_free(&lg);

    /* MPI_Comm_split_type on the intercommunicator: every rank is on this
     * host, so MPI_COMM_TYPE_SHARED keeps both whole groups; MPI_UNDEFINED
     * gives MPI_COMM_NULL. */
    MPI_Comm sh;
    CHECK_MPI(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &sh));
    CHECK(sh != MPI_COMM_NULL, "split_type shared of an intercomm gave MPI_COMM_NULL");
    if (sh != MPI_COMM_NULL) {
        int s1, s2, inter;
        MPI_Comm_size(sh, &s1);
        MPI_Comm_remote_size(sh, &s2);
        MPI_Comm_test_inter(sh, &inter);
        CHECK(inter && s1 == lsize && s2 == rsize, "split_type shared of an intercomm: %d/%d", s1,
              s2);
        MPI_Comm_free(&sh);
    }
    CHECK_MPI(MPI_Comm_split_type(ic, MPI_UNDEFINED, rank, MPI_INFO_NULL, &sh));
    CHECK(sh == MPI_COMM_NULL, "split_type MPI_UNDEFINED of an intercomm gave a communicator");

    MPI_Comm_free(&e);
    MPI_Comm_free(&d);
    MPI_Comm_free(&ic);
}

static void test_from_groups(void)
{
    MPI_Group world, a, b;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ra[1][3] = { { 0, n - 1, 2 } }, rb[1][3] = { { 1, n - 1, 2 } };
    MPI_Group_range_incl(world, 1, ra, &a);
    MPI_Group_range_incl(world, 1, rb, &b);
    MPI_Comm ic;
    int mine_is_a = me % 2 == 0;
    CHECK_MPI(MPI_Intercomm_create_from_groups(mine_is_a ? a : b, 0, mine_is_a ? b : a, 0,
                                               "uzura.test.from_groups", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &ic));
    expect_inter(ic, "intercomm_create_from_groups");
    cross_traffic(ic, 50);
    MPI_Comm_free(&ic);

    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create_from_group(mine_is_a ? a : b, "uzura.test.from_group", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c));
    int size, sum = 0, expect = 0, mine[64];
    int k = side_members(me % 2, mine);
    MPI_Comm_size(c, &size);
    CHECK_EQ(size, k);
    for (int i = 0; i < k; i++)
        expect += mine[i];
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, expect);
    MPI_Comm_free(&c);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (n >= 2) {
        MPI_Comm local;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &local));
        test_create_and_traffic(local);
        /* Twice in a row with the same tag and peer communicator. */
        MPI_Comm ic1 = make_inter(local, 7), ic2 = make_inter(local, 7);
        expect_inter(ic1, "first of two");
        expect_inter(ic2, "second of two");
        cross_traffic(ic2, 60);
        cross_traffic(ic1, 60);
        MPI_Comm_free(&ic1);
        MPI_Comm_free(&ic2);
        MPI_Comm_free(&local);
        test_from_groups();
    }
    return uzt_finish("comm_inter");
}
