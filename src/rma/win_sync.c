/*
 * win_sync.c — the synchronisation calls: fence, post/start/complete/wait,
 * lock/unlock (one target or all), flush and sync, and the epoch check
 * every operation makes.
 *
 * On one host operations are finished when the call that issued them
 * returns (the origin moved the bytes itself), so completing an epoch is
 * only ordering: a full memory barrier, plus whatever the other side must
 * learn.  Fence is a barrier.  Post and complete bump counters in the
 * other side's control block, which start and wait watch; the counts are
 * cumulative, so an early post for the next epoch is simply counted.
 * Locks are a word in the target's control block, taken by the origin
 * with atomic operations: the target never has to call MPI for a lock to
 * be granted.
 */
#include <sched.h>
#include <stdlib.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "pt2pt/pt2pt.h"
#include "rma/rma.h"
#include "rma/rma_am.h"

void uz_rma_relax(unsigned *spins)
{
    /* Requests from origins that reach us by messages may be what the
     * others wait for before they let go of what we wait for. */
    uz_lock();
    uz_progress();
    uz_unlock();
    /* More ranks than cores is the rule here: whoever we wait for needs
     * our core, so yield early. */
    if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield();
    }
}

static inline void full_barrier(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

static int in_access_group(const uz_win *w, int target)
{
    if (!w->ep.access)
        return 0;
    for (int i = 0; i < w->ep.access->size; i++)
        if (w->ep.access_ranks[i] == target)
            return 1;
    return 0;
}

int uz_rma_check_access(uz_win *w, int target, const char *fn)
{
    if (UZ_LIKELY(w->ep.fence || w->ep.lock_all || w->ep.lock_kind[target]) || in_access_group(w, target))
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_RMA_SYNC, "no access epoch to window rank %d is open (start one with "
                       "MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all)", target);
}

/* ------------------------------------------------------- accumulate lock */

/* Holders only combine (no waiting inside), so waiters spin and yield
 * without driving progress: this runs inside the progress engine too,
 * when the target serves a request. */
void uz_rma_acc_lock_wait(uz_win *w, int target)
{
    atomic_int *l = &w->peers[target].ctrl->acc_lock;
    unsigned spins = 0;
    for (;;) {
        int expect = 0;
        if (atomic_compare_exchange_weak_explicit(l, &expect, 1, memory_order_acquire, memory_order_relaxed))
            return;
        while (atomic_load_explicit(l, memory_order_relaxed)) {
            if (++spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else {
                sched_yield();
            }
        }
    }
}

/* ----------------------------------------------------------------- fence */

int uz_mpi_Win_fence(int assert, uz_win *win)
{
    if (win->ep.lock_all || win->ep.nlocks || win->ep.access || win->ep.exposure)
        return uz_err_make(MPI_ERR_RMA_SYNC, "a lock, start or post epoch is open on the window");
    /* What went by messages must have landed before the barrier. */
    int err = uz_rma_am_flush(win, -1);
    full_barrier();
    /* With MPI_MODE_NOPRECEDE nothing was issued before and with
     * MPI_MODE_NOSTORE|NOPUT nobody changed memory; the barrier still
     * separates the epochs that follow, unless both sides promise there
     * are none (NOSUCCEED after NOPRECEDE). */
    if (!((assert & MPI_MODE_NOPRECEDE) && (assert & MPI_MODE_NOSUCCEED))) {
        int e = uz_coll_barrier(win->comm);
        if (!err)
            err = e;
    }
    full_barrier();
    win->ep.fence = !(assert & MPI_MODE_NOSUCCEED);
    return err;
}

/* ------------------------------------------------- post/start/complete/wait */

/* The window ranks of a group's members; NULL with *err on a stranger. */
static int *group_ranks(uz_win *w, uz_group *g, int *err)
{
    int *r = malloc(sizeof(int) * (size_t)(g->size ? g->size : 1));
    if (!r) {
        *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < g->size; i++) {
        r[i] = uz_group_rank_of_world(w->comm->local_group, uz_group_world_rank(g, i));
        if (r[i] < 0) {
            free(r);
            *err = uz_err_make(MPI_ERR_GROUP, "member %d of the group is not in the window", i);
            return NULL;
        }
    }
    return r;
}

int uz_mpi_Win_post(uz_group *group, int assert, uz_win *win)
{
    if (win->ep.exposure)
        return uz_err_make(MPI_ERR_RMA_SYNC, "an exposure epoch (MPI_Win_post) is already open");
    int err = MPI_SUCCESS;
    int *ranks = group_ranks(win, group, &err);
    if (!ranks)
        return err;
    uint8_t *completed = calloc((size_t)(group->size ? group->size : 1), 1);
    if (!completed) {
        free(ranks);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    }
    full_barrier();
    for (int i = 0; i < group->size && !err; i++) {
        if (win->peers[ranks[i]].am) {
            err = uz_rma_am_post(win, ranks[i]);
        } else {
            atomic_fetch_add_explicit(&win->peers[ranks[i]].ctrl->posts_seen, 1, memory_order_release);
            win->ep.completes_expected++;
            completed[i] = 1;   /* counted in our control block instead */
        }
    }
    if (err) {
        free(ranks);
        free(completed);
        return err;
    }
    uz_group_retain(group);
    win->ep.exposure = group;
    free(win->ep.exposure_ranks);
    free(win->ep.completed);
    win->ep.exposure_ranks = ranks;
    win->ep.completed = completed;
    return MPI_SUCCESS;
}

int uz_mpi_Win_start(uz_group *group, int assert, uz_win *win)
{
    if (win->ep.access)
        return uz_err_make(MPI_ERR_RMA_SYNC, "an access epoch (MPI_Win_start) is already open");
    int err = MPI_SUCCESS;
    int *ranks = group_ranks(win, group, &err);
    if (!ranks)
        return err;
    for (int i = 0; i < group->size; i++)
        if (!win->peers[ranks[i]].am)
            win->ep.posts_expected++;
    /* Every target of the group must have posted.  With MPI_MODE_NOCHECK
     * the program promises it has; the count (or message) is still taken. */
    for (int i = 0; i < group->size && !err; i++)
        if (win->peers[ranks[i]].am)
            err = uz_rma_am_await_post(win, ranks[i]);
    if (err) {
        free(ranks);
        return err;
    }
    if (!(assert & MPI_MODE_NOCHECK)) {
        atomic_uint *seen = &win->peers[win->rank].ctrl->posts_seen;
        unsigned spins = 0;
        while ((int)(atomic_load_explicit(seen, memory_order_acquire) - win->ep.posts_expected) < 0)
            uz_rma_relax(&spins);
    }
    full_barrier();
    uz_group_retain(group);
    win->ep.access = group;
    free(win->ep.access_ranks);
    win->ep.access_ranks = ranks;
    return MPI_SUCCESS;
}

int uz_mpi_Win_complete(uz_win *win)
{
    if (!win->ep.access)
        return uz_err_make(MPI_ERR_RMA_SYNC, "no access epoch (MPI_Win_start) is open");
    full_barrier();
    int err = MPI_SUCCESS;
    for (int i = 0; i < win->ep.access->size; i++) {
        int r = win->ep.access_ranks[i], e = MPI_SUCCESS;
        if (win->peers[r].am)
            e = uz_rma_am_complete(win, r);
        else
            atomic_fetch_add_explicit(&win->peers[r].ctrl->completes_seen, 1, memory_order_release);
        if (!err)
            err = e;
    }
    uz_group_release(win->ep.access);
    win->ep.access = NULL;
    return err;
}

/* Have all origins completed?  Those reached by messages are taken one
 * by one (blocking, or only if there). */
static int exposure_done(uz_win *win, int blocking, int *err)
{
    *err = MPI_SUCCESS;
    for (int i = 0; i < win->ep.exposure->size; i++) {
        if (win->ep.completed[i])
            continue;
        int taken = 0;
        *err = uz_rma_am_await_complete(win, win->ep.exposure_ranks[i], blocking, &taken);
        if (*err)
            return 1;
        win->ep.completed[i] = (uint8_t)taken;
        if (!taken)
            return 0;
    }
    atomic_uint *seen = &win->peers[win->rank].ctrl->completes_seen;
    return (int)(atomic_load_explicit(seen, memory_order_acquire) - win->ep.completes_expected) >= 0;
}

static void exposure_end(uz_win *win)
{
    full_barrier();
    uz_group_release(win->ep.exposure);
    win->ep.exposure = NULL;
}

int uz_mpi_Win_wait(uz_win *win)
{
    if (!win->ep.exposure)
        return uz_err_make(MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
    unsigned spins = 0;
    int err;
    while (!exposure_done(win, 1, &err))
        uz_rma_relax(&spins);
    exposure_end(win);
    return err;
}

int uz_mpi_Win_test(uz_win *win, int *flag)
{
    if (!win->ep.exposure)
        return uz_err_make(MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
    int err;
    *flag = exposure_done(win, 0, &err);
    if (*flag)
        exposure_end(win);
    else
        sched_yield();
    return err;
}

/* ------------------------------------------------------------------ locks */

static void lock_take(uz_win *w, int target, int lock_type)
{
    atomic_int *l = &w->peers[target].ctrl->lock;
    unsigned spins = 0;
    if (lock_type == MPI_LOCK_EXCLUSIVE) {
        for (;;) {
            int expect = 0;
            if (atomic_compare_exchange_weak_explicit(l, &expect, UZ_RMA_LOCK_EXCL, memory_order_acquire,
                                                      memory_order_relaxed))
                return;
            uz_rma_relax(&spins);
        }
    }
    for (;;) {
        int v = atomic_fetch_add_explicit(l, 1, memory_order_acquire);
        if (!(v & UZ_RMA_LOCK_EXCL))
            return;
        atomic_fetch_sub_explicit(l, 1, memory_order_relaxed);
        while (atomic_load_explicit(l, memory_order_relaxed) & UZ_RMA_LOCK_EXCL)
            uz_rma_relax(&spins);
    }
}

static void lock_give(uz_win *w, int target, int lock_type)
{
    atomic_int *l = &w->peers[target].ctrl->lock;
    if (lock_type == MPI_LOCK_EXCLUSIVE)
        atomic_store_explicit(l, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(l, 1, memory_order_release);
}

static int check_lockable(uz_win *win, const char *fn)
{
    if (win->no_locks)
        return uz_err_make(MPI_ERR_RMA_SYNC, "the window was made with the info key no_locks=true");
    return MPI_SUCCESS;
}

int uz_mpi_Win_lock(int lock_type, int rank, int assert, uz_win *win)
{
    int err = check_lockable(win, "MPI_Win_lock");
    if (err)
        return err;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return uz_err_make(MPI_ERR_LOCKTYPE, "invalid lock_type %d", lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->size)
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d (the window has %d)", rank, win->size);
    if (win->ep.lock_all || win->ep.lock_kind[rank])
        return uz_err_make(MPI_ERR_RMA_SYNC, "window rank %d is already locked by this rank", rank);
    if (!(assert & MPI_MODE_NOCHECK)) {
        if (win->peers[rank].am)
            err = uz_rma_am_lock(win, rank, lock_type);
        else
            lock_take(win, rank, lock_type);
        if (err)
            return err;
    }
    win->ep.lock_kind[rank] = lock_type;
    win->ep.lock_nocheck[rank] = !!(assert & MPI_MODE_NOCHECK);
    win->ep.nlocks++;
    return MPI_SUCCESS;
}

int uz_mpi_Win_unlock(int rank, uz_win *win)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->size)
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d (the window has %d)", rank, win->size);
    if (!win->ep.lock_kind[rank])
        return uz_err_make(MPI_ERR_RMA_SYNC, "window rank %d is not locked by this rank", rank);
    full_barrier();
    int err = MPI_SUCCESS;
    if (win->peers[rank].am)
        err = win->ep.lock_nocheck[rank] ? uz_rma_am_flush(win, rank)
                                         : uz_rma_am_unlock(win, rank, win->ep.lock_kind[rank]);
    else if (!win->ep.lock_nocheck[rank])
        lock_give(win, rank, win->ep.lock_kind[rank]);
    win->ep.lock_kind[rank] = 0;
    win->ep.nlocks--;
    return err;
}

int uz_mpi_Win_lock_all(int assert, uz_win *win)
{
    int err = check_lockable(win, "MPI_Win_lock_all");
    if (err)
        return err;
    if (win->ep.lock_all || win->ep.nlocks)
        return uz_err_make(MPI_ERR_RMA_SYNC, "the window is already locked by this rank");
    if (!(assert & MPI_MODE_NOCHECK)) {
        for (int r = 0; r < win->size && !err; r++) {
            if (win->peers[r].am)
                err = uz_rma_am_lock(win, r, MPI_LOCK_SHARED);
            else
                lock_take(win, r, MPI_LOCK_SHARED);
        }
    }
    win->ep.lock_all = (assert & MPI_MODE_NOCHECK) ? 2 : 1;
    return err;
}

int uz_mpi_Win_unlock_all(uz_win *win)
{
    if (!win->ep.lock_all)
        return uz_err_make(MPI_ERR_RMA_SYNC, "the window is not locked by MPI_Win_lock_all");
    full_barrier();
    int err = MPI_SUCCESS;
    for (int r = 0; r < win->size; r++) {
        int e = MPI_SUCCESS;
        if (win->peers[r].am)
            e = win->ep.lock_all == 1 ? uz_rma_am_unlock(win, r, MPI_LOCK_SHARED) : uz_rma_am_flush(win, r);
        else if (win->ep.lock_all == 1)
            lock_give(win, r, MPI_LOCK_SHARED);
        if (!err)
            err = e;
    }
    win->ep.lock_all = 0;
    return err;
}

/* ------------------------------------------------------ flush and sync */

static int passive_flush(uz_win *win, int rank, const char *fn)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= win->size))
        return uz_err_make(MPI_ERR_RANK, "invalid rank %d (the window has %d)", rank, win->size);
    if (!win->ep.lock_all && (rank == MPI_PROC_NULL ? !win->ep.nlocks : !win->ep.lock_kind[rank]))
        return uz_err_make(MPI_ERR_RMA_SYNC, "no passive target epoch (lock) is open%s",
                           rank == MPI_PROC_NULL ? "" : " to that rank");
    /* What the origin moved itself is already in the target's memory. */
    full_barrier();
    return MPI_SUCCESS;
}

int uz_mpi_Win_flush(int rank, uz_win *win)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = passive_flush(win, rank, "MPI_Win_flush");
    return err ? err : uz_rma_am_flush(win, rank);
}

int uz_mpi_Win_flush_local(int rank, uz_win *win)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = passive_flush(win, rank, "MPI_Win_flush_local");
    return err ? err : uz_rma_am_flush_local(win);
}

int uz_mpi_Win_flush_all(uz_win *win)
{
    int err = passive_flush(win, MPI_PROC_NULL, "MPI_Win_flush_all");
    return err ? err : uz_rma_am_flush(win, -1);
}

int uz_mpi_Win_flush_local_all(uz_win *win)
{
    int err = passive_flush(win, MPI_PROC_NULL, "MPI_Win_flush_local_all");
    return err ? err : uz_rma_am_flush_local(win);
}

int uz_mpi_Win_sync(uz_win *win)
{
    full_barrier();
    /* Programs poll memory with MPI_Win_sync in a loop: serve requests
     * from ranks reached by messages meanwhile. */
    return uz_rma_am_flush_local(win);
}
