/*
 * session.c — MPI_Session_init, MPI_Session_finalize and MPI_Session_get_info,
 * and the session object's life (session.h).
 *
 * A session is one user of the shared runtime (runtime_start.c): the first
 * MPI_Session_init (or MPI_Init) starts it, and the last
 * MPI_Session_finalize (or MPI_Finalize) tears it down.  Finalizing a
 * session while communicators derived from it are alive is erroneous
 * (MPI-4.1 §11.3.1); like MPICH we let it proceed unless the session was
 * made with the hint "strict_finalize" = "true", in which case it fails
 * with MPI_ERR_PENDING and leaves the session as it was, so that the
 * program can free them and try again.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/alloc_kinds.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/info.h"
#include "core/p2p_bsend.h"
#include "core/runtime_start.h"
#include "core/session.h"

/* ------------------------------------------------------------ the object */

uz_session *uz_session_get(MPI_Session h)
{
    if (uz_handle_is_predefined(h))
        return NULL;
    uz_session *s = uz_object_check(h, UZ_MAGIC_SESSION);
    return s && !s->finalized ? s : NULL;
}

void uz_session_retain(uz_session *s)
{
    uz_object_retain(&s->obj);
}

void uz_session_release(uz_session *s)
{
    if (!s || !uz_object_release(&s->obj))
        return;
    uz_bsend_buffer_free(&s->bsend);
    uz_errhandler_release(s->errhandler);
    free(s->alloc_kinds);
    uz_object_free(s, sizeof(*s));
}

void uz_session_comm_attach(uz_comm *c, uz_session *s)
{
    uz_session_retain(s);
    atomic_fetch_add(&s->ncomms, 1);
    c->session = s;
}

void uz_session_comm_detach(uz_comm *c)
{
    uz_session *s = c->session;
    if (!s)
        return;
    c->session = NULL;
    atomic_fetch_sub(&s->ncomms, 1);
    uz_session_release(s);
}

/* ------------------------------------------------------------- hints */

static const struct {
    const char *name;
    int level;
} thread_levels[] = {
    { "MPI_THREAD_SINGLE", MPI_THREAD_SINGLE },
    { "MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED },
    { "MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED },
    { "MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE },
};

static const char *thread_level_name(int level)
{
    for (size_t i = 0; i < sizeof(thread_levels) / sizeof(thread_levels[0]); i++)
        if (thread_levels[i].level == level)
            return thread_levels[i].name;
    return "MPI_THREAD_SINGLE";
}

/* The hints MPI_Session_init understands; others are ignored, as the
 * standard lets an implementation ignore hints. */
static int read_hints(const uz_info *info, int *level, int *strict)
{
    *level = MPI_THREAD_SINGLE;
    *strict = 0;
    const char *v = info ? uz_info_lookup(info, "thread_level") : NULL;
    if (v) {
        size_t i, n = sizeof(thread_levels) / sizeof(thread_levels[0]);
        for (i = 0; i < n && strcasecmp(v, thread_levels[i].name) != 0; i++)
            ;
        if (i == n)
            return uz_err_make(MPI_ERR_ARG, "MPI_Session_init: invalid value '%s' of the info key "
                               "thread_level (MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or "
                               "_MULTIPLE)", v);
        *level = thread_levels[i].level;
    }
    v = info ? uz_info_lookup(info, "strict_finalize") : NULL;
    if (v)
        *strict = strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ MPI procedures */

/* Its errors go to the handler it was given (MPI-4.1 §11.3.1), or where
 * errors of no object go when it was given none. */
static int init_failed(uz_errhandler *errhandler, int code)
{
    if (!errhandler)
        return uz_err_raise_comm("MPI_Session_init", NULL, code);
    return uz_err_raise_session_handler("MPI_Session_init", errhandler, MPI_SESSION_NULL, code);
}

int uz_mpi_Session_init(uz_info *info, uz_errhandler *errhandler, MPI_Session *session)
{
    int level, strict;
    int err = read_hints(info, &level, &strict);
    if (!err && errhandler)
        err = uz_errhandler_check_target(errhandler, UZ_ERRHANDLER_FOR_SESSION);
    if (err)
        return init_failed(errhandler, err);
    uz_session *s = uz_object_alloc(sizeof(*s));
    if (!s)
        return init_failed(errhandler, uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a session"));
    if ((err = uz_runtime_acquire(level))) {
        uz_object_free(s, sizeof(*s));
        return init_failed(errhandler, err);
    }
    /* Requested for this session, else as for the World Model (mpiexec's
     * -memory-alloc-kinds, else the default): the session's info wins. */
    const char *kinds = info ? uz_info_lookup(info, UZ_ALLOC_KINDS_KEY) : NULL;
    s->alloc_kinds = kinds ? uz_alloc_kinds_supported(kinds) : strdup(uz_alloc_kinds_world());
    if (!s->alloc_kinds) {
        uz_runtime_release();
        uz_object_free(s, sizeof(*s));
        return init_failed(errhandler, uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a session"));
    }
    uz_object_init(&s->obj, UZ_MAGIC_SESSION);
    s->errhandler = errhandler ? errhandler : &uz_errhandler_fatal;
    uz_errhandler_retain(s->errhandler);
    s->thread_level = level;
    s->strict_finalize = strict;
    atomic_init(&s->ncomms, 0);
    *session = uz_session_handle(s);
    return MPI_SUCCESS;
}

int uz_mpi_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    uz_session *s = uz_session_get(*session);
    if (!s)
        return uz_err_raise_session(fn, NULL, uz_err_make(MPI_ERR_SESSION, "invalid session "
                                                          "(argument session)"));
    int live = atomic_load(&s->ncomms);
    if (live > 0 && s->strict_finalize)
        return uz_err_raise_session(fn, s, uz_err_make(MPI_ERR_PENDING, "%d communicator%s derived "
                                    "from the session %s not been freed (the session asked for "
                                    "strict_finalize)", live, live == 1 ? "" : "s",
                                    live == 1 ? "has" : "have"));
    uz_bsend_buffer_free(&s->bsend);
    s->finalized = 1;
    *session = MPI_SESSION_NULL;
    uz_session_release(s);
    int err = uz_runtime_release();
    return err ? uz_err_raise_session(fn, NULL, err) : MPI_SUCCESS;
}

int uz_mpi_Session_get_info(uz_session *session, MPI_Info *info_used)
{
    uz_info *info = uz_info_new();
    if (!info)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an info object");
    if (uz_info_set(info, "thread_level", thread_level_name(session->thread_level)) != 0 ||
        uz_info_set(info, "strict_finalize", session->strict_finalize ? "true" : "false") != 0 ||
        uz_info_set(info, UZ_ALLOC_KINDS_KEY, session->alloc_kinds) != 0) {
        uz_info_free(info);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory filling an info object");
    }
    *info_used = uz_info_handle(info);
    return MPI_SUCCESS;
}
