/*
 * coll_run.c — what every collective call does around its algorithm: the
 * out-of-line pieces of the one prologue of the MPI procedures
 * (uz_coll_call in algo.h: schedule, holds, run or start), the argument
 * rules they share, and copying the v forms' arrays (algo.h).
 */
#include "coll/algo.h"

int uz_coll_begin(uz_comm *comm, enum uz_coll_mode mode, struct uz_sched **out)
{
    switch (mode) {
    case UZ_COLL_BLOCKING:
        return uz_sched_blocking(comm, out);
    case UZ_COLL_NONBLOCKING:
        return uz_sched_new(comm, out);
    case UZ_COLL_PERSISTENT:
        return uz_sched_new_persistent(comm, out);
    }
    return uz_err_make(MPI_ERR_INTERN, "unknown collective mode %d", (int)mode);
}

void uz_coll_hold(struct uz_sched *s, enum uz_coll_mode mode, uz_datatype *stype, uz_datatype *rtype, uz_op *op)
{
    if (mode == UZ_COLL_BLOCKING)
        return;
    uz_sched_hold_dt(s, stype);
    if (rtype != stype)
        uz_sched_hold_dt(s, rtype);
    uz_sched_hold_op(s, op);
}

int uz_coll_finish(struct uz_sched *s, enum uz_coll_mode mode, int err, MPI_Request *request)
{
    if (err) {
        if (s->immediate && s->begun)
            uz_sched_run(s);            /* what already went out completes */
        if (s->heap)
            uz_sched_free(s);
        return err;
    }
    switch (mode) {
    case UZ_COLL_BLOCKING:
        return uz_sched_run(s);
    case UZ_COLL_NONBLOCKING:
        return uz_sched_start_request(s, request);
    case UZ_COLL_PERSISTENT:
        return uz_sched_persistent_request(s, request);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------- argument rules */

int uz_coll_check_in_place(const uz_comm *comm, const void *buf, int rooted, int root, const char *what)
{
    if (buf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
    if (rooted && comm->rank != root)
        return uz_err_make(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root (argument %s)", what);
    return MPI_SUCCESS;
}

void *uz_coll_typed_scratch(struct uz_sched *s, MPI_Count count, const uz_datatype *dt)
{
    char *p = uz_sched_alloc(s, (size_t)(dt->true_extent + (count - 1) * dt->extent));
    return p ? p - dt->true_lb : NULL;
}

/* ------------------------------------------------- per-rank arrays */

static void *varray_copy(struct uz_sched *s, int n, struct uz_varray v)
{
    if (!uz_varray_given(v))
        return NULL;
    int64_t *out = uz_sched_alloc(s, 8 * (size_t)(n > 0 ? n : 1));
    if (out)
        uz_varray_convert(out, n, v);
    return out;
}

MPI_Count *uz_coll_counts(struct uz_sched *s, int n, struct uz_varray v)
{
    return varray_copy(s, n, v);
}

MPI_Aint *uz_coll_displs(struct uz_sched *s, int n, struct uz_varray v)
{
    return varray_copy(s, n, v);
}

int uz_coll_bad_count(const MPI_Count *c, int i, const char *what)
{
    return uz_err_make(MPI_ERR_COUNT, "invalid count %lld in %s[%d]", (long long)c[i], what, i);
}

uz_datatype **uz_coll_types(struct uz_sched *s, int n, const MPI_Datatype *h, const char *what, int hold,
                            int *err)
{
    uz_datatype **t = uz_sched_alloc(s, sizeof(*t) * (n > 0 ? n : 1));
    if (!t) {
        *err = s->build_err;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        t[i] = uz_datatype_get(h[i]);
        if (!t[i]) {
            *err = uz_err_make(MPI_ERR_TYPE, "invalid datatype in %s[%d]", what, i);
            return NULL;
        }
        if (!t[i]->committed) {
            *err = uz_err_make(MPI_ERR_TYPE, "datatype %s[%d] has not been committed", what, i);
            return NULL;
        }
        if (hold)
            uz_sched_hold_dt(s, t[i]);
    }
    return t;
}

