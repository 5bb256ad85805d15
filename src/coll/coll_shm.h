/*
 * coll_shm.h — collectives through a shared area, for communicators whose
 * ranks all live on this host (blocking calls on intracommunicators).
 *
 * Each function returns UZ_SHM_DECLINED when the operation is not one it
 * takes (communicator spread over hosts, message over the size limit,
 * user-defined operation, tunable says otherwise); the caller then runs
 * its message-passing algorithm.
 */
#ifndef UZ_COLL_COLL_SHM_H
#define UZ_COLL_COLL_SHM_H

#include "coll/coll.h"

enum { UZ_SHM_DECLINED = -1 };

/* The `want` argument from an operation's tunable: 0 auto (shared memory
 * for messages up to UZURA_COLL_SHM_MAX), 1 forced (any size the area
 * takes), -1 another algorithm was asked for. */
static inline int uz_shm_want(int tunable, int shm_choice)
{
    return tunable == 0 ? 0 : tunable == shm_choice ? 1 : -1;
}

int uz_shm_barrier(uz_comm *comm, int alg);
int uz_shm_bcast(void *buf, MPI_Count count, uz_datatype *dt, int root, uz_comm *comm, int alg);
int uz_shm_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, int root,
                  uz_comm *comm, int alg);
int uz_shm_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op,
                     uz_comm *comm, int alg);
int uz_shm_reduce_scatter(const void *sendbuf, void *recvbuf, const MPI_Count *counts, uz_datatype *dt, uz_op *op,
                          uz_comm *comm, int want);
/* Scan, and Exscan when `exclusive` (coll_shm_scan.c). */
int uz_shm_scan(const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt, uz_op *op, uz_comm *comm,
                int want, int exclusive);
int uz_shm_allgather(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                     MPI_Count rcount, uz_datatype *rtype, uz_comm *comm, int alg);
/* Bytes this process's collectives read straight from another rank's
 * buffer by one copy (Allgather, Alltoall(v/w) and Reduce_scatter pulls),
 * for the MPI_T counter coll_bytes_pulled: tests use it to show that a
 * pull really ran. */
extern unsigned long uz_coll_bytes_pulled;

/* More ranks on this host than it has processors. */
int uz_coll_host_oversubscribed(void);

struct uz_varray;
int uz_shm_allgatherv(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                      const struct uz_varray *rcounts, const struct uz_varray *rdispls, uz_datatype *rtype,
                      uz_comm *comm, int want);
/* One Gather(v) or Scatter(v) as the shared-memory algorithms see it
 * (gather_scatter.c's struct rooted in other words). */
struct uz_shm_rooted {
    int to_root;                /* gather: blocks travel to the root */
    int root;
    /* The root's buffer of blocks: recvbuf of a gather, sendbuf of a
     * scatter; v forms: the root's counts and displacements (NULL on
     * Gather and Scatter), significant at the root only. */
    void *all;
    MPI_Count count;
    const struct uz_varray *counts, *displs;
    uz_datatype *all_dt;
    /* This rank's own block (MPI_IN_PLACE at the root: it stays put). */
    void *mine;
    MPI_Count mine_count;
    uz_datatype *mine_dt;
};

/* Through the area, or by one copy between the root's buffer and each
 * rank's; records the choice (coll_chosen.h) itself.  `alg` is what
 * uz_coll_shm_rooted() (coll_policy.h) chose for a plain call's block of
 * `b` bytes, which its caller asked before describing the call (and
 * declined there when that was UZ_ALG_AUTO); -1 for the v forms, whose
 * root decides per block. */
int uz_shm_rooted(const struct uz_shm_rooted *x, uz_comm *comm, int alg, size_t b);
int uz_shm_alltoall(const void *sendbuf, MPI_Count scount, uz_datatype *stype, void *recvbuf,
                    MPI_Count rcount, uz_datatype *rtype, uz_comm *comm, int alg);

/* Alltoallv/w, described per peer: block i to send is (sbufs[i],
 * scounts[i], stypes[i]), block i to receive likewise.  `progress` is
 * scratch of 2p entries. */
int uz_shm_alltoallv(int p, void *const *sbufs, const MPI_Count *scounts, uz_datatype *const *stypes,
                     void *const *rbufs, const MPI_Count *rcounts, uz_datatype *const *rtypes, uz_comm *comm,
                     int want, size_t *progress);

/* Which collectives go through a shared area on this host and why, one
 * sentence (UZURA_VERBOSE); valid once the request layer is up. */
void uz_coll_shm_describe(char *buf, size_t len);

/* Set up the communicator's area now if it may be wanted: a collective
 * call, for operations that must do it before they start building their
 * schedule (setting up runs small collectives of its own). */
void uz_shm_prepare(uz_comm *comm, int want);

/* Free the communicator's area (coll_comm.c). */
struct uz_coll_shm;
void uz_coll_shm_free(struct uz_coll_shm *sh);

#endif /* UZ_COLL_COLL_SHM_H */
