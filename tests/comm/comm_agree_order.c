/*
 * comm_agree_order.c — nonblocking communicator creation (MPI_Comm_idup)
 * started in different orders on different ranks, without threads, mixed
 * with blocking constructors on other communicators.  Collectives on
 * different communicators have no order between them, so each case is
 * correct MPI; an agreement on a context id that waits for (or keeps the
 * ids from) an agreement on another communicator hangs here (issue 22).
 *
 * One case per run, named by argv[1]:
 *   idup_create_group  even ranks MPI_Comm_create_group then MPI_Comm_idup,
 *                      odd ranks the other way round
 *   idup_order         two idups on two parents, in opposite orders on
 *                      even and odd ranks
 *   idup_overlap       every pair of neighbours has a communicator; each
 *                      rank idups its right pair's, then its left pair's
 *   idup_gen           idups pending while dup, split, create,
 *                      create_group (parity groups, before the idups on
 *                      odd ranks) and an intercommunicator are made
 *   exhaust            dups until the context ids run out (MPI_ERR_OTHER on
 *                      every rank at the same count), with an idup pending
 * Every new communicator is checked (new_comm_check.h).
 */
#include "new_comm_check.h"

static int n, me;

static void wait_and_check(int count, MPI_Request *req, MPI_Comm *comms, MPI_Comm *parents,
                           int salt)
{
    CHECK_MPI(MPI_Waitall(count, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < count; i++) {
        CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
        ncc_check_dup(comms[i], parents[i], salt + i);
    }
}

static void idup_create_group(void)
{
    MPI_Comm parent, g = MPI_COMM_NULL, d;
    MPI_Group all;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    MPI_Comm_group(parent, &all);
    for (int i = 0; i < 3; i++) {
        if (me % 2 == 0) {
            CHECK_MPI(MPI_Comm_create_group(parent, all, i, &g));
            CHECK_MPI(MPI_Comm_idup(parent, &d, &r));
        } else {
            CHECK_MPI(MPI_Comm_idup(parent, &d, &r));
            CHECK_MPI(MPI_Comm_create_group(parent, all, i, &g));
        }
        wait_and_check(1, &r, &d, &parent, 10 * i + 1);
        ncc_check_dup(g, parent, 10 * i + 2);
        CHECK_MPI(MPI_Comm_free(&d));
        CHECK_MPI(MPI_Comm_free(&g));
    }
    MPI_Group_free(&all);
    CHECK_MPI(MPI_Comm_free(&parent));
}

static void idup_order(void)
{
    MPI_Comm p[2], c[2];
    MPI_Request r[2];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &p[0]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &p[1]));
    for (int i = 0; i < 3; i++) {
        if (me % 2 == 0) {
            CHECK_MPI(MPI_Comm_idup(p[0], &c[0], &r[0]));
            CHECK_MPI(MPI_Comm_idup(p[1], &c[1], &r[1]));
        } else {
            CHECK_MPI(MPI_Comm_idup(p[1], &c[1], &r[1]));
            CHECK_MPI(MPI_Comm_idup(p[0], &c[0], &r[0]));
        }
        wait_and_check(2, r, c, p, 10 * i + 1);
        CHECK_MPI(MPI_Comm_free(&c[0]));
        CHECK_MPI(MPI_Comm_free(&c[1]));
    }
    CHECK_MPI(MPI_Comm_free(&p[0]));
    CHECK_MPI(MPI_Comm_free(&p[1]));
}

/* Pair i is {i, i+1 mod n}: rank r is in pair r (its right one) and pair
 * r-1 (its left one), and idups them in that order, so that around the
 * ring every rank starts with a pair its other member starts last (with
 * two ranks: two communicators over the same two processes). */
static void idup_overlap(void)
{
    if (n < 2)
        return;
    MPI_Comm right = MPI_COMM_NULL, left = MPI_COMM_NULL, tmp;
    for (int i = 0; i < n; i++) {
        int in = me == i || me == (i + 1) % n;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, me == i ? 0 : 1, &tmp));
        if (me == i)
            right = tmp;
        else if (me == (i + 1) % n)
            left = tmp;
    }
    MPI_Comm p[2] = { right, left }, c[2];
    MPI_Request r[2];
    /* The checks are blocking collectives: every rank runs them in the
     * order of the pair numbers, which cannot deadlock. */
    int first = me == 0 ? 0 : 1, pair[2] = { me, (me - 1 + n) % n };
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Comm_idup(p[0], &c[0], &r[0]));
        CHECK_MPI(MPI_Comm_idup(p[1], &c[1], &r[1]));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        ncc_check_dup(c[first], p[first], 100 * i + 1 + pair[first]);
        ncc_check_dup(c[1 - first], p[1 - first], 100 * i + 1 + pair[1 - first]);
        CHECK_MPI(MPI_Comm_free(&c[0]));
        CHECK_MPI(MPI_Comm_free(&c[1]));
    }
    CHECK_MPI(MPI_Comm_free(&right));
    CHECK_MPI(MPI_Comm_free(&left));
}

enum { IDUPS = 4 };

static void idup_gen(void)
{
    MPI_Comm parent, kids[IDUPS], ps[IDUPS], c, g = MPI_COMM_NULL;
    MPI_Request req[IDUPS];
    int members[64], nh = 0;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    for (int r = me % 2; r < n; r += 2)
        members[nh++] = r;
    MPI_Group all, half;
    MPI_Comm_group(parent, &all);
    MPI_Group_incl(all, nh, members, &half);

    if (me % 2)
        CHECK_MPI(MPI_Comm_create_group(parent, half, 3, &g));
    for (int j = 0; j < IDUPS; j++) {
        CHECK_MPI(MPI_Comm_idup(parent, &kids[j], &req[j]));
        ps[j] = parent;
    }
    if (me % 2 == 0)
        CHECK_MPI(MPI_Comm_create_group(parent, half, 3, &g));
    ncc_check(g, parent, nh, members, 1);
    CHECK_MPI(MPI_Comm_free(&g));

    CHECK_MPI(MPI_Comm_dup(parent, &c));
    ncc_check_dup(c, parent, 2);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_split(parent, me % 2, me, &c));
    ncc_check(c, parent, nh, members, 3);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_create(parent, half, &c));
    ncc_check(c, parent, nh, members, 4);
    CHECK_MPI(MPI_Comm_free(&c));
    if (n >= 2) {
        MPI_Comm local, inter, merged;
        int low = me < n / 2;
        CHECK_MPI(MPI_Comm_split(parent, low, me, &local));
        CHECK_MPI(MPI_Intercomm_create(local, 0, parent, low ? n / 2 : 0, 99, &inter));
        CHECK_MPI(MPI_Intercomm_merge(inter, !low, &merged));
        ncc_check_dup(merged, parent, 5);
        CHECK_MPI(MPI_Comm_free(&merged));
        CHECK_MPI(MPI_Comm_free(&inter));
        CHECK_MPI(MPI_Comm_free(&local));
    }
    wait_and_check(IDUPS, req, kids, ps, 10);
    for (int j = 0; j < IDUPS; j++)
        CHECK_MPI(MPI_Comm_free(&kids[j]));
    MPI_Group_free(&half);
    MPI_Group_free(&all);
    CHECK_MPI(MPI_Comm_free(&parent));
}

/* Dup until the context ids run out: a clean MPI_ERR_OTHER on every rank
 * at the same count, never a hang; an idup pending meanwhile (it took an
 * id first) still completes, and after freeing, dups work again. */
static void exhaust(void)
{
    enum { MAX = 4096 };
    MPI_Comm *c = malloc(sizeof(MPI_Comm) * MAX), parent, early;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_idup(parent, &early, &r));
    int k = 0, rc = MPI_SUCCESS;
    while (k < MAX && (rc = MPI_Comm_dup(parent, &c[k])) == MPI_SUCCESS)
        k++;
    CHECK(k < MAX && uzt_class(rc) == MPI_ERR_OTHER, "%d dups, then error class %d", k,
          uzt_class(rc));
    int lo = -1, hi = -1;
    MPI_Allreduce(&k, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&k, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi && k > 2000, "ran out after %d dups here, %d to %d over the ranks", k, lo, hi);
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    ncc_check_dup(early, parent, 1);
    ncc_check_dup(c[k - 1], parent, 2);
    for (int i = 0; i < k; i++)
        CHECK_MPI(MPI_Comm_free(&c[i]));
    MPI_Comm again;
    CHECK_MPI(MPI_Comm_dup(parent, &again));
    ncc_check_dup(again, parent, 3);
    CHECK_MPI(MPI_Comm_free(&again));
    CHECK_MPI(MPI_Comm_free(&early));
    CHECK_MPI(MPI_Comm_free(&parent));
    free(c);
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    { "idup_create_group", idup_create_group },
    { "idup_order", idup_order },
    { "idup_overlap", idup_overlap },
    { "idup_gen", idup_gen },
    { "exhaust", exhaust },
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 2 || n > 64) {
        if (me == 0)
            fprintf(stderr, "usage: comm_agree_order <case>\n");
        MPI_Finalize();
        return 77;
    }
    void (*fn)(void) = NULL;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!strcmp(argv[1], cases[i].name))
            fn = cases[i].fn;
    CHECK(fn != NULL, "unknown case %s", argv[1]);
    if (fn)
        fn();
    char title[96];
    snprintf(title, sizeof(title), "comm_agree_order %s", argv[1]);
    return uzt_finish(title);
}
