/*
 * peer_failure.c — what happens when a transport finds a peer dead: every
 * operation that can no longer finish — queued sends to it, sends waiting
 * for its answer, receives naming it as the source — completes with the
 * error, so that MPI_Wait returns (and, under MPI_ERRORS_ARE_FATAL, the
 * job ends cleanly) instead of hanging.
 */
#include "base/errors.h"
#include "base/tool_events.h"
#include "pt2pt/cookie.h"
#include "pt2pt/match.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/send.h"

struct dead {
    int world;
};

static int not_from_dead(uz_request *r, void *arg)
{
    const struct dead *d = arg;
    if (r->peer == MPI_ANY_SOURCE)
        return 1;
    return r->peer_world != d->world;
}

static int failure_code;

static void fail_request(uz_request *r)
{
    r->status.MPI_SOURCE = r->peer;
    r->status.MPI_TAG = r->tag;
    r->status.MPI_ERROR = failure_code;
    uz_request_complete(r);
}

void uz_pt2pt_peer_failed(int world, int error)
{
    struct uz_peer *p = &uz_peers[world];
    if (p->failed)
        return;
    p->failed = error ? error : uz_err_make(MPI_ERR_PROC_ABORTED, "rank %d is gone", world);
    failure_code = p->failed;
    uz_tool_event(UZ_TOOL_EVENT_PEER_DEAD, world, uz_err_class(p->failed), 0, 0);
    /* Sends still queued to it. */
    while (p->sendq_head) {
        uz_request *r = p->sendq_head;
        p->sendq_head = r->next;
        r->next = NULL;
        if (r->phase == UZ_SEND_CONTROL) {
            uz_request_release(r);
            continue;
        }
        fail_request(r);
    }
    p->sendq_tail = NULL;
    /* A receive matched to its record whose payload will not come. */
    if (p->rx_matched) {
        uz_request *r = p->rx_matched;
        p->rx_matched = NULL;
        fail_request(r);
    }
    /* Receives that can only be satisfied by it. */
    struct dead d = { world };
    uz_posted_filter(not_from_dead, &d, fail_request);
    /* Sends that wait for its answer (ACK, CTS, bulk) are found through
     * their cookies when the peer's records would have arrived; they fail
     * here by scanning what is still incomplete. */
    uz_cookie_fail_peer(world, failure_code);
}
