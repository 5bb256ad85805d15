/*
 * topo_impl.h — what the topology constructors and queries share
 * (topo.c, topo_cart.c, topo_graph.c, topo_dist_graph.c).
 */
#ifndef UZ_CORE_TOPO_IMPL_H
#define UZ_CORE_TOPO_IMPL_H

#include "core/comm.h"
#include "core/topo.h"

/* The communicator of a new topology: the first n ranks of `old` in
 * order (no reordering), or *out = NULL for the others. */
int uz_topo_prefix_comm(uz_comm *old, int n, uz_comm **out);

/* MPI_SUCCESS if comm has a topology of `kind`, else MPI_ERR_TOPOLOGY
 * naming the procedure `what`. */
int uz_topo_need(uz_comm *comm, int kind, const char *what);

#endif /* UZ_CORE_TOPO_IMPL_H */
