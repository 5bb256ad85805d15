/*
 * coll_neighbor.c — neighbourhood collectives (allgather(v), alltoall(v,w),
 * blocking, nonblocking and persistent) on: a periodic ring (at 1 and 2
 * ranks one peer is both neighbours), a non-periodic 2-D grid (MPI_PROC_NULL
 * at the edges: those blocks stay untouched), a graph whose edges repeat,
 * and a distributed graph.  Every received element names its sender and
 * the sender's block index, which must be the one the standard pairs with
 * the receiving block.
 */
#include "uztest.h"

static int rank, size;
/* MPI_UNWEIGHTED through a variable: gcc takes the constant for an array. */
static int *unweighted;

enum kind { RING, GRID, GRAPH, DIST, NKINDS };
static const char *kind_name[] = { "periodic ring", "2-D grid", "graph", "dist graph" };

/* Graph: r's neighbours are r+1, r-1, r+1, r-1 (symmetric with repeats).
 * Dist graph: r receives from r-1 and r-2 and sends to r+1 and r+2. */
static int mod(int a)
{
    return ((a % size) + size) % size;
}

static int graph_out(enum kind k, int r, int *list)
{
    if (k == GRAPH) {
        list[0] = mod(r + 1); list[1] = mod(r - 1); list[2] = mod(r + 1); list[3] = mod(r - 1);
        return 4;
    }
    list[0] = mod(r + 1);
    list[1] = mod(r + 2);
    return 2;
}

static int graph_in(enum kind k, int r, int *list)
{
    if (k == GRAPH)
        return graph_out(k, r, list);
    list[0] = mod(r - 1);
    list[1] = mod(r - 2);
    return 2;
}

static MPI_Comm make(enum kind k)
{
    MPI_Comm c = MPI_COMM_NULL;
    if (k == RING) {
        int dims[1] = { size }, periods[1] = { 1 };
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    } else if (k == GRID) {
        int dims[2] = { 0, 0 }, periods[2] = { 0, 0 };
        MPI_Dims_create(size, 2, dims);
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    } else if (k == GRAPH) {
        int *index = malloc(sizeof(int) * size), *edges = malloc(sizeof(int) * 4 * size);
        for (int r = 0; r < size; r++) {
            index[r] = 4 * (r + 1);
            graph_out(k, r, edges + 4 * r);
        }
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
        free(index);
        free(edges);
    } else {
        int in[2], out[2];
        graph_in(k, rank, in);
        graph_out(k, rank, out);
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, unweighted, 2, out, unweighted,
                                                 MPI_INFO_NULL, 0, &c));
    }
    return c;
}

/* Neighbour lists as the standard defines them, and for block j received
 * from in[j], the sender's block index. */
struct nb {
    int indeg, outdeg;
    int in[8], out[8];
    int sender_index[8];
};

static void neighbours(MPI_Comm c, enum kind k, struct nb *n)
{
    if (k == RING || k == GRID) {
        int nd;
        MPI_Cartdim_get(c, &nd);
        n->indeg = n->outdeg = 2 * nd;
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift(c, d, 1, &n->in[2 * d], &n->in[2 * d + 1]);
            n->out[2 * d] = n->in[2 * d];
            n->out[2 * d + 1] = n->in[2 * d + 1];
            /* My -1 neighbour sent me its +1 block, and vice versa. */
            n->sender_index[2 * d] = 2 * d + 1;
            n->sender_index[2 * d + 1] = 2 * d;
        }
        return;
    }
    n->indeg = graph_in(k, rank, n->in);
    n->outdeg = graph_out(k, rank, n->out);
    /* The m-th time q appears in my in list pairs with the m-th time I
     * appear in q's out list. */
    for (int j = 0; j < n->indeg; j++) {
        int q = n->in[j], m = 0;
        for (int i = 0; i < j; i++)
            m += n->in[i] == q;
        int qout[8], nq = graph_out(k, q, qout);
        n->sender_index[j] = -1;
        for (int i = 0; i < nq; i++)
            if (qout[i] == rank && m-- == 0) {
                n->sender_index[j] = i;
                break;
            }
    }
}

enum { B = 37 };        /* ints per block */

static int item(int from, int block, int e)
{
    return from * 100000 + block * 1000 + e;
}

static void check_block(const int *got, int count, const struct nb *n, int j, int per_block, const char *what)
{
    int q = n->in[j];
    for (int e = 0; e < count; e++) {
        int want = q == MPI_PROC_NULL ? -1 : item(q, per_block ? n->sender_index[j] : 0, e);
        if (got[e] != want) {
            CHECK(0, "%s: block %d (from %d) element %d is %d, expected %d", what, j, q, e, got[e], want);
            return;
        }
    }
}

static void finish(int mode, int rc, MPI_Request *req, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
    if (rc != MPI_SUCCESS || mode == 0)
        return;
    if (mode == 2)
        CHECK_MPI(MPI_Start(req));
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == 2)
        CHECK_MPI(MPI_Request_free(req));
}

static void test(MPI_Comm c, enum kind k, int mode)
{
    static const char *mn[] = { "blocking", "nonblocking", "persistent" };
    struct nb n;
    neighbours(c, k, &n);
    int *sb = malloc(sizeof(int) * B * 8), *rb = malloc(sizeof(int) * B * 8);
    int counts[8], displs[8], rcounts[8], rdispls[8];
    MPI_Aint wsd[8], wrd[8];
    MPI_Datatype st[8], rt[8];
    MPI_Request req;
    MPI_Info ni = MPI_INFO_NULL;
    char what[96];

    /* allgather: every out-neighbour gets my one block. */
    for (int e = 0; e < B; e++)
        sb[e] = item(rank, 0, e);
    for (int i = 0; i < B * 8; i++)
        rb[i] = -1;
    snprintf(what, sizeof(what), "%s neighbor_allgather %s", kind_name[k], mn[mode]);
    finish(mode, mode == 0 ? MPI_Neighbor_allgather(sb, B, MPI_INT, rb, B, MPI_INT, c)
                 : mode == 1 ? MPI_Ineighbor_allgather(sb, B, MPI_INT, rb, B, MPI_INT, c, &req)
                 : MPI_Neighbor_allgather_init(sb, B, MPI_INT, rb, B, MPI_INT, c, ni, &req), &req, what);
    for (int j = 0; j < n.indeg; j++)
        check_block(rb + j * B, B, &n, j, 0, what);

    /* allgatherv: blocks placed backwards with gaps. */
    for (int j = 0; j < n.indeg; j++) {
        rcounts[j] = B;
        rdispls[j] = (n.indeg - 1 - j) * (B + 2);
    }
    for (int i = 0; i < B * 8; i++)
        rb[i] = -1;
    snprintf(what, sizeof(what), "%s neighbor_allgatherv %s", kind_name[k], mn[mode]);
    finish(mode, mode == 0 ? MPI_Neighbor_allgatherv(sb, B, MPI_INT, rb, rcounts, rdispls, MPI_INT, c)
                 : mode == 1 ? MPI_Ineighbor_allgatherv(sb, B, MPI_INT, rb, rcounts, rdispls, MPI_INT, c, &req)
                 : MPI_Neighbor_allgatherv_init(sb, B, MPI_INT, rb, rcounts, rdispls, MPI_INT, c, ni, &req),
           &req, what);
    for (int j = 0; j < n.indeg; j++)
        check_block(rb + rdispls[j], B, &n, j, 0, what);

    /* alltoall: block i goes to out[i]. */
    for (int i = 0; i < n.outdeg; i++)
        for (int e = 0; e < B; e++)
            sb[i * B + e] = item(rank, i, e);
    for (int i = 0; i < B * 8; i++)
        rb[i] = -1;
    snprintf(what, sizeof(what), "%s neighbor_alltoall %s", kind_name[k], mn[mode]);
    finish(mode, mode == 0 ? MPI_Neighbor_alltoall(sb, B, MPI_INT, rb, B, MPI_INT, c)
                 : mode == 1 ? MPI_Ineighbor_alltoall(sb, B, MPI_INT, rb, B, MPI_INT, c, &req)
                 : MPI_Neighbor_alltoall_init(sb, B, MPI_INT, rb, B, MPI_INT, c, ni, &req), &req, what);
    for (int j = 0; j < n.indeg; j++)
        check_block(rb + j * B, B, &n, j, 1, what);

    /* alltoallv and alltoallw: same blocks, displaced; w in bytes. */
    for (int i = 0; i < n.outdeg; i++) {
        counts[i] = B;
        displs[i] = i * B;
        wsd[i] = (MPI_Aint)sizeof(int) * displs[i];
        st[i] = MPI_INT;
    }
    for (int j = 0; j < n.indeg; j++) {
        wrd[j] = (MPI_Aint)sizeof(int) * rdispls[j];
        rt[j] = MPI_INT;
    }
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < B * 8; i++)
            rb[i] = -1;
        snprintf(what, sizeof(what), "%s neighbor_alltoall%s %s", kind_name[k], w ? "w" : "v", mn[mode]);
        int rc;
        if (!w)
            rc = mode == 0 ? MPI_Neighbor_alltoallv(sb, counts, displs, MPI_INT, rb, rcounts, rdispls, MPI_INT, c)
               : mode == 1 ? MPI_Ineighbor_alltoallv(sb, counts, displs, MPI_INT, rb, rcounts, rdispls, MPI_INT, c,
                                                    &req)
               : MPI_Neighbor_alltoallv_init(sb, counts, displs, MPI_INT, rb, rcounts, rdispls, MPI_INT, c, ni,
                                             &req);
        else
            rc = mode == 0 ? MPI_Neighbor_alltoallw(sb, counts, wsd, st, rb, rcounts, wrd, rt, c)
               : mode == 1 ? MPI_Ineighbor_alltoallw(sb, counts, wsd, st, rb, rcounts, wrd, rt, c, &req)
               : MPI_Neighbor_alltoallw_init(sb, counts, wsd, st, rb, rcounts, wrd, rt, c, ni, &req);
        finish(mode, rc, &req, what);
        for (int j = 0; j < n.indeg; j++)
            check_block(rb + rdispls[j], B, &n, j, 1, what);
    }
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unweighted = MPI_UNWEIGHTED;
    for (int k = 0; k < NKINDS; k++) {
        MPI_Comm c = make(k);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        for (int mode = 0; mode < 3; mode++)
            test(c, k, mode);
        MPI_Comm_free(&c);
    }
    /* No topology: MPI_ERR_TOPOLOGY. */
    int x = 0, y[2];
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_TOPOLOGY, "no topology: class %d", uzt_class(rc));
    return uzt_finish("coll_neighbor");
}
