/*
 * topo_graph.c — general graph topologies (MPI-1): MPI_Graph_create,
 * _get, _neighbors_count, _neighbors, _map and MPI_Graphdims_get.
 *
 * Every process holds the whole graph, as the standard's interface
 * implies (any process may ask for any node's neighbours).  Node i's
 * neighbours are edges[index[i-1] .. index[i]) with index[-1] = 0; the
 * neighbourhood lists of topo.h are this rank's slice, in that order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "core/comm_impl.h"
#include "core/topo_impl.h"

static int check_graph(int nnodes, const int index[], const int edges[])
{
    if (nnodes > 0 && !index)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: index is NULL");
    int prev = 0;
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < prev)
            return uz_err_make(MPI_ERR_ARG, "index[%d] = %d is smaller than the previous entry %d",
                               i, index[i], prev);
        prev = index[i];
    }
    if (prev > 0 && !edges)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: edges is NULL");
    for (int e = 0; e < prev; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return uz_err_make(MPI_ERR_ARG, "edges[%d] = %d is not a node of a %d-node graph", e,
                               edges[e], nnodes);
    return MPI_SUCCESS;
}

static void node_edges(const struct uz_topology *t, int node, int *first, int *count)
{
    *first = node == 0 ? 0 : t->u.graph.index[node - 1];
    *count = t->u.graph.index[node] - *first;
}

static struct uz_topology *graph_new(int nnodes, const int index[], const int edges[], int rank,
                                     int *err)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    struct uz_topology *t = calloc(1, sizeof(*t));
    if (t) {
        t->kind = MPI_GRAPH;
        t->u.graph.nnodes = nnodes;
        t->u.graph.nedges = nedges;
        t->u.graph.index = malloc(sizeof(int) * (size_t)(nnodes + 1));
        t->u.graph.edges = malloc(sizeof(int) * (size_t)(nedges + 1));
    }
    if (!t || !t->u.graph.index || !t->u.graph.edges)
        goto no_mem;
    memcpy(t->u.graph.index, index, sizeof(int) * (size_t)nnodes);
    memcpy(t->u.graph.edges, edges, sizeof(int) * (size_t)nedges);
    int first, count;
    node_edges(t, rank, &first, &count);
    t->in = t->out = malloc(sizeof(int) * (size_t)(count + 1));
    if (!t->in)
        goto no_mem;
    memcpy(t->in, edges + first, sizeof(int) * (size_t)count);
    t->indegree = t->outdegree = count;
    return t;
no_mem:
    uz_topo_free(t);
    *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a graph topology");
    return NULL;
}

int uz_mpi_Graph_create(uz_comm *comm_old, int nnodes, const int index[], const int edges[],
                        int reorder, MPI_Comm *comm_graph)
{
    int err = check_graph(nnodes, index, edges);
    if (err)
        return err;
    uz_comm *c;
    if ((err = uz_topo_prefix_comm(comm_old, nnodes, &c)))
        return err;
    if (c && !(c->topo = graph_new(nnodes, index, edges, c->rank, &err))) {
        uz_comm_discard(c);
        return err;
    }
    *comm_graph = c ? uz_comm_handle(c) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int uz_mpi_Graphdims_get(uz_comm *comm, int *nnodes, int *nedges)
{
    int err = uz_topo_need(comm, MPI_GRAPH, "MPI_Graphdims_get");
    if (err)
        return err;
    *nnodes = comm->topo->u.graph.nnodes;
    *nedges = comm->topo->u.graph.nedges;
    return MPI_SUCCESS;
}

int uz_mpi_Graph_get(uz_comm *comm, int maxindex, int maxedges, int index[], int edges[])
{
    int err = uz_topo_need(comm, MPI_GRAPH, "MPI_Graph_get");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    int ni = t->u.graph.nnodes < maxindex ? t->u.graph.nnodes : maxindex;
    int ne = t->u.graph.nedges < maxedges ? t->u.graph.nedges : maxedges;
    if ((ni > 0 && !index) || (ne > 0 && !edges))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: %s is NULL", !index ? "index" : "edges");
    memcpy(index, t->u.graph.index, sizeof(int) * (size_t)(ni > 0 ? ni : 0));
    memcpy(edges, t->u.graph.edges, sizeof(int) * (size_t)(ne > 0 ? ne : 0));
    return MPI_SUCCESS;
}

static int check_node(uz_comm *comm, int rank)
{
    if (rank < 0 || rank >= comm->topo->u.graph.nnodes)
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d for a graph of %d nodes", rank,
                           comm->topo->u.graph.nnodes);
    return MPI_SUCCESS;
}

int uz_mpi_Graph_neighbors_count(uz_comm *comm, int rank, int *nneighbors)
{
    int err = uz_topo_need(comm, MPI_GRAPH, "MPI_Graph_neighbors_count");
    if (!err)
        err = check_node(comm, rank);
    if (err)
        return err;
    int first;
    node_edges(comm->topo, rank, &first, nneighbors);
    return MPI_SUCCESS;
}

int uz_mpi_Graph_neighbors(uz_comm *comm, int rank, int maxneighbors, int neighbors[])
{
    int err = uz_topo_need(comm, MPI_GRAPH, "MPI_Graph_neighbors");
    if (!err)
        err = check_node(comm, rank);
    if (err)
        return err;
    int first, count;
    node_edges(comm->topo, rank, &first, &count);
    if (count > maxneighbors)
        count = maxneighbors;
    if (count > 0 && !neighbors)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: neighbors is NULL");
    for (int i = 0; i < count; i++)
        neighbors[i] = comm->topo->u.graph.edges[first + i];
    return MPI_SUCCESS;
}

int uz_mpi_Graph_map(uz_comm *comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    int err = check_graph(nnodes, index, edges);
    if (err)
        return err;
    if (nnodes > comm->size)
        return uz_err_make(MPI_ERR_ARG, "the graph has %d nodes but the communicator only %d "
                           "processes", nnodes, comm->size);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
