/*
 * coll.h — collective operations as the rest of the library calls them.
 *
 * The MPI_* collective procedures are thin wrappers over these; other
 * layers call them directly (creating a communicator agrees on a context id
 * with an allreduce, MPI_Finalize may barrier, ...).  Every function runs
 * on the communicator's collective context (context_id + 1), so its
 * messages never match user point-to-point traffic, and returns an MPI
 * error code.  Arguments have been checked by the binding layer.
 *
 * They are blocking collectives like the MPI procedures: every rank of the
 * communicator must call them in the same order as its other collectives.
 * They take the request layer's lock (base/lock.h) themselves, so call
 * them without holding it.  docs/collectives.md describes the algorithms.
 */
#ifndef UZ_COLL_COLL_H
#define UZ_COLL_COLL_H

#include "coll/op.h"
#include "core/comm.h"
#include "datatype/datatype.h"

int uz_coll_barrier(uz_comm *comm);
int uz_coll_bcast(void *buf, MPI_Count count, uz_datatype *dt, int root, uz_comm *comm);
int uz_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op,
                      uz_comm *comm);
int uz_coll_allgather(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                      MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm);
int uz_coll_gather(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                   MPI_Count recvcount, uz_datatype *recvtype, int root, uz_comm *comm);
int uz_coll_alltoall(const void *sendbuf, MPI_Count sendcount, uz_datatype *sendtype, void *recvbuf,
                     MPI_Count recvcount, uz_datatype *recvtype, uz_comm *comm);

/* Reduce `count` elements of `in` into `inout` with op (inout = in op inout),
 * the kernel every reduction uses (MPI_Reduce_local too). */
int uz_op_apply(uz_op *op, const void *in, void *inout, MPI_Count count, uz_datatype *dt);

/* Set up and tear down a communicator's collective state (called by the
 * code that creates and destroys communicators). */
int uz_coll_comm_init(uz_comm *comm);
void uz_coll_comm_destroy(uz_comm *comm);

#endif /* UZ_COLL_COLL_H */
