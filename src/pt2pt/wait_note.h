/*
 * wait_note.h — what the blocking MPI procedure that runs now waits for,
 * for mpiexec's hang diagnosis.
 *
 * A blocking procedure (MPI_Recv, MPI_Wait, MPI_Allreduce, ...) fills a
 * note in its own stack frame and points uz_wait_note at it: a few stores,
 * nothing else on the fast path.  Only when a wait has been idle for as
 * long as it polls and yields, i.e. when the rank is about to sleep
 * (progress.c, coll/coll_wait.c), does it call uz_wait_publish, which the
 * MPI core sets (core/wait_state.c) to write the note into the rank's
 * state page (base/state_page.h), where mpiexec can read it while the
 * rank sleeps.
 */
#ifndef UZ_PT2PT_WAIT_NOTE_H
#define UZ_PT2PT_WAIT_NOTE_H

#include <stdint.h>

#include "pt2pt/request.h"

struct uz_wait_note {
    const char *call;               /* "MPI_Recv" */
    uz_request *const *reqs;        /* the requests it waits for (NULL entries are none) */
    int nreqs;
    uz_request *one;                /* a single request: reqs = &one */
    uz_comm *coll_comm;             /* a blocking collective: its communicator... */
    uint32_t coll_call;             /* ...and which of its collective calls, from 1 */
};

/* The note of the procedure that runs now in this thread, or NULL.
 * Procedures keep the previous value and put it back, so that one
 * procedure may call another.  Per thread: under MPI_THREAD_MULTIPLE
 * another thread's note lives in that thread's frames.  Initial-exec, so
 * that it costs what a global costs (one %fs-relative access). */
extern _Thread_local struct uz_wait_note *uz_wait_note __attribute__((tls_model("initial-exec")));

/* The blocking send or receive procedure running now ("MPI_Recv"), or
 * NULL.  Cheaper than a note, which such a call needs only if it comes to
 * wait: uz_request_wait then makes one with this name (a Send that goes out
 * at once, a Recv whose message is here, never does; ping-pong latency paid
 * 3 ns for building notes up front). */
extern _Thread_local const char *uz_wait_call __attribute__((tls_model("initial-exec")));

/* Set by the MPI core when the job wants the state published (NULL
 * otherwise): blocked = 1 when a wait is about to sleep, 0 when a wait
 * that published ends. */
extern void (*uz_wait_publish)(int blocked);

/* A blocking point-to-point procedure that waits for one request the
 * request layer made (MPI_Recv's, on the stack): name it in the note. */
static inline void uz_wait_note_request(uz_request *req)
{
    struct uz_wait_note *n = uz_wait_note;
    if (n && !n->nreqs && !n->coll_comm) {
        n->one = req;
        n->reqs = &n->one;
        n->nreqs = 1;
    }
}

/* Begin and end a blocking procedure's note. */
static inline struct uz_wait_note *uz_wait_note_enter(struct uz_wait_note *n)
{
    struct uz_wait_note *prev = uz_wait_note;
    uz_wait_note = n;
    return prev;
}

static inline void uz_wait_note_leave(struct uz_wait_note *prev)
{
    uz_wait_note = prev;
}

#endif /* UZ_PT2PT_WAIT_NOTE_H */
