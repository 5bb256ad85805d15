/*
 * error_raise.h — raising an error code through the error handler of the
 * object it belongs to (a communicator, window, file or session), which
 * MPI core code does on its way back to the user.  The codes themselves
 * and their messages are the services layer's (base/errors.h).
 */
#ifndef UZ_CORE_ERROR_RAISE_H
#define UZ_CORE_ERROR_RAISE_H

#include "base/errors.h"

/* Raise `code` from function `fn` through the error handler of the object
 * (NULL: the handler of MPI_COMM_SELF, where MPI-4 sends errors that belong
 * to no object).  Returns the code for the binding to return when the
 * handler returns. */
int uz_err_raise_comm(const char *fn, uz_comm *comm, int code) UZ_COLD;
int uz_err_raise_win(const char *fn, uz_win *win, int code) UZ_COLD;
int uz_err_raise_file(const char *fn, uz_file *file, int code) UZ_COLD;
int uz_err_raise_session(const char *fn, uz_session *session, int code) UZ_COLD;
/* Through a session error handler with no session yet (MPI_Session_init's
 * errhandler argument): `handle` is what the handler is shown. */
struct MPI_ABI_Errhandler;
int uz_err_raise_session_handler(const char *fn, struct MPI_ABI_Errhandler *eh, MPI_Session handle,
                                 int code) UZ_COLD;
static inline int uz_err_raise_self(const char *fn, int code)
{
    return uz_err_raise_comm(fn, NULL, code);
}

#endif /* UZ_CORE_ERROR_RAISE_H */
