/*
 * comm_topo.c — process topologies against hand-computed answers:
 * MPI_Dims_create tables (the standard's examples included), Cartesian
 * grids (get, rank, coords, shift in both directions and with wrap-around,
 * sub-grids, zero dimensions, map), the standard's four-node graph, the
 * distributed graph constructors (adjacent and general, weighted and not),
 * MPI_Topo_test, dups keeping their topology, and the errors of each.
 */
#include "uztest.h"

static int n, me;

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS && uzt_class(rc) == cls, "%s: rc %d class %d, expected class %d", what,
          rc, rc ? uzt_class(rc) : 0, cls);
}

/* ---------------------------------------------------------- Dims_create */

struct dims_case {
    int nnodes, ndims;
    int in[4];
    int out[4];         /* all zero with ok = 0: must fail */
    int ok;
};

static const struct dims_case dims_cases[] = {
    /* The standard's examples (MPI-4.1 §8.5.2). */
    { 6, 2, { 0, 0 }, { 3, 2 }, 1 },
    { 7, 2, { 0, 0 }, { 7, 1 }, 1 },
    { 6, 3, { 0, 3, 0 }, { 2, 3, 1 }, 1 },
    { 7, 3, { 0, 3, 0 }, { 0 }, 0 },
    /* Balanced factorizations. */
    { 1, 3, { 0, 0, 0 }, { 1, 1, 1 }, 1 },
    { 2, 4, { 0, 0, 0, 0 }, { 2, 1, 1, 1 }, 1 },
    { 8, 3, { 0, 0, 0 }, { 2, 2, 2 }, 1 },
    { 12, 2, { 0, 0 }, { 4, 3 }, 1 },
    { 16, 4, { 0, 0, 0, 0 }, { 2, 2, 2, 2 }, 1 },
    { 24, 3, { 0, 0, 0 }, { 4, 3, 2 }, 1 },
    { 30, 3, { 0, 0, 0 }, { 5, 3, 2 }, 1 },
    { 36, 3, { 0, 0, 0 }, { 4, 3, 3 }, 1 },
    { 64, 3, { 0, 0, 0 }, { 4, 4, 4 }, 1 },
    { 72, 2, { 0, 0 }, { 9, 8 }, 1 },             /* not the greedy 12 x 6 */
    { 100, 2, { 0, 0 }, { 10, 10 }, 1 },
    { 120, 3, { 0, 0, 0 }, { 6, 5, 4 }, 1 },
    { 4096, 3, { 0, 0, 0 }, { 16, 16, 16 }, 1 },
    { 97, 3, { 0, 0, 0 }, { 97, 1, 1 }, 1 },
    /* Fixed entries. */
    { 12, 2, { 3, 4 }, { 3, 4 }, 1 },
    { 24, 3, { 0, 2, 0 }, { 4, 2, 3 }, 1 },
    { 12, 2, { 5, 0 }, { 0 }, 0 },
    { 12, 2, { 3, 5 }, { 0 }, 0 },
    { 12, 2, { -1, 0 }, { 0 }, 0 },
};

static void test_dims_create(void)
{
    for (size_t c = 0; c < sizeof(dims_cases) / sizeof(dims_cases[0]); c++) {
        const struct dims_case *t = &dims_cases[c];
        int d[4];
        memcpy(d, t->in, sizeof(d));
        int rc = MPI_Dims_create(t->nnodes, t->ndims, d);
        if (!t->ok) {
            CHECK(rc != MPI_SUCCESS, "Dims_create(%d, %d) case %zu should fail", t->nnodes,
                  t->ndims, c);
            int cls = rc ? uzt_class(rc) : 0;
            CHECK(cls == MPI_ERR_DIMS, "Dims_create case %zu: class %d, expected MPI_ERR_DIMS", c,
                  cls);
            continue;
        }
        CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) case %zu failed", t->nnodes, t->ndims, c);
        for (int i = 0; i < t->ndims; i++)
            CHECK(d[i] == t->out[i], "Dims_create(%d, %d) case %zu: dims[%d] = %d, expected %d",
                  t->nnodes, t->ndims, c, i, d[i], t->out[i]);
    }
    /* Free entries are non-increasing and multiply out, for many sizes. */
    for (int nn = 1; nn <= 512; nn++) {
        for (int nd = 1; nd <= 4; nd++) {
            int d[4] = { 0, 0, 0, 0 };
            CHECK_MPI(MPI_Dims_create(nn, nd, d));
            long p = 1;
            for (int i = 0; i < nd; i++) {
                p *= d[i];
                CHECK(i == 0 || d[i] <= d[i - 1], "Dims_create(%d, %d) not non-increasing", nn, nd);
            }
            CHECK(p == nn, "Dims_create(%d, %d) product %ld", nn, nd, p);
        }
    }
}

/* ------------------------------------------------------------- Cartesian */

/* The 3 x 2 grid, periodic in dimension 0 only, by hand:
 *   rank: 0 (0,0)  1 (0,1)  2 (1,0)  3 (1,1)  4 (2,0)  5 (2,1)            */
static const int shift0[6][2] = { { 4, 2 }, { 5, 3 }, { 0, 4 }, { 1, 5 }, { 2, 0 }, { 3, 1 } };
static const int shift1[6][2] = { { MPI_PROC_NULL, 1 }, { 0, MPI_PROC_NULL },
                                  { MPI_PROC_NULL, 3 }, { 2, MPI_PROC_NULL },
                                  { MPI_PROC_NULL, 5 }, { 4, MPI_PROC_NULL } };
/* disp -2 in dimension 0: source is coordinate + 2, destination - 2. */
static const int shiftm2[6][2] = { { 4, 2 }, { 5, 3 }, { 0, 4 }, { 1, 5 }, { 2, 0 }, { 3, 1 } };

static void test_cart_3x2(void)
{
    int dims[2] = { 3, 2 }, periods[2] = { 1, 0 };
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    if (me >= 6) {
        CHECK(c == MPI_COMM_NULL, "rank %d beyond the 3x2 grid got a communicator", me);
        return;
    }
    int st, nd, r;
    CHECK_MPI(MPI_Topo_test(c, &st));
    CHECK_EQ(st, MPI_CART);
    CHECK_MPI(MPI_Cartdim_get(c, &nd));
    CHECK_EQ(nd, 2);
    MPI_Comm_rank(c, &r);
    CHECK_EQ(r, me);
    int gd[2], gp[2], gc[2];
    CHECK_MPI(MPI_Cart_get(c, 2, gd, gp, gc));
    CHECK(gd[0] == 3 && gd[1] == 2 && gp[0] == 1 && gp[1] == 0, "Cart_get dims/periods");
    CHECK(gc[0] == me / 2 && gc[1] == me % 2, "Cart_get coords (%d,%d)", gc[0], gc[1]);

    for (int rank = 0; rank < 6; rank++) {
        int co[2], back;
        CHECK_MPI(MPI_Cart_coords(c, rank, 2, co));
        CHECK(co[0] == rank / 2 && co[1] == rank % 2, "Cart_coords(%d) = (%d,%d)", rank, co[0], co[1]);
        CHECK_MPI(MPI_Cart_rank(c, co, &back));
        CHECK_EQ(back, rank);
    }
    int wrap[2] = { -1, 1 }, wrap2[2] = { 4, 0 }, rr;
    CHECK_MPI(MPI_Cart_rank(c, wrap, &rr));
    CHECK_EQ(rr, 5);
    CHECK_MPI(MPI_Cart_rank(c, wrap2, &rr));
    CHECK_EQ(rr, 2);
    int bad[2] = { 0, 2 };
    expect_class(MPI_Cart_rank(c, bad, &rr), MPI_ERR_ARG, "Cart_rank outside a non-periodic dim");

    int s, d;
    CHECK_MPI(MPI_Cart_shift(c, 0, 1, &s, &d));
    CHECK(s == shift0[me][0] && d == shift0[me][1], "shift(0,1) = %d,%d", s, d);
    CHECK_MPI(MPI_Cart_shift(c, 1, 1, &s, &d));
    CHECK(s == shift1[me][0] && d == shift1[me][1], "shift(1,1) = %d,%d", s, d);
    CHECK_MPI(MPI_Cart_shift(c, 0, -2, &s, &d));
    CHECK(s == shiftm2[me][0] && d == shiftm2[me][1], "shift(0,-2) = %d,%d", s, d);
    CHECK_MPI(MPI_Cart_shift(c, 1, 0, &s, &d));
    CHECK(s == me && d == me, "shift by 0 is not the rank itself");
    expect_class(MPI_Cart_shift(c, 2, 1, &s, &d), MPI_ERR_ARG, "Cart_shift direction 2");
    expect_class(MPI_Cart_coords(c, 6, 2, gc), MPI_ERR_RANK, "Cart_coords of rank 6");

    /* Traffic along the periodic dimension. */
    int got = -1;
    CHECK_MPI(MPI_Cart_shift(c, 0, 1, &s, &d));
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, d, 0, &got, 1, MPI_INT, s, 0, c, MPI_STATUS_IGNORE));
    CHECK_EQ(got, s);

    /* Sub-grids: rows (keep dimension 1) and columns (keep dimension 0). */
    int keep_row[2] = { 0, 1 }, keep_col[2] = { 1, 0 };
    MPI_Comm row, col;
    CHECK_MPI(MPI_Cart_sub(c, keep_row, &row));
    CHECK_MPI(MPI_Cart_sub(c, keep_col, &col));
    int rs, rrk, cs, crk;
    MPI_Comm_size(row, &rs);
    MPI_Comm_rank(row, &rrk);
    MPI_Comm_size(col, &cs);
    MPI_Comm_rank(col, &crk);
    CHECK(rs == 2 && rrk == me % 2, "row: size %d rank %d", rs, rrk);
    CHECK(cs == 3 && crk == me / 2, "column: size %d rank %d", cs, crk);
    CHECK_MPI(MPI_Cart_get(col, 1, gd, gp, gc));
    CHECK(gd[0] == 3 && gp[0] == 1 && gc[0] == me / 2, "column topology");
    CHECK_MPI(MPI_Cart_shift(col, 0, 1, &s, &d));
    CHECK(s == (crk + 2) % 3 && d == (crk + 1) % 3, "column shift %d,%d", s, d);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, col));
    CHECK_EQ(sum, 3 * (me % 2) + 6);       /* column c holds c, c+2, c+4 */
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);

    /* Dropping every dimension leaves a zero-dimensional grid of one. */
    int none[2] = { 0, 0 };
    MPI_Comm pt;
    CHECK_MPI(MPI_Cart_sub(c, none, &pt));
    int ps;
    MPI_Comm_size(pt, &ps);
    CHECK_MPI(MPI_Cartdim_get(pt, &nd));
    CHECK(ps == 1 && nd == 0, "all dims dropped: size %d ndims %d", ps, nd);
    MPI_Comm_free(&pt);

    /* A dup keeps the topology. */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(c, &dup));
    CHECK_MPI(MPI_Topo_test(dup, &st));
    CHECK_EQ(st, MPI_CART);
    CHECK_MPI(MPI_Cart_shift(dup, 0, 1, &s, &d));
    CHECK(s == shift0[me][0] && d == shift0[me][1], "dup shift(0,1) = %d,%d", s, d);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&c);
}

static void test_cart_general(void)
{
    /* The whole world as a balanced periodic 2-D grid. */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
    MPI_Dims_create(n, 2, dims);
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &c));
    int co[2];
    CHECK_MPI(MPI_Cart_coords(c, me, 2, co));
    CHECK(co[0] == me / dims[1] && co[1] == me % dims[1], "row-major coordinates");
    for (int dim = 0; dim < 2; dim++) {
        int s, d, up[2] = { co[0], co[1] }, down[2] = { co[0], co[1] };
        up[dim] = (co[dim] + 1) % dims[dim];
        down[dim] = (co[dim] - 1 + dims[dim]) % dims[dim];
        CHECK_MPI(MPI_Cart_shift(c, dim, 1, &s, &d));
        CHECK_EQ(d, up[0] * dims[1] + up[1]);
        CHECK_EQ(s, down[0] * dims[1] + down[1]);
    }
    int nr;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr));
    CHECK_EQ(nr, me);
    MPI_Comm_free(&c);

    /* A 1-D grid one smaller than the world: the last rank is left out. */
    if (n > 1) {
        int d1 = n - 1, p1 = 0;
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &d1, &p1, 0, &c));
        CHECK((me == n - 1) == (c == MPI_COMM_NULL), "1-D grid of n-1");
        CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, &d1, &p1, &nr));
        CHECK_EQ(nr, me == n - 1 ? MPI_UNDEFINED : me);
        if (c != MPI_COMM_NULL)
            MPI_Comm_free(&c);
    }

    /* Zero dimensions: a grid of one process. */
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c));
    CHECK((me == 0) == (c != MPI_COMM_NULL), "zero-dimensional grid");
    if (c != MPI_COMM_NULL) {
        int nd, s;
        MPI_Cartdim_get(c, &nd);
        MPI_Comm_size(c, &s);
        CHECK(nd == 0 && s == 1, "zero-dimensional grid: ndims %d size %d", nd, s);
        MPI_Comm_free(&c);
    }

    int big = n + 1, zero = 0, neg = -2, p = 0;
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &p, 0, &c), MPI_ERR_ARG,
                 "grid larger than the communicator");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &zero, &p, 0, &c), MPI_ERR_DIMS, "dims 0");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &neg, &p, 0, &c), MPI_ERR_DIMS, "dims -2");
    int s, d;
    expect_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d), MPI_ERR_TOPOLOGY,
                 "Cart_shift without a topology");
    expect_class(MPI_Cartdim_get(MPI_COMM_WORLD, &d), MPI_ERR_TOPOLOGY, "Cartdim_get without one");
    int st;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
}

/* ----------------------------------------------------------------- graph */

static void test_graph(void)
{
    /* The standard's example: node 0 -> 1, 3; 1 -> 0; 2 -> 3; 3 -> 0, 2. */
    int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    static const int nbrs[4][2] = { { 1, 3 }, { 0, -1 }, { 3, -1 }, { 0, 2 } };
    static const int counts[4] = { 2, 1, 1, 2 };
    if (n < 4) {
        MPI_Comm g;
        expect_class(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g), MPI_ERR_ARG,
                     "graph larger than the communicator");
        return;
    }
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g));
    if (me >= 4) {
        CHECK(g == MPI_COMM_NULL, "rank beyond the graph got a communicator");
        return;
    }
    int st, nn, ne;
    CHECK_MPI(MPI_Topo_test(g, &st));
    CHECK_EQ(st, MPI_GRAPH);
    CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == 4 && ne == 6, "Graphdims_get %d %d", nn, ne);
    int gi[4], ge[6];
    CHECK_MPI(MPI_Graph_get(g, 4, 6, gi, ge));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(gi[i], index[i]);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(ge[i], edges[i]);
    for (int node = 0; node < 4; node++) {
        int cnt, nb[2] = { -1, -1 };
        CHECK_MPI(MPI_Graph_neighbors_count(g, node, &cnt));
        CHECK_EQ(cnt, counts[node]);
        CHECK_MPI(MPI_Graph_neighbors(g, node, 2, nb));
        for (int i = 0; i < cnt; i++)
            CHECK(nb[i] == nbrs[node][i], "node %d neighbour %d is %d", node, i, nb[i]);
    }
    int nr;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, 4, index, edges, &nr));
    CHECK_EQ(nr, me);
    int cnt;
    expect_class(MPI_Graph_neighbors_count(g, 4, &cnt), MPI_ERR_RANK, "Graph_neighbors_count(4)");
    int badedges[6] = { 1, 3, 0, 3, 0, 4 };
    MPI_Comm x;
    expect_class(MPI_Graph_create(g, 4, index, badedges, 0, &x), MPI_ERR_ARG, "edge to node 4");

    /* Traffic to every neighbour. */
    MPI_Request req[4];
    int got[2] = { -1, -1 }, k = 0;
    for (int i = 0; i < counts[me]; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, nbrs[me][i], 0, g, &req[k++]);
    for (int i = 0; i < counts[me]; i++)
        MPI_Isend(&me, 1, MPI_INT, nbrs[me][i], 0, g, &req[k++]);
    /* The graph is symmetric, so every neighbour also sends to us. */
    CHECK_MPI(MPI_Waitall(k, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < counts[me]; i++)
        CHECK_EQ(got[i], nbrs[me][i]);
    MPI_Comm_free(&g);
}

/* ------------------------------------------------------------ dist graph */

static void test_dist_graph(void)
{
    int left = (me - 1 + n) % n, right = (me + 1) % n;
    MPI_Comm g;
    int sw[1] = { 10 * left + me }, dw[1] = { 10 * me + right };
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, sw, 1, &right, dw,
                                             MPI_INFO_NULL, 0, &g));
    int st, in, out, w;
    CHECK_MPI(MPI_Topo_test(g, &st));
    CHECK_EQ(st, MPI_DIST_GRAPH);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 1 && out == 1 && w, "adjacent: %d %d %d", in, out, w);
    int s, d, gsw, gdw;
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 1, &s, &gsw, 1, &d, &gdw));
    CHECK(s == left && d == right && gsw == sw[0] && gdw == dw[0], "adjacent neighbours");
    MPI_Comm_free(&g);

    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 1 && out == 1 && !w, "adjacent unweighted: %d %d %d", in, out, w);
    MPI_Comm_free(&g);

    /* General constructor, rank 0 names every edge of the ring i -> i+1
     * with weight i; the others name none. */
    int srcs[64], degs[64], dsts[64], wts[64];
    int nsrc = 0;
    if (me == 0)
        for (int i = 0; i < n; i++) {
            srcs[nsrc] = i;
            degs[nsrc] = 1;
            dsts[nsrc] = (i + 1) % n;
            wts[nsrc++] = i;
        }
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts,
                                    me == 0 ? wts : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 1 && out == 1, "general ring: %d in %d out", in, out);
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 1, &s, &gsw, 1, &d, &gdw));
    CHECK(s == left && d == right && gsw == left && gdw == me,
          "general ring: in %d (w %d) out %d (w %d)", s, gsw, d, gdw);
    int got = -1;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, d, 0, &got, 1, MPI_INT, s, 0, g, MPI_STATUS_IGNORE));
    CHECK_EQ(got, left);
    MPI_Comm_free(&g);

    /* Every rank names its own edges to all ranks (itself included): the
     * in-list is in the order of the ranks that named the edges. */
    int all[64];
    for (int i = 0; i < n; i++)
        all[i] = i;
    int deg = n;
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &deg, all, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == n && out == n && !w, "complete graph: %d %d %d", in, out, w);
    int ins[64], outs[64];
    CHECK_MPI(MPI_Dist_graph_neighbors(g, n, ins, MPI_UNWEIGHTED, n, outs, MPI_UNWEIGHTED));
    for (int i = 0; i < n; i++)
        CHECK(ins[i] == i && outs[i] == i, "complete graph: in[%d] = %d out[%d] = %d", i, ins[i], i,
              outs[i]);
    MPI_Comm_free(&g);

    int badrank = n;
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &badrank, MPI_UNWEIGHTED, 0,
                                                NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                 MPI_ERR_RANK, "adjacent with rank n");
    expect_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w), MPI_ERR_TOPOLOGY,
                 "Dist_graph_neighbors_count without a topology");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_dims_create();
    if (n >= 6)
        test_cart_3x2();
    test_cart_general();
    test_graph();
    test_dist_graph();
    return uzt_finish("comm_topo");
}
