/*
 * coll_policy.c — the rules that pick each collective's algorithm
 * (coll_policy.h), measured as docs/collectives.md tells; uzura_info
 * compiles this file in to print them as a table.
 */
#include "coll/coll_policy.h"

#include "coll/coll_tune.h"
#include "pt2pt/eager_limit.h"

/* ------------------------------------------------- the operations */

#define WORD(id, word, help) word,
static const char *const barrier_words[] = { UZ_COLL_BARRIER_ALGORITHMS(WORD) NULL };
static const char *const bcast_words[] = { UZ_COLL_BCAST_ALGORITHMS(WORD) NULL };
static const char *const reduce_words[] = { UZ_COLL_REDUCE_ALGORITHMS(WORD) NULL };
static const char *const allreduce_words[] = { UZ_COLL_ALLREDUCE_ALGORITHMS(WORD) NULL };
static const char *const gather_words[] = { UZ_COLL_GATHER_ALGORITHMS(WORD) NULL };
static const char *const scatter_words[] = { UZ_COLL_SCATTER_ALGORITHMS(WORD) NULL };
static const char *const allgather_words[] = { UZ_COLL_ALLGATHER_ALGORITHMS(WORD) NULL };
static const char *const alltoall_words[] = { UZ_COLL_ALLTOALL_ALGORITHMS(WORD) NULL };
static const char *const alltoallv_words[] = { UZ_COLL_ALLTOALLV_ALGORITHMS(WORD) NULL };
static const char *const reduce_scatter_words[] = { UZ_COLL_REDUCE_SCATTER_ALGORITHMS(WORD) NULL };
static const char *const scan_words[] = { UZ_COLL_SCAN_ALGORITHMS(WORD) NULL };
#undef WORD

struct op_desc {
    const char *name, *tunable_name;
    const int *tunable;
    int shm;                    /* the word naming shm; -1: none */
    const char *const *words;
};

static const struct op_desc ops[UZ_COLL_OPS] = {
    [UZ_COLL_OP_BARRIER] = { "barrier", "COLL_BARRIER", &uz_config.coll_barrier, BARRIER_SHM, barrier_words },
    [UZ_COLL_OP_BCAST] = { "bcast", "COLL_BCAST", &uz_config.coll_bcast, BCAST_SHM, bcast_words },
    [UZ_COLL_OP_REDUCE] = { "reduce", "COLL_REDUCE", &uz_config.coll_reduce, REDUCE_SHM, reduce_words },
    [UZ_COLL_OP_ALLREDUCE] = { "allreduce", "COLL_ALLREDUCE", &uz_config.coll_allreduce, ALLREDUCE_SHM,
                               allreduce_words },
    [UZ_COLL_OP_GATHER] = { "gather", "COLL_GATHER", &uz_config.coll_gather, GATHER_SHM, gather_words },
    [UZ_COLL_OP_SCATTER] = { "scatter", "COLL_SCATTER", &uz_config.coll_scatter, SCATTER_SHM, scatter_words },
    [UZ_COLL_OP_ALLGATHER] = { "allgather", "COLL_ALLGATHER", &uz_config.coll_allgather, ALLGATHER_SHM,
                               allgather_words },
    [UZ_COLL_OP_ALLTOALL] = { "alltoall", "COLL_ALLTOALL", &uz_config.coll_alltoall, ALLTOALL_SHM,
                              alltoall_words },
    [UZ_COLL_OP_ALLTOALLV] = { "alltoallv", "COLL_ALLTOALLV", &uz_config.coll_alltoallv, ALLTOALLV_SHM,
                               alltoallv_words },
    [UZ_COLL_OP_REDUCE_SCATTER] = { "reduce_scatter", "COLL_REDUCE_SCATTER", &uz_config.coll_reduce_scatter,
                                    REDUCE_SCATTER_SHM, reduce_scatter_words },
    [UZ_COLL_OP_SCAN] = { "scan", "COLL_SCAN", &uz_config.coll_scan, SCAN_SHM, scan_words },
};

const char *uz_coll_op_name(enum uz_coll_op op)
{
    return ops[op].name;
}

const char *uz_coll_op_tunable(enum uz_coll_op op)
{
    return ops[op].tunable_name;
}

const char *uz_coll_alg_word(enum uz_coll_op op, int alg)
{
    for (int i = 0; ops[op].words[i]; i++)
        if (i == alg)
            return ops[op].words[i];
    return "?";
}

int uz_coll_tunable(enum uz_coll_op op)
{
    return *ops[op].tunable;
}

int uz_coll_policy_want(enum uz_coll_op op)
{
    int t = *ops[op].tunable;
    return t == UZ_ALG_AUTO ? 0 : t == ops[op].shm ? 1 : -1;
}

/* ------------------------------------------------- the shared area */

/* Does the call go through shared memory?  Measured (docs/collectives.md):
 *  - synchronizing operations (every rank waits for every other: barrier,
 *    allreduce, allgather, alltoall, reduce_scatter): with a core per rank,
 *    up to COLL_SHM_MAX (beyond, message passing copies once by
 *    cross-memory attach where the area copies twice); with more ranks
 *    than cores, at every size: the message-passing algorithms have
 *    several rounds in which a rank waits for one particular other, each a
 *    trip through the scheduler, where an area operation needs about one;
 *  - rooted operations (bcast, reduce), whose non-roots need not wait:
 *    back-to-back calls pipeline through eager messages better than
 *    through the area, so only with more ranks than cores and above
 *    COLL_SHM_ROOTED_MIN;
 *  - gather and scatter: see uz_coll_shm_rooted(). */
enum shm_class { SYNC, ROOTED };

static int wanted(int want, size_t bytes, enum shm_class cls, int oversubscribed)
{
    if (want < 0)
        return 0;
    if (want > 0)
        return 1;
    if (uz_config.coll_shm_max == 0)
        return 0;
    if (cls != SYNC)
        return oversubscribed && bytes > uz_config.coll_shm_rooted_min;
    return bytes <= uz_config.coll_shm_max || oversubscribed;
}

/* Scan/Exscan through the area (coll_shm_scan.c) with more ranks than
 * cores, from the host's eager limit there (16 KiB by default): there
 * each hop of the message-passing chain is a rendezvous, and each of its
 * steps a trip through the scheduler, where in the area's chain a rank
 * waits for a word.  Measured on 2 cores, medians of 5-7 runs
 * (2026-11-28): np 4 Exscan 16 KiB 5.8 us against the
 * message-passing chain's 10.9, 256 KiB 42 against 88, 2 MiB 452 against
 * 765; np 8 Scan 16 KiB 16.0 against 19.7, 2 MiB 2071 against 2337.  Below
 * the eager limit the chain's eager messages pipeline back-to-back calls
 * better with many ranks (np 8 Scan 8 KiB: 6.9 against 11.3).  With a core
 * per rank the message-passing chain stays: at np 2 its one-copy
 * rendezvous made Exscan 2-4x faster from 256 KiB (more ranks, each with a
 * core, were not measured here). */
static int scan_wanted(const struct uz_coll_situation *s, int want)
{
    if (want != 0)
        return want > 0;
    return uz_config.coll_shm_max != 0 && s->oversubscribed && s->bytes >= uz_host_eager_limit(1);
}

/* Between two ranks with a core each, Scatter(v) blocks from this size go
 * by linear's rendezvous, whose root copies half of the message while the
 * receiver copies the rest (shm_bulk.c), where with the pull the root is
 * idle once its own block is copied: 2026-11-27 (after the measurements
 * above), np 2, five runs each: 128 KiB 9.8-10.8 us against 10.7-11.9
 * (too close to move it there), 1 MiB 66-68 against 80-81, 4 MiB 261-288
 * against 338-358 (scatterv alike), level with bench/coll_ceiling
 * scatter's "halves" plan (281 at 4 MiB).  Below it the pull stays (16
 * KiB 3.2-3.7 against 2.6-8.3).  A Scatterv block's two sides must agree
 * on which side of it they are (an erroneous program whose counts differ
 * across it hangs, as across the v forms' other limits). */
enum { SCATTER_PAIR_LINEAR_MIN = 256 << 10 };

static inline int scatter_pair_by_rendezvous(int gather, int p, size_t bytes, int oversubscribed)
{
    return !gather && !oversubscribed && p == 2 && bytes >= SCATTER_PAIR_LINEAR_MIN;
}

/* Gather(v) and Scatter(v) within one host (issue 27), by block size (for
 * the v forms each block's, see uz_coll_shm_rooted_v()):
 *  - one copy by cross-memory attach between the root's buffer and each
 *    rank's: scattering, each rank reads its block (pull); gathering, each
 *    writes its block (push), so that the copies spread over the ranks'
 *    cores and the others leave without waiting for the root.  With more
 *    ranks than cores only beyond COLL_SHM_MAX: np 4 on 2 cores, the area
 *    took 5 us at 32 KiB where the direct copies took 6.4 (scatter) and 9.6
 *    (gather), and the linear rendezvous 13 and 23, as each was a trip
 *    through the scheduler; they were even at 128 KiB, and the area two
 *    copies behind from 256 KiB (42 against 30-35, gather 1 MiB 192-248
 *    against 280-580).  With a core per rank Scatter from COLL_PULL_MIN
 *    (np 2 against the linear rendezvous: 64 KiB 2.7 us against 7, 1 MiB
 *    29 against 38; on 2026-11-27, with linear's root copying its own block
 *    last, level from 128 KiB and steadier at 16 KiB: 2.8-3.5 against
 *    2.5-8.2), but not Gather: there linear's rendezvous, which both ends
 *    copy, beat the pushes at every size once its root copied its own block
 *    last (2026-11-27, np 2: 16 KiB 2.1-2.8 us against 3.1-3.4, 128 KiB
 *    9.5-11.2 against 11.4-12.2, 1 MiB 64-79 against 78-90, 4 MiB 275-310
 *    against 333-530; with the copy first, on another machine, the pushes
 *    had won: 1 MiB 29 against 40).  The root reading every block
 *    (Gather's pull) is one core copying them all: 54 us at 1 MiB;
 *  - the area also with more ranks than cores above COLL_SHM_ROOTED_MIN
 *    (the same reasons as bcast);
 *  - else message passing. */
int uz_coll_shm_rooted(const struct uz_coll_situation *s)
{
    int gather = s->op == UZ_COLL_OP_GATHER;
    int t = gather ? uz_config.coll_gather : uz_config.coll_scatter;
    int shm = gather ? GATHER_SHM : SCATTER_SHM;
    int direct = gather ? GATHER_PUSH : SCATTER_PULL;
    if (t == shm || t == direct || (gather && t == GATHER_PULL))
        return gather && t == GATHER_PULL && !s->fixed ? GATHER_PUSH : t;
    if (t != UZ_ALG_AUTO || uz_config.coll_shm_max == 0)
        return UZ_ALG_AUTO;
    size_t direct_min = s->oversubscribed ? uz_config.coll_shm_max + 1 : uz_config.coll_pull_min;
    if (scatter_pair_by_rendezvous(gather, s->p, s->bytes, s->oversubscribed))
        return UZ_ALG_AUTO;
    if (uz_config.coll_pull_min > 0 && s->bytes >= uz_config.coll_pull_min && s->bytes >= direct_min &&
        (s->oversubscribed || !gather))
        return direct;
    return wanted(0, s->bytes, ROOTED, s->oversubscribed) ? shm : UZ_ALG_AUTO;
}

/* The v forms: only the root knows every count, so whether a call goes
 * through shared memory at all is decided from what every rank knows (the
 * tunable, the host) before anyone looks at sizes; then each rank's block
 * travels as uz_coll_shm_rooted() of its size says, tiny ones as messages
 * (uz_coll_shm_v_eager()).  With more ranks than cores they win from
 * 1 KiB (np 4, Gatherv 1 KiB 1.4 us against 2.7-3.4, 32 KiB 8-11 against
 * 27-29; Scatterv 32 KiB 8-14 against 17-36).  With a core per rank,
 * Scatterv too where the blocks can be read once (cross-memory attach):
 * from COLL_PULL_MIN each rank reads its block while the root copies its
 * own, smaller blocks go as linear's messages (np 2, 2026-11-27, against
 * linear: 32 KiB 3.9 us against 5.4, 256 KiB 15.8 against 18.2, 4 MiB 236
 * against 320; 8 bytes to 4 KiB level).  Gatherv stays linear there: the
 * same day its pushes lost to linear's rendezvous, which both ends copy
 * (2 MiB 156 us against 134, 256 KiB 20.3 against 16.9). */
int uz_coll_shm_rooted_v(enum uz_coll_op op, int oversubscribed, int direct_ok)
{
    int gather = op == UZ_COLL_OP_GATHER;
    int t = gather ? uz_config.coll_gather : uz_config.coll_scatter;
    if (t == UZ_ALG_AUTO)
        return uz_config.coll_shm_max > 0 &&
               (oversubscribed || (!gather && direct_ok && uz_config.coll_pull_min > 0));
    return t == (gather ? GATHER_SHM : SCATTER_SHM) || t == (gather ? GATHER_PUSH : SCATTER_PULL) ||
           (gather && t == GATHER_PULL);
}

/* Tiny blocks of the v forms by message: through the area they cost
 * back-to-back calls their pipelining (the root waits for every card),
 * while eager messages let the other ranks run ahead and the root take
 * them as they come.  Measured on 2 cores (us per call, best of 3; by
 * message against through the area): np 4 Gatherv 8 bytes 0.34 against
 * 1.07 (linear 0.28), 1 KiB 1.06 against 1.46, 2 KiB 1.41 against 1.86,
 * 4 KiB 1.28-1.37 against 1.84; np 8 8 bytes 0.83 (linear 0.78), 4 KiB
 * 3.47 against 4.18.  Scatterv: np 4 8 bytes 0.33 (linear 0.31), 512
 * 0.48 against 0.78; np 8 512 0.89 against 1.60.  With a core per rank
 * every block below COLL_PULL_MIN (larger ones are copied once, see
 * above).  Only when auto: a named algorithm takes every block. */
enum { GATHERV_EAGER_MAX = 4096, SCATTERV_EAGER_MAX = 512 };

int uz_coll_shm_v_eager(enum uz_coll_op op, size_t bytes, int oversubscribed, int p)
{
    int gather = op == UZ_COLL_OP_GATHER;
    int t = gather ? uz_config.coll_gather : uz_config.coll_scatter;
    if (t != UZ_ALG_AUTO)
        return 0;
    if (!oversubscribed)
        return bytes < uz_config.coll_pull_min || scatter_pair_by_rendezvous(gather, p, bytes, 0);
    return bytes <= (gather ? GATHERV_EAGER_MAX : SCATTERV_EAGER_MAX);
}

long uz_coll_shm_v_eager_max(enum uz_coll_op op, int oversubscribed, size_t cap)
{
    int gather = op == UZ_COLL_OP_GATHER;
    if ((gather ? uz_config.coll_gather : uz_config.coll_scatter) != UZ_ALG_AUTO)
        return -1;
    size_t max;
    if (oversubscribed) {
        max = gather ? GATHERV_EAGER_MAX : SCATTERV_EAGER_MAX;
    } else {
        if (uz_config.coll_pull_min == 0)
            return -1;
        max = (size_t)uz_config.coll_pull_min - 1;
    }
    return (long)(max < cap ? max : cap);
}

int uz_coll_shm_pull(const struct uz_coll_situation *s, int want)
{
    /* Allgatherv too (s->bytes: the mean block); Alltoallv decides by
     * its own cards (coll_shm.c). */
    size_t block = s->bytes;
    /* Allreduce pulls, when auto, only with a core per rank: with ranks
     * sharing cores the area's two copies in user space measured faster
     * (np 4 256 KiB 75 us against 113, 2 MiB 690 against 760-800), each
     * rank's reads being system calls made while the rank it reads from
     * may be descheduled.  Named (shm), it pulls there too. */
    if (s->op == UZ_COLL_OP_ALLREDUCE && s->oversubscribed && want <= 0)
        return 0;
    if (s->op == UZ_COLL_OP_REDUCE_SCATTER || s->op == UZ_COLL_OP_ALLREDUCE)
        block = s->bytes / (size_t)s->p;    /* s->bytes: the whole vector */
    else if (s->op != UZ_COLL_OP_ALLGATHER && (s->op != UZ_COLL_OP_ALLTOALL || !s->fixed))
        return 0;
    return want >= 0 && uz_config.coll_shm_max > 0 && uz_config.coll_pull_min > 0 &&
           block >= uz_config.coll_pull_min;
}

int uz_coll_shm_wanted(const struct uz_coll_situation *s, int want)
{
    int over = s->oversubscribed;
    switch (s->op) {
    case UZ_COLL_OP_BARRIER:
        return wanted(want, 0, SYNC, over);
    case UZ_COLL_OP_BCAST:
    case UZ_COLL_OP_REDUCE:
        return wanted(want, s->bytes, ROOTED, over);
    case UZ_COLL_OP_ALLREDUCE:
    case UZ_COLL_OP_ALLGATHER:
        return wanted(want, s->bytes, SYNC, over);
    case UZ_COLL_OP_GATHER:
        return want >= 0 && uz_coll_shm_rooted(s) == GATHER_SHM;
    case UZ_COLL_OP_SCATTER:
        return want >= 0 && uz_coll_shm_rooted(s) == SCATTER_SHM;
    case UZ_COLL_OP_ALLTOALL:
        /* Every rank's p blocks share the area. */
        return wanted(want, s->bytes * (size_t)s->p, SYNC, over);
    case UZ_COLL_OP_ALLTOALLV:
        /* With a core per rank the pairwise exchange was as fast. */
        if (want != 0)
            return want > 0;
        return uz_config.coll_shm_max != 0 && over;
    case UZ_COLL_OP_REDUCE_SCATTER:
        /* Measured: shared memory at every size, even with a core per rank
         * (message passing needs a copy of the whole vector per rank); from
         * COLL_PULL_MIN blocks are pulled (uz_coll_shm_pull). */
        return wanted(want, 0, SYNC, over);
    case UZ_COLL_OP_SCAN:
        return scan_wanted(s, want);
    case UZ_COLL_OPS:
        break;
    }
    return 0;
}

/* ------------------------------------------------- message passing */

static int barrier_choice(void)
{
    return uz_config.coll_barrier == BARRIER_TREE ? BARRIER_TREE : BARRIER_DISSEMINATION;
}

/* Named shm but declined (another host, a nonblocking call): binomial. */
static int bcast_choice(const struct uz_coll_situation *s)
{
    int alg = uz_config.coll_bcast;
    if (alg == BCAST_SHM)
        return BCAST_BINOMIAL;
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (s->bytes >= uz_config.coll_bcast_long && s->p > 2)
        return BCAST_SCATTER_ALLGATHER;
    return BCAST_BINOMIAL;
}

/* The split algorithms need a commutative operation and a unit per rank. */
static int reduce_choice(const struct uz_coll_situation *s)
{
    int alg = uz_coll_forced(uz_config.coll_reduce, REDUCE_SHM);
    int splits = s->commutative && s->units >= s->p;
    if (alg == REDUCE_SCATTER_GATHER && !splits)
        alg = REDUCE_BINOMIAL;
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (s->bytes >= uz_config.coll_reduce_long && splits && s->p > 2)
        return REDUCE_SCATTER_GATHER;
    return REDUCE_BINOMIAL;
}

static int allreduce_choice(const struct uz_coll_situation *s)
{
    int alg = uz_coll_forced(uz_config.coll_allreduce, ALLREDUCE_SHM);
    int splits = s->commutative && s->units >= s->p;
    if ((alg == ALLREDUCE_RABENSEIFNER || alg == ALLREDUCE_RING) && !splits)
        alg = ALLREDUCE_RECURSIVE_DOUBLING;
    if (alg != UZ_ALG_AUTO)
        return alg;
    /* Two ranks: one reduces (copying the other's vector itself, so it is
     * in its cache) and sends the result back, rather than both copying
     * and both reducing at once: np 2, 256 KiB 36 us against 56, 2 MiB
     * 226 against 462 (Open MPI 37 and 378). */
    if (s->bytes >= uz_config.coll_allreduce_long && s->p == 2)
        return ALLREDUCE_REDUCE_BCAST;
    if (s->bytes >= uz_config.coll_allreduce_long && splits && s->p > 2)
        return ALLREDUCE_RABENSEIFNER;
    return ALLREDUCE_RECURSIVE_DOUBLING;
}

/* Gather and Scatter (by message passing their v forms are always linear): the binomial
 * bundles pay off for small blocks and many ranks.  Named shm, pull or
 * push but declined (another host, a nonblocking call): linear. */
static int rooted_choice(const struct uz_coll_situation *s)
{
    int to_root = s->op == UZ_COLL_OP_GATHER;
    int alg = to_root ? uz_config.coll_gather : uz_config.coll_scatter;
    int binomial = to_root ? GATHER_BINOMIAL : SCATTER_BINOMIAL;
    int use_binomial = alg == UZ_ALG_AUTO ? s->p > 4 && s->bytes <= 1024 : alg == binomial && s->p > 1;
    return use_binomial ? binomial : to_root ? GATHER_LINEAR : SCATTER_LINEAR;
}

/* Allgatherv by message passing always rings (the others need equal blocks); recursive
 * doubling needs p a power of two. */
static int allgather_choice(const struct uz_coll_situation *s)
{
    int alg = uz_coll_forced(uz_config.coll_allgather, ALLGATHER_SHM);
    int p = s->p, pof2 = (p & (p - 1)) == 0;
    if (alg == ALLGATHER_RECURSIVE_DOUBLING && (!pof2 || !s->fixed))
        alg = s->fixed ? ALLGATHER_BRUCK : ALLGATHER_RING;
    if (alg == ALLGATHER_BRUCK && !s->fixed)
        alg = ALLGATHER_RING;
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (!s->fixed || s->bytes * (size_t)p >= uz_config.coll_allgather_long)
        return ALLGATHER_RING;
    return pof2 ? ALLGATHER_RECURSIVE_DOUBLING : ALLGATHER_BRUCK;
}

static int alltoall_choice(const struct uz_coll_situation *s)
{
    int alg = uz_coll_forced(uz_config.coll_alltoall, ALLTOALL_SHM);
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (s->p >= 8 && s->bytes <= uz_config.coll_alltoall_short)
        return ALLTOALL_BRUCK;
    return s->p <= 4 ? ALLTOALL_LINEAR : ALLTOALL_PAIRWISE;
}

static int alltoallv_choice(const struct uz_coll_situation *s)
{
    int alg = uz_coll_forced(uz_config.coll_alltoallv, ALLTOALLV_SHM);
    if (alg != UZ_ALG_AUTO)
        return alg;
    return s->p <= 4 ? ALLTOALLV_LINEAR : ALLTOALLV_PAIRWISE;
}

/* The ring from the size where Allreduce turns to its split algorithms. */
static int reduce_scatter_choice(const struct uz_coll_situation *s)
{
    if (s->p == 1)
        return REDUCE_SCATTER_PAIRWISE;
    int alg = uz_coll_forced(uz_config.coll_reduce_scatter, REDUCE_SCATTER_SHM);
    if (alg == REDUCE_SCATTER_RING && !s->commutative)
        alg = REDUCE_SCATTER_PAIRWISE;
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (s->commutative && s->bytes >= uz_config.coll_allreduce_long)
        return REDUCE_SCATTER_RING;
    return REDUCE_SCATTER_PAIRWISE;
}

/* The chain: each rank waits only for the one below, which leaves after
 * its send, so back-to-back scans pipeline (np 4 on 2 cores: 0.3 us a
 * call where recursive doubling's pairwise waits took 35 us, and
 * milliseconds from 256 KiB), and each vector crosses once instead of
 * log2 p times.  Recursive doubling only for many ranks, each with a core,
 * and short vectors, where its log2 p latency counts. */
static int scan_choice(const struct uz_coll_situation *s)
{
    enum { CHAIN_MAX_RANKS = 8, CHAIN_MIN_BYTES = 16384 };
    int alg = uz_coll_forced(uz_config.coll_scan, SCAN_SHM);
    if (alg != UZ_ALG_AUTO)
        return alg;
    if (s->p <= CHAIN_MAX_RANKS || s->bytes >= CHAIN_MIN_BYTES || s->oversubscribed)
        return SCAN_LINEAR;
    return SCAN_RECURSIVE_DOUBLING;
}

int uz_coll_mp_choice(const struct uz_coll_situation *s)
{
    switch (s->op) {
    case UZ_COLL_OP_BARRIER: return barrier_choice();
    case UZ_COLL_OP_BCAST: return bcast_choice(s);
    case UZ_COLL_OP_REDUCE: return reduce_choice(s);
    case UZ_COLL_OP_ALLREDUCE: return allreduce_choice(s);
    case UZ_COLL_OP_GATHER:
    case UZ_COLL_OP_SCATTER: return rooted_choice(s);
    case UZ_COLL_OP_ALLGATHER: return allgather_choice(s);
    case UZ_COLL_OP_ALLTOALL: return alltoall_choice(s);
    case UZ_COLL_OP_ALLTOALLV: return alltoallv_choice(s);
    case UZ_COLL_OP_REDUCE_SCATTER: return reduce_scatter_choice(s);
    case UZ_COLL_OP_SCAN: return scan_choice(s);
    case UZ_COLL_OPS: break;
    }
    return UZ_ALG_AUTO;
}

int uz_coll_choice(const struct uz_coll_situation *s, int one_host)
{
    if ((s->op == UZ_COLL_OP_GATHER || s->op == UZ_COLL_OP_SCATTER) && one_host && s->p > 1) {
        int alg = uz_coll_shm_rooted(s);
        return alg != UZ_ALG_AUTO ? alg : uz_coll_mp_choice(s);
    }
    int want = uz_coll_policy_want(s->op);
    if (one_host && s->p > 1 && (uz_coll_shm_pull(s, want) || uz_coll_shm_wanted(s, want)))
        return ops[s->op].shm;
    return uz_coll_mp_choice(s);
}
