/*
 * direct.c — waiting for a blocking collective's directly started
 * messages (direct.h), and retiring completed ones, which the schedule's
 * immediate mode shares.
 */
#include "coll/coll_wait.h"
#include "coll/direct.h"

int uz_coll_requests_settle(uz_request **r, int n, int *err)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        uz_request *q = r[i];
        if (!uz_request_is_complete(q)) {
            r[kept++] = q;
            continue;
        }
        if (q->status.MPI_ERROR && !*err)
            *err = q->status.MPI_ERROR;
        uz_request_release(q);
    }
    return kept;
}

static int direct_settled(void *arg)
{
    struct uz_coll_direct *d = arg;
    d->n = uz_coll_requests_settle(d->inflight, d->n, &d->err);
    return d->n == 0;
}

int uz_coll_direct_end(struct uz_coll_direct *d)
{
    if (d->n && !direct_settled(d))
        uz_coll_wait(direct_settled, d, NULL);
    return d->err;
}
