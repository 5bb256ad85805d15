/*
 * coll_run.c — what every collective shares around its algorithm: getting
 * a schedule for a blocking, nonblocking or persistent call, running or
 * starting it, and the working form of reduction data (algo.h).
 */
#include <string.h>

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

int uz_coll_finish(struct uz_sched *s, enum uz_coll_mode mode, int err, MPI_Request *request)
{
    if (err) {
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

/* ------------------------------------------------- per-rank arrays */

static void *varray_copy(struct uz_sched *s, int n, struct uz_varray v, int want_aint)
{
    if (!v.i && !v.c && !v.a)
        return NULL;
    void *out = uz_sched_alloc(s, 8 * (size_t)(n > 0 ? n : 1));
    if (!out)
        return NULL;
    for (int k = 0; k < n; k++) {
        int64_t x = v.i ? v.i[k] : v.c ? v.c[k] : v.a[k];
        if (want_aint)
            ((MPI_Aint *)out)[k] = (MPI_Aint)x;
        else
            ((MPI_Count *)out)[k] = (MPI_Count)x;
    }
    return out;
}

MPI_Count *uz_coll_counts(struct uz_sched *s, int n, struct uz_varray v)
{
    return varray_copy(s, n, v, 0);
}

MPI_Aint *uz_coll_displs(struct uz_sched *s, int n, struct uz_varray v)
{
    return varray_copy(s, n, v, 1);
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

/* ------------------------------------------------- reduction vectors */

void *uz_rvec_scratch(struct uz_sched *s, MPI_Count n)
{
    size_t bytes = uz_reducer_span(&s->red, n);
    void *p = uz_sched_alloc(s, bytes ? bytes : 1);
    return p ? uz_reducer_base(&s->red, p) : NULL;
}

int uz_rvec_setup(struct uz_sched *s, struct uz_rvec *v, const void *inbuf, void *outbuf, MPI_Count count,
                  uz_datatype *dt)
{
    const struct uz_reducer *r = &s->red;
    memset(v, 0, sizeof(*v));
    v->n = uz_reducer_units(r, count);
    v->count = count;
    v->user_out = outbuf;
    if (!r->packed) {
        v->in = inbuf;
        v->work = outbuf;
    } else if (uz_dt_is_contig(dt, count)) {
        v->in = (const char *)inbuf + dt->true_lb;
        v->work = outbuf ? (char *)outbuf + dt->true_lb : NULL;
    } else {
        /* Pack the input once; the packed copy is ours to work in. */
        void *p = uz_rvec_scratch(s, v->n);
        if (p)
            uz_sched_copy(s, inbuf, count, dt, p, v->n * r->mult, r->xtype);
        v->in = p;
        v->work = p;
        v->unpack = outbuf != NULL;
    }
    if (v->n > 0 && (s->build_err || !v->in))
        return s->build_err ? s->build_err : uz_err_make(MPI_ERR_NO_MEM, "out of memory for a reduction");
    return MPI_SUCCESS;
}

void uz_rvec_load(struct uz_sched *s, struct uz_rvec *v)
{
    if (v->in != v->work)
        uz_sched_copy_units(s, v->in, v->work, 0, v->n);
}

void uz_rvec_store(struct uz_sched *s, struct uz_rvec *v)
{
    if (v->unpack) {
        uz_sched_fence(s);
        uz_sched_copy(s, v->work, v->n * s->red.mult, s->red.xtype, v->user_out, v->count, s->red.dt);
    }
}

void uz_sched_copy_units(struct uz_sched *s, const void *src, void *dst, MPI_Count off, MPI_Count k)
{
    if (k <= 0)
        return;
    uz_sched_copy(s, uz_unit(s, src, off), k * s->red.mult, s->red.xtype, uz_unit(s, dst, off),
                  k * s->red.mult, s->red.xtype);
}
