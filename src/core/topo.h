/*
 * topo.h — process topologies attached to a communicator (comm->topo):
 * Cartesian grids, general graphs and distributed graphs.
 *
 * Besides what MPI_Cart_get / MPI_Graph_get / MPI_Dist_graph_neighbors
 * report, every topology carries this rank's neighbour lists in the exact
 * order the neighbourhood collectives (MPI_Neighbor_*, MPI-4.1 §8.6) use
 * for their buffers, so src/coll/ needs nothing else:
 *
 *   in[0 .. indegree-1]    ranks (in the communicator) this rank receives
 *                          from; block i of a neighbour collective's recvbuf
 *                          belongs to in[i]
 *   out[0 .. outdegree-1]  ranks this rank sends to; block i of sendbuf goes
 *                          to out[i]
 *
 * Entries may be MPI_PROC_NULL (Cartesian boundaries): the block is still
 * there in the buffer, nothing is sent to or received from it.  A rank may
 * appear several times (graphs with repeated edges, periodic dimensions of
 * extent 1 or 2): each occurrence is a separate message, matched in order.
 *
 * Order, per kind:
 *   MPI_CART        in == out == for each dimension d = 0 .. ndims-1, first
 *                   the neighbour at coordinate -1 then the one at +1 (what
 *                   MPI_Cart_shift(comm, d, 1) returns as source then dest);
 *                   indegree == outdegree == 2 * ndims.
 *   MPI_GRAPH       in == out == the list of MPI_Graph_neighbors(rank), in
 *                   the order of the edges array.
 *   MPI_DIST_GRAPH  in == sources, out == destinations, in the order
 *                   MPI_Dist_graph_neighbors returns them (for the
 *                   _adjacent constructor, the order the user gave).
 *
 * Matching rule for neighbour collectives (so that repeated neighbours pair
 * up correctly): a rank's k-th occurrence of peer p in `out` is received by
 * p's k-th occurrence of this rank in p's `in`.  For Cartesian topologies
 * the standard pairs the -1 send with the peer's +1 receive instead; the
 * coll engineer should tag Cartesian messages by (dimension, direction):
 * a block sent to out[2d] (the -1 neighbour) is the peer's in[2d+1]
 * block, and out[2d+1] is the peer's in[2d].
 *
 * The topology owns every array (for Cartesian and graph topologies `in`
 * and `out` are the same array); never free or change them.
 */
#ifndef UZ_CORE_TOPO_H
#define UZ_CORE_TOPO_H

#include <mpi.h>

struct uz_topology {
    int kind;                   /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */

    /* Neighbour lists for neighbourhood collectives (see above). */
    int indegree, outdegree;
    int *in, *out;
    /* Dist graphs only: weights parallel to in/out, or NULL when the graph
     * was created with MPI_UNWEIGHTED (MPI_Dist_graph_neighbors then
     * reports MPI_UNWEIGHTED).  `weighted` is the value of that call's
     * `weighted` output. */
    int weighted;
    int *in_weights, *out_weights;

    union {
        struct {
            int ndims;
            int *dims;          /* extent of each dimension */
            int *periods;       /* 0 / 1 per dimension */
            int *coords;        /* this rank's coordinates (row-major rank) */
        } cart;
        struct {
            int nnodes;
            int nedges;         /* == index[nnodes - 1] */
            int *index;         /* as given to MPI_Graph_create */
            int *edges;
        } graph;
    } u;
};

/* Free a topology and everything it owns (NULL is fine). */
void uz_topo_free(struct uz_topology *t);

/* A copy for MPI_Comm_dup and friends (NULL in, NULL out); NULL with
 * *err set to an MPI error code on allocation failure. */
struct uz_topology *uz_topo_dup(const struct uz_topology *t, int *err);

/* Cartesian rank of `coords` (periodic dimensions wrap; a coordinate out of
 * range in a non-periodic dimension gives MPI_PROC_NULL). */
int uz_topo_cart_rank(const struct uz_topology *t, const int *coords);

/* Coordinates of Cartesian rank `rank` into coords[ndims]. */
void uz_topo_cart_coords(const struct uz_topology *t, int rank, int *coords);

/* Cartesian neighbours of `rank` along `direction` at distance disp
 * (MPI_Cart_shift). */
void uz_topo_cart_shift(const struct uz_topology *t, int rank, int direction, int disp,
                        int *source, int *dest);

#endif /* UZ_CORE_TOPO_H */
