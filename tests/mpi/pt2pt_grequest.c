/*
 * pt2pt_grequest.c — generalized requests: MPI_Grequest_start/complete with
 * every completion call, the three callbacks (when and how often they run,
 * and their errors reaching the caller), and a request completed by
 * another thread while the main one waits.
 */
#include <pthread.h>

#include "uztest.h"

struct ctx {
    int queries, frees, cancels, last_complete;
    int query_err, free_err;
};

static int query(void *extra, MPI_Status *status)
{
    struct ctx *c = extra;
    c->queries++;
    MPI_Status_set_source(status, 3);
    MPI_Status_set_tag(status, 7);
    MPI_Status_set_elements(status, MPI_BYTE, 5);
    MPI_Status_set_cancelled(status, 0);
    return c->query_err;
}

static int release(void *extra)
{
    struct ctx *c = extra;
    c->frees++;
    return c->free_err;
}

static int cancel(void *extra, int complete)
{
    struct ctx *c = extra;
    c->cancels++;
    c->last_complete = complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, flag;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    struct ctx c = { 0 };
    MPI_Request req;
    MPI_Status st;

    /* Not complete until the program says so; cancel sees the state. */
    CHECK_MPI(MPI_Grequest_start(query, release, cancel, &c, &req));
    CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK(!flag && c.queries == 0, "incomplete generalized request tested complete");
    CHECK_MPI(MPI_Cancel(&req));
    CHECK(c.cancels == 1 && c.last_complete == 0, "cancel_fn before completion");
    CHECK_MPI(MPI_Grequest_complete(req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK(c.cancels == 2 && c.last_complete == 1, "cancel_fn after completion");
    CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    CHECK(flag && c.queries == 1 && c.frees == 0, "get_status: queries %d frees %d", c.queries, c.frees);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 7, "status from query_fn: %d/%d", st.MPI_SOURCE,
          st.MPI_TAG);
    CHECK_MPI(MPI_Wait(&req, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(req == MPI_REQUEST_NULL && c.queries == 2 && c.frees == 1 && count == 5,
          "wait: queries %d frees %d count %d", c.queries, c.frees, count);

    /* Errors of query_fn and free_fn come back from the completion call. */
    struct ctx bad = { .query_err = MPI_ERR_BUFFER };
    CHECK_MPI(MPI_Grequest_start(query, release, cancel, &bad, &req));
    CHECK_MPI(MPI_Grequest_complete(req));
    CHECK(uzt_class(MPI_Wait(&req, MPI_STATUS_IGNORE)) == MPI_ERR_BUFFER, "query_fn's error");
    CHECK(bad.frees == 1, "free_fn not called after a failing query_fn");
    struct ctx badfree = { .free_err = MPI_ERR_TAG };
    MPI_Request two[2];
    CHECK_MPI(MPI_Grequest_start(query, release, cancel, &badfree, &two[0]));
    CHECK_MPI(MPI_Grequest_start(NULL, NULL, NULL, NULL, &two[1]));
    CHECK_MPI(MPI_Grequest_complete(two[1]));
    CHECK_MPI(MPI_Grequest_complete(two[0]));
    MPI_Status sts[2];
    int rc = MPI_Waitall(2, two, sts);
    CHECK(uzt_class(rc) == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_ERR_TAG &&
          sts[1].MPI_ERROR == MPI_SUCCESS, "free_fn's error in MPI_Waitall");
    CHECK(sts[1].MPI_SOURCE == MPI_ANY_SOURCE, "no query_fn: empty status");

    /* MPI_Request_free before completion: free_fn runs once it completes. */
    struct ctx early = { 0 };
    MPI_Request keep;
    CHECK_MPI(MPI_Grequest_start(query, release, cancel, &early, &req));
    keep = req;
    CHECK_MPI(MPI_Request_free(&req));
    CHECK(early.frees == 0, "free_fn ran before completion");
    CHECK_MPI(MPI_Grequest_complete(keep));
    CHECK(early.frees == 1, "free_fn did not run when a freed request completed");

    /* Completed by another thread while this one waits. */
    if (provided == MPI_THREAD_MULTIPLE) {
        struct ctx t = { 0 };
        pthread_t th;
        CHECK_MPI(MPI_Grequest_start(query, release, cancel, &t, &req));
        MPI_Request shared = req;
        pthread_create(&th, NULL, completer, &shared);
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        pthread_join(th, NULL);
        CHECK(t.frees == 1 && t.queries == 1, "threaded completion");
    }
    return uzt_finish("pt2pt_grequest");
}
