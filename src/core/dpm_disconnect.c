/*
 * dpm_disconnect.c — MPI_Comm_disconnect: wait until the communicator's
 * traffic is done, free it, and close the connections to the processes
 * of other jobs in it.
 *
 * First the user's pending nonblocking sends, receives and collectives on
 * it complete
 * (MPI 4.1 section 11.10.4: disconnect "waits for all pending
 * communication on comm to complete internally"; p2p_send_recv.c counts
 * them per communicator).  Then a barrier over the communicator (both
 * groups of an intercommunicator): records between two processes arrive
 * in order, so once a member has the barrier's messages from everyone it
 * has everything they sent it before.  Then each connection to a process of another job is
 * closed by both ends (pt2pt/proc_table.h, the transport's close_peer);
 * the process keeps its number, and a communicator that still names it
 * (one merged from this one and not disconnected) opens a new connection
 * on its next send.  Closing waits at most UZURA_PORT_TIMEOUT for the
 * other side, so a peer that died in between cannot hang it.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "core/dpm.h"
#include "pt2pt/proc_table.h"
#include "pt2pt/pt2pt.h"

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The processes of other jobs among `g`'s members, appended to list. */
static int collect(const uz_group *g, int *list, int n)
{
    for (int i = 0; i < g->size; i++) {
        int w = uz_group_world_rank(g, i);
        if (!uz_proc_is_own(w))
            list[n++] = w;
    }
    return n;
}

static int no_pending(void *arg)
{
    return !uz_request_pending_on(arg);
}

/* Every send and receive on `c` completes: the user's nonblocking ones,
 * started persistent ones, those of nonblocking collectives and buffered
 * sends (a peer receiving one after we entered here is served by our
 * progress meanwhile).  Found by looking at every request rather than
 * counted as they start, which would cost each Isend and Irecv. */
static void complete_pending(uz_comm *c)
{
    uz_lock();
    if (uz_request_pending_on(c))
        uz_progress_wait(no_pending, c);
    uz_unlock();
}

static void close_all(const int *procs, int n)
{
    double s = uz_config.port_timeout > 0 ? uz_config.port_timeout : 60;
    long deadline = now_ns() + (long)(s * 1e9);
    for (int i = 0; i < n; i++) {
        int r;
        uz_lock();
        while ((r = uz_proc_close(procs[i])) == -EAGAIN && now_ns() < deadline)
            uz_progress();
        uz_unlock();
    }
}

int uz_mpi_Comm_disconnect(MPI_Comm *comm)
{
    uz_comm *c = uz_comm_get(*comm);
    if (!c)
        return uz_err_make(MPI_ERR_COMM, "invalid communicator (argument comm)");
    if (c == &uz_comm_world || c == &uz_comm_self)
        return uz_err_make(MPI_ERR_COMM, "cannot disconnect the predefined "
                           "communicator %s", c->name);
    complete_pending(c);
    int err = uz_coll_barrier(c);
    if (err)
        return err;
    int *procs = malloc(sizeof(int) * (size_t)(c->size + c->remote_size));
    int n = 0;
    if (procs) {
        n = collect(c->local_group, procs, 0);
        if (c->is_inter)
            n = collect(c->remote_group, procs, n);
    }
    if ((err = uz_comm_delete_attrs(c))) {
        free(procs);
        return err;
    }
    *comm = MPI_COMM_NULL;
    uz_dpm_forget(c);
    uz_comm_release(c);
    close_all(procs, n);
    free(procs);
    return MPI_SUCCESS;
}
