/*
 * probe.c — finding a matching message in the unexpected queue without
 * receiving it, waiting for one if asked: the request layer's part of
 * MPI_Probe and the matched probes (core/p2p_probe.c).
 */
#include "pt2pt/match.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/status.h"

struct probe_wait {
    uint32_t context_id;
    int source, tag;
    struct uz_unexpected *found;
};

static int probe_found(void *arg)
{
    struct probe_wait *w = arg;
    w->found = uz_unexpected_find(w->context_id, w->source, w->tag);
    return w->found != NULL;
}

static void status_of(const struct uz_unexpected *u, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = u->src;
    status->MPI_TAG = u->tag;
    uz_status_set_bytes(status, (MPI_Count)u->size);
    uz_status_set_cancelled(status, 0);
}

int uz_pt2pt_probe(int source, int tag, uint32_t context_id, int blocking, int *flag,
                   MPI_Status *status, int take, struct uz_unexpected **msg)
{
    struct probe_wait w = { context_id, source, tag, NULL };
    if (!probe_found(&w)) {
        if (blocking)
            uz_progress_wait(probe_found, &w);
        else if (uz_progress())
            probe_found(&w);
    }
    *flag = w.found != NULL;
    if (!w.found)
        return MPI_SUCCESS;
    status_of(w.found, status);
    if (take) {
        uz_unexpected_dequeue(w.found);
        *msg = w.found;
    }
    return MPI_SUCCESS;
}
