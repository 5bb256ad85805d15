/*
 * comm_agree_threads.c — communicator constructors called by several
 * threads of each process at once (MPI_THREAD_MULTIPLE), each thread on
 * its own parent or with its own tag, in orders that differ between
 * ranks.  The program is correct MPI in every case: collectives on
 * different communicators have no order between them, so one process may
 * start thread A's dup first and another thread B's.  An agreement on a
 * context id that waits for, or blocks, an agreement on another
 * communicator hangs here (issue 22).
 *
 * One case per run, named by argv[1], so that a hang shows which:
 *   dup_deadlock   a thread sleeps first on one rank (a different thread
 *                  on each), then MPI_COMM_SELF is dup'd under a process
 *                  lock and each thread dups its own parent
 *   dup_order      two threads dup their own parents: at once on even
 *                  ranks (thread 0 first), one after the other on odd
 *                  ranks (thread 1 first)
 *   create_group   MPI_Comm_create_group, each thread on its own parent,
 *                  over all ranks and over the ranks of its parity
 *   create_group_tags  the same on one shared parent, the thread's id as tag
 *   idup           MPI_Comm_idup of MPI_COMM_SELF under a lock, then of
 *                  the thread's own parent, staggered as in dup_deadlock
 *   idup_order     on even ranks the even threads wait until the odd ones
 *                  are done with their idups
 *   idup_nb        idups pending with other nonblocking collectives on the
 *                  parent and on the first new communicator
 *   idup_gen       idups pending while the same thread dups, splits,
 *                  creates and builds an intercommunicator
 *   intercomm_order  two intercommunicators between even and odd ranks,
 *                  made at once by two threads on local communicators that
 *                  the two groups pair the other way round
 *   ctx            odd ranks: a second thread dups comm2 first and the
 *                  main thread dups comm1 later; even ranks the other way
 * Every new communicator is checked (new_comm_check.h).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "new_comm_check.h"

enum { THREADS = 4, STAGGER_US = 100000 };

static int n, me;
static MPI_Comm parents[THREADS];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static int salt_of(int t, int i, int k)
{
    return 1 + (t * 64 + i) * 8 + k;        /* below 32000 for the sizes used here */
}

/* Dups of MPI_COMM_SELF, serialized in the process as MPI requires for
 * collectives on one communicator. */
static void dup_self(int blocking)
{
    MPI_Comm s;
    pthread_mutex_lock(&self_lock);
    if (blocking) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &s));
    } else {
        MPI_Request r;
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_SELF, &s, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    pthread_mutex_unlock(&self_lock);
    int size = -1, rank = -1, sum = -1;
    MPI_Comm_size(s, &size);
    MPI_Comm_rank(s, &rank);
    CHECK(size == 1 && rank == 0, "dup of MPI_COMM_SELF: size %d rank %d", size, rank);
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, s));
    CHECK_EQ(sum, me);
    CHECK_MPI(MPI_Comm_free(&s));
}

/* ------------------------------------------------------------ blocking */

static void *dup_deadlock(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < 2; i++) {
        if (t == me % THREADS)
            usleep(STAGGER_US);
        dup_self(1);
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(parents[t], &c));
        ncc_check_dup(c, parents[t], salt_of(t, i, 0));
        CHECK_MPI(MPI_Comm_free(&c));
    }
    return NULL;
}

/* On odd ranks thread 0 waits until thread 1 has its communicator; on
 * even ranks both go at once, thread 1 a little later.  So an even rank
 * starts 0's agreement first and an odd rank 1's, and 0's cannot finish
 * before 1's has (not the other way round: opposite orders on both sides
 * would deadlock any MPI). */
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t order_cond = PTHREAD_COND_INITIALIZER;
static int order_done[THREADS];

static void wait_for_thread(int t)
{
    pthread_mutex_lock(&order_lock);
    while (!order_done[t])
        pthread_cond_wait(&order_cond, &order_lock);
    pthread_mutex_unlock(&order_lock);
}

static void mark_done(int t)
{
    pthread_mutex_lock(&order_lock);
    order_done[t] = 1;
    pthread_cond_broadcast(&order_cond);
    pthread_mutex_unlock(&order_lock);
}

static void *dup_order(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (me % 2 && t == 0)
        wait_for_thread(1);
    if (me % 2 == 0 && t == 1)
        usleep(STAGGER_US / 10);
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(parents[t], &c));
    mark_done(t);
    ncc_check_dup(c, parents[t], salt_of(t, 0, 0));
    CHECK_MPI(MPI_Comm_free(&c));
    return NULL;
}

/* The parent ranks of my parity, and the group of them. */
static int parity_members(int *members)
{
    int k = 0;
    for (int r = me % 2; r < n; r += 2)
        members[k++] = r;
    return k;
}

/* Each iteration a different thread of each rank starts late. */
static void create_group_on(MPI_Comm parent, int t, int tag, int iters)
{
    MPI_Group all, half;
    int members[64];
    int nh = parity_members(members);
    MPI_Comm_group(parent, &all);
    MPI_Group_incl(all, nh, members, &half);
    for (int i = 0; i < iters; i++) {
        MPI_Comm c;
        if (t == (me + i) % THREADS)
            usleep(STAGGER_US / 10);
        CHECK_MPI(MPI_Comm_create_group(parent, all, tag, &c));
        ncc_check_dup(c, parent, salt_of(t, i, 1));
        CHECK_MPI(MPI_Comm_free(&c));
        CHECK_MPI(MPI_Comm_create_group(parent, half, tag, &c));
        ncc_check(c, parent, nh, members, salt_of(t, i, 2));
        CHECK_MPI(MPI_Comm_free(&c));
        dup_self(1);
    }
    MPI_Group_free(&half);
    MPI_Group_free(&all);
}

static void *create_group(void *arg)
{
    int t = (int)(intptr_t)arg;
    create_group_on(parents[t], t, t, 16);
    return NULL;
}

static void *create_group_tags(void *arg)
{
    int t = (int)(intptr_t)arg;
    create_group_on(parents[0], t, 100 + t, 16);
    return NULL;
}

/* --------------------------------------------------------- nonblocking */

static void idup_and_check(MPI_Comm parent, int salt)
{
    MPI_Comm c;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_idup(parent, &c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "idup request not freed");
    ncc_check_dup(c, parent, salt);
    CHECK_MPI(MPI_Comm_free(&c));
}

static void *idup(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < 2; i++) {
        if (t == me % THREADS)
            usleep(STAGGER_US);
        dup_self(0);
        idup_and_check(parents[t], salt_of(t, i, 0));
    }
    return NULL;
}

static void *idup_order(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (me % 2 == 0 && t % 2 == 0)
        for (int o = 1; o < THREADS; o += 2)
            wait_for_thread(o);
    idup_and_check(parents[t], salt_of(t, 0, 0));
    mark_done(t);
    return NULL;
}

enum { IDUPS = 3 };

static void *idup_nb(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm parent = parents[t], kids[2 * IDUPS];
    MPI_Request req[2 * IDUPS + 4];
    int k = 0, scan = -1, sum = -1, root = 0, bval;
    if (t == me % THREADS)
        usleep(STAGGER_US);
    for (int j = 0; j < IDUPS; j++)
        CHECK_MPI(MPI_Comm_idup(parent, &kids[j], &req[k++]));
    CHECK_MPI(MPI_Iscan(&me, &scan, 1, MPI_INT, MPI_SUM, parent, &req[k++]));
    CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    for (int j = 0; j < IDUPS; j++)
        CHECK_MPI(MPI_Comm_idup(kids[0], &kids[IDUPS + j], &req[k++]));
    CHECK_MPI(MPI_Iallreduce(&me, &sum, 1, MPI_INT, MPI_SUM, kids[0], &req[k++]));
    bval = me == root ? 4242 + t : -1;
    CHECK_MPI(MPI_Ibcast(&bval, 1, MPI_INT, root, parent, &req[k++]));
    CHECK_MPI(MPI_Ibarrier(kids[0], &req[k++]));
    CHECK_MPI(MPI_Waitall(k - 1, req + 1, MPI_STATUSES_IGNORE));
    CHECK_EQ(scan, me * (me + 1) / 2);
    CHECK_EQ(sum, n * (n - 1) / 2);
    CHECK_EQ(bval, 4242 + t);
    for (int j = 0; j < 2 * IDUPS; j++)
        ncc_check_dup(kids[j], j < IDUPS ? parent : kids[0], salt_of(t, j, 3));
    for (int j = 2 * IDUPS - 1; j >= 0; j--)
        CHECK_MPI(MPI_Comm_free(&kids[j]));
    return NULL;
}

static void *idup_gen(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm parent = parents[t], kids[IDUPS], c;
    MPI_Request req[IDUPS];
    int members[64];
    for (int j = 0; j < IDUPS; j++)
        CHECK_MPI(MPI_Comm_idup(parent, &kids[j], &req[j]));

    CHECK_MPI(MPI_Comm_dup(parent, &c));
    ncc_check_dup(c, parent, salt_of(t, 0, 4));
    CHECK_MPI(MPI_Comm_free(&c));

    int nh = parity_members(members);
    CHECK_MPI(MPI_Comm_split(parent, me % 2, me, &c));
    ncc_check(c, parent, nh, members, salt_of(t, 1, 4));
    CHECK_MPI(MPI_Comm_free(&c));

    MPI_Group all, half;
    MPI_Comm_group(parent, &all);
    MPI_Group_incl(all, nh, members, &half);
    MPI_Comm mine = MPI_COMM_NULL;
    /* MPI_Comm_create with disjoint groups: each process names its own. */
    CHECK_MPI(MPI_Comm_create(parent, half, &mine));
    ncc_check(mine, parent, nh, members, salt_of(t, 2, 4));
    CHECK_MPI(MPI_Comm_free(&mine));
    CHECK_MPI(MPI_Comm_create_group(parent, half, 7, &c));
    ncc_check(c, parent, nh, members, salt_of(t, 3, 4));
    CHECK_MPI(MPI_Comm_free(&c));
    MPI_Group_free(&half);
    MPI_Group_free(&all);

    if (n >= 2) {
        MPI_Comm local, inter, merged;
        int low = me < n / 2, rsize = -1, msize = -1, mrank = -1;
        CHECK_MPI(MPI_Comm_split(parent, low, me, &local));
        CHECK_MPI(MPI_Intercomm_create(local, 0, parent, low ? n / 2 : 0, 99, &inter));
        CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
        CHECK_EQ(rsize, low ? n - n / 2 : n / 2);
        CHECK_MPI(MPI_Intercomm_merge(inter, !low, &merged));
        MPI_Comm_size(merged, &msize);
        MPI_Comm_rank(merged, &mrank);
        CHECK(msize == n && mrank == me, "merged: size %d rank %d", msize, mrank);
        ncc_check_dup(merged, parent, salt_of(t, 5, 4));
        CHECK_MPI(MPI_Comm_free(&merged));
        CHECK_MPI(MPI_Comm_free(&inter));
        CHECK_MPI(MPI_Comm_free(&local));
    }

    CHECK_MPI(MPI_Waitall(IDUPS, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < IDUPS; j++) {
        ncc_check_dup(kids[j], parent, salt_of(t, 8 + j, 4));
        CHECK_MPI(MPI_Comm_free(&kids[j]));
    }
    return NULL;
}

/* ------------------------------------------------------ intercomm_order */

/* Two intercommunicators between the even and the odd ranks, made at once
 * by two threads.  Each group's side is built on one of two splits, in
 * the opposite pairing on the two sides (the even ranks' first uses the
 * first split, the odd ranks' first the second), so the two groups see
 * their local communicators in opposite orders; each side also starts a
 * different one first. */
static MPI_Comm splits[2];
static int have_splits;

static void *intercomm_order(void *arg)
{
    int t = (int)(intptr_t)arg, even = me % 2 == 0;
    if (t >= 2 || !have_splits)
        return NULL;
    if (t != (even ? 0 : 1))
        usleep(STAGGER_US / 2);
    MPI_Comm local = splits[even ? t : 1 - t], inter, merged;
    int rsize = -1, lrank = -1, msize = -1, mrank = -1;
    CHECK_MPI(MPI_Intercomm_create(local, 0, parents[t], even ? 1 : 0, 50 + t, &inter));
    MPI_Comm_rank(local, &lrank);
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    CHECK_EQ(rsize, even ? n / 2 : (n + 1) / 2);
    /* Traffic across: rank i of each group sends to rank i of the other. */
    int peer = lrank < rsize ? lrank : MPI_PROC_NULL, got = -1, v = 1000 * t + me;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, peer, t, &got, 1, MPI_INT, peer, t, inter,
                           MPI_STATUS_IGNORE));
    if (peer != MPI_PROC_NULL)
        CHECK(got == 1000 * t + (even ? me + 1 : me - 1), "thread %d got %d", t, got);
    CHECK_MPI(MPI_Intercomm_merge(inter, !even, &merged));
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == n && mrank == (even ? me / 2 : (n + 1) / 2 + me / 2), "merged: size %d rank %d",
          msize, mrank);
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_EQ(sum, n * (n - 1) / 2);
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
    return NULL;
}

/* ----------------------------------------------------------------- ctx */

static MPI_Comm ctx_comm2;
static atomic_int ctx_go;

static void *ctx_thread(void *arg)
{
    (void)arg;
    if (me % 2) {
        while (!atomic_load(&ctx_go))
            usleep(1000);
    }
    idup_and_check(ctx_comm2, salt_of(1, 0, 5));
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(ctx_comm2, &c));
    ncc_check_dup(c, ctx_comm2, salt_of(1, 1, 5));
    CHECK_MPI(MPI_Comm_free(&c));
    return NULL;
}

static void run_ctx(void)
{
    MPI_Comm comm1, c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm1));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctx_comm2));
    pthread_t th;
    pthread_create(&th, NULL, ctx_thread, NULL);
    if (me % 2) {
        atomic_store(&ctx_go, 1);
        usleep(STAGGER_US);
    }
    CHECK_MPI(MPI_Comm_dup(comm1, &c));
    ncc_check_dup(c, comm1, salt_of(0, 0, 5));
    CHECK_MPI(MPI_Comm_free(&c));
    pthread_join(th, NULL);
    CHECK_MPI(MPI_Comm_free(&ctx_comm2));
    CHECK_MPI(MPI_Comm_free(&comm1));
}

/* ---------------------------------------------------------------- main */

static const struct {
    const char *name;
    void *(*fn)(void *);
} cases[] = {
    { "dup_deadlock", dup_deadlock },
    { "dup_order", dup_order },
    { "create_group", create_group },
    { "create_group_tags", create_group_tags },
    { "idup", idup },
    { "idup_order", idup_order },
    { "idup_nb", idup_nb },
    { "idup_gen", idup_gen },
    { "intercomm_order", intercomm_order },
};

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (provided < MPI_THREAD_MULTIPLE || argc < 2 || n > 64) {
        if (me == 0)
            fprintf(stderr, "usage: comm_agree_threads <case> (needs MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 77;
    }
    const char *name = argv[1];
    if (!strcmp(name, "ctx")) {
        run_ctx();
        return uzt_finish("comm_agree_threads ctx");
    }
    void *(*fn)(void *) = NULL;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!strcmp(name, cases[i].name))
            fn = cases[i].fn;
    CHECK(fn != NULL, "unknown case %s", name);
    if (fn == intercomm_order && n >= 2) {
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &splits[0]));
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &splits[1]));
        have_splits = 1;
    }
    if (fn) {
        for (int t = 0; t < THREADS; t++)
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
        pthread_t th[THREADS];
        /* Start the threads in a different order on each rank. */
        for (int k = 0; k < THREADS; k++) {
            int t = (k + me) % THREADS;
            pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t);
        }
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        for (int t = 0; t < THREADS; t++)
            CHECK_MPI(MPI_Comm_free(&parents[t]));
    }
    if (have_splits) {
        CHECK_MPI(MPI_Comm_free(&splits[0]));
        CHECK_MPI(MPI_Comm_free(&splits[1]));
    }
    char title[96];
    snprintf(title, sizeof(title), "comm_agree_threads %s", name);
    return uzt_finish(title);
}
