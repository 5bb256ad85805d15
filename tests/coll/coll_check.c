/*
 * coll_check.c — every collective operation, blocking, nonblocking and
 * persistent (started twice), on contiguous and strided datatypes, at
 * sizes on both sides of the algorithms' switch points, in place where the
 * standard allows it, with every root: each element of every result is
 * checked, and so is every gap a strided type must leave alone.
 *
 *   coll_check [op...]     ops: barrier bcast reduce allreduce gather gatherv
 *                          scatter scatterv allgather allgatherv alltoall
 *                          alltoallv alltoallw reduce_scatter_block
 *                          reduce_scatter scan exscan (default: all)
 *
 * CMake runs it once per algorithm with UZURA_COLL_<OP> forcing it, so
 * each algorithm is checked on its own.
 */
#include "uztest.h"

enum mode { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *mode_name[] = { "blocking", "nonblocking", "persistent" };

static int rank, size;

/* ------------------------------------------------------------ datatypes */

/* A datatype case: each element is one int, `stride` ints apart. */
struct dcase {
    const char *name;
    MPI_Datatype type;
    int stride;
};
static struct dcase dcases[2];
enum { SENTINEL = 0x5a5a5a5a };

static void make_dcases(void)
{
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    dcases[0] = (struct dcase){ "MPI_INT", MPI_INT, 1 };
    dcases[1] = (struct dcase){ "strided int", strided, 2 };
}

static int *alloc_elems(const struct dcase *d, long n)
{
    long ints = n * d->stride + 1;
    int *b = malloc(sizeof(int) * ints);
    for (long i = 0; i < ints; i++)
        b[i] = SENTINEL;
    return b;
}

static inline int *el(int *b, const struct dcase *d, long i)
{
    return &b[i * d->stride];
}

/* Gaps between elements of a strided buffer of n elements still hold
 * the sentinel. */
static void check_gaps(int *b, const struct dcase *d, long n, const char *what)
{
    for (long i = 0; i < n * d->stride + 1; i++)
        if ((d->stride == 1 ? i == n : i % d->stride != 0) && b[i] != SENTINEL) {
            CHECK(0, "%s: gap at int %ld overwritten (%d)", what, i, b[i]);
            return;
        }
}

/* The value rank r contributes at element i (of its block j, if any). */
static inline int val(int r, long i)
{
    return (r + 1) * 1000003 + (int)(i * 7);
}

/* --------------------------------------------------------- running modes */

/* A persistent request is started twice, with the buffers refilled in
 * between by `refill`; the check runs after each round. */
struct round {
    void (*fill)(void *ctx);
    void (*check)(void *ctx);
    void *ctx;
};

static void run(enum mode m, MPI_Request *req, int rc, struct round *rd, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s (%s): returned %d", what, mode_name[m], rc);
    if (rc != MPI_SUCCESS)
        return;
    if (m == BLOCKING) {
        rd->check(rd->ctx);
        return;
    }
    if (m == PERSISTENT)
        CHECK_MPI(MPI_Start(req));
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    rd->check(rd->ctx);
    if (m == PERSISTENT) {
        rd->fill(rd->ctx);
        CHECK_MPI(MPI_Start(req));
        /* Test until done: progress must come from Test alone. */
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
        rd->check(rd->ctx);
        CHECK_MPI(MPI_Request_free(req));
    }
}

/* ------------------------------------------------------------------ bcast */

struct bcast_ctx {
    const struct dcase *d;
    long n;
    int root;
    int *buf;
    char what[128];
};

static void bcast_fill(void *c)
{
    struct bcast_ctx *x = c;
    for (long i = 0; i < x->n; i++)
        *el(x->buf, x->d, i) = rank == x->root ? val(x->root, i) : -1;
}

static void bcast_check(void *c)
{
    struct bcast_ctx *x = c;
    for (long i = 0; i < x->n; i++)
        if (*el(x->buf, x->d, i) != val(x->root, i)) {
            CHECK(0, "%s: element %ld is %d, expected %d", x->what, i, *el(x->buf, x->d, i), val(x->root, i));
            break;
        }
    check_gaps(x->buf, x->d, x->n, x->what);
}

static void test_bcast(enum mode m, const struct dcase *d, long n, int root)
{
    struct bcast_ctx x = { d, n, root, alloc_elems(d, n) };
    snprintf(x.what, sizeof(x.what), "bcast %s n=%ld root=%d %s", d->name, n, root, mode_name[m]);
    struct round rd = { bcast_fill, bcast_check, &x };
    MPI_Request req;
    bcast_fill(&x);
    int rc = m == BLOCKING ? MPI_Bcast(x.buf, (int)n, d->type, root, MPI_COMM_WORLD)
           : m == NONBLOCKING ? MPI_Ibcast(x.buf, (int)n, d->type, root, MPI_COMM_WORLD, &req)
           : MPI_Bcast_init(x.buf, (int)n, d->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    run(m, &req, rc, &rd, x.what);
    free(x.buf);
}

/* ------------------------------------------------ reduce and allreduce */

struct red_ctx {
    const struct dcase *d;
    long n;
    int root;                   /* -1: allreduce */
    int in_place;
    int *sbuf, *rbuf;
    char what[128];
};

static int sum_of(long i)
{
    long long s = 0;
    for (int r = 0; r < size; r++)
        s += val(r, i);
    return (int)s;
}

static void red_fill(void *c)
{
    struct red_ctx *x = c;
    int *in = x->in_place && (x->root < 0 || x->root == rank) ? x->rbuf : x->sbuf;
    for (long i = 0; i < x->n; i++) {
        *el(in, x->d, i) = val(rank, i);
        if (in != x->rbuf)
            *el(x->rbuf, x->d, i) = -1;
    }
}

static void red_check(void *c)
{
    struct red_ctx *x = c;
    if (x->root >= 0 && rank != x->root)
        return;
    for (long i = 0; i < x->n; i++)
        if (*el(x->rbuf, x->d, i) != sum_of(i)) {
            CHECK(0, "%s: element %ld is %d, expected %d", x->what, i, *el(x->rbuf, x->d, i), sum_of(i));
            break;
        }
    check_gaps(x->rbuf, x->d, x->n, x->what);
}

static void test_reduce(enum mode m, const struct dcase *d, long n, int root, int in_place)
{
    struct red_ctx x = { d, n, root, in_place, alloc_elems(d, n), alloc_elems(d, n) };
    snprintf(x.what, sizeof(x.what), "%s %s n=%ld root=%d%s %s", root < 0 ? "allreduce" : "reduce", d->name, n,
             root, in_place ? " in place" : "", mode_name[m]);
    struct round rd = { red_fill, red_check, &x };
    MPI_Request req;
    red_fill(&x);
    const void *sb = in_place && (root < 0 || root == rank) ? MPI_IN_PLACE : x.sbuf;
    int c = (int)n, rc;
    if (root < 0)
        rc = m == BLOCKING ? MPI_Allreduce(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD)
           : m == NONBLOCKING ? MPI_Iallreduce(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, &req)
           : MPI_Allreduce_init(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
        rc = m == BLOCKING ? MPI_Reduce(sb, x.rbuf, c, d->type, MPI_SUM, root, MPI_COMM_WORLD)
           : m == NONBLOCKING ? MPI_Ireduce(sb, x.rbuf, c, d->type, MPI_SUM, root, MPI_COMM_WORLD, &req)
           : MPI_Reduce_init(sb, x.rbuf, c, d->type, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    run(m, &req, rc, &rd, x.what);
    free(x.sbuf);
    free(x.rbuf);
}

/* --------------------------------------------------- scan and exscan */

static void scan_fill(void *c)
{
    red_fill(c);
}

static void scan_check(void *c)
{
    struct red_ctx *x = c;
    int exclusive = x->root == -2;
    if (exclusive && rank == 0)
        return;
    for (long i = 0; i < x->n; i++) {
        long long s = 0;
        for (int r = 0; r < rank + !exclusive; r++)
            s += val(r, i);
        if (*el(x->rbuf, x->d, i) != (int)s) {
            CHECK(0, "%s: element %ld is %d, expected %d", x->what, i, *el(x->rbuf, x->d, i), (int)s);
            break;
        }
    }
    check_gaps(x->rbuf, x->d, x->n, x->what);
}

static void test_scan(enum mode m, const struct dcase *d, long n, int exclusive, int in_place)
{
    struct red_ctx x = { d, n, -1, in_place, alloc_elems(d, n), alloc_elems(d, n) };
    snprintf(x.what, sizeof(x.what), "%s %s n=%ld%s %s", exclusive ? "exscan" : "scan", d->name, n,
             in_place ? " in place" : "", mode_name[m]);
    struct round rd = { scan_fill, scan_check, &x };
    MPI_Request req;
    scan_fill(&x);
    x.root = exclusive ? -2 : -1;
    const void *sb = in_place ? MPI_IN_PLACE : x.sbuf;
    int c = (int)n, rc;
    if (!exclusive)
        rc = m == BLOCKING ? MPI_Scan(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD)
           : m == NONBLOCKING ? MPI_Iscan(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, &req)
           : MPI_Scan_init(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
        rc = m == BLOCKING ? MPI_Exscan(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD)
           : m == NONBLOCKING ? MPI_Iexscan(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, &req)
           : MPI_Exscan_init(sb, x.rbuf, c, d->type, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    run(m, &req, rc, &rd, x.what);
    free(x.sbuf);
    free(x.rbuf);
}

/* ------------------------------------------- gather, scatter and friends */

/* Block layouts: rank i's block has counts[i] elements at displs[i] of
 * the block buffer (regular operations: n each, i*n). */
enum bop { GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW,
           RSB, RS, NBOPS };
static const char *bop_name[] = { "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
                                  "alltoall", "alltoallv", "alltoallw", "reduce_scatter_block",
                                  "reduce_scatter" };

struct blk_ctx {
    enum bop op;
    const struct dcase *d;
    long n;
    int root;
    int in_place;
    int v;                      /* irregular counts */
    int *counts, *displs;       /* per rank, elements (w: bytes for displs) */
    int *wdispls;
    MPI_Datatype *types;
    long total;                 /* elements in the block buffer */
    int *sbuf, *rbuf;
    long scount, rcount;        /* elements in sbuf/rbuf */
    char what[160];
};

/* Irregular block sizes: rank i gets n + (i % 3) - 1 elements (at least 0),
 * laid out backwards with a gap of one element between blocks.  For the
 * all-to-all forms the block between ranks i and j has n + (i+j) % 3 - 1,
 * the same both ways, so that send and receive counts agree. */
static void make_layout(struct blk_ctx *x)
{
    x->counts = malloc(sizeof(int) * size);
    x->displs = malloc(sizeof(int) * size);
    x->wdispls = malloc(sizeof(int) * size);
    x->types = malloc(sizeof(MPI_Datatype) * size);
    long off = 0;
    for (int i = size - 1; i >= 0; i--) {
        int a2a = x->op == ALLTOALLV || x->op == ALLTOALLW;
        int c = x->v ? (int)(x->n + ((a2a ? i + rank : i) % 3) - 1) : (int)x->n;
        x->counts[i] = c < 0 ? 0 : c;
        x->displs[i] = x->v ? (int)off : (int)(i * x->n);
        off += x->counts[i] + (x->v ? 1 : 0);
    }
    x->total = x->v ? off : size * x->n;
    for (int i = 0; i < size; i++) {
        x->wdispls[i] = x->displs[i] * x->d->stride * (int)sizeof(int);
        x->types[i] = x->d->type;
    }
}

/* Element e of rank `owner`'s block as sent by rank `from`. */
static inline int bval(int from, int owner, long e)
{
    return val(from, owner * 100000L + e);
}

static int is_root_side(const struct blk_ctx *x)
{
    return x->root < 0 || x->root == rank;
}

static void blk_fill(void *c)
{
    struct blk_ctx *x = c;
    const struct dcase *d = x->d;
    for (long i = 0; i < x->scount; i++)
        *el(x->sbuf, d, i) = -2;
    for (long i = 0; i < x->rcount; i++)
        *el(x->rbuf, d, i) = -1;
    switch (x->op) {
    case GATHER: case GATHERV: case ALLGATHER: case ALLGATHERV: {
        /* My block: in sbuf, or in place in my slot of rbuf. */
        int *dst = x->in_place && is_root_side(x) ? el(x->rbuf, d, x->displs[rank]) : x->sbuf;
        for (long e = 0; e < x->counts[rank]; e++)
            *el(dst, d, e) = bval(rank, rank, e);
        break;
    }
    case SCATTER: case SCATTERV:
        if (rank == x->root)
            for (int i = 0; i < size; i++)
                for (long e = 0; e < x->counts[i]; e++)
                    *el(x->sbuf, d, x->displs[i] + e) = bval(rank, i, e);
        break;
    case ALLTOALL: case ALLTOALLV: case ALLTOALLW: case RSB: case RS: {
        int *src = x->in_place ? x->rbuf : x->sbuf;
        for (int i = 0; i < size; i++)
            for (long e = 0; e < x->counts[i]; e++)
                *el(src, d, x->displs[i] + e) = bval(rank, i, e);
        break;
    }
    default:
        break;
    }
}

static void expect(struct blk_ctx *x, long at, int want, int *bad)
{
    int got = *el(x->rbuf, x->d, at);
    if (got != want && !*bad) {
        CHECK(0, "%s: element %ld is %d, expected %d", x->what, at, got, want);
        *bad = 1;
    }
}

static void blk_check(void *c)
{
    struct blk_ctx *x = c;
    int bad = 0;
    switch (x->op) {
    case GATHER: case GATHERV: case ALLGATHER: case ALLGATHERV:
        if (!is_root_side(x))
            return;
        for (int i = 0; i < size; i++)
            for (long e = 0; e < x->counts[i]; e++)
                expect(x, x->displs[i] + e, bval(i, i, e), &bad);
        break;
    case SCATTER: case SCATTERV:
        if (x->in_place && rank == x->root)
            return;
        for (long e = 0; e < x->counts[rank]; e++)
            expect(x, e, bval(x->root, rank, e), &bad);
        break;
    case ALLTOALL: case ALLTOALLV: case ALLTOALLW:
        for (int i = 0; i < size; i++)
            for (long e = 0; e < x->counts[i]; e++)
                expect(x, x->displs[i] + e, bval(i, rank, e), &bad);
        break;
    case RSB: case RS:
        for (long e = 0; e < x->counts[rank]; e++) {
            long long s = 0;
            for (int r = 0; r < size; r++)
                s += bval(r, rank, e);
            expect(x, e, (int)s, &bad);
        }
        break;
    default:
        break;
    }
    check_gaps(x->rbuf, x->d, x->rcount, x->what);
}

static int start_blk(struct blk_ctx *x, enum mode m, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Datatype t = x->d->type;
    MPI_Info ni = MPI_INFO_NULL;
    int n = (int)x->n, root = x->root;
    void *sb = x->in_place && is_root_side(x) && x->op != SCATTER && x->op != SCATTERV ? MPI_IN_PLACE : x->sbuf;
    void *rb = x->in_place && rank == root && (x->op == SCATTER || x->op == SCATTERV) ? MPI_IN_PLACE : x->rbuf;
    int *c = x->counts, *dp = x->displs;
    switch (x->op) {
    case GATHER:
        return m == BLOCKING ? MPI_Gather(sb, n, t, rb, n, t, root, w)
             : m == NONBLOCKING ? MPI_Igather(sb, n, t, rb, n, t, root, w, req)
             : MPI_Gather_init(sb, n, t, rb, n, t, root, w, ni, req);
    case GATHERV:
        return m == BLOCKING ? MPI_Gatherv(sb, c[rank], t, rb, c, dp, t, root, w)
             : m == NONBLOCKING ? MPI_Igatherv(sb, c[rank], t, rb, c, dp, t, root, w, req)
             : MPI_Gatherv_init(sb, c[rank], t, rb, c, dp, t, root, w, ni, req);
    case SCATTER:
        return m == BLOCKING ? MPI_Scatter(sb, n, t, rb, n, t, root, w)
             : m == NONBLOCKING ? MPI_Iscatter(sb, n, t, rb, n, t, root, w, req)
             : MPI_Scatter_init(sb, n, t, rb, n, t, root, w, ni, req);
    case SCATTERV:
        return m == BLOCKING ? MPI_Scatterv(sb, c, dp, t, rb, c[rank], t, root, w)
             : m == NONBLOCKING ? MPI_Iscatterv(sb, c, dp, t, rb, c[rank], t, root, w, req)
             : MPI_Scatterv_init(sb, c, dp, t, rb, c[rank], t, root, w, ni, req);
    case ALLGATHER:
        return m == BLOCKING ? MPI_Allgather(sb, n, t, rb, n, t, w)
             : m == NONBLOCKING ? MPI_Iallgather(sb, n, t, rb, n, t, w, req)
             : MPI_Allgather_init(sb, n, t, rb, n, t, w, ni, req);
    case ALLGATHERV:
        return m == BLOCKING ? MPI_Allgatherv(sb, c[rank], t, rb, c, dp, t, w)
             : m == NONBLOCKING ? MPI_Iallgatherv(sb, c[rank], t, rb, c, dp, t, w, req)
             : MPI_Allgatherv_init(sb, c[rank], t, rb, c, dp, t, w, ni, req);
    case ALLTOALL:
        return m == BLOCKING ? MPI_Alltoall(sb, n, t, rb, n, t, w)
             : m == NONBLOCKING ? MPI_Ialltoall(sb, n, t, rb, n, t, w, req)
             : MPI_Alltoall_init(sb, n, t, rb, n, t, w, ni, req);
    case ALLTOALLV:
        return m == BLOCKING ? MPI_Alltoallv(sb, c, dp, t, rb, c, dp, t, w)
             : m == NONBLOCKING ? MPI_Ialltoallv(sb, c, dp, t, rb, c, dp, t, w, req)
             : MPI_Alltoallv_init(sb, c, dp, t, rb, c, dp, t, w, ni, req);
    case ALLTOALLW: {
        int *wd = x->wdispls;
        MPI_Datatype *ty = x->types;
        return m == BLOCKING ? MPI_Alltoallw(sb, c, wd, ty, rb, c, wd, ty, w)
             : m == NONBLOCKING ? MPI_Ialltoallw(sb, c, wd, ty, rb, c, wd, ty, w, req)
             : MPI_Alltoallw_init(sb, c, wd, ty, rb, c, wd, ty, w, ni, req);
    }
    case RSB:
        return m == BLOCKING ? MPI_Reduce_scatter_block(sb, rb, n, t, MPI_SUM, w)
             : m == NONBLOCKING ? MPI_Ireduce_scatter_block(sb, rb, n, t, MPI_SUM, w, req)
             : MPI_Reduce_scatter_block_init(sb, rb, n, t, MPI_SUM, w, ni, req);
    case RS:
        return m == BLOCKING ? MPI_Reduce_scatter(sb, rb, c, t, MPI_SUM, w)
             : m == NONBLOCKING ? MPI_Ireduce_scatter(sb, rb, c, t, MPI_SUM, w, req)
             : MPI_Reduce_scatter_init(sb, rb, c, t, MPI_SUM, w, ni, req);
    default:
        return MPI_ERR_OTHER;
    }
}

static void test_blocks(enum bop op, enum mode m, const struct dcase *d, long n, int root, int in_place)
{
    struct blk_ctx x = { op, d, n, root, in_place };
    x.v = op == GATHERV || op == SCATTERV || op == ALLGATHERV || op == ALLTOALLV || op == ALLTOALLW || op == RS;
    if (op == ALLTOALLW)
        x.v = 1;
    make_layout(&x);
    /* Reductions: the input vector is laid out like the blocks, packed
     * (no gaps), as Reduce_scatter wants; the v layout is only for the
     * result counts then. */
    if (op == RS || op == RSB) {
        long off = 0;
        for (int i = 0; i < size; i++) {
            x.displs[i] = (int)off;
            off += x.counts[i];
        }
        x.total = off;
    }
    switch (op) {
    case GATHER: case GATHERV: case ALLGATHER: case ALLGATHERV:
        x.scount = x.counts[rank];
        x.rcount = x.total;
        break;
    case SCATTER: case SCATTERV:
        x.scount = x.total;
        x.rcount = x.counts[rank];
        break;
    case RSB: case RS:
        x.scount = x.total;
        x.rcount = in_place ? x.total : x.counts[rank];
        break;
    default:
        x.scount = x.rcount = x.total;
        break;
    }
    x.sbuf = alloc_elems(d, x.scount);
    x.rbuf = alloc_elems(d, x.rcount);
    snprintf(x.what, sizeof(x.what), "%s %s n=%ld root=%d%s %s", bop_name[op], d->name, n, root,
             in_place ? " in place" : "", mode_name[m]);
    struct round rd = { blk_fill, blk_check, &x };
    MPI_Request req;
    blk_fill(&x);
    run(m, &req, start_blk(&x, m, &req), &rd, x.what);
    free(x.sbuf);
    free(x.rbuf);
    free(x.counts);
    free(x.displs);
    free(x.wdispls);
    free(x.types);
}

/* ---------------------------------------------------------------- driver */

static int wanted(int argc, char **argv, const char *op)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], op) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_dcases();

    /* Vector sizes (ints) around the switch points (64k, 128k bytes). */
    static const long vsizes[] = { 0, 1, 7, 1000, 20000, 70000 };
    /* Block sizes for operations that move p blocks per rank. */
    static const long bsizes[] = { 0, 1, 5, 300, 5000 };
    enum { NV = sizeof(vsizes) / sizeof(vsizes[0]), NB = sizeof(bsizes) / sizeof(bsizes[0]) };
    int roots[3] = { 0, size - 1, size / 2 };

    for (int m = 0; m < NMODES; m++) {
        for (int di = 0; di < 2; di++) {
            const struct dcase *d = &dcases[di];
            if (wanted(argc, argv, "barrier") && di == 0) {
                MPI_Request req;
                if (m == BLOCKING)
                    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                else if (m == NONBLOCKING) {
                    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
                    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                } else {
                    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                    for (int k = 0; k < 3; k++) {
                        CHECK_MPI(MPI_Start(&req));
                        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    }
                    CHECK_MPI(MPI_Request_free(&req));
                }
            }
            for (int si = 0; si < NV; si++) {
                long n = vsizes[si];
                for (int ri = 0; ri < 3; ri++) {
                    if (ri > 0 && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1]))
                        continue;
                    if (wanted(argc, argv, "bcast"))
                        test_bcast(m, d, n, roots[ri]);
                    for (int ip = 0; ip < 2; ip++)
                        if (wanted(argc, argv, "reduce"))
                            test_reduce(m, d, n, roots[ri], ip);
                }
                for (int ip = 0; ip < 2; ip++) {
                    if (wanted(argc, argv, "allreduce"))
                        test_reduce(m, d, n, -1, ip);
                    if (wanted(argc, argv, "scan"))
                        test_scan(m, d, n, 0, ip);
                    if (wanted(argc, argv, "exscan"))
                        test_scan(m, d, n, 1, ip);
                }
            }
            for (int op = 0; op < NBOPS; op++) {
                if (!wanted(argc, argv, bop_name[op]))
                    continue;
                int rooted = op == GATHER || op == GATHERV || op == SCATTER || op == SCATTERV;
                for (int si = 0; si < NB; si++)
                    for (int ri = 0; ri < (rooted ? 3 : 1); ri++) {
                        if (ri > 0 && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1]))
                            continue;
                        for (int ip = 0; ip < 2; ip++)
                            test_blocks(op, m, d, bsizes[si], rooted ? roots[ri] : -1, ip);
                    }
            }
        }
    }
    MPI_Type_free(&dcases[1].type);
    return uzt_finish("coll_check");
}
