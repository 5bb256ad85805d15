/*
 * errhandler.h — error handler objects: the three predefined ones and those
 * made by MPI_{Comm,Win,File,Session}_create_errhandler.
 */
#ifndef UZ_CORE_ERRHANDLER_H
#define UZ_CORE_ERRHANDLER_H

#include "base/object.h"

enum uz_errhandler_kind {
    UZ_ERRHANDLER_FATAL,        /* MPI_ERRORS_ARE_FATAL: abort the job */
    UZ_ERRHANDLER_ABORT,        /* MPI_ERRORS_ABORT: abort (the whole job here) */
    UZ_ERRHANDLER_RETURN,       /* MPI_ERRORS_RETURN */
    UZ_ERRHANDLER_USER,         /* a user function */
};

/* Which object kind a user handler was made for. */
enum uz_errhandler_target {
    UZ_ERRHANDLER_FOR_ANY,
    UZ_ERRHANDLER_FOR_COMM,
    UZ_ERRHANDLER_FOR_WIN,
    UZ_ERRHANDLER_FOR_FILE,
    UZ_ERRHANDLER_FOR_SESSION,
};

typedef struct MPI_ABI_Errhandler {
    struct uz_object obj;
    enum uz_errhandler_kind kind;
    enum uz_errhandler_target target;
    union {
        MPI_Comm_errhandler_function *comm;
        MPI_Win_errhandler_function *win;
        MPI_File_errhandler_function *file;
        MPI_Session_errhandler_function *session;
    } fn;
} uz_errhandler;

extern uz_errhandler uz_errhandler_fatal, uz_errhandler_abort, uz_errhandler_return;

static inline uz_errhandler *uz_errhandler_get(MPI_Errhandler h)
{
    if (uz_handle_is_predefined(h)) {
        if (h == MPI_ERRORS_ARE_FATAL) return &uz_errhandler_fatal;
        if (h == MPI_ERRORS_RETURN) return &uz_errhandler_return;
        if (h == MPI_ERRORS_ABORT) return &uz_errhandler_abort;
        return NULL;
    }
    return uz_object_check(h, UZ_MAGIC_ERRHANDLER);
}

static inline MPI_Errhandler uz_errhandler_handle(uz_errhandler *eh)
{
    if (eh == &uz_errhandler_fatal) return MPI_ERRORS_ARE_FATAL;
    if (eh == &uz_errhandler_return) return MPI_ERRORS_RETURN;
    if (eh == &uz_errhandler_abort) return MPI_ERRORS_ABORT;
    return (MPI_Errhandler)eh;
}

/* MPI_SUCCESS when `eh` may be attached to an object of kind `t`. */
int uz_errhandler_check_target(const uz_errhandler *eh, enum uz_errhandler_target t);

void uz_errhandler_retain(uz_errhandler *eh);
void uz_errhandler_release(uz_errhandler *eh);

#endif /* UZ_CORE_ERRHANDLER_H */
