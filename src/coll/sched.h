/*
 * sched.h — collective schedules: every collective algorithm is written
 * once, as a list of steps (send, receive, local reduction, local copy),
 * and the same list runs a blocking call to completion, progresses a
 * nonblocking one from inside any MPI call, or is replayed by each
 * MPI_Start of a persistent one.
 *
 * Steps start in order.  A step marked as a fence (uz_sched_fence before
 * adding it) starts only once every earlier step is complete; steps between
 * fences are in flight together (a "round").  Receives of a round should
 * be added before its sends.
 *
 * Messages use the communicator's collective context (context_id + 1) and
 * a tag that names the operation alike on every rank: for blocking and
 * nonblocking calls the communicator's collective sequence number, taken
 * when the schedule starts (they are issued in the same order everywhere);
 * for a persistent operation a number of its own, taken by its MPI_*_init
 * call and kept by every MPI_Start, since MPI matches persistent
 * collectives in the order of their initialization and lets ranks start
 * them in any order (MPI 4.1 §6.13).  Several collectives outstanding on
 * one communicator never match each other's messages.
 *
 * Scratch memory comes from the schedule (uz_sched_alloc) and lives as long
 * as it.  A blocking collective reuses its communicator's schedule, steps
 * and scratch included, so that small calls do not allocate.
 */
#ifndef UZ_COLL_SCHED_H
#define UZ_COLL_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "coll/op.h"
#include "coll/reducer.h"
#include "core/comm.h"
#include "datatype/datatype.h"
#include "pt2pt/request.h"

struct uz_sched;

enum uz_step_kind {
    UZ_STEP_SEND,
    UZ_STEP_RECV,
    UZ_STEP_REDUCE,     /* src op buf -> buf over `count` units of the schedule's reducer */
    UZ_STEP_COPY,       /* (src, scount, sdt) -> (buf, count, dt), any layouts of one signature */
    UZ_STEP_CALL,       /* fn(schedule, arg) */
};

struct uz_step {
    uint8_t kind;
    uint8_t fence;
    uint8_t local;          /* intercommunicators: message on the local group's communicator */
    uint8_t read_next;      /* RECV: a later REDUCE step reads this buffer */
    int peer;
    void *buf;
    const void *src;
    MPI_Count count;
    uz_datatype *dt;
    MPI_Count scount;
    uz_datatype *sdt;
    void (*fn)(struct uz_sched *s, void *arg);
    uz_request *req;
};

struct uz_sched_chunk;

struct uz_sched {
    uz_comm *comm;
    int tag;
    int persistent;             /* tag fixed at init (uz_sched_new_persistent) */
    struct uz_step *steps;
    int nsteps, cap;
    int next;                   /* next step to start */
    int oldest;                 /* oldest step that may be incomplete */
    int err;                    /* first error of this run (or of building) */
    int build_err;
    int pending_fence;
    int busy;                   /* inside advance (progress may re-enter) */
    /* Intercommunicators: while set, messages added go to the local
     * group's communicator (the local phase of the operation).  Ranks and
     * sizes are the same in both, so intracommunicator builders serve. */
    int local_phase;
    /* Immediate (uz_sched_immediate): each step starts as it is added,
     * and only the messages still in flight are kept. */
    int immediate;
    int begun;                  /* immediate: the tag is taken (at the first step) */
    uz_request **pending;
    int npending, pending_cap;
    int refs;                   /* heap schedules: requests using it */
    int heap;                   /* allocated by uz_sched_new (freed at refs == 0) */
    struct uz_reducer red;      /* for REDUCE steps */
    struct uz_sched_chunk *chunks;
    /* Objects the user may free while a nonblocking operation runs. */
    uz_datatype **held;
    int nheld, held_cap;
    uz_op *held_op;
};

/* ---------------------------------------------------------------- building */

void uz_sched_fence(struct uz_sched *s);
void uz_sched_send(struct uz_sched *s, const void *buf, MPI_Count count, uz_datatype *dt, int peer);
void uz_sched_recv(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int peer);
/* Intercommunicators: the same on the local group (comm->local_comm). */
void uz_sched_send_local(struct uz_sched *s, const void *buf, MPI_Count count, uz_datatype *dt, int peer);
void uz_sched_recv_local(struct uz_sched *s, void *buf, MPI_Count count, uz_datatype *dt, int peer);
void uz_sched_reduce(struct uz_sched *s, const void *in, void *inout, MPI_Count units);
void uz_sched_copy(struct uz_sched *s, const void *src, MPI_Count scount, uz_datatype *sdt, void *dst,
                   MPI_Count dcount, uz_datatype *ddt);
void uz_sched_call(struct uz_sched *s, void (*fn)(struct uz_sched *, void *), void *arg);

/* Copy between two buffers of the same type signature (what a COPY step
 * does): min of the two sizes, any layouts. */
void uz_coll_local_copy(const void *src, MPI_Count scount, const uz_datatype *sdt, void *dst, MPI_Count dcount,
                        const uz_datatype *ddt);

/* Scratch of `bytes` (64-byte aligned), or NULL (the schedule then fails
 * with MPI_ERR_NO_MEM when run). */
void *uz_sched_alloc(struct uz_sched *s, size_t bytes);

/* Set up the schedule's reducer for (op, dt) (uz_reducer_init).  A blocking
 * schedule keeps its reducer from call to call: a predefined operation on a
 * predefined datatype (objects that never change) met again reuses it,
 * which saves a tiny reduction the lookup of its kernel (200 instructions,
 * a fifth of a two-rank Exscan of 8 bytes). */
static inline int uz_sched_reducer(struct uz_sched *s, uz_op *op, uz_datatype *dt)
{
    if (s->red.op == op && s->red.dt == dt && op->predefined && dt->obj.builtin)
        return MPI_SUCCESS;
    int err = uz_reducer_init(&s->red, op, dt, 0);
    if (err)
        s->red.op = NULL;
    return err;
}

/* Keep a datatype / operation alive until the schedule is freed (for
 * nonblocking and persistent operations). */
void uz_sched_hold_dt(struct uz_sched *s, uz_datatype *dt);
void uz_sched_hold_op(struct uz_sched *s, uz_op *op);

/* --------------------------------------------------------------- running */

/* A communicator's schedule for a blocking collective, emptied and given
 * the next sequence number.  Run it with uz_sched_run. */
int uz_sched_blocking(uz_comm *comm, struct uz_sched **out);
int uz_sched_run(struct uz_sched *s);

/* Run a blocking schedule as it is built: each step starts when added
 * (a fence first waits for what is in flight), and uz_sched_run waits for
 * the rest.  The steps start in the same order and wait at the same fences
 * as when the whole list is built first, so peers cannot tell the two
 * apart; what it saves is storing each step and walking the list again
 * (a third of a tiny Bcast between two ranks).  One thing it cannot do is
 * look ahead: a receive whose bytes a later reduction reads is started
 * before that reduction is added, so it is not marked read_next. */
void uz_sched_immediate(struct uz_sched *s);

/* After uz_sched_run of a blocking schedule: run the steps added since,
 * on the same tag (the same operation's later messages, which a rank
 * learns of only from an earlier one). */
int uz_sched_continue(struct uz_sched *s);

/* A schedule for a nonblocking collective, and for a persistent one (its
 * MPI_*_init call: the schedule takes its tag here). */
int uz_sched_new(uz_comm *comm, struct uz_sched **out);
int uz_sched_new_persistent(uz_comm *comm, struct uz_sched **out);
void uz_sched_free(struct uz_sched *s);
/* Start it as a nonblocking request; on failure the schedule is freed. */
int uz_sched_start_request(struct uz_sched *s, MPI_Request *request);
/* Wrap it in an inactive persistent request that each MPI_Start replays. */
int uz_sched_persistent_request(struct uz_sched *s, MPI_Request *request);

/* Per-communicator state (coll/coll_comm.c). */
struct uz_coll_shm;
struct uz_coll_state {
    struct uz_sched blocking;
    uint32_t persistent_seq;        /* persistent collectives initialized so far */
    int shm_state;                  /* 0 not tried yet, 1 usable, -1 not for this communicator */
    int readable;                   /* coll_shm.c: every peer's memory readable? 0 not known yet, 1, -1 */
    struct uz_coll_shm *shm;        /* coll_shm.c */
};
int uz_coll_comm_init(uz_comm *comm);
/* The state, set up on first use; NULL when that ran out of memory. */
static inline struct uz_coll_state *uz_coll_state_of(uz_comm *comm)
{
    if (UZ_UNLIKELY(!comm->coll) && uz_coll_comm_init(comm) != MPI_SUCCESS)
        return NULL;
    return comm->coll;
}

/* Tags on the collective context: bits 0-28 a sequence number; bit 29 set
 * for persistent operations, whose numbers count their init calls (so
 * that a long-lived one never meets a later blocking call's tag); bit 30
 * for the local phase of an intercommunicator collective, on the local
 * group's communicator (sched.c). */
enum {
    UZ_COLL_TAG_SEQ = 0x1fffffff,
    UZ_COLL_TAG_PERSISTENT = 0x20000000,
    UZ_COLL_TAG_LOCAL_PHASE = 0x40000000,
};
/* The tag of the next blocking or nonblocking collective on comm. */
int uz_coll_next_tag(uz_comm *comm);
/* The tag of the next persistent collective initialized on comm. */
int uz_coll_next_persistent_tag(uz_comm *comm);

/* Release what a schedule owns (chunks, steps, holds); used by
 * coll_comm.c for the embedded blocking schedule. */
void uz_sched_fini(struct uz_sched *s);

#endif /* UZ_COLL_SCHED_H */
