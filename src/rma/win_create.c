/*
 * win_create.c — making and freeing windows of every flavour: the exchange
 * that tells each rank where the others' memory is, and the host segment
 * that holds the control blocks and the memory of MPI_Win_allocate and
 * MPI_Win_allocate_shared.
 *
 * The host segment: the lowest window rank of each host (its leader)
 * creates a POSIX shared-memory object sized for the host's control blocks
 * and memory, every rank of the host maps it, and the leader unlinks it as
 * soon as all have, so nothing is left in /dev/shm whatever happens later.
 * Layout: one struct uz_rma_ctrl per rank of the host, then the ranks'
 * memory in window-rank order — back to back for MPI_Win_allocate_shared
 * (the standard's contiguous default), each on its own page boundary for
 * alloc_shared_noncontig, on a 64-byte boundary for MPI_Win_allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/attr.h"
#include "base/errors.h"
#include "base/runtime.h"
#include "coll/coll.h"
#include "core/info.h"
#include "rma/rma.h"
#include "rma/rma_am.h"

/* What each rank tells the others at creation. */
struct card {
    uintptr_t base;
    MPI_Aint size;
    MPI_Aint disp_unit;
    uintptr_t regions;
    int world;
    int node;
};

struct seg_name {
    char s[160];
};

static unsigned long windows_made;      /* names this process's segments */

static int info_true(const uz_info *info, const char *key)
{
    const char *v = info ? uz_info_lookup(info, key) : NULL;
    return v && (!strcasecmp(v, "true") || !strcmp(v, "1"));
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static int allgather_bytes(uz_comm *comm, const void *mine, void *all, size_t bytes)
{
    return uz_coll_allgather(mine, (MPI_Count)bytes, uz_datatype_get(MPI_BYTE), all, (MPI_Count)bytes,
                             uz_datatype_get(MPI_BYTE), comm);
}

/* Offsets of each host rank's memory in the segment; returns the total. */
static size_t seg_layout(uz_win *w, const struct card *cards, const int *members, int n, size_t *offs)
{
    size_t off = round_up(sizeof(struct uz_rma_ctrl) * (size_t)n, 4096);
    for (int i = 0; i < n; i++) {
        if (w->flavor != MPI_WIN_FLAVOR_ALLOCATE && w->flavor != MPI_WIN_FLAVOR_SHARED) {
            offs[i] = off;
            continue;
        }
        if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
            off = round_up(off, 64);
        else if (w->shared_noncontig)
            off = round_up(off, 4096);
        offs[i] = off;
        off += (size_t)cards[members[i]].size;
    }
    return off > 0 ? off : 1;
}

static int map_segment(const char *name, size_t size, int create, void **out)
{
    int fd = create ? shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600) : shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return uz_err_make(MPI_ERR_NO_MEM, "window segment %s: shm_open: %s", name, strerror(errno));
    if (create && ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        shm_unlink(name);
        return uz_err_make(MPI_ERR_NO_MEM, "window segment %s of %zu bytes: %s", name, size, strerror(e));
    }
    if (create) {
        /* Claim the pages now: a full /dev/shm is an error here, not a
         * SIGBUS on the first store into the window. */
        int e = posix_fallocate(fd, 0, (off_t)size);
        if (e) {
            close(fd);
            shm_unlink(name);
            return uz_err_make(MPI_ERR_NO_MEM, "window segment of %zu bytes: /dev/shm has no room (%s)", size,
                               strerror(e));
        }
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return uz_err_make(MPI_ERR_NO_MEM, "window segment %s: mmap: %s", name, strerror(errno));
    *out = p;
    return MPI_SUCCESS;
}

/* Build the host segment and point every host rank's peer entry into it. */
static int host_segment(uz_win *w, struct card *cards)
{
    int p = w->size, me = w->rank, my_node = cards[me].node;
    int *members = malloc(sizeof(int) * (size_t)p);
    size_t *offs = malloc(sizeof(size_t) * (size_t)p);
    struct seg_name *names = calloc((size_t)p, sizeof(*names));
    struct seg_name mine = { { 0 } };
    int n = 0, err = MPI_SUCCESS;
    if (!members || !offs || !names) {
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
        goto out;
    }
    for (int r = 0; r < p; r++)
        if (cards[r].node == my_node)
            members[n++] = r;
    size_t total = seg_layout(w, cards, members, n, offs);
    int leader = members[0] == me;
    if (leader) {
        snprintf(mine.s, sizeof(mine.s), "/uzura-%s-w%d-%lu", uz_rt.job_id, uz_rt.world_rank, windows_made++);
        err = map_segment(mine.s, total, 1, &w->seg);
        if (err)
            mine.s[0] = 0;
    }
    /* Everyone learns its leader's name (an empty one: the leader failed). */
    int err2 = allgather_bytes(w->comm, &mine, names, sizeof(mine));
    if (!err)
        err = err2;
    if (!err && !leader) {
        const char *name = names[members[0]].s;
        err = name[0] ? map_segment(name, total, 0, &w->seg)
                      : uz_err_make(MPI_ERR_NO_MEM, "the window's segment could not be made on this host");
    }
    /* All have it mapped (or failed): the name can go. */
    err2 = uz_coll_barrier(w->comm);
    if (!err)
        err = err2;
    if (leader && mine.s[0])
        shm_unlink(mine.s);
    if (err)
        goto out;
    w->seg_size = total;
    for (int i = 0; i < n; i++) {
        struct uz_rma_peer *pe = &w->peers[members[i]];
        pe->ctrl = (struct uz_rma_ctrl *)w->seg + i;
        if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED)
            pe->local_base = (char *)w->seg + offs[i];
    }
out:
    free(members);
    free(offs);
    free(names);
    return err;
}

static uz_win *win_new(uz_comm *comm, int flavor, uz_info *info, int *err)
{
    uz_win *w = uz_object_alloc(sizeof(*w));
    if (!w) {
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
        return NULL;
    }
    uz_object_init(&w->obj, UZ_MAGIC_WIN);
    w->flavor = flavor;
    w->no_locks = info_true(info, "no_locks");
    w->shared_noncontig = info_true(info, "alloc_shared_noncontig");
    if (info && !(w->info = uz_info_dup(info))) {
        uz_object_free(w, sizeof(*w));
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
        return NULL;
    }
    if ((*err = uz_comm_dup_private(comm, &w->comm))) {
        if (w->info)
            uz_info_free(w->info);
        uz_object_free(w, sizeof(*w));
        return NULL;
    }
    w->rank = w->comm->rank;
    w->size = w->comm->size;
    return w;
}

void uz_rma_win_destroy(uz_win *w)
{
    uz_rma_am_close(w);
    if (w->seg)
        munmap(w->seg, w->seg_size);
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE && w->base && !w->seg)
        free(w->base);
    free(w->peers);
    free(w->regions);
    free(w->ep.lock_kind);
    free(w->ep.lock_nocheck);
    free(w->ep.access_ranks);
    free(w->ep.exposure_ranks);
    free(w->ep.completed);
    if (w->ep.access)
        uz_group_release(w->ep.access);
    if (w->ep.exposure)
        uz_group_release(w->ep.exposure);
    if (w->info)
        uz_info_free(w->info);
    if (w->errhandler)
        uz_errhandler_release(w->errhandler);
    if (w->comm)
        uz_comm_release(w->comm);
    uz_object_free(w, sizeof(*w));
}

/* The common part of every constructor: exchange cards, make the host
 * segment, and for the allocate flavours hand out this rank's memory. */
static int win_setup(uz_win *w, void *base, MPI_Aint size, MPI_Aint disp_unit, void *baseptr, MPI_Win *out)
{
    int err;
    w->peers = calloc((size_t)w->size, sizeof(*w->peers));
    w->ep.lock_kind = calloc((size_t)w->size, sizeof(int));
    w->ep.lock_nocheck = calloc((size_t)w->size, sizeof(int));
    struct card *cards = calloc((size_t)w->size, sizeof(*cards));
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->regions = calloc(1, sizeof(*w->regions));
    if (!w->peers || !w->ep.lock_kind || !w->ep.lock_nocheck || !cards ||
        (w->flavor == MPI_WIN_FLAVOR_DYNAMIC && !w->regions)) {
        free(cards);
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a window");
        goto fail;
    }
    struct card mine = { .base = (uintptr_t)base, .size = size, .disp_unit = disp_unit,
                         .regions = (uintptr_t)w->regions, .world = uz_rt.world_rank, .node = uz_rt.node_id };
    if ((err = allgather_bytes(w->comm, &mine, cards, sizeof(mine)))) {
        free(cards);
        goto fail;
    }
    for (int r = 0; r < w->size; r++) {
        w->peers[r].base = cards[r].base;
        w->peers[r].size = cards[r].size;
        w->peers[r].disp_unit = cards[r].disp_unit;
        w->peers[r].world = cards[r].world;
        w->peers[r].node = cards[r].node;
        w->peers[r].regions = cards[r].regions;
    }
    err = host_segment(w, cards);
    free(cards);
    if (!err)
        err = uz_rma_am_open(w);
    if (err)
        goto fail;
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED) {
        base = w->peers[w->rank].local_base;
        /* Others reach it at the same address: it is this rank's mapping
         * that they read through their own (local_base), or, on another
         * host, this address. */
        w->peers[w->rank].base = (uintptr_t)base;
        if (size == 0)
            base = NULL;
        *(void **)baseptr = base;
    }
    if (w->flavor == MPI_WIN_FLAVOR_CREATE)
        w->peers[w->rank].local_base = base;
    w->base = base;
    w->win_size = size;
    w->disp_unit = disp_unit;
    *out = uz_win_handle(w);
    return MPI_SUCCESS;
fail:
    uz_rma_win_destroy(w);
    *out = MPI_WIN_NULL;
    return err;
}

static int check_size(MPI_Aint size, MPI_Aint disp_unit)
{
    if (size < 0)
        return uz_err_make(MPI_ERR_SIZE, "invalid argument: size %ld is negative", (long)size);
    if (disp_unit <= 0)
        return uz_err_make(MPI_ERR_DISP, "invalid argument: disp_unit %ld is not positive", (long)disp_unit);
    return MPI_SUCCESS;
}

static int make(int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit, uz_info *info, uz_comm *comm,
                void *baseptr, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "windows need an intracommunicator");
    int err = check_size(size, disp_unit);
    if (err)
        return err;
    uz_win *w = win_new(comm, flavor, info, &err);
    if (!w)
        return err;
    return win_setup(w, base, size, disp_unit, baseptr, win);
}

int uz_mpi_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, uz_info *info, uz_comm *comm,
                        MPI_Win *win)
{
    return make(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}

int uz_mpi_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, uz_info *info, uz_comm *comm, void *baseptr,
                          MPI_Win *win)
{
    return make(MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win);
}

int uz_mpi_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, uz_info *info, uz_comm *comm,
                                 void *baseptr, MPI_Win *win)
{
    /* Every rank must be able to load and store the others' memory: one
     * host.  Checked by comparing hosts after the exchange would leave the
     * others waiting, so it is agreed first. */
    int node = uz_rt.node_id, lo = 0, hi = 0;
    int err = uz_coll_allreduce(&node, &lo, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MIN), comm);
    if (!err)
        err = uz_coll_allreduce(&node, &hi, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), comm);
    if (err)
        return err;
    if (lo != hi) {
        *win = MPI_WIN_NULL;
        return uz_err_make(MPI_ERR_RMA_SHARED, "the communicator spans several hosts: shared memory windows "
                           "need all its ranks on one (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED)");
    }
    return make(MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr, win);
}

int uz_mpi_Win_create_dynamic(uz_info *info, uz_comm *comm, MPI_Win *win)
{
    return make(MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL, win);
}

/* Any flavour (MPI-4.1 §12.2.3): the memory of `rank` where this rank can
 * load and store it (the host segment of the allocate flavours, its own
 * memory), else size 0 and NULL. */
int uz_mpi_Win_shared_query_c(uz_win *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory (answered below as any rank is:
         * size 0 where we cannot reach it). */
        for (int r = 0; r < win->size; r++) {
            if (win->peers[r].size > 0) {
                rank = r;
                break;
            }
        }
        if (rank == MPI_PROC_NULL) {
            *size = 0;
            *disp_unit = win->peers[0].disp_unit;
            *(void **)baseptr = NULL;
            return MPI_SUCCESS;
        }
    }
    if (rank < 0 || rank >= win->size)
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d (the window has %d)", rank, win->size);
    const struct uz_rma_peer *p = &win->peers[rank];
    int reachable = p->local_base && p->size > 0 && win->flavor != MPI_WIN_FLAVOR_DYNAMIC;
    *size = reachable ? p->size : 0;
    *disp_unit = p->disp_unit;
    *(void **)baseptr = reachable ? p->local_base : NULL;
    return MPI_SUCCESS;
}

int uz_mpi_Win_free(MPI_Win *win)
{
    uz_win *w = uz_win_get(*win);
    if (!w)
        return uz_err_make(MPI_ERR_WIN, "invalid window (argument win)");
    if (w->ep.lock_all || w->ep.nlocks || w->ep.access || w->ep.exposure)
        return uz_err_make(MPI_ERR_RMA_SYNC, "the window is still in an epoch (lock, start or post)");
    /* The others may still be reading or writing our memory: wait for all. */
    int err = uz_coll_barrier(w->comm);
    if (err)
        return err;
    if ((err = uz_attr_delete_all(UZ_ATTR_WIN, *win, &w->attrs)))
        return err;
    uz_rma_win_destroy(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ dynamic windows */

int uz_mpi_Win_attach(uz_win *win, void *base, MPI_Aint size)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return uz_err_make(MPI_ERR_RMA_FLAVOR, "only windows made by MPI_Win_create_dynamic take attach");
    if (size < 0)
        return uz_err_make(MPI_ERR_SIZE, "invalid argument: size %ld is negative", (long)size);
    struct uz_rma_regions *g = win->regions;
    unsigned n = atomic_load_explicit(&g->count, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t b = g->r[i].base, e = b + (uintptr_t)g->r[i].size;
        if ((uintptr_t)base < e && (uintptr_t)base + (uintptr_t)size > b)
            return uz_err_make(MPI_ERR_RMA_ATTACH, "memory at %p overlaps a region attached before", base);
    }
    if (n == UZ_RMA_MAX_REGIONS)
        return uz_err_make(MPI_ERR_RMA_ATTACH, "a window takes at most %d attached regions", UZ_RMA_MAX_REGIONS);
    g->r[n].base = (uintptr_t)base;
    g->r[n].size = size;
    atomic_store_explicit(&g->count, n + 1, memory_order_release);
    return MPI_SUCCESS;
}

int uz_mpi_Win_detach(uz_win *win, const void *base)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return uz_err_make(MPI_ERR_RMA_FLAVOR, "only windows made by MPI_Win_create_dynamic take detach");
    struct uz_rma_regions *g = win->regions;
    unsigned n = atomic_load_explicit(&g->count, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++) {
        if (g->r[i].base == (uintptr_t)base) {
            g->r[i] = g->r[n - 1];
            atomic_store_explicit(&g->count, n - 1, memory_order_release);
            return MPI_SUCCESS;
        }
    }
    return uz_err_make(MPI_ERR_RMA_ATTACH, "no region attached at %p", base);
}
