/*
 * coll_inter.c — collectives on intercommunicators: the world split into
 * even and odd ranks joined by MPI_Intercomm_create.  Rooted operations
 * run with the root in either group (MPI_ROOT at the root, MPI_PROC_NULL
 * at the rest of its group, the root's rank in the other group); every
 * value received is checked.  Blocking, nonblocking and persistent forms;
 * MPI_IN_PLACE and scans are refused.
 */
#include "uztest.h"

static int wrank, wsize;
static int color;               /* 0: even world ranks, 1: odd */
static int lrank, lsize, rsize; /* in the local group; remote group size */
static MPI_Comm inter;

enum { N = 700 };

/* What local rank r of group g puts in element i. */
static int v(int g, int r, int i)
{
    return g * 1000000 + r * 1000 + i;
}

static void run(int mode, int rc, MPI_Request *req, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s: returned %d", what, rc);
    if (rc != MPI_SUCCESS || mode == 0)
        return;
    if (mode == 2)
        CHECK_MPI(MPI_Start(req));
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == 2)
        CHECK_MPI(MPI_Request_free(req));
}

static void test_rooted(int mode, int rootgroup)
{
    static const char *mn[] = { "blocking", "nonblocking", "persistent" };
    int in_root_group = color == rootgroup;
    int root = in_root_group ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int is_root = root == MPI_ROOT;
    int *buf = malloc(sizeof(int) * N * (lsize > rsize ? lsize : rsize) * 2);
    int *out = malloc(sizeof(int) * N * (lsize > rsize ? lsize : rsize) * 2);
    MPI_Request req;
    MPI_Info ni = MPI_INFO_NULL;
    char what[96];

    /* Bcast: the root's data reaches every rank of the other group. */
    for (int i = 0; i < N; i++)
        buf[i] = is_root ? v(color, 0, i) : -1;
    snprintf(what, sizeof(what), "bcast root group %d %s", rootgroup, mn[mode]);
    run(mode, mode == 0 ? MPI_Bcast(buf, N, MPI_INT, root, inter)
              : mode == 1 ? MPI_Ibcast(buf, N, MPI_INT, root, inter, &req)
              : MPI_Bcast_init(buf, N, MPI_INT, root, inter, ni, &req), &req, what);
    if (!in_root_group)
        for (int i = 0; i < N; i++)
            if (buf[i] != v(rootgroup, 0, i)) { CHECK(0, "%s: element %d is %d", what, i, buf[i]); break; }

    /* Reduce: the other group's sum arrives at the root. */
    for (int i = 0; i < N; i++) {
        buf[i] = v(color, lrank, i);
        out[i] = -1;
    }
    snprintf(what, sizeof(what), "reduce root group %d %s", rootgroup, mn[mode]);
    /* Ranks at MPI_PROC_NULL pass nothing significant; a datatype the
     * operation is not defined for must not be an error there. */
    if (root == MPI_PROC_NULL)
        run(mode, mode == 0 ? MPI_Reduce(NULL, NULL, 0, MPI_BYTE, MPI_SUM, root, inter)
                  : mode == 1 ? MPI_Ireduce(NULL, NULL, 0, MPI_BYTE, MPI_SUM, root, inter, &req)
                  : MPI_Reduce_init(NULL, NULL, 0, MPI_BYTE, MPI_SUM, root, inter, ni, &req), &req,
            what);
    else
        run(mode, mode == 0 ? MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, root, inter)
                  : mode == 1 ? MPI_Ireduce(buf, out, N, MPI_INT, MPI_SUM, root, inter, &req)
                  : MPI_Reduce_init(buf, out, N, MPI_INT, MPI_SUM, root, inter, ni, &req), &req,
            what);
    if (is_root)
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int r = 0; r < rsize; r++)
                want += v(!color, r, i);
            if (out[i] != want) { CHECK(0, "%s: element %d is %d, expected %d", what, i, out[i], want); break; }
        }

    /* Gather: the root gets one block from every remote rank. */
    for (int i = 0; i < N; i++)
        buf[i] = v(color, lrank, i);
    snprintf(what, sizeof(what), "gather root group %d %s", rootgroup, mn[mode]);
    run(mode, mode == 0 ? MPI_Gather(buf, N, MPI_INT, out, N, MPI_INT, root, inter)
              : mode == 1 ? MPI_Igather(buf, N, MPI_INT, out, N, MPI_INT, root, inter, &req)
              : MPI_Gather_init(buf, N, MPI_INT, out, N, MPI_INT, root, inter, ni, &req), &req, what);
    if (is_root)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                if (out[r * N + i] != v(!color, r, i)) { CHECK(0, "%s: block %d element %d", what, r, i); r = rsize; break; }

    /* Gatherv with counts r+1 (by remote rank), reversed placement. */
    int *counts = malloc(sizeof(int) * rsize), *displs = malloc(sizeof(int) * rsize);
    for (int r = 0; r < rsize; r++)
        counts[r] = r + 1;
    for (int r = rsize - 1, off = 0; r >= 0; r--) {
        displs[r] = off;
        off += counts[r];
    }
    snprintf(what, sizeof(what), "gatherv root group %d %s", rootgroup, mn[mode]);
    run(mode, mode == 0 ? MPI_Gatherv(buf, lrank + 1, MPI_INT, out, counts, displs, MPI_INT, root, inter)
              : mode == 1 ? MPI_Igatherv(buf, lrank + 1, MPI_INT, out, counts, displs, MPI_INT, root, inter, &req)
              : MPI_Gatherv_init(buf, lrank + 1, MPI_INT, out, counts, displs, MPI_INT, root, inter, ni, &req),
        &req, what);
    if (is_root)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < counts[r]; i++)
                if (out[displs[r] + i] != v(!color, r, i)) { CHECK(0, "%s: block %d element %d", what, r, i); r = rsize; break; }

    /* Scatter: each remote rank gets its block. */
    if (is_root)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                buf[r * N + i] = v(color, r, i);
    for (int i = 0; i < N; i++)
        out[i] = -1;
    snprintf(what, sizeof(what), "scatter root group %d %s", rootgroup, mn[mode]);
    run(mode, mode == 0 ? MPI_Scatter(buf, N, MPI_INT, out, N, MPI_INT, root, inter)
              : mode == 1 ? MPI_Iscatter(buf, N, MPI_INT, out, N, MPI_INT, root, inter, &req)
              : MPI_Scatter_init(buf, N, MPI_INT, out, N, MPI_INT, root, inter, ni, &req), &req, what);
    if (!in_root_group)
        for (int i = 0; i < N; i++)
            if (out[i] != v(rootgroup, lrank, i)) { CHECK(0, "%s: element %d is %d", what, i, out[i]); break; }

    snprintf(what, sizeof(what), "scatterv root group %d %s", rootgroup, mn[mode]);
    if (is_root)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < counts[r]; i++)
                buf[displs[r] + i] = v(color, r, i) + 7;
    run(mode, mode == 0 ? MPI_Scatterv(buf, counts, displs, MPI_INT, out, lrank + 1, MPI_INT, root, inter)
              : mode == 1 ? MPI_Iscatterv(buf, counts, displs, MPI_INT, out, lrank + 1, MPI_INT, root, inter, &req)
              : MPI_Scatterv_init(buf, counts, displs, MPI_INT, out, lrank + 1, MPI_INT, root, inter, ni, &req),
        &req, what);
    if (!in_root_group)
        for (int i = 0; i < lrank + 1; i++)
            if (out[i] != v(rootgroup, lrank, i) + 7) { CHECK(0, "%s: element %d is %d", what, i, out[i]); break; }
    free(counts);
    free(displs);
    free(buf);
    free(out);
}

static void test_all(int mode)
{
    static const char *mn[] = { "blocking", "nonblocking", "persistent" };
    int big = (lsize > rsize ? lsize : rsize) * N;
    int *buf = malloc(sizeof(int) * big), *out = malloc(sizeof(int) * big);
    MPI_Request req;
    MPI_Info ni = MPI_INFO_NULL;
    char what[96];

    snprintf(what, sizeof(what), "barrier %s", mn[mode]);
    run(mode, mode == 0 ? MPI_Barrier(inter) : mode == 1 ? MPI_Ibarrier(inter, &req)
              : MPI_Barrier_init(inter, ni, &req), &req, what);

    /* Allreduce: each group gets the other group's sum. */
    for (int i = 0; i < N; i++)
        buf[i] = v(color, lrank, i);
    snprintf(what, sizeof(what), "allreduce %s", mn[mode]);
    run(mode, mode == 0 ? MPI_Allreduce(buf, out, N, MPI_INT, MPI_SUM, inter)
              : mode == 1 ? MPI_Iallreduce(buf, out, N, MPI_INT, MPI_SUM, inter, &req)
              : MPI_Allreduce_init(buf, out, N, MPI_INT, MPI_SUM, inter, ni, &req), &req, what);
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += v(!color, r, i);
        if (out[i] != want) { CHECK(0, "%s: element %d is %d, expected %d", what, i, out[i], want); break; }
    }

    /* Allgather: the other group's blocks. */
    snprintf(what, sizeof(what), "allgather %s", mn[mode]);
    run(mode, mode == 0 ? MPI_Allgather(buf, N, MPI_INT, out, N, MPI_INT, inter)
              : mode == 1 ? MPI_Iallgather(buf, N, MPI_INT, out, N, MPI_INT, inter, &req)
              : MPI_Allgather_init(buf, N, MPI_INT, out, N, MPI_INT, inter, ni, &req), &req, what);
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < N; i++)
            if (out[r * N + i] != v(!color, r, i)) { CHECK(0, "%s: block %d element %d", what, r, i); r = rsize; break; }

    /* Alltoall: block r of my send buffer goes to remote rank r. */
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < N; i++)
            buf[r * N + i] = v(color, lrank, i) + r * 13;
    snprintf(what, sizeof(what), "alltoall %s", mn[mode]);
    run(mode, mode == 0 ? MPI_Alltoall(buf, N, MPI_INT, out, N, MPI_INT, inter)
              : mode == 1 ? MPI_Ialltoall(buf, N, MPI_INT, out, N, MPI_INT, inter, &req)
              : MPI_Alltoall_init(buf, N, MPI_INT, out, N, MPI_INT, inter, ni, &req), &req, what);
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < N; i++)
            if (out[r * N + i] != v(!color, r, i) + lrank * 13) { CHECK(0, "%s: block %d element %d", what, r, i); r = rsize; break; }

    /* Reduce_scatter_block: the other group's sum of an lsize*16 vector
     * (both groups' vectors have the same length: 16 per rank here and
     * the groups' counts make the totals equal only if sizes match, so use
     * a count per rank that gives equal totals). */
    int per = lsize == rsize ? 16 : 0;
    if (per) {
        for (int i = 0; i < lsize * per; i++)
            buf[i] = v(color, lrank, i);
        snprintf(what, sizeof(what), "reduce_scatter_block %s", mn[mode]);
        run(mode, mode == 0 ? MPI_Reduce_scatter_block(buf, out, per, MPI_INT, MPI_SUM, inter)
                  : mode == 1 ? MPI_Ireduce_scatter_block(buf, out, per, MPI_INT, MPI_SUM, inter, &req)
                  : MPI_Reduce_scatter_block_init(buf, out, per, MPI_INT, MPI_SUM, inter, ni, &req), &req, what);
        for (int i = 0; i < per; i++) {
            int want = 0;
            for (int r = 0; r < rsize; r++)
                want += v(!color, r, lrank * per + i);
            if (out[i] != want) { CHECK(0, "%s: element %d is %d, expected %d", what, i, out[i], want); break; }
        }
    }
    free(buf);
    free(out);
}

static void test_refused(void)
{
    int a = 1, b;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &a, 1, MPI_INT, MPI_SUM, inter);
    CHECK(uzt_class(rc) == MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator: class %d", uzt_class(rc));
    rc = MPI_Scan(&a, &b, 1, MPI_INT, MPI_SUM, inter);
    CHECK(uzt_class(rc) == MPI_ERR_COMM, "MPI_Scan on an intercommunicator: class %d", uzt_class(rc));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        MPI_Finalize();
        printf("coll_inter: skipped (needs 2 ranks)\n");
        return 77;
    }
    MPI_Comm local;
    color = wrank % 2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !color, 99, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    for (int mode = 0; mode < 3; mode++) {
        test_rooted(mode, 0);
        test_rooted(mode, 1);
        test_all(mode);
    }
    test_refused();
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return uzt_finish("coll_inter");
}
