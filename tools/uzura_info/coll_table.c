/*
 * coll_table.c — prints the collectives' algorithm table (coll_table.h) as
 * Markdown tables, readable in a terminal and pasted as they are into
 * docs/collectives.md by tools/gen/gen_coll_table.py.
 *
 * Each cell is uz_coll_choice() of one situation, the function the library
 * itself asks, so the table cannot disagree with what a call does (the
 * coll_<op>_algorithm performance variables show a call's choice).  The
 * situations are those bench/coll_bench measures: predefined reductions on
 * doubles (MPI_SUM: commutative, 8-byte units), equal blocks, contiguous
 * buffers.
 */
#include <stdio.h>
#include <string.h>

#include "base/params.h"
#include "coll/coll_policy.h"
#include "coll_table.h"

/* bench/coll_bench's sizes: 8 bytes up by factors of 8, and 4 MiB. */
static const size_t sizes[] = { 8, 64, 512, 4096, 32768, 262144, 2097152, 4194304 };
static const int ranks[] = { 2, 4, 8, 16, 64 };
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]), NRANKS = sizeof(ranks) / sizeof(ranks[0]), PER_CORE = 2 };

/* What a row's size is, by operation, in coll_bench's terms. */
static const char *row_meaning(enum uz_coll_op op)
{
    switch (op) {
    case UZ_COLL_OP_BARRIER: return "no data";
    case UZ_COLL_OP_BCAST: return "the buffer";
    case UZ_COLL_OP_REDUCE:
    case UZ_COLL_OP_ALLREDUCE:
    case UZ_COLL_OP_SCAN: return "the vector (doubles, MPI_SUM)";
    case UZ_COLL_OP_GATHER:
    case UZ_COLL_OP_SCATTER: return "one rank's block (Gather and Scatter; their v forms: docs/collectives.md)";
    case UZ_COLL_OP_ALLGATHER: return "one rank's block (Allgatherv: the mean block, and by message passing it always rings)";
    case UZ_COLL_OP_ALLTOALL: return "the block for one peer";
    case UZ_COLL_OP_ALLTOALLV: return "the block for one peer (Alltoallv/w)";
    case UZ_COLL_OP_REDUCE_SCATTER: return "the block each rank receives (doubles, MPI_SUM)";
    case UZ_COLL_OPS: break;
    }
    return "";
}

static void size_label(size_t b, char *out, size_t len)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(out, len, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(out, len, "%zu KiB", b >> 10);
    else
        snprintf(out, len, "%zu B", b);
}

static struct uz_coll_situation situation(enum uz_coll_op op, size_t row, int p, int per_core)
{
    struct uz_coll_situation s = { .op = op, .bytes = row, .p = p, .oversubscribed = per_core > 1,
                                   .commutative = 1, .units = (long long)(row / 8), .fixed = 1 };
    if (op == UZ_COLL_OP_REDUCE_SCATTER) {
        s.bytes = row * (size_t)p;
        s.units = (long long)(s.bytes / 8);
    }
    if (op == UZ_COLL_OP_ALLTOALLV)
        s.fixed = 0;
    return s;
}

/* Each column is as wide as its widest cell, so the Markdown lines up in
 * a terminal too.  Headers "n×k": the × is two bytes but one column. */
static void print_op(enum uz_coll_op op, int one_host)
{
    enum { COLS = NRANKS * PER_CORE };
    const char *cell[NSIZES][COLS];
    int width[COLS], rows = op == UZ_COLL_OP_BARRIER ? 1 : NSIZES;
    char head[COLS][16];
    for (int c = 0; c < COLS; c++) {
        int p = ranks[c / PER_CORE], k = c % PER_CORE + 1;
        width[c] = snprintf(head[c], sizeof head[c], "%d×%d", p, k) - 1;
        for (int r = 0; r < rows; r++) {
            struct uz_coll_situation s = situation(op, sizes[r], p, k);
            cell[r][c] = uz_coll_alg_word(op, uz_coll_choice(&s, one_host));
            if ((int)strlen(cell[r][c]) > width[c])
                width[c] = (int)strlen(cell[r][c]);
        }
    }
    printf("### %s: UZURA_%s=%s\n\nRows: %s.\n\n", uz_coll_op_name(op), uz_coll_op_tunable(op),
           uz_coll_alg_word(op, uz_coll_tunable(op)), row_meaning(op));
    printf("| %-7s |", "bytes");
    for (int c = 0; c < COLS; c++)
        printf(" %-*s |", width[c] + 1, head[c]);
    printf("\n|---------|");
    for (int c = 0; c < COLS; c++)
        printf("%.*s|", width[c] + 2, "------------------------------");
    printf("\n");
    for (int r = 0; r < rows; r++) {
        char label[32] = "-";
        if (op != UZ_COLL_OP_BARRIER)
            size_label(sizes[r], label, sizeof label);
        printf("| %-7s |", label);
        for (int c = 0; c < COLS; c++)
            printf(" %-*s |", width[c], cell[r][c]);
        printf("\n");
    }
    printf("\n");
}

int uz_info_print_coll_table(const char *variant)
{
    char err[512];
    int one_host;
    if (!variant || strcmp(variant, "host") == 0) {
        one_host = 1;
    } else if (strcmp(variant, "hosts") == 0) {
        one_host = 0;
    } else {
        fprintf(stderr, "uzura_info: --coll-table=%s: say host or hosts\n", variant);
        return 2;
    }
    if (uz_params_load(err, sizeof err, stderr) != 0) {
        fprintf(stderr, "uzura_info: %s\n", err);
        return 2;
    }
    printf("Collective algorithms for %s.\n"
           "Column n×k: n ranks, k per core (k 2: twice as many ranks on the host as processors).\n"
           "Thresholds (bytes): COLL_SHM_MAX %zu, COLL_SHM_ROOTED_MIN %zu, COLL_PULL_MIN %zu,\n"
           "COLL_BCAST_LONG %zu, COLL_REDUCE_LONG %zu, COLL_ALLREDUCE_LONG %zu,\n"
           "COLL_ALLGATHER_LONG %zu, COLL_ALLTOALL_SHORT %zu.\n\n",
           one_host ? "blocking calls on a communicator within one host"
                    : "communicators spanning hosts, and nonblocking or persistent calls",
           uz_config.coll_shm_max, uz_config.coll_shm_rooted_min, uz_config.coll_pull_min,
           uz_config.coll_bcast_long, uz_config.coll_reduce_long, uz_config.coll_allreduce_long,
           uz_config.coll_allgather_long, uz_config.coll_alltoall_short);
    for (int op = 0; op < UZ_COLL_OPS; op++)
        print_op((enum uz_coll_op)op, one_host);
    return 0;
}
