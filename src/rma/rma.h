/*
 * rma.h — windows and what the one-sided files share: the window object,
 * how each rank of a window is reached, and the epoch state.
 *
 * docs/one-sided.md is the design.  In short: on one host the origin moves
 * the bytes itself (UZURA's PUSH and PULL, DIMMnet-1's remote DMA): memory
 * from MPI_Win_allocate and MPI_Win_allocate_shared lives in a segment every
 * rank of the host maps, so a put is a memcpy into it; memory the user
 * brings (MPI_Win_create, attach) is reached by cross-memory attach through
 * the request layer's one-copy put/get (uz_path_put/get).  The target's
 * datatype is interpreted by whoever moves the bytes: the origin on one
 * host flattens it into runs of the target's memory.  Synchronisation that
 * must not need the target's CPU (locks, accumulate atomicity) lives in a
 * control block in the same host segment.
 */
#ifndef UZ_RMA_RMA_H
#define UZ_RMA_RMA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/object.h"
#include "core/comm.h"
#include "core/errhandler.h"
#include "core/group.h"
#include "datatype/datatype.h"

struct uz_attr_list;
struct MPI_ABI_Info;
struct uz_rma_am;

/* What one rank of a host keeps in the host segment's control block, one
 * cache line each so that ranks spinning on their neighbours' words do not
 * share lines. */
struct uz_rma_ctrl {
    /* Passive target: UZ_RMA_LOCK_EXCL, or the number of shared holders. */
    atomic_int lock;
    /* Accumulate atomicity: held while any origin combines into this
     * rank's memory (the standard's element-wise atomicity, kept per
     * target, which is stronger). */
    atomic_int acc_lock;
    /* Post/start/complete/wait: posts this rank received (as an origin)
     * and completes it received (as a target), counted since creation. */
    atomic_uint posts_seen;
    atomic_uint completes_seen;
    char pad[64 - 4 * sizeof(int)];
};

enum { UZ_RMA_LOCK_EXCL = 1 << 30 };

/* One rank of the window as the others see it (exchanged at creation). */
struct uz_rma_peer {
    uintptr_t base;             /* its memory in its own address space (0 for dynamic) */
    MPI_Aint size;
    MPI_Aint disp_unit;
    uintptr_t regions;          /* dynamic windows: where it keeps its struct uz_rma_regions */
    int world;                  /* world rank */
    int node;                   /* host */
    /* On this host: its memory as mapped here (allocate flavours, and
     * this rank's own memory; NULL for memory reached by cross-memory
     * attach or messages) and its control block. */
    char *local_base;
    struct uz_rma_ctrl *ctrl;
    /* Reached by messages (rma_am.h): on another host, or user memory
     * here without cross-memory attach. */
    uint8_t am;
};

/* The regions attached to a dynamic window, kept by their owner at an
 * address it publishes at creation: origins on its host read the list
 * through cross-memory attach to check a target range before touching it. */
struct uz_rma_region {
    uintptr_t base;
    MPI_Aint size;
};
enum { UZ_RMA_MAX_REGIONS = 256 };
struct uz_rma_regions {
    atomic_uint count;
    struct uz_rma_region r[UZ_RMA_MAX_REGIONS];
};

/* The window's epochs as this rank sees them. */
struct uz_rma_epoch {
    uint8_t fence;              /* between two fences (ops allowed to any rank) */
    uint8_t lock_all;           /* inside lock_all */
    int nlocks;                 /* targets locked one by one */
    int *lock_kind;             /* per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    int *lock_nocheck;          /* per target: locked with MPI_MODE_NOCHECK */
    uz_group *access;           /* Win_start's group, or NULL */
    int *access_ranks;          /* its members as window ranks */
    uz_group *exposure;         /* Win_post's group, or NULL */
    unsigned completes_expected;
    unsigned posts_expected;
    int *exposure_ranks;        /* Win_post's group as window ranks */
    uint8_t *completed;         /* per exposure member reached by messages: its complete taken */
};

typedef struct MPI_ABI_Win {
    struct uz_object obj;
    uz_comm *comm;              /* private duplicate: barriers and messages */
    int rank, size;
    int flavor;                 /* MPI_WIN_FLAVOR_* */
    void *base;                 /* this rank's memory */
    MPI_Aint win_size;
    MPI_Aint disp_unit;
    int attr_disp_unit;         /* what MPI_WIN_DISP_UNIT points at */
    struct uz_rma_peer *peers;  /* by window rank */
    /* The host segment (allocate flavours and the control block). */
    void *seg;
    size_t seg_size;
    /* Dynamic windows: this rank's attached regions. */
    struct uz_rma_regions *regions;
    /* Info the window was made with. */
    uint8_t no_locks;
    uint8_t shared_noncontig;
    struct MPI_ABI_Info *info;
    struct uz_rma_epoch ep;
    struct uz_rma_am *am;       /* serving and sending requests as messages, or NULL */
    /* The last (operation, predefined datatype) of an accumulate or
     * fetch-and-op on mapped memory, its kernel and the kernel's element
     * size (1 for the bytewise kernels). */
    const void *acc_op, *acc_dt;
    void (*acc_kern)(const void *in, void *inout, size_t n);
    size_t acc_esz;
    uz_errhandler *errhandler;
    struct uz_attr_list *attrs;
    char name[MPI_MAX_OBJECT_NAME];
} uz_win;

/* A window handle is the object (no predefined windows but MPI_WIN_NULL). */
static inline uz_win *uz_win_get(MPI_Win h)
{
    if (uz_handle_is_predefined(h))
        return NULL;
    return uz_object_check(h, UZ_MAGIC_WIN);
}

static inline MPI_Win uz_win_handle(uz_win *w)
{
    return (MPI_Win)w;
}

/* Is window rank r on this host (reachable by loads, stores or cross-memory
 * attach without its help)? */
static inline int uz_rma_is_local(const uz_win *w, int r)
{
    return w->peers[r].ctrl != NULL;
}

/* Window creation (win_create.c) tears down through this. */
void uz_rma_win_destroy(uz_win *w);

/* Epoch checks (win_sync.c): may this rank access `target` now?
 * MPI_SUCCESS or MPI_ERR_RMA_SYNC naming `fn`; the common answers in line
 * first. */
int uz_rma_check_access(uz_win *w, int target, const char *fn);
static inline int uz_rma_may_access(const uz_win *w, int target)
{
    return w->ep.fence | w->ep.lock_all | (w->ep.lock_kind[target] != 0);
}

/* Accumulate atomicity: take and give back a target's accumulate lock.
 * Uncontended it is one compare-and-swap in line; the wait (win_sync.c)
 * spins and yields. */
void uz_rma_acc_lock_wait(uz_win *w, int target);
static inline void uz_rma_acc_lock(uz_win *w, int target)
{
    int expect = 0;
    if (UZ_LIKELY(atomic_compare_exchange_strong_explicit(&w->peers[target].ctrl->acc_lock, &expect, 1,
                                                          memory_order_acquire, memory_order_relaxed)))
        return;
    uz_rma_acc_lock_wait(w, target);
}

static inline void uz_rma_acc_unlock(uz_win *w, int target)
{
    atomic_store_explicit(&w->peers[target].ctrl->acc_lock, 0, memory_order_release);
}

/* Spin politely: poll, then yield (more ranks than cores is the rule here). */
void uz_rma_relax(unsigned *spins);

#endif /* UZ_RMA_RMA_H */
