/*
 * process_mapping.c — from PMI_process_mapping to this rank's node and
 * local rank (see process_mapping.h).
 */
#include "pmi/process_mapping.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCKS_MAX = 256 };

struct block {
    long first, count, per_node;
};

static int expect(const char **p, char c)
{
    while (**p == ' ')
        (*p)++;
    if (**p != c)
        return -EINVAL;
    (*p)++;
    return 0;
}

static int number(const char **p, long *out)
{
    while (**p == ' ')
        (*p)++;
    char *end;
    long v = strtol(*p, &end, 10);
    if (end == *p || v < 0 || v > 1 << 24)
        return -EINVAL;
    *p = end;
    *out = v;
    return 0;
}

static int parse_blocks(const char *p, struct block *b, int *n)
{
    if (expect(&p, '('))
        return -EINVAL;
    while (*p == ' ')
        p++;
    if (strncmp(p, "vector", 6) != 0)
        return -EINVAL;
    p += 6;
    for (*n = 0; expect(&p, ',') == 0; (*n)++) {
        if (*n == BLOCKS_MAX || expect(&p, '(') || number(&p, &b[*n].first) ||
            expect(&p, ',') || number(&p, &b[*n].count) || expect(&p, ',') ||
            number(&p, &b[*n].per_node) || expect(&p, ')'))
            return -EINVAL;
        if (b[*n].count == 0 || b[*n].per_node == 0)
            return -EINVAL;
    }
    if (*n == 0 || expect(&p, ')'))
        return -EINVAL;
    while (*p == ' ')
        p++;
    return *p ? -EINVAL : 0;
}

/* The node of rank r: walk the blocks, cycling, until r falls in one. */
static long node_of(const struct block *b, int n, long r)
{
    long per_round = 0;
    for (int i = 0; i < n; i++)
        per_round += b[i].count * b[i].per_node;
    r %= per_round;
    for (int i = 0;; i++) {
        long in_block = b[i].count * b[i].per_node;
        if (r < in_block)
            return b[i].first + r / b[i].per_node;
        r -= in_block;
    }
}

int uz_pmi_process_mapping(const char *mapping, int rank, int size,
                           struct uz_pmi_placement *out)
{
    struct block b[BLOCKS_MAX];
    int n;
    if (!mapping || rank < 0 || rank >= size || parse_blocks(mapping, b, &n))
        return -EINVAL;
    long mine = node_of(b, n, rank), max_node = 0;
    struct uz_pmi_placement p = {0};
    for (long r = 0; r < size; r++) {
        long node = node_of(b, n, r);
        if (node > max_node)
            max_node = node;
        if (node == mine) {
            p.local_rank += r < rank;
            p.local_size++;
        }
    }
    p.node_id = (int)mine;
    p.num_nodes = (int)max_node + 1;
    *out = p;
    return 0;
}
