/*
 * rma_atomicity.c — accumulate operations stay atomic per element when
 * every rank hits the same elements of rank 0 at once.
 *
 *  - 1000 MPI_Accumulate(+1, MPI_SUM, MPI_LONG) from every rank to one
 *    element, under MPI_Win_lock(MPI_LOCK_SHARED) and again under
 *    MPI_Win_lock_all (flushed every 100): the element ends at
 *    size * 1000.
 *  - Tickets: 1000 MPI_Fetch_and_op(+1, MPI_SUM, MPI_LONG) from every rank
 *    (ten in flight between flushes): every fetched value is distinct, they
 *    are exactly 0 .. size*1000-1, each rank's own are increasing
 *    (accumulates from one origin to one location are ordered by default),
 *    and the element ends at size * 1000.
 *  - A spinlock made of MPI_Compare_and_swap on a lock word guarding a
 *    counter read with MPI_Get_accumulate(MPI_NO_OP) and written with
 *    MPI_Accumulate(MPI_REPLACE): no increment is lost, the values seen
 *    inside the lock are exactly 0 .. size*iterations-1, and the CAS that
 *    releases the lock always finds the holder's own mark.
 *  - 1000 four-element MPI_Accumulate(MPI_SUM, MPI_DOUBLE) from every
 *    rank, values exact in binary: every element ends at the exact sum.
 */
#include "uztest.h"

#define ITER 1000
#define ITER_LOCK 100
#define BATCH 10

/* Byte displacements in rank 0's window (disp_unit 1). */
enum { D_ACC_SHARED = 0, D_ACC_ALL = 8, D_TICKET = 16, D_LOCK = 24, D_COUNTER = 32, D_DOUBLES = 64, WIN_BYTES = 128 };

static int rank, size;
static MPI_Win win;
static unsigned char *mem;

static long load_long(int d)
{
    long v;
    memcpy(&v, mem + d, sizeof(v));
    return v;
}

static double weight(int r, int k)
{
    return (r + 1) * (k + 1) * 0.25;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Rank 0 looks at its own memory once everyone is done. */
static void owner_view(void (*check)(void))
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        check();
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_counters(void)
{
    CHECK(load_long(D_ACC_SHARED) == (long)size * ITER, "lock_shared accumulate counter %ld, expected %ld",
          load_long(D_ACC_SHARED), (long)size * ITER);
    CHECK(load_long(D_ACC_ALL) == (long)size * ITER, "lock_all accumulate counter %ld, expected %ld",
          load_long(D_ACC_ALL), (long)size * ITER);
}

static void check_ticket(void)
{
    CHECK(load_long(D_TICKET) == (long)size * ITER, "ticket counter %ld, expected %ld", load_long(D_TICKET),
          (long)size * ITER);
}

static void check_lock(void)
{
    CHECK(load_long(D_LOCK) == 0, "lock word %ld after the last release", load_long(D_LOCK));
    CHECK(load_long(D_COUNTER) == (long)size * ITER_LOCK, "spinlock counter %ld, expected %ld",
          load_long(D_COUNTER), (long)size * ITER_LOCK);
}

static void check_doubles(void)
{
    for (int k = 0; k < 4; k++) {
        double exp = 0, got;
        for (int r = 0; r < size; r++)
            exp += weight(r, k);
        exp *= ITER;
        memcpy(&got, mem + D_DOUBLES + k * sizeof(double), sizeof(got));
        CHECK(got == exp, "double element %d is %.17g, expected %.17g", k, got, exp);
    }
}

static void accumulate_counters(void)
{
    const long one = 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int i = 0; i < ITER; i++)
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, D_ACC_SHARED, 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));

    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, D_ACC_ALL, 1, MPI_LONG, MPI_SUM, win));
        if (i % 100 == 99)
            CHECK_MPI(MPI_Win_flush(0, win));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    owner_view(check_counters);
}

static void tickets(void)
{
    const long one = 1;
    long *got = malloc(ITER * sizeof(long));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        got[i] = -1;
        CHECK_MPI(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, D_TICKET, MPI_SUM, win));
        if (i % BATCH == BATCH - 1)
            CHECK_MPI(MPI_Win_flush(0, win));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    for (int i = 1; i < ITER; i++)
        CHECK(got[i] > got[i - 1], "ticket %d (%ld) not after ticket %d (%ld)", i, got[i], i - 1, got[i - 1]);
    long *all = rank == 0 ? malloc((size_t)size * ITER * sizeof(long)) : NULL;
    CHECK_MPI(MPI_Gather(got, ITER, MPI_LONG, all, ITER, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        qsort(all, (size_t)size * ITER, sizeof(long), cmp_long);
        int bad = 0;
        for (long i = 0; i < (long)size * ITER; i++)
            if (all[i] != i && bad++ < 5)
                CHECK(0, "sorted tickets: [%ld] is %ld (a duplicate or a gap)", i, all[i]);
        free(all);
    }
    free(got);
    owner_view(check_ticket);
}

static void spinlock(void)
{
    long mark = rank + 1, zero = 0, one = 1, old, seen[ITER_LOCK];
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER_LOCK; i++) {
        do { /* acquire */
            CHECK_MPI(MPI_Compare_and_swap(&mark, &zero, &old, MPI_LONG, 0, D_LOCK, win));
            CHECK_MPI(MPI_Win_flush(0, win));
        } while (old != 0);
        CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen[i], 1, MPI_LONG, 0, D_COUNTER, 1, MPI_LONG, MPI_NO_OP,
                                     win));
        CHECK_MPI(MPI_Win_flush(0, win));
        long next = seen[i] + one;
        CHECK_MPI(MPI_Accumulate(&next, 1, MPI_LONG, 0, D_COUNTER, 1, MPI_LONG, MPI_REPLACE, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        /* release: the word must still hold our mark */
        CHECK_MPI(MPI_Compare_and_swap(&zero, &mark, &old, MPI_LONG, 0, D_LOCK, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        CHECK(old == mark, "release: lock word held %ld, expected our mark %ld", old, mark);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    long *all = rank == 0 ? malloc((size_t)size * ITER_LOCK * sizeof(long)) : NULL;
    CHECK_MPI(MPI_Gather(seen, ITER_LOCK, MPI_LONG, all, ITER_LOCK, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        qsort(all, (size_t)size * ITER_LOCK, sizeof(long), cmp_long);
        int bad = 0;
        for (long i = 0; i < (long)size * ITER_LOCK; i++)
            if (all[i] != i && bad++ < 5)
                CHECK(0, "values seen inside the lock, sorted: [%ld] is %ld", i, all[i]);
        free(all);
    }
    owner_view(check_lock);
}

static void doubles(void)
{
    double w[4];
    for (int k = 0; k < 4; k++)
        w[k] = weight(rank, k);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int i = 0; i < ITER; i++) {
        CHECK_MPI(MPI_Accumulate(w, 4, MPI_DOUBLE, 0, D_DOUBLES, 4, MPI_DOUBLE, MPI_SUM, win));
        if (i % 100 == 99)
            CHECK_MPI(MPI_Win_flush(0, win));
    }
    CHECK_MPI(MPI_Win_unlock(0, win));
    owner_view(check_doubles);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK_MPI(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(mem, 0, WIN_BYTES); /* all-zero bytes are 0L and 0.0 */
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    accumulate_counters();
    tickets();
    spinlock();
    doubles();

    CHECK_MPI(MPI_Win_free(&win));
    return uzt_finish("rma_atomicity");
}
