/*
 * rvec.c — reduction vectors (algo.h): where a reduction's data lives
 * while its schedule runs, in the working form of reducer.h, and the start
 * every reduction builder shares.
 */
#include <string.h>

#include "coll/algo.h"

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
