/*
 * coll_tune.h — the algorithm each UZURA_COLL_<OP> tunable names, as the
 * collectives read it.
 *
 * The enums (BARRIER_TREE, ALLREDUCE_RING, ...) are made from the lists in
 * base/params_coll.h, the same lists that give the tunables their words, so
 * a value here is always the algorithm that its word names.
 */
#ifndef UZ_COLL_COLL_TUNE_H
#define UZ_COLL_COLL_TUNE_H

#include "base/params.h"
#include "base/params_coll.h"

/* Every list starts with auto, so auto is 0 for every operation. */
_Static_assert((int)BARRIER_AUTO == 0 && (int)BCAST_AUTO == 0 && (int)REDUCE_AUTO == 0 && (int)ALLREDUCE_AUTO == 0 &&
                   (int)GATHER_AUTO == 0 && (int)SCATTER_AUTO == 0 && (int)ALLGATHER_AUTO == 0 &&
                   (int)ALLTOALL_AUTO == 0 && (int)ALLTOALLV_AUTO == 0 && (int)REDUCE_SCATTER_AUTO == 0 &&
                   (int)SCAN_AUTO == 0,
               "the first row of each list in base/params_coll.h is auto");
enum { UZ_ALG_AUTO = 0 };

/* The message-passing algorithm a tunable forces, or UZ_ALG_AUTO when it
 * says auto or shm (a schedule is built only when the shared-memory
 * algorithm declined the call, and then the automatic choice stands in). */
static inline int uz_coll_forced(int tunable, int shm_choice)
{
    return tunable == shm_choice ? UZ_ALG_AUTO : tunable;
}

#endif /* UZ_COLL_COLL_TUNE_H */
