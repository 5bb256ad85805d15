/*
 * direct.h — a blocking collective's few messages started at once, with
 * no schedule: what an immediate schedule (sched.h) does for a linear
 * algorithm, without the schedule's bookkeeping around each message.
 *
 * The caller takes the call's tag (uz_coll_direct_begin, after its
 * argument checks, so that a refused call takes no number, as a schedule's
 * does), starts its messages and local copies in the order the schedule
 * would, and waits for whatever is still in flight at the end; a failure
 * is kept and the remaining messages still go, as a schedule's steps do.
 * Waiting is the collectives' (coll_wait.h): it yields to a rank sharing
 * the core.
 */
#ifndef UZ_COLL_DIRECT_H
#define UZ_COLL_DIRECT_H

#include "coll/sched.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"

struct uz_coll_direct {
    uz_comm *comm;
    int tag;
    int err;                    /* the first failure */
    int n;                      /* messages still in flight */
    uz_request **inflight;      /* the caller's room: one entry per message it starts */
};

static inline void uz_coll_direct_begin(struct uz_coll_direct *d, uz_comm *comm, uz_request **room)
{
    *d = (struct uz_coll_direct){ .comm = comm, .tag = uz_coll_next_tag(comm), .inflight = room };
}

static inline void uz_coll_direct_started(struct uz_coll_direct *d, int err, uz_request *req)
{
    if (UZ_UNLIKELY(err)) {
        if (!d->err)
            d->err = err;
    } else if (req) {
        d->inflight[d->n++] = req;
    }
}

static inline void uz_coll_direct_send(struct uz_coll_direct *d, const void *buf, MPI_Count count, uz_datatype *dt,
                                       int peer)
{
    uz_request *req = NULL;
    int err = uz_pt2pt_send_quick(buf, count, dt, peer, d->tag, &d->comm->p2p_coll, UZ_SEND_STANDARD, &req);
    uz_coll_direct_started(d, err, req);
}

static inline void uz_coll_direct_recv(struct uz_coll_direct *d, void *buf, MPI_Count count, uz_datatype *dt,
                                       int peer)
{
    uz_request *req = NULL;
    int err = uz_pt2pt_recv_quick(buf, count, dt, peer, d->tag, &d->comm->p2p_coll, MPI_STATUS_IGNORE, &req);
    uz_coll_direct_started(d, err, req);
}

/* Wait for the messages still in flight; the call's error (the first). */
int uz_coll_direct_end(struct uz_coll_direct *d);

/* Of the n requests in r, release the complete ones (noting the first
 * error in *err when it holds none yet) and keep the others at the front;
 * returns how many are kept.  Shared with the schedule's own messages. */
int uz_coll_requests_settle(uz_request **r, int n, int *err);

#endif /* UZ_COLL_DIRECT_H */
