/*
 * errhandlers.c — error handlers written in Fortran.
 *
 * C calls a handler as fn(&comm, &code, ...) with the C handle of the
 * object that failed.  The glue creates every Fortran handler with one
 * trampoline per object kind and remembers which Fortran procedure each
 * error handler stands for; the trampoline asks the object for its error
 * handler, looks the procedure up and calls it with the Fortran handle and
 * code.  An entry stays until the same error handler address is made
 * again: a handler freed by MPI_Errhandler_free may still be attached to
 * an object, and then it still runs.
 */
#include <pthread.h>
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void fortran_errhandler(MPI_Fint *object, MPI_Fint *code);

struct entry {
    MPI_Errhandler eh;
    uzf_proc fn;
    struct entry *next;
};
static struct entry *entries;
static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;

static int remember(MPI_Errhandler eh, uzf_proc fn)
{
    pthread_mutex_lock(&entries_lock);
    struct entry *e = entries;
    while (e && e->eh != eh)
        e = e->next;
    if (!e && (e = malloc(sizeof(*e))) != NULL) {
        e->eh = eh;
        e->next = entries;
        entries = e;
    }
    if (e)
        e->fn = fn;
    pthread_mutex_unlock(&entries_lock);
    return e ? MPI_SUCCESS : uzf_nomem();
}

static uzf_proc lookup(MPI_Errhandler eh)
{
    pthread_mutex_lock(&entries_lock);
    struct entry *e = entries;
    while (e && e->eh != eh)
        e = e->next;
    uzf_proc fn = e ? e->fn : NULL;
    pthread_mutex_unlock(&entries_lock);
    return fn;
}

static void call(MPI_Errhandler eh, MPI_Fint object, int code)
{
    uzf_proc fn = lookup(eh);
    MPI_Fint fcode = code;
    if (fn)
        ((fortran_errhandler *)fn)(&object, &fcode);
}

static void comm_trampoline(MPI_Comm *comm, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(*comm, &eh);
    call(eh, PMPI_Comm_c2f(*comm), *code);
    PMPI_Errhandler_free(&eh);
}

static void win_trampoline(MPI_Win *win, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Win_get_errhandler(*win, &eh);
    call(eh, PMPI_Win_c2f(*win), *code);
    PMPI_Errhandler_free(&eh);
}

static void file_trampoline(MPI_File *file, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_File_get_errhandler(*file, &eh);
    call(eh, PMPI_File_c2f(*file), *code);
    PMPI_Errhandler_free(&eh);
}

static void session_trampoline(MPI_Session *session, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Session_get_errhandler(*session, &eh);
    call(eh, PMPI_Session_c2f(*session), *code);
    PMPI_Errhandler_free(&eh);
}

static int created(int rc, MPI_Errhandler eh, uzf_proc fn, MPI_Fint *errhandler)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = remember(eh, fn)) != MPI_SUCCESS) {
        PMPI_Errhandler_free(&eh);
        return rc;
    }
    *errhandler = PMPI_Errhandler_c2f(eh);
    return MPI_SUCCESS;
}

int uzf_Comm_create_errhandler(uzf_proc fn, MPI_Fint *errhandler)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Comm_create_errhandler(comm_trampoline, &eh);
    return created(rc, eh, fn, errhandler);
}

int uzf_Win_create_errhandler(uzf_proc fn, MPI_Fint *errhandler)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Win_create_errhandler(win_trampoline, &eh);
    return created(rc, eh, fn, errhandler);
}

int uzf_File_create_errhandler(uzf_proc fn, MPI_Fint *errhandler)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_File_create_errhandler(file_trampoline, &eh);
    return created(rc, eh, fn, errhandler);
}

int uzf_Session_create_errhandler(uzf_proc fn, MPI_Fint *errhandler)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Session_create_errhandler(session_trampoline, &eh);
    return created(rc, eh, fn, errhandler);
}
