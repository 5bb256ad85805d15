/*
 * group_ops.c — the MPI_Group_* procedures: queries, comparison, the set
 * operations and inclusion/exclusion by rank lists and ranges.
 *
 * Members are world ranks, so every operation reduces to work on int
 * arrays.  Membership tests use a scratch array indexed by world rank
 * (one int per process of the job), which keeps union, intersection,
 * difference and translation linear instead of quadratic.  An empty
 * result is MPI_GROUP_EMPTY, which the user may free like any group.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/comm_impl.h"
#include "core/session.h"
#include "pt2pt/proc_table.h"

/* ------------------------------------------------------------ helpers */

uz_group *uz_group_from_world_ranks(int n, const int *world_ranks)
{
    if (n == 0)
        return &uz_group_empty;
    int identity = 1;
    for (int i = 0; i < n && identity; i++)
        identity = world_ranks[i] == i;
    if (identity)
        return uz_group_new(n, NULL);
    int *copy = malloc(sizeof(int) * (size_t)n);
    if (!copy)
        return NULL;
    memcpy(copy, world_ranks, sizeof(int) * (size_t)n);
    return uz_group_new(n, copy);
}

int uz_group_rank_of_world(const uz_group *g, int w)
{
    if (!g->world_ranks)
        return w >= 0 && w < g->size ? w : MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == w)
            return i;
    return MPI_UNDEFINED;
}

int uz_group_same(const uz_group *a, const uz_group *b)
{
    if (a == b)
        return 1;
    if (a->size != b->size)
        return 0;
    for (int i = 0; i < a->size; i++)
        if (uz_group_world_rank(a, i) != uz_group_world_rank(b, i))
            return 0;
    return 1;
}

/* index[w] = rank of world rank w in g, or -1; caller frees. */
static int *world_index(const uz_group *g)
{
    int n = uz_proc_count();            /* processes of other jobs too */
    int *index = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!index)
        return NULL;
    memset(index, 0xff, sizeof(int) * (size_t)n);
    for (int i = 0; i < g->size; i++)
        index[uz_group_world_rank(g, i)] = i;
    return index;
}

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a group");
}

/* Hand a group of n world ranks out as *newgroup; it derives from the
 * session `from` derives from (a group made from groups of two sessions is
 * erroneous, MPI-4.1 §11.3.2: the first one's is kept). */
static int return_group(const uz_group *from, int n, const int *world_ranks, MPI_Group *newgroup)
{
    uz_group *g = uz_group_from_world_ranks(n, world_ranks);
    if (!g)
        return no_mem();
    if (from->session && g != &uz_group_empty) {
        uz_session_retain(from->session);
        g->session = from->session;
    }
    *newgroup = uz_group_handle(g);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ queries */

int uz_mpi_Group_size(uz_group *group, int *size)
{
    *size = group->size;
    return MPI_SUCCESS;
}

int uz_mpi_Group_rank(uz_group *group, int *rank)
{
    *rank = group->my_rank;
    return MPI_SUCCESS;
}

int uz_mpi_Group_translate_ranks(uz_group *group1, int n, const int ranks1[], uz_group *group2,
                                 int ranks2[])
{
    if (n > 0 && (!ranks1 || !ranks2))
        return uz_err_make(MPI_ERR_ARG, "invalid argument: %s is NULL", ranks1 ? "ranks2" : "ranks1");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= group1->size))
            return uz_err_make(MPI_ERR_RANK, "invalid rank ranks1[%d] = %d for a group of size %d",
                               i, ranks1[i], group1->size);
    int *index = n > 0 ? world_index(group2) : NULL;
    if (n > 0 && !index)
        return no_mem();
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int r = index[uz_group_world_rank(group1, ranks1[i])];
            ranks2[i] = r < 0 ? MPI_UNDEFINED : r;
        }
    }
    free(index);
    return MPI_SUCCESS;
}

int uz_group_compare(const uz_group *group1, const uz_group *group2, int *result)
{
    if (uz_group_same(group1, group2)) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (group1->size != group2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int *index = world_index(group2);
    if (!index)
        return no_mem();
    *result = MPI_SIMILAR;
    for (int i = 0; i < group1->size; i++) {
        if (index[uz_group_world_rank(group1, i)] < 0) {
            *result = MPI_UNEQUAL;
            break;
        }
    }
    free(index);
    return MPI_SUCCESS;
}

int uz_mpi_Group_compare(uz_group *group1, uz_group *group2, int *result)
{
    return uz_group_compare(group1, group2, result);
}

/* ------------------------------------------------------ set operations */

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_operation(uz_group *g1, uz_group *g2, enum set_op op, MPI_Group *newgroup)
{
    int *in2 = world_index(g2);
    int *out = malloc(sizeof(int) * (size_t)(g1->size + g2->size + 1));
    if (!in2 || !out) {
        free(in2);
        free(out);
        return no_mem();
    }
    int n = 0;
    for (int i = 0; i < g1->size; i++) {
        int w = uz_group_world_rank(g1, i);
        int both = in2[w] >= 0;
        if (op == SET_UNION || (op == SET_INTERSECTION) == both)
            out[n++] = w;
    }
    if (op == SET_UNION) {
        /* Members of g2 not in g1, in g2's order: mark g1's in the index. */
        for (int i = 0; i < g1->size; i++)
            in2[uz_group_world_rank(g1, i)] = -2;
        for (int i = 0; i < g2->size; i++) {
            int w = uz_group_world_rank(g2, i);
            if (in2[w] != -2)
                out[n++] = w;
        }
    }
    int err = return_group(g1->session ? g1 : g2, n, out, newgroup);
    free(in2);
    free(out);
    return err;
}

int uz_mpi_Group_union(uz_group *group1, uz_group *group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, SET_UNION, newgroup);
}

int uz_mpi_Group_intersection(uz_group *group1, uz_group *group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, SET_INTERSECTION, newgroup);
}

int uz_mpi_Group_difference(uz_group *group1, uz_group *group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, SET_DIFFERENCE, newgroup);
}

/* ------------------------------------------------- inclusion, exclusion */

/* Check a list of n distinct valid ranks of g; seen[] is g->size zeros and
 * comes back marked. */
static int check_rank_list(const uz_group *g, int n, const int ranks[], char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return uz_err_make(MPI_ERR_RANK, "invalid rank ranks[%d] = %d for a group of size %d",
                               i, r, g->size);
        if (seen[r])
            return uz_err_make(MPI_ERR_RANK, "rank %d appears twice in ranks (at index %d)", r, i);
        seen[r] = 1;
    }
    return MPI_SUCCESS;
}

/* Build the group of g's members that are marked (incl: in the order of
 * `order`, n of them) or unmarked (excl: in g's order). */
static int select_members(uz_group *g, int n, const int order[], const char *seen, int include,
                          MPI_Group *newgroup)
{
    int *out = malloc(sizeof(int) * (size_t)(g->size + 1));
    if (!out)
        return no_mem();
    int k = 0;
    if (include) {
        for (int i = 0; i < n; i++)
            out[k++] = uz_group_world_rank(g, order[i]);
    } else {
        for (int i = 0; i < g->size; i++)
            if (!seen[i])
                out[k++] = uz_group_world_rank(g, i);
    }
    int err = return_group(g, k, out, newgroup);
    free(out);
    return err;
}

static int incl_excl(uz_group *group, int n, const int ranks[], int include, MPI_Group *newgroup)
{
    if (n > 0 && !ranks)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: ranks is NULL");
    if (n > group->size)
        return uz_err_make(MPI_ERR_ARG, "n = %d is larger than the group (%d members)", n,
                           group->size);
    char *seen = calloc((size_t)group->size + 1, 1);
    if (!seen)
        return no_mem();
    int err = check_rank_list(group, n, ranks, seen);
    if (!err)
        err = select_members(group, n, ranks, seen, include, newgroup);
    free(seen);
    return err;
}

int uz_mpi_Group_incl(uz_group *group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 1, newgroup);
}

int uz_mpi_Group_excl(uz_group *group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 0, newgroup);
}

/* Expand n (first, last, stride) triplets into a rank list; *out is
 * malloc'd, *count its length. */
static int expand_ranges(const uz_group *g, int n, int ranges[][3], int **out, int *count)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return uz_err_make(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return uz_err_make(MPI_ERR_RANK, "ranges[%d] = (%d, %d, %d) names ranks outside a "
                               "group of size %d", i, first, last, stride, g->size);
        if ((stride > 0 && first <= last) || (stride < 0 && first >= last))
            total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return uz_err_make(MPI_ERR_RANK, "ranges name more ranks than the group has (%d), "
                               "so some appear twice", g->size);
    }
    int *list = malloc(sizeof(int) * (size_t)(total + 1));
    if (!list)
        return no_mem();
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            list[k++] = (int)r;
    }
    *out = list;
    *count = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(uz_group *group, int n, int ranges[][3], int include, MPI_Group *newgroup)
{
    if (n > 0 && !ranges)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: ranges is NULL");
    int *list = NULL, count = 0;
    int err = expand_ranges(group, n, ranges, &list, &count);
    if (err)
        return err;
    char *seen = calloc((size_t)group->size + 1, 1);
    if (!seen) {
        free(list);
        return no_mem();
    }
    err = check_rank_list(group, count, list, seen);
    if (err)    /* restate: the list was made from ranges, not given */
        err = uz_err_make(MPI_ERR_RANK, "the ranges name a rank twice");
    else
        err = select_members(group, count, list, seen, include, newgroup);
    free(seen);
    free(list);
    return err;
}

int uz_mpi_Group_range_incl(uz_group *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 1, newgroup);
}

int uz_mpi_Group_range_excl(uz_group *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 0, newgroup);
}

/* --------------------------------------------------------------- free */

int uz_mpi_Group_free(MPI_Group *group)
{
    uz_group *g = uz_group_get(*group);
    if (!g)
        return uz_err_make(MPI_ERR_GROUP, "invalid group (argument group)");
    /* MPI_GROUP_EMPTY may be freed: operations return it for empty
     * results, and programs free whatever they got. */
    *group = MPI_GROUP_NULL;
    uz_group_release(g);
    return MPI_SUCCESS;
}
