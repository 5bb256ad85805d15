/*
 * errhandler.c — the predefined error handlers, user handlers, and raising
 * an error through the handler of the object it belongs to.
 */
#include <stdlib.h>

#include "base/runtime.h"
#include "core/comm.h"
#include "core/errhandler.h"
#include "core/error_raise.h"
#include "io/io.h"
#include "rma/rma.h"

uz_errhandler uz_errhandler_fatal = {
    .obj = { .magic = UZ_MAGIC_ERRHANDLER, .builtin = 1, .refcount = 1 },
    .kind = UZ_ERRHANDLER_FATAL, .target = UZ_ERRHANDLER_FOR_ANY,
};
uz_errhandler uz_errhandler_abort = {
    .obj = { .magic = UZ_MAGIC_ERRHANDLER, .builtin = 1, .refcount = 1 },
    .kind = UZ_ERRHANDLER_ABORT, .target = UZ_ERRHANDLER_FOR_ANY,
};
uz_errhandler uz_errhandler_return = {
    .obj = { .magic = UZ_MAGIC_ERRHANDLER, .builtin = 1, .refcount = 1 },
    .kind = UZ_ERRHANDLER_RETURN, .target = UZ_ERRHANDLER_FOR_ANY,
};

void uz_errhandler_retain(uz_errhandler *eh)
{
    uz_object_retain(&eh->obj);
}

void uz_errhandler_release(uz_errhandler *eh)
{
    if (eh && uz_object_release(&eh->obj)) {
        uz_object_free(eh, sizeof(*eh));
    }
}

static uz_errhandler *errhandler_new(enum uz_errhandler_target target)
{
    uz_errhandler *eh = uz_object_alloc(sizeof(*eh));
    if (eh) {
        uz_object_init(&eh->obj, UZ_MAGIC_ERRHANDLER);
        eh->kind = UZ_ERRHANDLER_USER;
        eh->target = target;
    }
    return eh;
}

static const char *target_name(enum uz_errhandler_target t)
{
    switch (t) {
    case UZ_ERRHANDLER_FOR_COMM: return "communicators";
    case UZ_ERRHANDLER_FOR_WIN: return "windows";
    case UZ_ERRHANDLER_FOR_FILE: return "files";
    case UZ_ERRHANDLER_FOR_SESSION: return "sessions";
    default: return "any object";
    }
}

/* May this handler be attached to an object of kind `t`? */
int uz_errhandler_check_target(const uz_errhandler *eh, enum uz_errhandler_target t)
{
    if (eh->target == UZ_ERRHANDLER_FOR_ANY || eh->target == t)
        return MPI_SUCCESS;
    return uz_err_make(MPI_ERR_ARG, "error handler was made for %s, not %s",
                       target_name(eh->target), target_name(t));
}

/* ---------------------------------------------------------------- raising */

/* Run the predefined behaviours; returns 1 when the user's function should
 * be called. */
static int run_predefined(const uz_errhandler *eh, int code, const char *fn)
{
    switch (eh->kind) {
    case UZ_ERRHANDLER_FATAL:
    case UZ_ERRHANDLER_ABORT:
        uz_err_fatal(code, fn);
    case UZ_ERRHANDLER_RETURN:
        return 0;
    case UZ_ERRHANDLER_USER:
        return 1;
    }
    return 0;
}

/* Has the program given MPI_COMM_SELF a handler of its own? */
static atomic_int self_handler_chosen;

/* Where an error that belongs to no object goes.  MPI-4.0 moved these from
 * MPI_COMM_WORLD to MPI_COMM_SELF (MPI-4.1 §9.3); programs written before
 * then set MPI_ERRORS_RETURN on MPI_COMM_WORLD and expect datatype, info
 * and keyval errors to come back.  MPICH serves both: MPI_COMM_SELF's
 * handler once the program has set one, MPI_COMM_WORLD's until then.  So
 * do we: a program that sets neither still stops at its first error. */
static uz_comm *objectless_error_comm(void)
{
    if (atomic_load_explicit(&self_handler_chosen, memory_order_relaxed))
        return &uz_comm_self;
    return &uz_comm_world;
}

int uz_err_raise_comm(const char *fn, uz_comm *comm, int code)
{
    uz_err_set_function(code, fn);
    if (comm == NULL)
        comm = objectless_error_comm();
    uz_errhandler *eh = comm->errhandler ? comm->errhandler : &uz_errhandler_fatal;
    if (run_predefined(eh, code, fn)) {
        MPI_Comm handle = uz_comm_handle(comm);
        int user_code = code;
        eh->fn.comm(&handle, &user_code);
    }
    return code;
}

/* A window's errors go to its handler, MPI_ERRORS_ARE_FATAL until the
 * program sets another (MPI-4.1 §9.3). */
int uz_err_raise_win(const char *fn, uz_win *win, int code)
{
    if (win == NULL)
        return uz_err_raise_comm(fn, NULL, code);
    uz_err_set_function(code, fn);
    uz_errhandler *eh = win->errhandler ? win->errhandler : &uz_errhandler_fatal;
    if (run_predefined(eh, code, fn)) {
        MPI_Win handle = uz_win_handle(win);
        int user_code = code;
        eh->fn.win(&handle, &user_code);
    }
    return code;
}

/* Files' errors go to the file's handler; a file that has none, and
 * errors of MPI_File_open and MPI_File_delete (no file yet), go to the
 * handler of MPI_FILE_NULL, MPI_ERRORS_RETURN until the program sets
 * another (MPI-4.1 §9.3, §14.7). */
static uz_errhandler *file_default = &uz_errhandler_return;

uz_errhandler *uz_io_default_errhandler(void)
{
    return file_default;
}

int uz_err_raise_file(const char *fn, uz_file *file, int code)
{
    uz_err_set_function(code, fn);
    uz_errhandler *eh = file && file->errhandler ? file->errhandler : file_default;
    if (run_predefined(eh, code, fn)) {
        MPI_File handle = file ? uz_file_handle(file) : MPI_FILE_NULL;
        int user_code = code;
        eh->fn.file(&handle, &user_code);
    }
    return code;
}

/* --------------------------------------------------- MPI procedures */

int uz_mpi_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    if (comm_errhandler_fn == NULL)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: comm_errhandler_fn is NULL");
    uz_errhandler *eh = errhandler_new(UZ_ERRHANDLER_FOR_COMM);
    if (!eh)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    eh->fn.comm = comm_errhandler_fn;
    *errhandler = (MPI_Errhandler)eh;
    return MPI_SUCCESS;
}

int uz_mpi_Comm_set_errhandler(uz_comm *comm, uz_errhandler *errhandler)
{
    int err = uz_errhandler_check_target(errhandler, UZ_ERRHANDLER_FOR_COMM);
    if (err)
        return err;
    if (comm == &uz_comm_self)
        atomic_store_explicit(&self_handler_chosen, 1, memory_order_relaxed);
    uz_errhandler_retain(errhandler);
    uz_errhandler *old = comm->errhandler;
    comm->errhandler = errhandler;
    uz_errhandler_release(old);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_get_errhandler(uz_comm *comm, MPI_Errhandler *errhandler)
{
    uz_errhandler *eh = comm->errhandler ? comm->errhandler : &uz_errhandler_fatal;
    uz_errhandler_retain(eh);
    *errhandler = uz_errhandler_handle(eh);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_call_errhandler(uz_comm *comm, int errorcode)
{
    /* The handler runs; what this call returns is MPI_SUCCESS unless the
     * handler returned, in which case the standard lets us return the code:
     * we return success, as the call itself did its job. */
    uz_err_raise_comm("MPI_Comm_call_errhandler", comm, errorcode);
    return MPI_SUCCESS;
}

int uz_mpi_Errhandler_free(MPI_Errhandler *errhandler)
{
    uz_errhandler *eh = uz_errhandler_get(*errhandler);
    if (!eh)
        return uz_err_make(MPI_ERR_ARG, "invalid error handler (argument errhandler)");
    uz_errhandler_release(eh);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ windows */

int uz_mpi_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    if (win_errhandler_fn == NULL)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: win_errhandler_fn is NULL");
    uz_errhandler *eh = errhandler_new(UZ_ERRHANDLER_FOR_WIN);
    if (!eh)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    eh->fn.win = win_errhandler_fn;
    *errhandler = (MPI_Errhandler)eh;
    return MPI_SUCCESS;
}

int uz_mpi_Win_set_errhandler(uz_win *win, uz_errhandler *errhandler)
{
    int err = uz_errhandler_check_target(errhandler, UZ_ERRHANDLER_FOR_WIN);
    if (err)
        return err;
    uz_errhandler_retain(errhandler);
    uz_errhandler *old = win->errhandler;
    win->errhandler = errhandler;
    if (old)
        uz_errhandler_release(old);
    return MPI_SUCCESS;
}

int uz_mpi_Win_get_errhandler(uz_win *win, MPI_Errhandler *errhandler)
{
    uz_errhandler *eh = win->errhandler ? win->errhandler : &uz_errhandler_fatal;
    uz_errhandler_retain(eh);
    *errhandler = uz_errhandler_handle(eh);
    return MPI_SUCCESS;
}

int uz_mpi_Win_call_errhandler(uz_win *win, int errorcode)
{
    uz_err_raise_win("MPI_Win_call_errhandler", win, errorcode);
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- files */

int uz_mpi_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    if (file_errhandler_fn == NULL)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: file_errhandler_fn is NULL");
    uz_errhandler *eh = errhandler_new(UZ_ERRHANDLER_FOR_FILE);
    if (!eh)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    eh->fn.file = file_errhandler_fn;
    *errhandler = (MPI_Errhandler)eh;
    return MPI_SUCCESS;
}

/* `file` NULL: MPI_FILE_NULL, the default of files. */
int uz_mpi_File_set_errhandler(uz_file *file, uz_errhandler *errhandler)
{
    int err = uz_errhandler_check_target(errhandler, UZ_ERRHANDLER_FOR_FILE);
    if (err)
        return err;
    uz_errhandler_retain(errhandler);
    uz_errhandler **slot = file ? &file->errhandler : &file_default;
    uz_errhandler *old = *slot;
    *slot = errhandler;
    if (old)
        uz_errhandler_release(old);
    return MPI_SUCCESS;
}

int uz_mpi_File_get_errhandler(uz_file *file, MPI_Errhandler *errhandler)
{
    uz_errhandler *eh = file && file->errhandler ? file->errhandler : file_default;
    uz_errhandler_retain(eh);
    *errhandler = uz_errhandler_handle(eh);
    return MPI_SUCCESS;
}

int uz_mpi_File_call_errhandler(uz_file *file, int errorcode)
{
    uz_err_raise_file("MPI_File_call_errhandler", file, errorcode);
    return MPI_SUCCESS;
}
