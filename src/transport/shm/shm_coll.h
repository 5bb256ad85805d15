/*
 * shm_coll.h — what the shared-memory collective algorithms (src/coll/)
 * need from the shm transport: a shared area per communicator, and the
 * transport's way of sleeping and waking ranks of this host.
 *
 * An area is a file under /dev/shm named after the job (so mpiexec's
 * clean-up of uzura-<job>-* catches it after a crash), created by one rank,
 * mapped by the others, and unlinked as soon as all have mapped it.
 * Waiting for a peer in an area uses the transport's doorbell: a rank
 * sleeps with uz_shm_sleep() (it also wakes for point-to-point records)
 * and whoever releases it calls uz_shm_wake_if_sleeping().
 */
#ifndef UZ_TRANSPORT_SHM_SHM_COLL_H
#define UZ_TRANSPORT_SHM_SHM_COLL_H

#include <stddef.h>

/* Map the area `tag` (a short name, unique in the job) of `bytes`,
 * zero-filled: create it (creator) or attach to it.  NULL on failure with
 * *err set to an MPI error code. */
void *uz_shm_coll_map(const char *tag, size_t bytes, int create, int *err);

/* Remove the name once every rank has mapped the area. */
void uz_shm_coll_unlink(const char *tag);

void uz_shm_coll_unmap(void *area, size_t bytes);

/* Ring local rank `local`'s doorbell if it is asleep (one load otherwise). */
void uz_shm_wake_if_sleeping(int local);

/* Point-to-point work waiting for this rank (a record or a bulk step):
 * a sleeping collective must not sleep through it. */
int uz_shm_work_pending(void);

#endif /* UZ_TRANSPORT_SHM_SHM_COLL_H */
