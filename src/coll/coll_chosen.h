/*
 * coll_chosen.h — the algorithm the last call of each collective chose on
 * this process, as the words of its UZURA_COLL_<OP> tunable number them
 * (base/params_coll.h), for the MPI_T state variables coll_<op>_algorithm
 * (src/mpit/).  0 (auto) until a call of that collective has chosen.
 *
 * One store per call, where the choice is already made: no branch, no
 * lookup.
 */
#ifndef UZ_COLL_COLL_CHOSEN_H
#define UZ_COLL_COLL_CHOSEN_H

enum uz_coll_op {
    UZ_COLL_OP_BARRIER,
    UZ_COLL_OP_BCAST,
    UZ_COLL_OP_REDUCE,
    UZ_COLL_OP_ALLREDUCE,
    UZ_COLL_OP_GATHER,
    UZ_COLL_OP_SCATTER,
    UZ_COLL_OP_ALLGATHER,
    UZ_COLL_OP_ALLTOALL,
    UZ_COLL_OP_ALLTOALLV,
    UZ_COLL_OP_REDUCE_SCATTER,
    UZ_COLL_OP_SCAN,
    UZ_COLL_OPS
};

extern int uz_coll_chosen[UZ_COLL_OPS];

/* Record `alg` as op's choice and hand it on. */
static inline int uz_coll_chose(enum uz_coll_op op, int alg)
{
    uz_coll_chosen[op] = alg;
    return alg;
}

#endif /* UZ_COLL_COLL_CHOSEN_H */
