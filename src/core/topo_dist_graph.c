/*
 * topo_dist_graph.c — distributed graph topologies (MPI-2.2):
 * MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create and the two
 * neighbour queries.
 *
 * A process knows only its own in- and out-neighbours.  With the adjacent
 * constructor it gives them itself, in the order kept for neighbourhood
 * collectives.  With the general constructor any process may name any
 * edge, so edges are first sent to the two processes they belong to:
 * every process counts what it sends to whom, the counts go round with an
 * alltoall, and the edge records follow point-to-point on the old
 * communicator's collective context.  A process's lists are then in the
 * order of the ranks that named the edges, and within one rank in the
 * order of its arrays.
 *
 * `weighted` is what this process passed (MPI_UNWEIGHTED or not), as in
 * MPICH; MPI makes mixing weighted and unweighted processes erroneous.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "core/info.h"
#include "core/topo_impl.h"
#include "pt2pt/pt2pt.h"

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a distributed graph");
}

static int is_weight_array(const int *w)
{
    return w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY && w != NULL;
}

static int check_ranks(const uz_comm *comm, int n, const int *ranks, const char *what)
{
    if (n > 0 && !ranks)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: %s is NULL", what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return uz_err_make(MPI_ERR_RANK, "invalid rank %s[%d] = %d for a communicator of size %d",
                               what, i, ranks[i], comm->size);
    return MPI_SUCCESS;
}

static int check_weights(int n, const int *w, const char *what)
{
    if (n > 0 && (w == MPI_WEIGHTS_EMPTY || !w))
        return uz_err_make(MPI_ERR_ARG, "%s must hold %d weights (or be MPI_UNWEIGHTED)", what, n);
    if (is_weight_array(w))
        for (int i = 0; i < n; i++)
            if (w[i] < 0)
                return uz_err_make(MPI_ERR_ARG, "negative weight %s[%d] = %d", what, i, w[i]);
    return MPI_SUCCESS;
}

/* The topology from in/out lists (copied); weights may be NULL. */
static struct uz_topology *dist_new(int indeg, const int *in, const int *inw, int outdeg,
                                    const int *out, const int *outw, int weighted)
{
    struct uz_topology *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->weighted = weighted;
    t->in = malloc(sizeof(int) * (size_t)(indeg + 1));
    t->out = malloc(sizeof(int) * (size_t)(outdeg + 1));
    if (weighted) {
        t->in_weights = malloc(sizeof(int) * (size_t)(indeg + 1));
        t->out_weights = malloc(sizeof(int) * (size_t)(outdeg + 1));
    }
    if (!t->in || !t->out || (weighted && (!t->in_weights || !t->out_weights))) {
        uz_topo_free(t);
        return NULL;
    }
    memcpy(t->in, in, sizeof(int) * (size_t)indeg);
    memcpy(t->out, out, sizeof(int) * (size_t)outdeg);
    for (int i = 0; weighted && i < indeg; i++)
        t->in_weights[i] = inw ? inw[i] : 1;
    for (int i = 0; weighted && i < outdeg; i++)
        t->out_weights[i] = outw ? outw[i] : 1;
    return t;
}

/* A communicator over all of old (no reordering) carrying topology t. */
static int attach_new_comm(uz_comm *old, struct uz_topology *t, MPI_Comm *out)
{
    uz_comm *c;
    int err = uz_topo_prefix_comm(old, old->size, &c);
    if (err) {
        uz_topo_free(t);
        return err;
    }
    c->topo = t;
    *out = uz_comm_handle(c);
    return MPI_SUCCESS;
}

int uz_mpi_Dist_graph_create_adjacent(uz_comm *comm_old, int indegree, const int sources[],
                                      const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      uz_info *info, int reorder, MPI_Comm *comm_dist_graph)
{
    if (comm_old->is_inter)
        return uz_err_make(MPI_ERR_COMM, "a topology needs an intracommunicator");
    int err;
    if ((err = check_ranks(comm_old, indegree, sources, "sources")) ||
        (err = check_ranks(comm_old, outdegree, destinations, "destinations")) ||
        (err = check_weights(indegree, sourceweights, "sourceweights")) ||
        (err = check_weights(outdegree, destweights, "destweights")))
        return err;
    int weighted = sourceweights != MPI_UNWEIGHTED;
    struct uz_topology *t = dist_new(indegree, sources,
                                     is_weight_array(sourceweights) ? sourceweights : NULL,
                                     outdegree, destinations,
                                     is_weight_array(destweights) ? destweights : NULL, weighted);
    if (!t)
        return no_mem();
    return attach_new_comm(comm_old, t, comm_dist_graph);
}

/* ---------------------------------------------------- general constructor */

/* An edge record as sent to its owner: which list, the neighbour, the
 * weight. */
enum { REC_IN = 0, REC_OUT = 1, REC_INTS = 3 };

struct edge_exchange {
    int size;
    int *sendcounts, *recvcounts;       /* records per peer */
    int **sendbuf, **recvbuf;           /* records per peer */
};

static void exchange_free(struct edge_exchange *x)
{
    for (int p = 0; p < x->size; p++) {
        if (x->sendbuf)
            free(x->sendbuf[p]);
        if (x->recvbuf)
            free(x->recvbuf[p]);
    }
    free(x->sendbuf);
    free(x->recvbuf);
    free(x->sendcounts);
    free(x->recvcounts);
}

static void add_record(struct edge_exchange *x, int owner, int kind, int neighbour, int weight,
                       int *fill)
{
    int *r = x->sendbuf[owner] + (size_t)fill[owner]++ * REC_INTS;
    r[0] = kind;
    r[1] = neighbour;
    r[2] = weight;
}

/* Sort the edges given here into per-owner records. */
static int build_records(struct edge_exchange *x, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[])
{
    int weighted = is_weight_array(weights);
    int *fill = calloc((size_t)x->size, sizeof(int));
    if (!fill)
        return no_mem();
    for (int i = 0, e = 0; i < n; i++) {
        for (int k = 0; k < degrees[i]; k++, e++) {
            x->sendcounts[sources[i]]++;
            x->sendcounts[destinations[e]]++;
        }
    }
    for (int p = 0; p < x->size; p++) {
        if (x->sendcounts[p] && !(x->sendbuf[p] = malloc(sizeof(int) * REC_INTS *
                                                          (size_t)x->sendcounts[p]))) {
            free(fill);
            return no_mem();
        }
    }
    for (int i = 0, e = 0; i < n; i++) {
        for (int k = 0; k < degrees[i]; k++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            add_record(x, s, REC_OUT, d, w, fill);
            add_record(x, d, REC_IN, s, w, fill);
        }
    }
    free(fill);
    return MPI_SUCCESS;
}

/* Counts by alltoall, records point-to-point. */
static int exchange_records(uz_comm *comm, struct edge_exchange *x)
{
    int err = uz_coll_alltoall(x->sendcounts, 1, uz_datatype_get(MPI_INT), x->recvcounts, 1,
                               uz_datatype_get(MPI_INT), comm);
    if (err)
        return err;
    for (int p = 0; p < x->size; p++)
        if (x->recvcounts[p] && !(x->recvbuf[p] = malloc(sizeof(int) * REC_INTS *
                                                          (size_t)x->recvcounts[p])))
            return no_mem();
    uz_request **reqs = calloc(2 * (size_t)x->size + 1, sizeof(*reqs));
    if (!reqs)
        return no_mem();
    int nreq = 0;
    uz_datatype *ints = uz_datatype_get(MPI_INT);
    uz_lock();
    int tag = uz_comm_next_agree_tag(comm);
    for (int p = 0; p < x->size && !err; p++)
        if (x->recvcounts[p])
            err = uz_pt2pt_recv(x->recvbuf[p], (MPI_Count)x->recvcounts[p] * REC_INTS, ints, p, tag,
                                &comm->p2p_coll, NULL, &reqs[nreq++]);
    for (int p = 0; p < x->size && !err; p++)
        if (x->sendcounts[p])
            err = uz_pt2pt_send(x->sendbuf[p], (MPI_Count)x->sendcounts[p] * REC_INTS, ints, p, tag,
                                &comm->p2p_coll, UZ_SEND_STANDARD, &reqs[nreq++]);
    for (int i = 0; i < nreq; i++) {
        if (!reqs[i])
            continue;
        uz_request_wait(reqs[i]);
        if (!err)
            err = reqs[i]->status.MPI_ERROR;
        uz_request_release(reqs[i]);
    }
    uz_unlock();
    free(reqs);
    return err;
}

/* This process's lists from the records it received. */
static struct uz_topology *collect(const struct edge_exchange *x, int weighted)
{
    int nin = 0, nout = 0;
    for (int p = 0; p < x->size; p++)
        for (int k = 0; k < x->recvcounts[p]; k++)
            if (x->recvbuf[p][k * REC_INTS] == REC_IN)
                nin++;
            else
                nout++;
    int *in = malloc(sizeof(int) * (size_t)(nin + 1)), *inw = malloc(sizeof(int) * (size_t)(nin + 1));
    int *out = malloc(sizeof(int) * (size_t)(nout + 1)), *outw = malloc(sizeof(int) * (size_t)(nout + 1));
    struct uz_topology *t = NULL;
    if (in && inw && out && outw) {
        int i = 0, o = 0;
        for (int p = 0; p < x->size; p++) {
            for (int k = 0; k < x->recvcounts[p]; k++) {
                const int *r = x->recvbuf[p] + (size_t)k * REC_INTS;
                if (r[0] == REC_IN) {
                    in[i] = r[1];
                    inw[i++] = r[2];
                } else {
                    out[o] = r[1];
                    outw[o++] = r[2];
                }
            }
        }
        t = dist_new(nin, in, inw, nout, out, outw, weighted);
    }
    free(in);
    free(inw);
    free(out);
    free(outw);
    return t;
}

int uz_mpi_Dist_graph_create(uz_comm *comm_old, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], uz_info *info,
                             int reorder, MPI_Comm *comm_dist_graph)
{
    if (comm_old->is_inter)
        return uz_err_make(MPI_ERR_COMM, "a topology needs an intracommunicator");
    int err = check_ranks(comm_old, n, sources, "sources");
    if (err)
        return err;
    if (n > 0 && !degrees)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: degrees is NULL");
    int nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return uz_err_make(MPI_ERR_ARG, "invalid degrees[%d] = %d", i, degrees[i]);
        nedges += degrees[i];
    }
    if ((err = check_ranks(comm_old, nedges, destinations, "destinations")) ||
        (err = check_weights(nedges, weights, "weights")))
        return err;

    struct edge_exchange x = { .size = comm_old->size };
    x.sendcounts = calloc((size_t)x.size, sizeof(int));
    x.recvcounts = calloc((size_t)x.size, sizeof(int));
    x.sendbuf = calloc((size_t)x.size, sizeof(int *));
    x.recvbuf = calloc((size_t)x.size, sizeof(int *));
    if (!x.sendcounts || !x.recvcounts || !x.sendbuf || !x.recvbuf)
        err = no_mem();
    if (!err)
        err = build_records(&x, n, sources, degrees, destinations, weights);
    /* Every process must take part in the exchange, even after a local
     * failure, or the others would wait for it forever. */
    if (err) {
        memset(x.sendcounts, 0, sizeof(int) * (size_t)x.size);
        exchange_records(comm_old, &x);
        exchange_free(&x);
        return err;
    }
    err = exchange_records(comm_old, &x);
    struct uz_topology *t = err ? NULL : collect(&x, weights != MPI_UNWEIGHTED);
    exchange_free(&x);
    if (err)
        return err;
    if (!t)
        return no_mem();
    return attach_new_comm(comm_old, t, comm_dist_graph);
}

/* ------------------------------------------------------------ queries */

int uz_mpi_Dist_graph_neighbors_count(uz_comm *comm, int *indegree, int *outdegree, int *weighted)
{
    int err = uz_topo_need(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count");
    if (err)
        return err;
    *indegree = comm->topo->indegree;
    *outdegree = comm->topo->outdegree;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}

static void copy_out(int n, int max, const int *src, int *dst)
{
    if (n > max)
        n = max;
    if (dst && dst != MPI_UNWEIGHTED && dst != MPI_WEIGHTS_EMPTY && src)
        memcpy(dst, src, sizeof(int) * (size_t)(n > 0 ? n : 0));
}

int uz_mpi_Dist_graph_neighbors(uz_comm *comm, int maxindegree, int sources[], int sourceweights[],
                                int maxoutdegree, int destinations[], int destweights[])
{
    int err = uz_topo_need(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    copy_out(t->indegree, maxindegree, t->in, sources);
    copy_out(t->outdegree, maxoutdegree, t->out, destinations);
    if (t->weighted) {
        copy_out(t->indegree, maxindegree, t->in_weights, sourceweights);
        copy_out(t->outdegree, maxoutdegree, t->out_weights, destweights);
    }
    return MPI_SUCCESS;
}
