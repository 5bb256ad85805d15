/*
 * topo_cart.c — Cartesian topologies: MPI_Cart_create, _get, _rank,
 * _coords, _shift, _sub, _map and MPI_Cartdim_get.
 *
 * Ranks are laid out row-major (the last dimension varies fastest), as the
 * standard fixes.  The neighbour lists for neighbourhood collectives are
 * built here, in the order topo.h documents.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "core/comm_impl.h"
#include "core/topo_impl.h"

/* Check dims[ndims] and return their product in *nnodes. */
static int check_dims(int ndims, const int dims[], int *nnodes)
{
    long n = 1;
    if (ndims > 0 && !dims)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: dims is NULL");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return uz_err_make(MPI_ERR_DIMS, "invalid dims[%d] = %d (must be positive)", i, dims[i]);
        n *= dims[i];
        if (n > INT_MAX)
            return uz_err_make(MPI_ERR_DIMS, "the grid has more than INT_MAX processes");
    }
    *nnodes = (int)n;
    return MPI_SUCCESS;
}

/* A Cartesian topology for Cartesian rank `rank`. */
static struct uz_topology *cart_new(int ndims, const int dims[], const int periods[], int rank, int *err)
{
    struct uz_topology *t = calloc(1, sizeof(*t));
    size_t n = (size_t)(ndims > 0 ? ndims : 1);
    if (t) {
        t->kind = MPI_CART;
        t->u.cart.ndims = ndims;
        t->u.cart.dims = malloc(sizeof(int) * n);
        t->u.cart.periods = malloc(sizeof(int) * n);
        t->u.cart.coords = malloc(sizeof(int) * n);
        t->in = t->out = malloc(sizeof(int) * 2 * n);
    }
    if (!t || !t->u.cart.dims || !t->u.cart.periods || !t->u.cart.coords || !t->in) {
        uz_topo_free(t);
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a Cartesian topology");
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        t->u.cart.dims[i] = dims[i];
        t->u.cart.periods[i] = periods && periods[i] ? 1 : 0;
    }
    uz_topo_cart_coords(t, rank, t->u.cart.coords);
    /* For each dimension: the -1 neighbour, then the +1 neighbour. */
    t->indegree = t->outdegree = 2 * ndims;
    for (int d = 0; d < ndims; d++)
        uz_topo_cart_shift(t, rank, d, 1, &t->in[2 * d], &t->in[2 * d + 1]);
    return t;
}

int uz_mpi_Cart_create(uz_comm *comm_old, int ndims, const int dims[], const int periods[],
                       int reorder, MPI_Comm *comm_cart)
{
    int nnodes;
    int err = check_dims(ndims, dims, &nnodes);
    if (err)
        return err;
    if (ndims > 0 && !periods)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: periods is NULL");
    uz_comm *c;
    if ((err = uz_topo_prefix_comm(comm_old, nnodes, &c)))
        return err;
    if (c && !(c->topo = cart_new(ndims, dims, periods, c->rank, &err))) {
        uz_comm_discard(c);
        return err;
    }
    *comm_cart = c ? uz_comm_handle(c) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int uz_mpi_Cartdim_get(uz_comm *comm, int *ndims)
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cartdim_get");
    if (!err)
        *ndims = comm->topo->u.cart.ndims;
    return err;
}

int uz_mpi_Cart_get(uz_comm *comm, int maxdims, int dims[], int periods[], int coords[])
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cart_get");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    int n = t->u.cart.ndims < maxdims ? t->u.cart.ndims : maxdims;
    for (int i = 0; i < n; i++) {
        if (dims)
            dims[i] = t->u.cart.dims[i];
        if (periods)
            periods[i] = t->u.cart.periods[i];
        if (coords)
            coords[i] = t->u.cart.coords[i];
    }
    return MPI_SUCCESS;
}

int uz_mpi_Cart_rank(uz_comm *comm, const int coords[], int *rank)
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cart_rank");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    if (t->u.cart.ndims > 0 && !coords)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: coords is NULL");
    for (int i = 0; i < t->u.cart.ndims; i++)
        if (!t->u.cart.periods[i] && (coords[i] < 0 || coords[i] >= t->u.cart.dims[i]))
            return uz_err_make(MPI_ERR_ARG, "coords[%d] = %d is outside the non-periodic dimension "
                               "of extent %d", i, coords[i], t->u.cart.dims[i]);
    *rank = uz_topo_cart_rank(t, coords);
    return MPI_SUCCESS;
}

int uz_mpi_Cart_coords(uz_comm *comm, int rank, int maxdims, int coords[])
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cart_coords");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    if (rank < 0 || rank >= comm->size)
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d for a communicator of size %d", rank,
                           comm->size);
    if (maxdims < t->u.cart.ndims)
        return uz_err_make(MPI_ERR_ARG, "maxdims = %d is less than the %d dimensions", maxdims,
                           t->u.cart.ndims);
    if (t->u.cart.ndims > 0 && !coords)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: coords is NULL");
    uz_topo_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

int uz_mpi_Cart_shift(uz_comm *comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cart_shift");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    if (direction < 0 || direction >= t->u.cart.ndims)
        return uz_err_make(MPI_ERR_ARG, "invalid direction %d for %d dimensions", direction,
                           t->u.cart.ndims);
    uz_topo_cart_shift(t, comm->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int uz_mpi_Cart_sub(uz_comm *comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int err = uz_topo_need(comm, MPI_CART, "MPI_Cart_sub");
    if (err)
        return err;
    const struct uz_topology *t = comm->topo;
    int ndims = t->u.cart.ndims, kept = 0;
    if (ndims > 0 && !remain_dims)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: remain_dims is NULL");
    int dims[ndims > 0 ? ndims : 1], periods[ndims > 0 ? ndims : 1];
    int color = 0, key = 0;
    for (int d = 0; d < ndims; d++) {
        if (remain_dims[d]) {
            key = key * t->u.cart.dims[d] + t->u.cart.coords[d];
            dims[kept] = t->u.cart.dims[d];
            periods[kept++] = t->u.cart.periods[d];
        } else {
            color = color * t->u.cart.dims[d] + t->u.cart.coords[d];
        }
    }
    MPI_Comm h;
    if ((err = uz_mpi_Comm_split(comm, color, key, &h)))
        return err;
    uz_comm *c = uz_comm_get(h);
    if (!(c->topo = cart_new(kept, dims, periods, c->rank, &err))) {
        uz_comm_discard(c);
        return err;
    }
    *newcomm = h;
    return MPI_SUCCESS;
}

int uz_mpi_Cart_map(uz_comm *comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    int nnodes;
    int err = check_dims(ndims, dims, &nnodes);
    if (err)
        return err;
    if (nnodes > comm->size)
        return uz_err_make(MPI_ERR_ARG, "the grid has %d processes but the communicator only %d",
                           nnodes, comm->size);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
