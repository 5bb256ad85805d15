/*
 * params_coll.h — the algorithms each UZURA_COLL_<OP> tunable can name: one
 * list per collective, each row X(enum name, the tunable's word, one line of
 * help).
 *
 * The same list makes the enum the collectives switch on (below) and the
 * table of accepted words that params.c parses and uzura_info prints, so
 * the two cannot drift apart the way they could when params.c held
 * "a|b|c" strings that had to be in the enum's order.  Adding an algorithm
 * is adding one row.  A list macro is used because C has no other way to
 * make an enum and a table from one place.
 *
 * The first row of every list is auto, whose value is 0 (UZ_ALG_AUTO in
 * coll/coll_tune.h): the automatic choice by message size and rank count,
 * whose rules are coll/coll_policy.c's (`uzura_info --coll-table` prints
 * them); an auto row's help says them in words and must follow them.
 * The words and their meaning are in docs/collectives.md; tests/coll forces
 * each algorithm by its word.
 *
 * It lives beside params.h, below the collectives, because the parameter
 * table must not depend on the layers that read it.
 */
#ifndef UZ_BASE_PARAMS_COLL_H
#define UZ_BASE_PARAMS_COLL_H

#define UZ_COLL_SHM_HELP "through a shared area, on communicators within one host"

#define UZ_COLL_BARRIER_ALGORITHMS(X)                                                           \
    X(BARRIER_AUTO, "auto", "shm on one host (unless COLL_SHM_MAX is 0), else dissemination")   \
    X(BARRIER_DISSEMINATION, "dissemination", "log2 p rounds, each rank signalling rank + 2^k") \
    X(BARRIER_TREE, "tree", "fan-in to rank 0 and fan-out along a binomial tree")               \
    X(BARRIER_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_BCAST_ALGORITHMS(X)                                                                          \
    X(BCAST_AUTO, "auto", "shm above COLL_SHM_ROOTED_MIN with more ranks than cores; binomial; "             \
      "scatter_allgather from COLL_BCAST_LONG with more than 2 ranks")                                       \
    X(BCAST_BINOMIAL, "binomial", "binomial tree from the root")                                             \
    X(BCAST_SCATTER_ALLGATHER, "scatter_allgather", "scatter of pieces, then ring allgather (van de Geijn)") \
    X(BCAST_LINEAR, "linear", "the root sends to every rank")                                                \
    X(BCAST_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_REDUCE_ALGORITHMS(X)                                                                \
    X(REDUCE_AUTO, "auto", "shm above COLL_SHM_ROOTED_MIN with more ranks than cores; binomial; "   \
      "reduce_scatter_gather from COLL_REDUCE_LONG (commutative operations)")                       \
    X(REDUCE_BINOMIAL, "binomial", "binomial tree, rank order kept for non-commutative operations") \
    X(REDUCE_SCATTER_GATHER, "reduce_scatter_gather",                                               \
      "ring reduce-scatter, then gather to the root; commutative operations")                       \
    X(REDUCE_LINEAR, "linear", "the root receives every vector and combines them")                  \
    X(REDUCE_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_ALLREDUCE_ALGORITHMS(X)                                                                    \
    X(ALLREDUCE_AUTO, "auto", "shm up to COLL_SHM_MAX or with more ranks than cores, and with a core per rank " \
      "from COLL_PULL_MIN per rank (vectors pulled); recursive_doubling; from COLL_ALLREDUCE_LONG "            \
      "reduce_bcast with 2 ranks, rabenseifner with more (commutative operations)")                           \
    X(ALLREDUCE_RECURSIVE_DOUBLING, "recursive_doubling", "log2 p exchanges of the whole vector")          \
    X(ALLREDUCE_RABENSEIFNER, "rabenseifner",                                                              \
      "recursive-halving reduce-scatter, recursive-doubling allgather; commutative operations")            \
    X(ALLREDUCE_RING, "ring", "ring reduce-scatter and ring allgather; commutative operations")            \
    X(ALLREDUCE_REDUCE_BCAST, "reduce_bcast", "reduce to rank 0, then broadcast")                          \
    X(ALLREDUCE_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_GATHER_ALGORITHMS(X)                                                                           \
    X(GATHER_AUTO, "auto", "push with more ranks than cores, from COLL_PULL_MIN and above COLL_SHM_MAX; "     \
      "shm above COLL_SHM_ROOTED_MIN with more ranks than cores (Gatherv: blocks up to 4 KiB as messages; "   \
      "linear with a core per rank); "                                                                         \
      "binomial for blocks up to 1 KiB with more than 4 ranks (Gather); linear")                                \
    X(GATHER_LINEAR, "linear", "every rank sends its block to the root")                                       \
    X(GATHER_BINOMIAL, "binomial", "blocks climb a binomial tree in bundles (Gather only)")                    \
    X(GATHER_SHM, "shm", UZ_COLL_SHM_HELP)                                                                     \
    X(GATHER_PULL, "pull", "on one host, the root reads every block from its rank's memory (Gather only)")      \
    X(GATHER_PUSH, "push", "on one host, every rank writes its block into the root's buffer")

#define UZ_COLL_SCATTER_ALGORITHMS(X)                                                                           \
    X(SCATTER_AUTO, "auto", "pull from COLL_PULL_MIN (below 256 KiB with two ranks each with a core), "       \
      "with more ranks than cores above COLL_SHM_MAX; "                                                        \
      "shm above COLL_SHM_ROOTED_MIN with more ranks than cores; Scatterv blocks below those as messages "    \
      "(with more ranks than cores up to 512 B); "                                                             \
      "binomial for blocks up to 1 KiB with more than 4 ranks (Scatter); linear")                               \
    X(SCATTER_LINEAR, "linear", "the root sends every rank its block")                                          \
    X(SCATTER_BINOMIAL, "binomial", "blocks descend a binomial tree in bundles (Scatter only)")                 \
    X(SCATTER_SHM, "shm", UZ_COLL_SHM_HELP)                                                                     \
    X(SCATTER_PULL, "pull", "on one host, every rank reads its block from the root's buffer")

#define UZ_COLL_ALLGATHER_ALGORITHMS(X)                                                      \
    X(ALLGATHER_AUTO, "auto", "shm (blocks pulled from COLL_PULL_MIN) up to COLL_SHM_MAX, from COLL_PULL_MIN " \
      "or with more ranks than cores; "                                                      \
      "recursive_doubling (p a power of two) or bruck below COLL_ALLGATHER_LONG; ring")      \
    X(ALLGATHER_RING, "ring", "p-1 steps around a ring")                                     \
    X(ALLGATHER_RECURSIVE_DOUBLING, "recursive_doubling",                                    \
      "log2 p exchanges; p a power of two (Allgather only)")                                 \
    X(ALLGATHER_BRUCK, "bruck", "log2 p exchanges at distances 1, 2, 4... (Allgather only)") \
    X(ALLGATHER_LINEAR, "linear", "every rank sends its block to every other at once")       \
    X(ALLGATHER_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_ALLTOALL_ALGORITHMS(X)                                                                          \
    X(ALLTOALL_AUTO, "auto", "shm for blocks from COLL_PULL_MIN (pulled), when all p blocks fit "             \
      "COLL_SHM_MAX, or with more ranks than cores; bruck for "                                                 \
      "blocks up to COLL_ALLTOALL_SHORT with 8 ranks or more; linear up to 4 ranks; pairwise")                  \
    X(ALLTOALL_PAIRWISE, "pairwise", "p-1 steps, each a permutation of the ranks")                              \
    X(ALLTOALL_BRUCK, "bruck", "log2 p steps of packed blocks")                                                 \
    X(ALLTOALL_LINEAR, "linear", "every receive and send posted at once")                                       \
    X(ALLTOALL_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_ALLTOALLV_ALGORITHMS(X)                                                         \
    X(ALLTOALLV_AUTO, "auto", "shm with more ranks than cores; linear up to 4 ranks; pairwise") \
    X(ALLTOALLV_PAIRWISE, "pairwise", "p-1 steps, each a permutation of the ranks")             \
    X(ALLTOALLV_LINEAR, "linear", "every receive and send posted at once")                      \
    X(ALLTOALLV_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_REDUCE_SCATTER_ALGORITHMS(X)                                                                  \
    X(REDUCE_SCATTER_AUTO, "auto", "shm at every size (unless COLL_SHM_MAX is 0); "                           \
      "ring from COLL_ALLREDUCE_LONG (commutative operations); pairwise")                                     \
    X(REDUCE_SCATTER_PAIRWISE, "pairwise", "each rank sends block i to rank i, which combines in rank order") \
    X(REDUCE_SCATTER_RING, "ring", "ring reduce-scatter; commutative operations")                             \
    X(REDUCE_SCATTER_REDUCE_SCATTERV, "reduce_scatterv",                                                      \
      "reduce to rank 0, which sends each rank its block")                                                    \
    X(REDUCE_SCATTER_SHM, "shm", UZ_COLL_SHM_HELP)

#define UZ_COLL_SCAN_ALGORITHMS(X)                                                             \
    X(SCAN_AUTO, "auto", "shm from EAGER_LIMIT with more ranks than cores; linear up to 8 "   \
      "ranks, from 16 KiB or with more ranks than cores; else recursive_doubling")             \
    X(SCAN_RECURSIVE_DOUBLING, "recursive_doubling", "log2 p exchanges of partial results")    \
    X(SCAN_LINEAR, "linear", "each rank passes its prefix to the next")                        \
    X(SCAN_SHM, "shm", UZ_COLL_SHM_HELP)

/* The enums: row k of a list is value k. */
#define UZ_COLL_ALG_ENUM(id, word, help) id,
enum { UZ_COLL_BARRIER_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_BCAST_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_REDUCE_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_ALLREDUCE_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_GATHER_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_SCATTER_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_ALLGATHER_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_ALLTOALL_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_ALLTOALLV_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_REDUCE_SCATTER_ALGORITHMS(UZ_COLL_ALG_ENUM) };
enum { UZ_COLL_SCAN_ALGORITHMS(UZ_COLL_ALG_ENUM) };
#undef UZ_COLL_ALG_ENUM

#endif /* UZ_BASE_PARAMS_COLL_H */
