/*
 * coll_args.c — the argument rules the collectives apply themselves, after
 * the generated argument checks (src/coll: uz_coll_call and the builders),
 * in blocking, nonblocking and persistent calls:
 *
 *  - a negative entry of a v form's count array is MPI_ERR_COUNT naming the
 *    array and the index (Gatherv and Scatterv at the root, Allgatherv,
 *    Alltoallv/w on either side, Reduce_scatter), found before anything is
 *    sent: a correct call right after completes with every element right;
 *  - an operation not defined for the datatype is MPI_ERR_OP even when
 *    there is no data;
 *  - on an intercommunicator, ranks of the root's group other than the
 *    root take no part in a Reduce, so MPI_IN_PLACE there is accepted.
 */
#include "uztest.h"

static int rank, size;
static const char *mode_name[] = { "blocking", "nonblocking", "persistent" };

/* A call that must fail with `cls` before doing anything, its message
 * naming `what`; nonblocking and persistent calls give no request then. */
static void expect_error(int rc, int cls, const char *what, const char *call, int mode)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    CHECK(uzt_class(rc) == cls, "%s (%s): class %d, expected %d (%s)", call, mode_name[mode], uzt_class(rc), cls,
          msg);
    CHECK(strstr(msg, what) != NULL, "%s (%s): message \"%s\" does not name %s", call, mode_name[mode], msg, what);
}

/* Complete a call that succeeded, in any mode. */
static void complete(int rc, int mode, MPI_Request *req, const char *call)
{
    CHECK(rc == MPI_SUCCESS, "%s (%s): returned %d", call, mode_name[mode], rc);
    if (rc != MPI_SUCCESS || mode == 0)
        return;
    if (mode == 2)
        CHECK_MPI(MPI_Start(req));
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == 2)
        CHECK_MPI(MPI_Request_free(req));
}

/* A persistent request made by a call that others failed: freed unstarted. */
static void complete_unstarted(int rc, MPI_Request *req, const char *call)
{
    CHECK(rc == MPI_SUCCESS, "%s: returned %d", call, rc);
    if (rc == MPI_SUCCESS)
        CHECK_MPI(MPI_Request_free(req));
}

/* What rank r puts in element i of the block for rank d. */
static int val(int r, int d, int i)
{
    return r * 100000 + d * 100 + i;
}

/* ------------------------------------------------------- Gatherv, Scatterv */

static void test_rooted(int mode)
{
    int root = size - 1, bad = size - 1;
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int *all = malloc(sizeof(int) * 3 * size), mine[3];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    char what[64];
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3 + 1;
        displs[i] = 3 * i;
    }

    /* The root's mistake is found before it waits for anyone, so in
     * blocking and nonblocking calls only the root calls.  Every rank makes
     * a persistent call's _init (each counts them, MPI 4.1 §6.13); the
     * others' inactive requests are freed unstarted. */
    counts[bad] = -1;
    snprintf(what, sizeof(what), "recvcounts[%d]", bad);
    if (rank == root || mode == 2) {
        int rc = mode == 0 ? MPI_Gatherv(mine, 1, MPI_INT, all, counts, displs, MPI_INT, root, w)
                 : mode == 1 ? MPI_Igatherv(mine, 1, MPI_INT, all, counts, displs, MPI_INT, root, w, &req)
                             : MPI_Gatherv_init(mine, 1, MPI_INT, all, counts, displs, MPI_INT, root, w, ni, &req);
        if (rank == root)
            expect_error(rc, MPI_ERR_COUNT, what, "MPI_Gatherv", mode);
        else
            complete_unstarted(rc, &req, "MPI_Gatherv_init");
    }
    if (rank == root && mode == 0) {
        MPI_Count *cc = malloc(sizeof(MPI_Count) * size);
        MPI_Aint *dd = malloc(sizeof(MPI_Aint) * size);
        for (int i = 0; i < size; i++) {
            cc[i] = counts[i];
            dd[i] = displs[i];
        }
        expect_error(MPI_Gatherv_c(mine, 1, MPI_INT, all, cc, dd, MPI_INT, root, w), MPI_ERR_COUNT, what,
                     "MPI_Gatherv_c", mode);
        free(cc);
        free(dd);
    }
    snprintf(what, sizeof(what), "sendcounts[%d]", bad);
    if (rank == root || mode == 2) {
        int rc = mode == 0 ? MPI_Scatterv(all, counts, displs, MPI_INT, mine, 1, MPI_INT, root, w)
                 : mode == 1 ? MPI_Iscatterv(all, counts, displs, MPI_INT, mine, 1, MPI_INT, root, w, &req)
                             : MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, 1, MPI_INT, root, w, ni, &req);
        if (rank == root)
            expect_error(rc, MPI_ERR_COUNT, what, "MPI_Scatterv", mode);
        else
            complete_unstarted(rc, &req, "MPI_Scatterv_init");
    }
    counts[bad] = bad % 3 + 1;

    /* The corrected calls, by everyone. */
    for (int i = 0; i < 3; i++)
        mine[i] = val(rank, root, i);
    for (int i = 0; i < 3 * size; i++)
        all[i] = -1;
    int c = rank % 3 + 1;
    complete(mode == 0 ? MPI_Gatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, root, w)
             : mode == 1 ? MPI_Igatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, root, w, &req)
                         : MPI_Gatherv_init(mine, c, MPI_INT, all, counts, displs, MPI_INT, root, w, ni, &req),
             mode, &req, "MPI_Gatherv");
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < 3; i++)
                CHECK_EQ(all[3 * r + i], i < counts[r] ? val(r, root, i) : -1);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 3; i++)
            all[3 * r + i] = val(root, r, i);
    for (int i = 0; i < 3; i++)
        mine[i] = -1;
    complete(mode == 0 ? MPI_Scatterv(all, counts, displs, MPI_INT, mine, c, MPI_INT, root, w)
             : mode == 1 ? MPI_Iscatterv(all, counts, displs, MPI_INT, mine, c, MPI_INT, root, w, &req)
                         : MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, c, MPI_INT, root, w, ni, &req),
             mode, &req, "MPI_Scatterv");
    for (int i = 0; i < 3; i++)
        CHECK_EQ(mine[i], i < c ? val(root, rank, i) : -1);
    free(counts);
    free(displs);
    free(all);
}

/* ------------------------------------------------------------ Allgatherv */

static void test_allgatherv(int mode)
{
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int *all = malloc(sizeof(int) * 2 * size), mine[2] = { val(rank, 0, 0), val(rank, 0, 1) };
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    char what[64];
    for (int i = 0; i < size; i++) {
        counts[i] = i % 2 + 1;
        displs[i] = 2 * i;
    }
    counts[size - 1] = -1;
    snprintf(what, sizeof(what), "recvcounts[%d]", size - 1);
    int c = rank % 2 + 1;
    int rc = mode == 0 ? MPI_Allgatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, w)
             : mode == 1 ? MPI_Iallgatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, w, &req)
                         : MPI_Allgatherv_init(mine, c, MPI_INT, all, counts, displs, MPI_INT, w, MPI_INFO_NULL,
                                               &req);
    expect_error(rc, MPI_ERR_COUNT, what, "MPI_Allgatherv", mode);
    counts[size - 1] = (size - 1) % 2 + 1;
    for (int i = 0; i < 2 * size; i++)
        all[i] = -1;
    complete(mode == 0 ? MPI_Allgatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, w)
             : mode == 1 ? MPI_Iallgatherv(mine, c, MPI_INT, all, counts, displs, MPI_INT, w, &req)
                         : MPI_Allgatherv_init(mine, c, MPI_INT, all, counts, displs, MPI_INT, w, MPI_INFO_NULL,
                                               &req),
             mode, &req, "MPI_Allgatherv");
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(all[2 * r + i], i < counts[r] ? val(r, 0, i) : -1);
    free(counts);
    free(displs);
    free(all);
}

/* ------------------------------------------------------ Alltoallv, Alltoallw */

static int alltoallvw(int w_form, int mode, const int *sc, const int *sd, const int *rc, const int *rd, int *sbuf,
                      int *rbuf, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    if (!w_form)
        return mode == 0 ? MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w)
               : mode == 1 ? MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w, req)
                           : MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w, ni, req);
    /* The w forms take displacements in bytes and a datatype per peer. */
    MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * size);
    int *sdb = malloc(sizeof(int) * size), *rdb = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) {
        t[i] = MPI_INT;
        sdb[i] = sd[i] * (int)sizeof(int);
        rdb[i] = rd[i] * (int)sizeof(int);
    }
    int err = mode == 0 ? MPI_Alltoallw(sbuf, sc, sdb, t, rbuf, rc, rdb, t, w)
              : mode == 1 ? MPI_Ialltoallw(sbuf, sc, sdb, t, rbuf, rc, rdb, t, w, req)
                          : MPI_Alltoallw_init(sbuf, sc, sdb, t, rbuf, rc, rdb, t, w, ni, req);
    /* The arrays may go: the call copied what it needs. */
    free(t);
    free(sdb);
    free(rdb);
    return err;
}

static void test_alltoallvw(int w_form, int mode)
{
    const char *name = w_form ? "MPI_Alltoallw" : "MPI_Alltoallv";
    int *sc = malloc(sizeof(int) * size), *rc = malloc(sizeof(int) * size);
    int *sd = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    int *sbuf = malloc(sizeof(int) * 2 * size), *rbuf = malloc(sizeof(int) * 2 * size);
    MPI_Request req = MPI_REQUEST_NULL;
    char what[64];
    /* Rank r sends (r + d) % 2 + 1 elements to rank d. */
    for (int d = 0; d < size; d++) {
        sc[d] = (rank + d) % 2 + 1;
        rc[d] = (d + rank) % 2 + 1;
        sd[d] = rd[d] = 2 * d;
        for (int i = 0; i < 2; i++)
            sbuf[2 * d + i] = val(rank, d, i);
    }
    int last = size - 1;
    rc[last] = -2;
    snprintf(what, sizeof(what), "recvcounts[%d]", last);
    expect_error(alltoallvw(w_form, mode, sc, sd, rc, rd, sbuf, rbuf, &req), MPI_ERR_COUNT, what, name, mode);
    rc[last] = (last + rank) % 2 + 1;
    sc[last] = -1;
    snprintf(what, sizeof(what), "sendcounts[%d]", last);
    expect_error(alltoallvw(w_form, mode, sc, sd, rc, rd, sbuf, rbuf, &req), MPI_ERR_COUNT, what, name, mode);
    sc[last] = (rank + last) % 2 + 1;
    for (int i = 0; i < 2 * size; i++)
        rbuf[i] = -1;
    complete(alltoallvw(w_form, mode, sc, sd, rc, rd, sbuf, rbuf, &req), mode, &req, name);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(rbuf[2 * s + i], i < rc[s] ? val(s, rank, i) : -1);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(sbuf);
    free(rbuf);
}

/* --------------------------------------------------------- Reduce_scatter */

static void test_reduce_scatter(int mode)
{
    int *counts = malloc(sizeof(int) * size), *in = malloc(sizeof(int) * 2 * size), out[2];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    char what[64];
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = i % 2 + 1;
        total += counts[i];
    }
    for (int i = 0; i < total; i++)
        in[i] = rank + i;
    counts[size - 1] = -1;
    snprintf(what, sizeof(what), "recvcounts[%d]", size - 1);
    int rc = mode == 0 ? MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w)
             : mode == 1 ? MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w, &req)
                         : MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req);
    expect_error(rc, MPI_ERR_COUNT, what, "MPI_Reduce_scatter", mode);
    counts[size - 1] = (size - 1) % 2 + 1;
    out[0] = out[1] = -1;
    complete(mode == 0 ? MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w)
             : mode == 1 ? MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w, &req)
                         : MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req),
             mode, &req, "MPI_Reduce_scatter");
    int off = 0;
    for (int i = 0; i < rank; i++)
        off += counts[i];
    /* Element j of the vector sums rank + j over the ranks. */
    for (int i = 0; i < 2; i++)
        CHECK_EQ(out[i], i < counts[rank] ? size * (size - 1) / 2 + size * (off + i) : -1);
    free(counts);
    free(in);
}

/* ------------------------------------------------ operations without data */

static void test_empty_reductions(int mode)
{
    char a[4] = { 0 }, b[4] = { 0 };
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    const char *what = "MPI_SUM";
    int rc = mode == 0 ? MPI_Allreduce(a, b, 0, MPI_BYTE, MPI_SUM, w)
             : mode == 1 ? MPI_Iallreduce(a, b, 0, MPI_BYTE, MPI_SUM, w, &req)
                         : MPI_Allreduce_init(a, b, 0, MPI_BYTE, MPI_SUM, w, ni, &req);
    expect_error(rc, MPI_ERR_OP, what, "MPI_Allreduce", mode);
    rc = mode == 0 ? MPI_Reduce(a, b, 0, MPI_BYTE, MPI_SUM, 0, w)
         : mode == 1 ? MPI_Ireduce(a, b, 0, MPI_BYTE, MPI_SUM, 0, w, &req)
                     : MPI_Reduce_init(a, b, 0, MPI_BYTE, MPI_SUM, 0, w, ni, &req);
    expect_error(rc, MPI_ERR_OP, what, "MPI_Reduce", mode);
    rc = mode == 0 ? MPI_Scan(a, b, 0, MPI_BYTE, MPI_SUM, w)
         : mode == 1 ? MPI_Iscan(a, b, 0, MPI_BYTE, MPI_SUM, w, &req)
                     : MPI_Scan_init(a, b, 0, MPI_BYTE, MPI_SUM, w, ni, &req);
    expect_error(rc, MPI_ERR_OP, what, "MPI_Scan", mode);
    rc = mode == 0 ? MPI_Exscan(a, b, 0, MPI_BYTE, MPI_SUM, w)
         : mode == 1 ? MPI_Iexscan(a, b, 0, MPI_BYTE, MPI_SUM, w, &req)
                     : MPI_Exscan_init(a, b, 0, MPI_BYTE, MPI_SUM, w, ni, &req);
    expect_error(rc, MPI_ERR_OP, what, "MPI_Exscan", mode);
    /* With a datatype it is defined for, the empty reduction just completes. */
    complete(mode == 0 ? MPI_Allreduce(a, b, 0, MPI_CHAR, MPI_MAX, w)
             : mode == 1 ? MPI_Iallreduce(a, b, 0, MPI_CHAR, MPI_MAX, w, &req)
                         : MPI_Allreduce_init(a, b, 0, MPI_CHAR, MPI_MAX, w, ni, &req),
             mode, &req, "MPI_Allreduce");
}

/* ---------------------------------------------- intercommunicator Reduce */

/* Ranks of the root's group other than the root pass MPI_PROC_NULL and
 * nothing else of theirs is significant, not even MPI_IN_PLACE. */
static void test_inter_reduce(int mode)
{
    if (size < 2)
        return;
    int color = rank % 2, lrank, rsize;
    MPI_Comm local, inter;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    int in[3], out[3] = { -1, -1, -1 };
    for (int i = 0; i < 3; i++)
        in[i] = lrank * 10 + i;
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    const void *sb = root == MPI_PROC_NULL ? MPI_IN_PLACE : in;
    complete(mode == 0 ? MPI_Reduce(sb, out, 3, MPI_INT, MPI_SUM, root, inter)
             : mode == 1 ? MPI_Ireduce(sb, out, 3, MPI_INT, MPI_SUM, root, inter, &req)
                         : MPI_Reduce_init(sb, out, 3, MPI_INT, MPI_SUM, root, inter, MPI_INFO_NULL, &req),
             mode, &req, "MPI_Reduce on an intercommunicator");
    for (int i = 0; i < 3; i++)
        CHECK_EQ(out[i], root == MPI_ROOT ? 10 * rsize * (rsize - 1) / 2 + rsize * i : -1);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int mode = 0; mode < 3; mode++) {
        test_rooted(mode);
        test_allgatherv(mode);
        test_alltoallvw(0, mode);
        test_alltoallvw(1, mode);
        test_reduce_scatter(mode);
        test_empty_reductions(mode);
        test_inter_reduce(mode);
    }
    return uzt_finish("coll_args");
}
