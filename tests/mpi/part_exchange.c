/*
 * part_exchange.c — partitioned communication around a ring under
 * MPI_THREAD_MULTIPLE: four threads mark the send partitions ready in a
 * scrambled order while the receiver polls MPI_Parrived until every
 * receive partition is in, then waits; sizes from 0 bytes to 8 MiB (eager,
 * rendezvous and one-copy paths), send and receive partition counts that
 * differ, three starts of the same requests, every byte checked.  Then
 * MPI_Pready_range / MPI_Pready_list, derived datatypes on both sides, a
 * rank sending to itself on MPI_COMM_SELF (MPI_Parrived false for what is
 * not ready yet), matching in the order of the initialization calls, an
 * intercommunicator and MPI_PROC_NULL.
 */
#include <pthread.h>

#include "uztest.h"

enum { THREADS = 4, ROUNDS = 3 };

static int rank, size, to, from;

/* --------------------------------------------------- threads ready partitions */

struct readiers {
    MPI_Request req;
    int partitions;
    int thread;
};

/* Thread t readies the partitions i with (i * 7 + 3) % THREADS == t, last
 * first, so that partitions become ready out of order and concurrently. */
static void *ready_some(void *arg)
{
    struct readiers *a = arg;
    for (int i = a->partitions - 1; i >= 0; i--)
        if ((i * 7 + 3) % THREADS == a->thread)
            CHECK_MPI(MPI_Pready(i, a->req));
    return NULL;
}

/* Four threads ready the send partitions while this one polls the receive
 * (when there is one to poll). */
static void poll_arrived(MPI_Request req, int partitions);

static void ready_all_threaded(MPI_Request req, int partitions, MPI_Request recv, int rparts)
{
    pthread_t th[THREADS];
    struct readiers a[THREADS];
    for (int t = 0; t < THREADS; t++) {
        a[t] = (struct readiers){ req, partitions, t };
        pthread_create(&th[t], NULL, ready_some, &a[t]);
    }
    if (recv != MPI_REQUEST_NULL)
        poll_arrived(recv, rparts);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
}

/* Poll MPI_Parrived until every partition is in; each is true from then on. */
static void poll_arrived(MPI_Request req, int partitions)
{
    char *seen = calloc((size_t)partitions + 1, 1);
    for (int left = partitions; left > 0;) {
        for (int i = 0; i < partitions; i++) {
            int flag = 0;
            CHECK_MPI(MPI_Parrived(req, i, &flag));
            if (seen[i])
                CHECK(flag, "partition %d arrived, then not", i);
            else if (flag) {
                seen[i] = 1;
                left--;
            }
        }
    }
    free(seen);
}

/* ------------------------------------------------------------ byte ring */

static void byte_case(size_t total, int sparts, int rparts, int threaded)
{
    unsigned char *sb = calloc(total + 1, 1), *rb = malloc(total + 1);
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sb, sparts, (MPI_Count)(sparts ? total / sparts : 0), MPI_BYTE, to, 5,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, rparts, (MPI_Count)(rparts ? total / rparts : 0), MPI_BYTE, from, 5,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < ROUNDS; round++) {
        int seq = (int)(total % 9973) * 16 + round;
        uzt_fill(sb, total, rank, seq);
        memset(rb, 0xee, total);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        if (threaded) {
            ready_all_threaded(s, sparts, r, rparts);
        } else if (round % 2) {
            if (sparts > 1)
                CHECK_MPI(MPI_Pready_range(sparts / 2, sparts - 1, s));
            if (sparts > 0)
                CHECK_MPI(MPI_Pready_range(0, sparts > 1 ? sparts / 2 - 1 : 0, s));
        } else {
            int *list = malloc(sizeof(int) * ((size_t)sparts + 1));
            for (int i = 0; i < sparts; i++)
                list[i] = sparts - 1 - i;
            CHECK_MPI(MPI_Pready_list(sparts, list, s));
            free(list);
        }
        poll_arrived(r, rparts);
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_Count got = -1;
        MPI_Get_count_c(&st, MPI_BYTE, &got);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 5 && got == (MPI_Count)total,
              "%zu bytes %d->%d partitions: status source %d tag %d count %lld", total, sparts, rparts,
              st.MPI_SOURCE, st.MPI_TAG, (long long)got);
        long bad = uzt_verify(rb, total, from, seq);
        CHECK(bad < 0, "%zu bytes %d->%d partitions round %d: byte %ld wrong", total, sparts, rparts, round, bad);
        CHECK(r != MPI_REQUEST_NULL && s != MPI_REQUEST_NULL, "partitioned request freed by MPI_Wait");
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(s == MPI_REQUEST_NULL && r == MPI_REQUEST_NULL, "MPI_Request_free left a handle");
    free(sb);
    free(rb);
}

/* -------------------------------------------------------- derived datatypes */

/* The sender sends 6 partitions of 5 elements of {3 ints, gap 2, 3 ints};
 * the receiver takes 5 partitions of 12 elements of {int, gap, int, gap,
 * int}: 180 ints either way, in different places. */
static void datatype_case(void)
{
    MPI_Datatype v, w;
    MPI_Type_vector(2, 3, 5, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_Type_vector(3, 1, 2, MPI_INT, &w);
    MPI_Type_commit(&w);
    MPI_Aint lb, vext, wext;
    MPI_Type_get_extent(v, &lb, &vext);
    MPI_Type_get_extent(w, &lb, &wext);
    int nv = 30, nw = 60;                       /* elements of each type */
    int *sb = malloc((size_t)vext * nv), *rb = malloc((size_t)wext * nw);
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sb, 6, 5, v, to, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, 5, 12, w, from, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < ROUNDS; round++) {
        int sints = (int)(vext / 4) * nv, rints = (int)(wext / 4) * nw;
        for (int i = 0, k = 0; i < sints; i++) {
            int in_block = (i % (int)(vext / 4)) % 5 < 3;     /* {3 ints, 2 gap} twice per element */
            sb[i] = in_block ? rank * 100000 + round * 1000 + k++ : -7;
        }
        for (int i = 0; i < rints; i++)
            rb[i] = -1;
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        ready_all_threaded(s, 6, r, 5);
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        for (int i = 0, k = 0; i < rints; i++) {
            int in_type = (i % (int)(wext / 4)) % 2 == 0;
            int want = in_type ? from * 100000 + round * 1000 + k++ : -1;
            CHECK(rb[i] == want, "datatypes round %d: int %d is %d, expected %d", round, i, rb[i], want);
        }
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Type_free(&v);
    MPI_Type_free(&w);
    free(sb);
    free(rb);
}

/* ------------------------------------------------- self, as mpi4py does it */

static void self_case(void)
{
    enum { P = 3, N = 1000 };
    double sb[P * N], rb[P * N];
    MPI_Comm self;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sb, P, N, MPI_DOUBLE, 0, 0, self, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, P, N, MPI_DOUBLE, 0, 0, self, MPI_INFO_NULL, &r));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < P * N; i++) {
            sb[i] = rank + round * 0.5 + i;
            rb[i] = -1;
        }
        CHECK_MPI(MPI_Start(&r));
        for (int i = 0; i < P; i++) {
            int flag = 1;
            CHECK_MPI(MPI_Parrived(r, i, &flag));
            CHECK(!flag, "self round %d: partition %d arrived before the send started", round, i);
        }
        CHECK_MPI(MPI_Start(&s));
        for (int i = 0; i < P; i++) {
            CHECK_MPI(MPI_Pready(i, s));
            for (int j = i + 1; j < P; j++) {
                int flag = 1;
                CHECK_MPI(MPI_Parrived(r, j, &flag));
                CHECK(!flag, "self round %d: partition %d arrived before it was ready", round, j);
            }
        }
        poll_arrived(r, P);
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        for (int i = 0; i < P * N; i++)
            CHECK(rb[i] == rank + round * 0.5 + i, "self round %d: element %d is %g", round, i, rb[i]);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Comm_free(&self);
}

/* ---------------------------------------------- matching by init order */

/* Two partitioned sends with the same destination and tag match the
 * receives in the order of the initialization calls (MPI 4.1 §4.2.2), not
 * of the starts: the sender starts its second one first. */
static void order_case(void)
{
    enum { A = 96, B = 4096 };
    unsigned char sa[A] = { 0 }, sb[B] = { 0 }, ra[A], rb[B];
    MPI_Request s[2], r[2];
    CHECK_MPI(MPI_Psend_init(sa, 2, A / 2, MPI_BYTE, to, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s[0]));
    CHECK_MPI(MPI_Psend_init(sb, 4, B / 4, MPI_BYTE, to, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s[1]));
    CHECK_MPI(MPI_Precv_init(ra, 1, A, MPI_BYTE, from, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_MPI(MPI_Precv_init(rb, 2, B / 2, MPI_BYTE, from, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    for (int round = 0; round < ROUNDS; round++) {
        uzt_fill(sa, A, rank, 700 + round);
        uzt_fill(sb, B, rank, 800 + round);
        CHECK_MPI(MPI_Start(&r[0]));
        CHECK_MPI(MPI_Start(&r[1]));
        CHECK_MPI(MPI_Start(&s[1]));
        CHECK_MPI(MPI_Pready_range(0, 3, s[1]));
        CHECK_MPI(MPI_Start(&s[0]));
        CHECK_MPI(MPI_Pready_range(0, 1, s[0]));
        MPI_Status st[2];
        CHECK_MPI(MPI_Waitall(2, r, st));
        CHECK_MPI(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_SUCCESS, "init order: errors %d %d",
              st[0].MPI_ERROR, st[1].MPI_ERROR);
        long bad = uzt_verify(ra, A, from, 700 + round);
        CHECK(bad < 0, "init order round %d: first message byte %ld wrong", round, bad);
        bad = uzt_verify(rb, B, from, 800 + round);
        CHECK(bad < 0, "init order round %d: second message byte %ld wrong", round, bad);
    }
    for (int k = 0; k < 2; k++) {
        CHECK_MPI(MPI_Request_free(&s[k]));
        CHECK_MPI(MPI_Request_free(&r[k]));
    }
}

/* ------------------------------------------------- an intercommunicator */

/* Even and odd ranks form the two groups; local rank k exchanges with
 * remote rank k, 3 send partitions against 4 receive partitions. */
static void intercomm_case(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter);
    int me, rsize;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_remote_size(inter, &rsize);
    if (me < rsize) {
        enum { N = 1200 };
        unsigned char sb[N], rb[N];
        MPI_Request s, r;
        CHECK_MPI(MPI_Psend_init(sb, 3, N / 3, MPI_BYTE, me, 8, inter, MPI_INFO_NULL, &s));
        CHECK_MPI(MPI_Precv_init(rb, 4, N / 4, MPI_BYTE, me, 8, inter, MPI_INFO_NULL, &r));
        for (int round = 0; round < ROUNDS; round++) {
            uzt_fill(sb, N, rank, 500 + round);
            memset(rb, 0, N);
            MPI_Request both[2] = { r, s };
            CHECK_MPI(MPI_Startall(2, both));
            CHECK_MPI(MPI_Pready_range(0, 2, s));
            poll_arrived(r, 4);
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
            int partner = rank % 2 ? 2 * me : 2 * me + 1;
            CHECK(st.MPI_SOURCE == me, "intercommunicator: source %d, expected %d", st.MPI_SOURCE, me);
            long bad = uzt_verify(rb, N, partner, 500 + round);
            CHECK(bad < 0, "intercommunicator round %d: byte %ld wrong", round, bad);
        }
        MPI_Request_free(&s);
        MPI_Request_free(&r);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* ------------------------------------------------------------ MPI_PROC_NULL */

static void proc_null_case(void)
{
    int buf[8] = { 0 };
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 2; round++) {
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        int flag = 0;
        CHECK_MPI(MPI_Parrived(r, 1, &flag));
        CHECK(flag, "MPI_PROC_NULL: partition not arrived at once");
        CHECK_MPI(MPI_Pready_range(0, 3, s));
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
              "MPI_PROC_NULL status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("SKIPPED: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    to = (rank + 1) % size;
    from = (rank - 1 + size) % size;

    /* (total bytes, send partitions, receive partitions) */
    static const struct { size_t total; int sp, rp; } cases[] = {
        { 0, 4, 4 }, { 0, 3, 1 }, { 0, 0, 0 }, { 64, 8, 8 }, { 96, 8, 3 }, { 4000, 4, 16 },
        { 1 << 16, 16, 4 }, { 300000, 12, 5 }, { 1 << 20, 8, 8 }, { 8 << 20, 8, 2 },
    };
    const int ncases = (int)(sizeof(cases) / sizeof(cases[0]));
    for (int c = 0; c < ncases; c++)
        byte_case(cases[c].total, cases[c].sp, cases[c].rp, 1);
    for (int c = 0; c < ncases; c++)
        if (cases[c].total <= (1 << 20))
            byte_case(cases[c].total, cases[c].sp, cases[c].rp, 0);
    datatype_case();
    self_case();
    order_case();
    intercomm_case();
    proc_null_case();
    return uzt_finish("part_exchange");
}
