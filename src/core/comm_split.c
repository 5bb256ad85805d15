/*
 * comm_split.c — MPI_Comm_split and MPI_Comm_split_type.
 *
 * One agreement over the parent does everything: it gathers every rank's
 * (colour, key) and ANDs the free context ids, so a split costs one
 * allreduce-sized collective.  All the new communicators share one context
 * id: their groups are disjoint, so no process ever sees two of them.
 * Ranks of a colour are ordered by key, ties by rank in the parent.
 *
 * Splitting an intercommunicator (MPI-2.2 §6.4.2) also swaps the entries
 * between the two groups' leaders: the result pairs the local ranks of a
 * colour with the remote ranks of the same colour, and is MPI_COMM_NULL
 * where either side has none.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/runtime.h"
#include "core/comm_impl.h"
#include "core/comm_split_hw.h"
#include "core/info.h"

struct split_member {
    int key;
    int index;
};

static int by_key_then_index(const void *a, const void *b)
{
    const struct split_member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The group of the entries whose column `col` is `color`, ordered by key
 * (the last int of each entry), as world ranks of `from` (entry i belongs
 * to rank i of `from`).  *out is NULL (and MPI_SUCCESS) when none. */
static int group_of_color(const int *entries, int n, int nints, int col, int color,
                          const uz_group *from, uz_group **out)
{
    *out = NULL;
    struct split_member *m = malloc(sizeof(*m) * (size_t)(n + 1));
    if (!m)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    int k = 0;
    for (int i = 0; i < n; i++) {
        const int *e = entries + (size_t)i * nints;
        if (e[col] == color)
            m[k++] = (struct split_member){ e[nints - 1], i };
    }
    qsort(m, (size_t)k, sizeof(*m), by_key_then_index);
    int *world = (int *)m;      /* reuse: world[i] is written after m[i] was read */
    for (int i = 0; i < k; i++)
        world[i] = uz_group_world_rank(from, m[i].index);
    int err = MPI_SUCCESS;
    if (k > 0 && !(*out = uz_group_from_world_ranks(k, world)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    free(m);
    return err;
}

/* Agree over comm: my entry of nints ints, one pair (two for an
 * intercommunicator), entries swapped between leaders for intercomms. */
static int split_agree(uz_comm *comm, const int *entry, int nints, uint32_t *ids,
                       struct uz_agree **agreed)
{
    struct uz_agree_spec spec;
    uz_lock();
    uz_agree_spec_for(comm, &spec);
    spec.entry_ints = nints;
    spec.xsend_entries = comm->is_inter;
    int err = uz_ctx_agree(&spec, comm->context_id, entry, comm->is_inter ? 2 : 1, 1, ids, agreed);
    uz_unlock();
    return err;
}

/* Make the communicator of my colour (column col of the entries) and give
 * back the ids if there is none.  `hint` is an info key/value to record on
 * it (split_type), or NULL. */
static int split_finish(uz_comm *comm, struct uz_agree *a, int nints, int col, int color,
                        const uint32_t *ids, const char *hint_key, const char *hint_value,
                        MPI_Comm *newcomm)
{
    uz_group *local = NULL, *remote = NULL;
    int err = MPI_SUCCESS;
    *newcomm = MPI_COMM_NULL;
    if (color != MPI_UNDEFINED) {
        err = group_of_color(uz_agree_entries(a), comm->size, nints, col, color, comm->local_group,
                             &local);
        if (!err && comm->is_inter) {
            size_t bytes;
            const int *theirs = uz_agree_blob(a, &bytes);
            err = group_of_color(theirs, comm->remote_size, nints, col, color, comm->remote_group,
                                 &remote);
        }
    }
    uz_agree_free_unlocked(a);
    if (err || !local || (comm->is_inter && !remote)) {
        uz_group_release(local);
        uz_group_release(remote);
        uz_ctx_release(ids[0]);
        if (comm->is_inter)
            uz_ctx_release(ids[1]);
        return err;
    }
    uz_comm *c = uz_comm_new(local, remote);
    if (!c) {
        uz_ctx_release(ids[0]);
        if (comm->is_inter)
            uz_ctx_release(ids[1]);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
    }
    if ((err = uz_comm_activate(c, comm, ids[0], ids[1])))
        goto fail;
    if (hint_key && (!(c->info = uz_info_new()) || uz_info_set(c->info, hint_key, hint_value))) {
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory splitting a communicator");
        goto fail;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
fail:
    uz_comm_discard(c);
    return err;
}

int uz_mpi_Comm_split(uz_comm *comm, int color, int key, MPI_Comm *newcomm)
{
    if (color < 0 && color != MPI_UNDEFINED)
        return uz_err_make(MPI_ERR_ARG, "invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    int entry[2] = { color, key };
    uint32_t ids[2] = { 0, 0 };
    struct uz_agree *a;
    int err = split_agree(comm, entry, 2, ids, &a);
    if (err)
        return err;
    return split_finish(comm, a, 2, 0, color, ids, NULL, NULL, newcomm);
}

/* ------------------------------------------------------------ split_type */

/* Split by hardware: the colour of level `level` (-1: none, so every rank
 * gets MPI_COMM_NULL but still takes part). */
static int split_hw_level(uz_comm *comm, int level, int key, const char *info_key, MPI_Comm *newcomm)
{
    int colors[UZ_HW_LEVELS];
    uz_hw_colors(colors);
    int color = level >= 0 ? colors[level] : MPI_UNDEFINED;
    int entry[2] = { color, key };
    uint32_t ids[2] = { 0, 0 };
    struct uz_agree *a;
    int err = split_agree(comm, entry, 2, ids, &a);
    if (err)
        return err;
    return split_finish(comm, a, 2, 0, color, ids, info_key, uz_hw_level_name(level), newcomm);
}

/* MPI_COMM_TYPE_HW_UNGUIDED: the coarsest level at which every group is a
 * strict subset of comm (ranks with no instance there get MPI_COMM_NULL);
 * all ranks see the same entries, so they all choose the same level. */
static int choose_unguided_level(const int *entries, int n)
{
    enum { NI = UZ_HW_LEVELS + 1 };
    for (int level = 0; level < UZ_HW_LEVELS; level++) {
        int defined = 0, strict = 1;
        for (int i = 0; i < n && strict; i++) {
            int c = entries[(size_t)i * NI + level];
            if (c == MPI_UNDEFINED)
                continue;
            defined++;
            int same = 0;
            for (int j = 0; j < n; j++)
                same += entries[(size_t)j * NI + level] == c;
            strict = same < n;
        }
        if (defined && strict)
            return level;
    }
    return -1;
}

/* The level chosen is also written into the caller's info under
 * "mpi_hw_resource_type" (MPI-4.1 §7.4.2), so that the program can tell
 * what it split by and split the result again. */
static int split_unguided(uz_comm *comm, int key, uz_info *info, MPI_Comm *newcomm)
{
    enum { NI = UZ_HW_LEVELS + 1 };
    int entry[NI];
    uz_hw_colors(entry);
    entry[UZ_HW_LEVELS] = key;
    uint32_t ids[2] = { 0, 0 };
    struct uz_agree *a;
    int err = split_agree(comm, entry, NI, ids, &a);
    if (err)
        return err;
    int level = choose_unguided_level(uz_agree_entries(a), comm->size);
    int color = level >= 0 ? entry[level] : MPI_UNDEFINED;
    if (level < 0)
        level = 0;      /* any column: every colour is MPI_UNDEFINED anyway */
    err = split_finish(comm, a, NI, level, color, ids, "mpi_hw_resource_type",
                       uz_hw_level_name(level), newcomm);
    if (!err && info && *newcomm != MPI_COMM_NULL &&
        uz_info_set(info, "mpi_hw_resource_type", uz_hw_level_name(level)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory recording the split's level");
    return err;
}

/* The level an info asks for: "mpi_shared_memory" is the host. */
static int level_from_info(const uz_info *info, const char *key)
{
    const char *v = uz_info_lookup(info, key);
    if (v && strcmp(v, "mpi_shared_memory") == 0)
        return UZ_HW_MACHINE;
    return uz_hw_level_of(v);
}

int uz_mpi_Comm_split_type(uz_comm *comm, int split_type, int key, uz_info *info, MPI_Comm *newcomm)
{
    /* On an intercommunicator each side splits by its own colours and a
     * result pairs the two sides' groups of equal colour, as MPI_Comm_split
     * does; only the unguided kind, which picks a level from one group's
     * view, needs an intracommunicator. */
    if (comm->is_inter && split_type == MPI_COMM_TYPE_HW_UNGUIDED)
        return uz_err_make(MPI_ERR_COMM, "MPI_COMM_TYPE_HW_UNGUIDED needs an intracommunicator");
    switch (split_type) {
    case MPI_UNDEFINED:
        return uz_mpi_Comm_split(comm, MPI_UNDEFINED, key, newcomm);
    case MPI_COMM_TYPE_SHARED:
        return uz_mpi_Comm_split(comm, uz_rt.node_id, key, newcomm);
    case MPI_COMM_TYPE_HW_GUIDED:
        return split_hw_level(comm, level_from_info(info, "mpi_hw_resource_type"), key,
                              "mpi_hw_resource_type", newcomm);
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        return split_hw_level(comm, level_from_info(info, "mpi_hw_resource_type"), key,
                              "mpi_hw_resource_type", newcomm);
    case MPI_COMM_TYPE_HW_UNGUIDED:
        return split_unguided(comm, key, info, newcomm);
    }
    return uz_err_make(MPI_ERR_ARG, "invalid split_type %d", split_type);
}
