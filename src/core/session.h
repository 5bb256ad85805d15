/*
 * session.h — sessions (MPI-4.1 §11.3): a handle on the runtime with its
 * own error handler, thread level and buffer for buffered sends, from
 * which process sets, groups and communicators are derived.
 *
 * The object lives while the user's handle does (until
 * MPI_Session_finalize) and while groups and communicators derived from it
 * hold a reference; after finalize its handle no longer validates.
 */
#ifndef UZ_CORE_SESSION_H
#define UZ_CORE_SESSION_H

#include <stdatomic.h>

#include "base/object.h"
#include "core/errhandler.h"

struct uz_bsend_buffer;

typedef struct MPI_ABI_Session {
    struct uz_object obj;
    uz_errhandler *errhandler;
    int thread_level;               /* asked for with the "thread_level" hint */
    int strict_finalize;            /* MPICH's "strict_finalize" hint */
    int finalized;                  /* the handle is gone; references keep the object */
    atomic_int ncomms;              /* communicators derived from it and not yet freed */
    struct uz_bsend_buffer *bsend;  /* MPI_Session_attach_buffer, or NULL */
    char *alloc_kinds;              /* supported of the requested mpi_memory_alloc_kinds */
} uz_session;

/* The session of a handle: NULL for MPI_SESSION_NULL, a finalized
 * session, or anything else. */
uz_session *uz_session_get(MPI_Session h);

static inline MPI_Session uz_session_handle(uz_session *s)
{
    return (MPI_Session)s;
}

void uz_session_retain(uz_session *s);
void uz_session_release(uz_session *s);     /* NULL: nothing */

/* A communicator starts (or ends) deriving from session `s`: it holds a
 * reference and is counted for MPI_Session_finalize's check. */
void uz_session_comm_attach(uz_comm *c, uz_session *s);
void uz_session_comm_detach(uz_comm *c);

/* The session's error handler, for objects made from it without one of
 * their own. */
static inline uz_errhandler *uz_session_errhandler(const uz_session *s)
{
    return s->errhandler ? s->errhandler : &uz_errhandler_fatal;
}

#endif /* UZ_CORE_SESSION_H */
