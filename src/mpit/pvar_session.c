/*
 * pvar_session.c — MPI_T performance-variable sessions and handles.
 *
 * A session isolates one tool's handles from another's.  A handle of a
 * counter or timer keeps the raw value when it was last started or reset
 * (`base`) and what it gathered before its last stop (`gathered`); its
 * value is gathered + (raw now − base) while started.  So starting,
 * stopping and resetting one handle never touches the library's counter
 * or another handle.  Levels and high-water marks are continuous: a handle
 * shows the library's value as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "mpit/mpit.h"

struct MPI_T_pvar_handle_t {
    struct MPI_T_pvar_handle_t *next;
    const struct uz_mpit_pvar *v;
    uint32_t context;                   /* of the bound communicator */
    int started;
    uint64_t base, gathered;
};

struct MPI_T_pvar_session_t {
    struct MPI_T_pvar_session_t *next;
    struct MPI_T_pvar_handle_t *handles;
};

static struct MPI_T_pvar_session_t *sessions;

/* Called with uz_mpit_lock held, as everything below. */
static int live_session(const struct MPI_T_pvar_session_t *s)
{
    for (const struct MPI_T_pvar_session_t *x = sessions; x; x = x->next)
        if (x == s)
            return 1;
    return 0;
}

static int live_handle(const struct MPI_T_pvar_session_t *s, const struct MPI_T_pvar_handle_t *h)
{
    for (const struct MPI_T_pvar_handle_t *x = s->handles; x; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

static uint64_t raw(const struct MPI_T_pvar_handle_t *h)
{
    return h->v->read(h->v, h->context);
}

static int counts_up(const struct uz_mpit_pvar *v)
{
    return v->var_class == MPI_T_PVAR_CLASS_COUNTER || v->var_class == MPI_T_PVAR_CLASS_TIMER;
}

/* The handle's value when the variable's raw value is `now`. */
static uint64_t value_at(const struct MPI_T_pvar_handle_t *h, uint64_t now)
{
    if (!counts_up(h->v))
        return now;
    uint64_t v = h->gathered;
    if (h->started)     /* a transport's counters start again from 0 when it reopens */
        v += now >= h->base ? now - h->base : now;
    return v;
}

static uint64_t value(const struct MPI_T_pvar_handle_t *h)
{
    return value_at(h, raw(h));
}

static void set_value_at(struct MPI_T_pvar_handle_t *h, uint64_t v, uint64_t now)
{
    h->gathered = v;
    h->base = now;
}

static void set_value(struct MPI_T_pvar_handle_t *h, uint64_t v)
{
    set_value_at(h, v, raw(h));
}

/* ------------------------------------------------------------ sessions */

int uz_mpi_T_pvar_session_create(MPI_T_pvar_session *pe_session)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!pe_session)
        return MPI_T_ERR_INVALID;
    struct MPI_T_pvar_session_t *s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_T_ERR_MEMORY;
    pthread_mutex_lock(&uz_mpit_lock);
    s->next = sessions;
    sessions = s;
    pthread_mutex_unlock(&uz_mpit_lock);
    *pe_session = s;
    return MPI_SUCCESS;
}

static void session_destroy(struct MPI_T_pvar_session_t *s)
{
    while (s->handles) {
        struct MPI_T_pvar_handle_t *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

int uz_mpi_T_pvar_session_free(MPI_T_pvar_session *pe_session)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!pe_session)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&uz_mpit_lock);
    for (struct MPI_T_pvar_session_t **x = &sessions; *x; x = &(*x)->next) {
        if (*x == *pe_session) {
            struct MPI_T_pvar_session_t *s = *x;
            *x = s->next;
            session_destroy(s);
            pthread_mutex_unlock(&uz_mpit_lock);
            *pe_session = MPI_T_PVAR_SESSION_NULL;
            return MPI_SUCCESS;
        }
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return MPI_T_ERR_INVALID_SESSION;
}

void uz_mpit_pvar_sessions_free_all(void)
{
    while (sessions) {
        struct MPI_T_pvar_session_t *s = sessions;
        sessions = s->next;
        session_destroy(s);
    }
}

/* ------------------------------------------------------------- handles */

/* The context a variable bound to a communicator looks at. */
static int bound_context(const struct uz_mpit_pvar *v, void *obj_handle, uint32_t *context)
{
    *context = 0;
    if (v->bind == MPI_T_BIND_NO_OBJECT)
        return MPI_SUCCESS;
    if (!obj_handle)
        return MPI_T_ERR_INVALID_HANDLE;
    MPI_Comm h = *(MPI_Comm *)obj_handle;
    uz_comm *c = h == MPI_COMM_NULL ? NULL : uz_comm_get(h);
    if (!c)
        return MPI_T_ERR_INVALID_HANDLE;
    *context = c->context_id;
    return MPI_SUCCESS;
}

int uz_mpi_T_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                               MPI_T_pvar_handle *handle, int *count)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc = MPI_SUCCESS;
    const struct uz_mpit_pvar *v = uz_mpit_pvar_at(pvar_index);
    struct MPI_T_pvar_handle_t *h = NULL;
    uint32_t context = 0;
    if (!live_session(pe_session))
        rc = MPI_T_ERR_INVALID_SESSION;
    else if (!v)
        rc = MPI_T_ERR_INVALID_INDEX;
    else if ((rc = bound_context(v, obj_handle, &context)) == MPI_SUCCESS && !(h = calloc(1, sizeof(*h))))
        rc = MPI_T_ERR_MEMORY;
    if (rc == MPI_SUCCESS) {
        h->v = v;
        h->context = context;
        h->started = v->continuous;
        h->base = raw(h);
        h->next = pe_session->handles;
        pe_session->handles = h;
        *handle = h;
        *count = 1;
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

int uz_mpi_T_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!handle)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc = MPI_T_ERR_INVALID_HANDLE;
    if (!live_session(pe_session)) {
        rc = MPI_T_ERR_INVALID_SESSION;
    } else {
        for (struct MPI_T_pvar_handle_t **x = &pe_session->handles; *x; x = &(*x)->next) {
            if (*x == *handle) {
                struct MPI_T_pvar_handle_t *h = *x;
                *x = h->next;
                free(h);
                *handle = MPI_T_PVAR_HANDLE_NULL;
                rc = MPI_SUCCESS;
                break;
            }
        }
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

/* ------------------------------------------------- start, stop, reset */

static int start_one(struct MPI_T_pvar_handle_t *h)
{
    if (h->v->continuous)
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (!h->started) {
        h->base = raw(h);
        h->started = 1;
    }
    return MPI_SUCCESS;
}

static int stop_one(struct MPI_T_pvar_handle_t *h)
{
    if (h->v->continuous)
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (h->started) {
        h->gathered = value(h);
        h->started = 0;
    }
    return MPI_SUCCESS;
}

static int reset_one(struct MPI_T_pvar_handle_t *h)
{
    if (h->v->readonly)
        return MPI_T_ERR_PVAR_NO_WRITE;
    set_value(h, 0);
    return MPI_SUCCESS;
}

/* One handle, or every handle of the session that the operation applies
 * to (MPI_T_PVAR_ALL_HANDLES skips the rest, as the standard says). */
static int apply(MPI_T_pvar_session s, MPI_T_pvar_handle handle, int (*op)(struct MPI_T_pvar_handle_t *h))
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc;
    if (!live_session(s)) {
        rc = MPI_T_ERR_INVALID_SESSION;
    } else if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct MPI_T_pvar_handle_t *h = s->handles; h; h = h->next)
            op(h);
        rc = MPI_SUCCESS;
    } else if (!live_handle(s, handle)) {
        rc = MPI_T_ERR_INVALID_HANDLE;
    } else {
        rc = op(handle);
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

int uz_mpi_T_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return apply(pe_session, handle, start_one);
}

int uz_mpi_T_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return apply(pe_session, handle, stop_one);
}

int uz_mpi_T_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return apply(pe_session, handle, reset_one);
}

/* ------------------------------------------------ read, write, readreset */

enum access { READ, WRITE, READRESET };

static int access_one(MPI_T_pvar_session s, MPI_T_pvar_handle handle, void *buf, enum access how)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_mutex_lock(&uz_mpit_lock);
    int rc = MPI_SUCCESS;
    if (!live_session(s))
        rc = MPI_T_ERR_INVALID_SESSION;
    else if (handle == MPI_T_PVAR_ALL_HANDLES || !live_handle(s, handle))
        rc = MPI_T_ERR_INVALID_HANDLE;
    else if (!buf)
        rc = MPI_T_ERR_INVALID;
    else if (how != READ && handle->v->readonly)
        rc = MPI_T_ERR_PVAR_NO_WRITE;
    else if (how == READRESET && !handle->v->atomic)
        rc = MPI_T_ERR_PVAR_NO_ATOMIC;
    if (rc == MPI_SUCCESS) {
        if (how == WRITE) {
            uint64_t v;
            if (handle->v->datatype == MPI_DOUBLE) {
                double seconds;
                memcpy(&seconds, buf, sizeof(seconds));
                v = seconds > 0 ? (uint64_t)(seconds * 1e9) : 0;
            } else {
                unsigned long long x;
                memcpy(&x, buf, sizeof(x));
                v = x;
            }
            set_value(handle, v);
        } else {
            /* One reading serves both, so nothing counted between them is lost. */
            uint64_t now = raw(handle);
            uz_mpit_pvar_store(handle->v, value_at(handle, now), buf);
            if (how == READRESET)
                set_value_at(handle, 0, now);
        }
    }
    pthread_mutex_unlock(&uz_mpit_lock);
    return rc;
}

int uz_mpi_T_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    return access_one(pe_session, handle, buf, READ);
}

int uz_mpi_T_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    return access_one(pe_session, handle, buf, READRESET);
}

int uz_mpi_T_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void *buf)
{
    return access_one(pe_session, handle, (void *)buf, WRITE);
}
