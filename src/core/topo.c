/*
 * topo.c — topology objects (topo.h): freeing, copying, Cartesian
 * arithmetic, MPI_Topo_test, and the communicator that every topology
 * constructor makes.
 *
 * Reordering is never done: rank r of the old communicator keeps rank r
 * in the new one (the standard allows it, and it keeps the _map functions
 * consistent with the constructors).  Cartesian and graph constructors
 * keep the first nnodes ranks; the rest get MPI_COMM_NULL.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "core/comm_impl.h"
#include "core/topo_impl.h"

/* --------------------------------------------------------- the object */

void uz_topo_free(struct uz_topology *t)
{
    if (!t)
        return;
    if (t->out != t->in)
        free(t->out);
    free(t->in);
    free(t->in_weights);
    free(t->out_weights);
    if (t->kind == MPI_CART) {
        free(t->u.cart.dims);
        free(t->u.cart.periods);
        free(t->u.cart.coords);
    } else if (t->kind == MPI_GRAPH) {
        free(t->u.graph.index);
        free(t->u.graph.edges);
    }
    free(t);
}

static int *copy_ints(const int *src, int n, int *ok)
{
    if (!src)
        return NULL;
    int *dst = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!dst) {
        *ok = 0;
        return NULL;
    }
    if (n > 0)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

struct uz_topology *uz_topo_dup(const struct uz_topology *t, int *err)
{
    if (!t)
        return NULL;
    struct uz_topology *d = calloc(1, sizeof(*d));
    int ok = d != NULL;
    if (ok) {
        *d = *t;
        d->in = d->out = d->in_weights = d->out_weights = NULL;
        memset(&d->u, 0, sizeof(d->u));
        d->in = copy_ints(t->in, t->indegree, &ok);
        d->out = t->out == t->in ? d->in : copy_ints(t->out, t->outdegree, &ok);
        d->in_weights = copy_ints(t->in_weights, t->indegree, &ok);
        d->out_weights = copy_ints(t->out_weights, t->outdegree, &ok);
        if (t->kind == MPI_CART) {
            int n = t->u.cart.ndims;
            d->u.cart.ndims = n;
            d->u.cart.dims = copy_ints(t->u.cart.dims, n, &ok);
            d->u.cart.periods = copy_ints(t->u.cart.periods, n, &ok);
            d->u.cart.coords = copy_ints(t->u.cart.coords, n, &ok);
        } else if (t->kind == MPI_GRAPH) {
            d->u.graph.nnodes = t->u.graph.nnodes;
            d->u.graph.nedges = t->u.graph.nedges;
            d->u.graph.index = copy_ints(t->u.graph.index, t->u.graph.nnodes, &ok);
            d->u.graph.edges = copy_ints(t->u.graph.edges, t->u.graph.nedges, &ok);
        }
    }
    if (!ok) {
        uz_topo_free(d);
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory copying a topology");
        return NULL;
    }
    return d;
}

/* ----------------------------------------------------------- Cartesian */

int uz_topo_cart_rank(const struct uz_topology *t, const int *coords)
{
    int rank = 0;
    for (int i = 0; i < t->u.cart.ndims; i++) {
        int dim = t->u.cart.dims[i], c = coords[i];
        if (c < 0 || c >= dim) {
            if (!t->u.cart.periods[i])
                return MPI_PROC_NULL;
            c %= dim;
            if (c < 0)
                c += dim;
        }
        rank = rank * dim + c;
    }
    return rank;
}

void uz_topo_cart_coords(const struct uz_topology *t, int rank, int *coords)
{
    for (int i = t->u.cart.ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->u.cart.dims[i];
        rank /= t->u.cart.dims[i];
    }
}

void uz_topo_cart_shift(const struct uz_topology *t, int rank, int direction, int disp, int *source,
                        int *dest)
{
    int n = t->u.cart.ndims;
    int coords[n > 0 ? n : 1];
    uz_topo_cart_coords(t, rank, coords);
    int mine = coords[direction];
    coords[direction] = mine + disp;
    *dest = uz_topo_cart_rank(t, coords);
    coords[direction] = mine - disp;
    *source = uz_topo_cart_rank(t, coords);
}

/* ---------------------------------------------------- the communicator */

int uz_topo_prefix_comm(uz_comm *old, int n, uz_comm **out)
{
    *out = NULL;
    if (old->is_inter)
        return uz_err_make(MPI_ERR_COMM, "a topology needs an intracommunicator");
    if (n > old->size)
        return uz_err_make(MPI_ERR_ARG, "the topology has %d processes but the communicator only %d",
                           n, old->size);
    int member = old->rank < n;
    uint32_t id;
    uz_lock();
    int err = uz_ctx_agree_intra(old, member, &id);
    uz_unlock();
    if (err || !member)
        return err;
    int *w = malloc(sizeof(int) * (size_t)n);
    if (!w) {
        uz_ctx_release(id);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a topology");
    }
    for (int i = 0; i < n; i++)
        w[i] = uz_group_world_rank(old->local_group, i);
    uz_group *g = uz_group_from_world_ranks(n, w);
    free(w);
    uz_comm *c = g ? uz_comm_new(g, NULL) : NULL;
    if (!c) {
        uz_ctx_release(id);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a topology");
    }
    if ((err = uz_comm_activate(c, old, id, 0))) {
        uz_comm_discard(c);
        return err;
    }
    *out = c;
    return MPI_SUCCESS;
}

int uz_topo_need(uz_comm *comm, int kind, const char *what)
{
    if (comm->topo && comm->topo->kind == kind)
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_TOPOLOGY, "%s needs a communicator with a %s topology", what,
                       kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph"
                                                                          : "distributed graph");
}

int uz_mpi_Topo_test(uz_comm *comm, int *status)
{
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
