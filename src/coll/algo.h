/*
 * algo.h — what the collective algorithm files share: running a call
 * (uz_coll_call: the one prologue every operation's MPI procedures go
 * through), building a schedule for each operation (one builder per
 * operation, choosing an algorithm), and the helpers they have in common.
 */
#ifndef UZ_COLL_ALGO_H
#define UZ_COLL_ALGO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "coll/coll_chosen.h"
#include "coll/coll_policy.h"
#include "coll/coll_shm.h"
#include "coll/sched.h"
#include "core/info.h"
#include "datatype/dt_engine.h"
#include "pt2pt/wait_note.h"

/* How a built schedule runs. */
enum uz_coll_mode {
    UZ_COLL_BLOCKING,
    UZ_COLL_NONBLOCKING,
    UZ_COLL_PERSISTENT,
};

/* ------------------------------------------------- per-rank arrays */

/* The counts and displacements arrays of the v and w collectives arrive
 * as int (MPI_Gatherv) or MPI_Count / MPI_Aint (MPI_Gatherv_c) arrays;
 * they are copied into the schedule as MPI_Count / MPI_Aint, which also
 * frees nonblocking calls from the user's arrays. */
struct uz_varray {
    const void *p;              /* NULL: not passed */
    int wide;                   /* entries are 64-bit (MPI_Count, MPI_Aint), else int */
};
/* Two words, so that the entry points pass and store it in registers: as
 * three pointers (24 bytes, passed in memory) GCC built each one on the
 * stack and copied it with 16-byte loads that straddled the stores just
 * made, which the CPU cannot forward (two such stalls were about 15 ns of
 * a two-rank Scatterv's 95, on both ranks). */
static inline struct uz_varray uz_varray_int(const int *p)
{
    return (struct uz_varray){ .p = p, .wide = 0 };
}
static inline struct uz_varray uz_varray_count(const MPI_Count *p)
{
    return (struct uz_varray){ .p = p, .wide = 1 };
}
static inline struct uz_varray uz_varray_aint(const MPI_Aint *p)
{
    return (struct uz_varray){ .p = p, .wide = 1 };
}
/* Entry i, whichever width the caller passed. */
static inline MPI_Count uz_varray_at(struct uz_varray v, int i)
{
    return v.wide ? ((const int64_t *)v.p)[i] : ((const int *)v.p)[i];
}

/* ------------------------------------------------- one collective call */

/* A v form's per-rank arrays: as the user passed them, and as uz_coll_call
 * copied them into the schedule (NULL where this rank passes none).  They
 * stay out of struct uz_coll_args: every call zeroes what it does not set,
 * and with them inside GCC zeroed the larger struct with `rep stos`, which
 * cost each small collective about 15 ns. */
struct uz_coll_varrays {
    struct uz_varray counts, displs;
    const MPI_Count *vcounts;
    const MPI_Aint *vdispls;
};

/* The arguments of a collective call in the one shape every operation's
 * fit: what this rank sends, what it receives (a reduction or broadcast
 * has one count and datatype, given as both sides), the operation and the
 * root where the call has them, and a v form's per-rank arrays. */
struct uz_coll_args {
    const void *sendbuf;
    MPI_Count scount;
    uz_datatype *stype;
    void *recvbuf;
    MPI_Count rcount;
    uz_datatype *rtype;
    uz_op *op;
    int root;
    struct uz_coll_varrays *v;          /* v forms, else NULL */
};

/* Which ranks pass a v form's per-rank arrays. */
enum uz_coll_arrays {
    UZ_COLL_NO_ARRAYS,
    UZ_COLL_ARRAYS_AT_ROOT,         /* the root (MPI_ROOT on an intercommunicator) */
    UZ_COLL_ARRAYS_EVERYWHERE,
};

/* What uz_coll_call needs to know of one operation. */
struct uz_coll_kind {
    const char *name;                   /* the blocking procedure, for the hang diagnosis */
    /* Blocking calls on an intracommunicator are offered first to the
     * shared-memory algorithm (NULL: there is none), which returns
     * UZ_SHM_DECLINED when it does not take the call; `want` comes from
     * the operation's tunable and the value of it that names shm. */
    int (*shm)(const struct uz_coll_args *a, uz_comm *comm, int want);
    const int *tunable;
    int shm_choice;
    enum uz_coll_op op;                 /* where the shared-memory choice is recorded (coll_chosen.h) */
    int shm_chooses;                    /* shm() records its choice itself (it has several) */
    enum uz_coll_arrays arrays;
    /* Add the operation's steps to s: its message-passing algorithm. */
    int (*build)(struct uz_sched *s, const struct uz_coll_args *a);
    /* A blocking intracommunicator call that shm() declined is offered
     * next to this (NULL: none): the algorithm build() would choose, run
     * by direct.h without a schedule where that is a handful of messages;
     * UZ_SHM_DECLINED otherwise. */
    int (*direct)(const struct uz_coll_args *a, uz_comm *comm);
};


/* The pieces, for operations whose shared-memory algorithm needs their
 * arrays in the schedule first (Alltoallv/w, Reduce_scatter), called with
 * the lock held: a schedule for a call in `mode` (the communicator's
 * reusable one for blocking calls)... */
int uz_coll_begin(uz_comm *comm, enum uz_coll_mode mode, struct uz_sched **out);
/* ...keeping the datatypes and operation given (NULL ones are skipped)
 * alive as long as the schedule when the call outlives this one... */
void uz_coll_hold(struct uz_sched *s, enum uz_coll_mode mode, uz_datatype *stype, uz_datatype *rtype, uz_op *op);
/* ...and running or starting it; `request` is the output of nonblocking
 * and persistent calls.  Frees a heap schedule on error. */
int uz_coll_finish(struct uz_sched *s, enum uz_coll_mode mode, int err, MPI_Request *request);

static inline uz_datatype *uz_byte_type(void)
{
    return uz_datatype_get(MPI_BYTE);
}

/* Address of block i of a buffer of blocks of (count, dt). */
static inline void *uz_block(const void *buf, MPI_Count i, MPI_Count count, const uz_datatype *dt)
{
    return (char *)buf + i * count * dt->extent;
}

/* Address of the `off`-th element of a buffer of dt. */
static inline void *uz_elem(const void *buf, MPI_Aint off, const uz_datatype *dt)
{
    return (char *)buf + off * dt->extent;
}

/* Largest power of two <= n (n >= 1). */
static inline int uz_pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* n entries as MPI_Count / MPI_Aint in schedule scratch (NULL when the
 * array is NULL or memory ran out; build_err says which). */
MPI_Count *uz_coll_counts(struct uz_sched *s, int n, struct uz_varray v);
MPI_Aint *uz_coll_displs(struct uz_sched *s, int n, struct uz_varray v);

/* n entries of v as 64-bit integers into out, one loop per width the
 * caller may have passed (MPI_Count and MPI_Aint are both 64 bits here). */
_Static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) == sizeof(int64_t),
               "per-rank arrays are converted as 64-bit integers");
static inline void uz_varray_convert(int64_t *out, int n, struct uz_varray v)
{
    if (v.wide)
        memcpy(out, v.p, sizeof(*out) * (size_t)n);
    else
        for (int k = 0; k < n; k++)
            out[k] = ((const int *)v.p)[k];
}

/* Whether the caller passed the array at all. */
static inline int uz_varray_given(struct uz_varray v)
{
    return v.p != NULL;
}

/* The same as uz_coll_counts/displs into the caller's `out` (n entries;
 * NULL when the array is). */
static inline int64_t *uz_varray_into(int64_t *out, int n, struct uz_varray v)
{
    if (!uz_varray_given(v))
        return NULL;
    uz_varray_convert(out, n, v);
    return out;
}

static inline MPI_Count *uz_coll_counts_into(MPI_Count *out, int n, struct uz_varray v)
{
    return (MPI_Count *)uz_varray_into((int64_t *)out, n, v);
}

static inline MPI_Aint *uz_coll_displs_into(MPI_Aint *out, int n, struct uz_varray v)
{
    return (MPI_Aint *)uz_varray_into((int64_t *)out, n, v);
}

/* A blocking call converts the per-rank arrays of this many ranks or fewer
 * onto its own stack: its schedule is done with them before it returns. */
enum { UZ_COLL_ARRAYS_ON_STACK = 32 };

/* The situation (coll_policy.h) of a call of op on comm moving `bytes`
 * (as coll_policy.h measures them for op): the rest is filled in where an
 * operation has it (commutative, units, fixed). */
static inline struct uz_coll_situation uz_coll_situation(enum uz_coll_op op, const uz_comm *comm, size_t bytes)
{
    return (struct uz_coll_situation){ .op = op, .bytes = bytes, .p = comm->size, .fixed = 1,
                                       .oversubscribed = uz_coll_host_oversubscribed() };
}

/* Whether a blocking call runs its schedule as it is built
 * (uz_sched_immediate): always, except a reduction from
 * UZ_COLL_READ_NEXT_MIN bytes, whose receives must know that a reduction
 * reads them (sched.c, mark_read_next: a one-copy transfer then lands in
 * the reducing core's cache; 32-256 KiB between two ranks 1.5-2x faster). */
enum { UZ_COLL_READ_NEXT_MIN = 8192 };
static inline int uz_coll_runs_immediately(const struct uz_coll_args *a)
{
    if (!a->op)
        return 1;
    uz_datatype *dt = a->rtype ? a->rtype : a->stype;
    return dt && (size_t)(a->rcount ? a->rcount : a->scount) * (size_t)dt->size < UZ_COLL_READ_NEXT_MIN;
}

/* One call of a collective, blocking, nonblocking (`request` is its
 * output) or persistent (its MPI_*_init): takes the library lock, offers
 * a blocking intracommunicator call to the shared-memory algorithm, else
 * gets a schedule, keeps the datatypes and operation alive for calls that
 * outlive this one, copies the v arrays, builds, and runs or starts it
 * (a blocking one whose algorithm is a few messages may run it directly,
 * kind->direct).
 * Inline, so that each operation's entry folds its constant kind (the
 * indirect calls of one shared prologue cost a 70 ns barrier about 5 ns). */
static inline int uz_coll_call_locked(const struct uz_coll_kind *k, const struct uz_coll_args *a,
                                      uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    if (mode == UZ_COLL_BLOCKING && !comm->is_inter) {
        int rc;
        if (k->shm && (rc = k->shm(a, comm, uz_shm_want(*k->tunable, k->shm_choice))) != UZ_SHM_DECLINED) {
            if (!k->shm_chooses)
                uz_coll_chose(k->op, k->shm_choice);
            return rc;
        }
        if (k->direct && (rc = k->direct(a, comm)) != UZ_SHM_DECLINED)
            return rc;
    }
    struct uz_sched *s;
    int err = uz_coll_begin(comm, mode, &s);
    if (err)
        return err;
    if (mode == UZ_COLL_BLOCKING && uz_coll_runs_immediately(a))
        uz_sched_immediate(s);
    uz_coll_hold(s, mode, a->stype, a->rtype, a->op);
    /* Into the schedule's memory only when the schedule may outlive this
     * frame: two allocations were 110 of a two-rank Gatherv root's 1525
     * instructions a call. */
    MPI_Count counts_here[UZ_COLL_ARRAYS_ON_STACK];
    MPI_Aint displs_here[UZ_COLL_ARRAYS_ON_STACK];
    if (k->arrays == UZ_COLL_ARRAYS_EVERYWHERE ||
        (k->arrays == UZ_COLL_ARRAYS_AT_ROOT && (comm->is_inter ? a->root == MPI_ROOT : comm->rank == a->root))) {
        int p = comm->is_inter ? comm->remote_size : comm->size;
        if (mode == UZ_COLL_BLOCKING && p <= UZ_COLL_ARRAYS_ON_STACK) {
            a->v->vcounts = uz_coll_counts_into(counts_here, p, a->v->counts);
            a->v->vdispls = uz_coll_displs_into(displs_here, p, a->v->displs);
        } else {
            a->v->vcounts = uz_coll_counts(s, p, a->v->counts);
            a->v->vdispls = uz_coll_displs(s, p, a->v->displs);
        }
    }
    err = s->build_err ? s->build_err : k->build(s, a);
    return uz_coll_finish(s, mode, err, request);
}

/* A blocking call notes what it is (pt2pt/wait_note.h) around the call:
 * its number on the communicator tells mpiexec's hang diagnosis which
 * ranks have not entered it. */
static inline int uz_coll_call_noted(const struct uz_coll_kind *k, const struct uz_coll_args *a,
                                     uz_comm *comm, enum uz_coll_mode mode, MPI_Request *request)
{
    uint32_t n = ++comm->coll_calls;
    if (mode != UZ_COLL_BLOCKING)
        return uz_coll_call_locked(k, a, comm, mode, request);
    struct uz_wait_note note = { .call = k->name, .coll_comm = comm, .coll_call = n };
    struct uz_wait_note *prev = uz_wait_note_enter(&note);
    int err = uz_coll_call_locked(k, a, comm, mode, request);
    uz_wait_note_leave(prev);
    return err;
}

/* The same for the operations that do not go through uz_coll_call
 * (Alltoallv/w, Reduce_scatter): count the call and, when it blocks, note
 * it in `note`; returns what to hand uz_wait_note_leave afterwards. */
static inline struct uz_wait_note *uz_coll_note_enter(struct uz_wait_note *note, const char *name, uz_comm *comm,
                                                      enum uz_coll_mode mode)
{
    uint32_t n = ++comm->coll_calls;
    if (mode != UZ_COLL_BLOCKING)
        return uz_wait_note;            /* leaving puts back what is there */
    *note = (struct uz_wait_note){ .call = name, .coll_comm = comm, .coll_call = n };
    return uz_wait_note_enter(note);
}

static inline int uz_coll_call(const struct uz_coll_kind *k, const struct uz_coll_args *a, uz_comm *comm,
                               enum uz_coll_mode mode, MPI_Request *request)
{
    uz_lock();
    int err = uz_coll_call_noted(k, a, comm, mode, request);
    uz_unlock();
    return err;
}

/* MPI_ERR_COUNT naming `what`[i] for the first negative entry; in line,
 * since every v-form call runs it over each array. */
int uz_coll_bad_count(const MPI_Count *c, int i, const char *what) UZ_COLD;
static inline int uz_coll_check_counts(const MPI_Count *c, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (UZ_UNLIKELY(c[i] < 0))
            return uz_coll_bad_count(c, i, what);
    return MPI_SUCCESS;
}

/* ------------------------------------------------- argument rules */

/* MPI_IN_PLACE given as `buf` (the argument `what`) where this rank may
 * not use it: on an intercommunicator, or, for a rooted operation
 * (`rooted`), away from the root.  MPI_SUCCESS otherwise. */
int uz_coll_check_in_place(const uz_comm *comm, const void *buf, int rooted, int root, const char *what);

/* Scratch for (count, dt) in dt's own layout: the pointer a buffer of
 * (count, dt) would have (shifted by dt's true lower bound). */
void *uz_coll_typed_scratch(struct uz_sched *s, MPI_Count count, const uz_datatype *dt);

/* The datatype handles of the w collectives, checked (valid, committed)
 * and, when `hold`, kept alive for the schedule.  NULL with *err set when
 * one is bad. */
uz_datatype **uz_coll_types(struct uz_sched *s, int n, const MPI_Datatype *h, const char *what, int hold,
                            int *err);

/* ------------------------------------------------- reduction vectors */

/* Where a reduction's data lives while the schedule runs: the input, and a
 * writable vector of n units that ends up holding the result (units as in
 * reducer.h).  When the user's buffers are already in the working form
 * they are used directly; otherwise the input is packed into scratch at
 * the start and the work vector is unpacked into the user's buffer at the
 * end.  `work` is NULL when this rank has no output buffer and the input
 * needed no packing. */
struct uz_rvec {
    MPI_Count n;                /* units */
    const void *in;             /* the input's unit 0 */
    void *work;                 /* writable, n units; holds the result at the end */
    void *user_out;             /* the user's result buffer (count, dt), or NULL */
    MPI_Count count;
    int unpack;                 /* result must be unpacked into user_out */
};

/* Set up the working form for input (inbuf, count, dt) (may be the
 * output buffer, when in place) and output `outbuf` (NULL when this rank
 * gets no result).  The work vector is the output buffer itself when that
 * is in working form. */
int uz_rvec_setup(struct uz_sched *s, struct uz_rvec *v, const void *inbuf, void *outbuf, MPI_Count count,
                  uz_datatype *dt);
/* The start every reduction builder on an intracommunicator shares: the
 * reducer for (op, dt) (MPI_ERR_OP where op is not defined for dt), the
 * rules for sendbuf (MPI_IN_PLACE only at the root of a `rooted`
 * operation; not recvbuf itself where this rank gets a result), and
 * uz_rvec_setup with the input in recvbuf when in place.  The result goes
 * to recvbuf at every rank, or at the root only when `rooted`.  Leaves
 * v->n 0 when there is no data: nothing to build.  Inline: out of line,
 * passing its nine arguments cost a small reduction about 50 instructions. */
static inline int uz_rvec_begin(struct uz_sched *s, struct uz_rvec *v, const void *sendbuf, void *recvbuf,
                                MPI_Count count, uz_datatype *dt, uz_op *op, int rooted, int root)
{
    v->n = 0;
    int err = uz_sched_reducer(s, op, dt);
    if (UZ_UNLIKELY(err))
        return err;
    if (UZ_UNLIKELY(sendbuf == MPI_IN_PLACE) &&
        (err = uz_coll_check_in_place(s->comm, sendbuf, rooted, root, "sendbuf")))
        return err;
    int has_result = !rooted || s->comm->rank == root;
    if (UZ_UNLIKELY(has_result && sendbuf == recvbuf && sendbuf != NULL && count > 0 && dt->size > 0))
        return uz_err_make(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return uz_rvec_setup(s, v, in, has_result ? recvbuf : NULL, count, dt);
}
/* Copy the input into the work vector (when they differ). */
void uz_rvec_load(struct uz_sched *s, struct uz_rvec *v);
/* Finish: unpack the work vector into the user's buffer if needed. */
void uz_rvec_store(struct uz_sched *s, struct uz_rvec *v);
/* Scratch for n units. */
void *uz_rvec_scratch(struct uz_sched *s, MPI_Count n);

/* Message steps for k units at unit offset `off` of a vector base. */
static inline void *uz_unit(const struct uz_sched *s, const void *base, MPI_Count off)
{
    return uz_reducer_at(&s->red, base, off);
}
static inline void uz_sched_send_units(struct uz_sched *s, const void *base, MPI_Count off, MPI_Count k,
                                       int peer)
{
    uz_sched_send(s, uz_unit(s, base, off), k * s->red.mult, s->red.xtype, peer);
}
static inline void uz_sched_recv_units(struct uz_sched *s, void *base, MPI_Count off, MPI_Count k, int peer)
{
    uz_sched_recv(s, uz_unit(s, base, off), k * s->red.mult, s->red.xtype, peer);
}
/* Copy k units between vectors. */
void uz_sched_copy_units(struct uz_sched *s, const void *src, void *dst, MPI_Count off, MPI_Count k);

/* Cut n units into `parts` blocks as even as possible: counts, and in
 * *displs their offsets (both in schedule scratch). */
MPI_Count *uz_rvec_split(struct uz_sched *s, MPI_Count n, int parts, MPI_Count **displs);
/* Ring reduce-scatter of the vector `acc` (block i: cnts[i] units at
 * displs[i]); rank r ends with block r reduced over every rank.
 * Commutative operations only. */
void uz_rvec_reduce_scatter_ring(struct uz_sched *s, void *acc, const MPI_Count *cnts, const MPI_Count *displs);
/* Binomial-tree reduction of n units at `in` to rank troot, whose result
 * lands in `final` (NULL elsewhere).  Rooted at rank 0 the combination
 * follows rank order. */
void uz_rvec_reduce_tree(struct uz_sched *s, const void *in, MPI_Count n, int troot, void *final);
/* Ring allgather of those blocks. */
void uz_rvec_allgather_ring(struct uz_sched *s, void *acc, const MPI_Count *cnts, const MPI_Count *displs);

/* ------------------------------------------------------------ builders */

/* Each adds the steps of one operation to s (intracommunicators unless
 * said otherwise) and returns an MPI error code for arguments it rejects. */
int uz_build_barrier(struct uz_sched *s);
int uz_build_bcast(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int root);
int uz_build_reduce(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count, uz_datatype *dt,
                    uz_op *op, int root);
int uz_build_allreduce(struct uz_sched *s, const void *sendbuf, void *recvbuf, MPI_Count count,
                       uz_datatype *dt, uz_op *op);
int uz_build_allgather(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                       void *recvbuf, MPI_Count rcount, uz_datatype *rtype);
int uz_build_alltoall(struct uz_sched *s, const void *sendbuf, MPI_Count scount, uz_datatype *stype,
                      void *recvbuf, MPI_Count rcount, uz_datatype *rtype);

#endif /* UZ_COLL_ALGO_H */
