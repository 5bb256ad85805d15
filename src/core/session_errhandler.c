/*
 * session_errhandler.c — error handlers of sessions: making, setting,
 * getting and calling them, and raising an error through a session's
 * handler (MPI-4.1 §9.3).
 *
 * A session's handler is the one given to MPI_Session_init
 * (MPI_ERRORS_ARE_FATAL when none was), and communicators made from the
 * session's groups without a handler of their own start with it.  Errors
 * of a call on an invalid session belong to no session and go where
 * errors of no object go (errhandler.c).
 */
#include "base/errors.h"
#include "core/error_raise.h"
#include "core/session.h"

int uz_err_raise_session_handler(const char *fn, uz_errhandler *eh, MPI_Session handle, int code)
{
    uz_err_set_function(code, fn);
    switch (eh->kind) {
    case UZ_ERRHANDLER_FATAL:
    case UZ_ERRHANDLER_ABORT:
        uz_err_fatal(code, fn);
    case UZ_ERRHANDLER_RETURN:
        return code;
    case UZ_ERRHANDLER_USER: {
        int user_code = code;
        eh->fn.session(&handle, &user_code);
        return code;
    }
    }
    return code;
}

int uz_err_raise_session(const char *fn, uz_session *session, int code)
{
    if (!session)
        return uz_err_raise_comm(fn, NULL, code);
    return uz_err_raise_session_handler(fn, uz_session_errhandler(session), uz_session_handle(session),
                                        code);
}

/* --------------------------------------------------- MPI procedures */

int uz_mpi_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                     MPI_Errhandler *errhandler)
{
    if (session_errhandler_fn == NULL)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: session_errhandler_fn is NULL");
    uz_errhandler *eh = uz_object_alloc(sizeof(*eh));
    if (!eh)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    uz_object_init(&eh->obj, UZ_MAGIC_ERRHANDLER);
    eh->kind = UZ_ERRHANDLER_USER;
    eh->target = UZ_ERRHANDLER_FOR_SESSION;
    eh->fn.session = session_errhandler_fn;
    *errhandler = uz_errhandler_handle(eh);
    return MPI_SUCCESS;
}

int uz_mpi_Session_set_errhandler(uz_session *session, uz_errhandler *errhandler)
{
    int err = uz_errhandler_check_target(errhandler, UZ_ERRHANDLER_FOR_SESSION);
    if (err)
        return err;
    uz_errhandler_retain(errhandler);
    uz_errhandler *old = session->errhandler;
    session->errhandler = errhandler;
    uz_errhandler_release(old);
    return MPI_SUCCESS;
}

int uz_mpi_Session_get_errhandler(uz_session *session, MPI_Errhandler *errhandler)
{
    uz_errhandler *eh = uz_session_errhandler(session);
    uz_errhandler_retain(eh);
    *errhandler = uz_errhandler_handle(eh);
    return MPI_SUCCESS;
}

int uz_mpi_Session_call_errhandler(uz_session *session, int errorcode)
{
    /* As MPI_Comm_call_errhandler: the handler ran; the call did its job. */
    uz_err_raise_session("MPI_Session_call_errhandler", session, errorcode);
    return MPI_SUCCESS;
}
