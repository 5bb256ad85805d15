/*
 * events.c — MPI_T events: registrations, their callbacks, dropped-event
 * handlers, and the instances a callback reads.
 *
 * The library announces an event (base/tool_events.h) on the thread where
 * it happens, inside an MPI call, and the callback runs there and then.
 * That context is MPI_T_CB_REQUIRE_MPI_RESTRICTED (a callback must not call
 * MPI procedures other than MPI_T_event_* on the instance it was given),
 * and MPI_T_CB_REQUIRE_THREAD_SAFE under MPI_THREAD_MULTIPLE, where two
 * threads may announce at once.  A registration with no callback for a
 * level at least that strict misses the event: it is counted as dropped,
 * and the registration's dropped handler hears the count before its next
 * callback runs, or when a callback is registered.
 *
 * Registrations are guarded by a read-write lock: announcements read,
 * changes write.  Announcements happen with the library lock held, so
 * nothing here takes the library lock or uz_mpit_lock.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/runtime.h"
#include "base/tool_events.h"
#include "core/info.h"
#include "mpit/mpit.h"

/* The safety levels, least strict first, as indices of a registration's callbacks. */
enum { LEVEL_NONE, LEVEL_MPI_RESTRICTED, LEVEL_THREAD_SAFE, LEVEL_ASYNC_SIGNAL_SAFE, LEVELS };
static const MPI_T_cb_safety level_value[LEVELS] = {
    MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
};

struct MPI_T_event_registration_t {
    struct MPI_T_event_registration_t *next;
    int event;
    uz_info *info;
    struct {
        MPI_T_event_cb_function *fn;
        void *user_data;
        uz_info *info;
    } cb[LEVELS];
    MPI_T_event_dropped_cb_function *dropped_fn;
    atomic_ulong dropped;
};

struct MPI_T_event_instance_t {
    int event;
    int64_t elements[UZ_TOOL_EVENT_ELEMENTS];
    MPI_Count timestamp;
};

static pthread_rwlock_t ev_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct MPI_T_event_registration_t *registrations;
/* The instance a callback on this thread was given, the only one it may read. */
static _Thread_local const struct MPI_T_event_instance_t *current;

static int level_of(MPI_T_cb_safety s)
{
    for (int l = 0; l < LEVELS; l++)
        if (level_value[l] == s)
            return l;
    return -1;
}

/* ------------------------------------------------------- announcements */

/* The callback to run in a context needing level `need`: the least strict
 * one registered at `need` or above; -1 when there is none. */
static int pick(const struct MPI_T_event_registration_t *r, int need)
{
    for (int l = need; l < LEVELS; l++)
        if (r->cb[l].fn)
            return l;
    return -1;
}

static void sink(enum uz_tool_event ev, const int64_t *elements)
{
    struct MPI_T_event_instance_t inst = { .event = (int)ev, .timestamp = uz_mpit_now() };
    memcpy(inst.elements, elements, sizeof(inst.elements));
    int need = uz_rt.thread_multiple ? LEVEL_THREAD_SAFE : LEVEL_MPI_RESTRICTED;
    pthread_rwlock_rdlock(&ev_lock);
    const struct MPI_T_event_instance_t *outer = current;
    current = &inst;
    for (struct MPI_T_event_registration_t *r = registrations; r; r = r->next) {
        if (r->event != (int)ev)
            continue;
        int l = pick(r, need);
        if (l < 0) {
            atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
            continue;
        }
        unsigned long missed = atomic_exchange_explicit(&r->dropped, 0, memory_order_relaxed);
        if (missed && r->dropped_fn)
            r->dropped_fn((MPI_Count)missed, r, 0, level_value[need], r->cb[l].user_data);
        r->cb[l].fn(&inst, r, level_value[need], r->cb[l].user_data);
    }
    current = outer;
    pthread_rwlock_unlock(&ev_lock);
}

void uz_mpit_events_install(void)
{
    atomic_store_explicit(&uz_tool_event_sink_fn, sink, memory_order_release);
}

/* Called by the last MPI_T_finalize, with no callback running. */
void uz_mpit_events_free_all(void)
{
    pthread_rwlock_wrlock(&ev_lock);
    while (registrations) {
        struct MPI_T_event_registration_t *r = registrations;
        registrations = r->next;
        atomic_fetch_sub(&uz_tool_event_watchers[r->event], 1);
        uz_info_free(r->info);
        for (int l = 0; l < LEVELS; l++)
            uz_info_free(r->cb[l].info);
        free(r);
    }
    pthread_rwlock_unlock(&ev_lock);
}

/* ----------------------------------------------------------- the types */

int uz_mpi_T_event_get_num(int *num_events)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = uz_mpit_event_count();
    return MPI_SUCCESS;
}

int uz_mpi_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                            MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                            int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len,
                            int *bind)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (event_index < 0 || event_index >= uz_mpit_event_count())
        return MPI_T_ERR_INVALID_INDEX;
    int n = uz_mpit_event_elements(event_index);
    int room = num_elements ? *num_elements : 0;
    for (int i = 0; i < n && i < room; i++) {
        if (array_of_datatypes)
            array_of_datatypes[i] = MPI_INT64_T;
        if (array_of_displacements)
            array_of_displacements[i] = (MPI_Aint)(i * sizeof(int64_t));
    }
    if (num_elements)
        *num_elements = n;
    if (info) {
        uz_info *made = uz_info_new();
        if (!made)
            return MPI_T_ERR_MEMORY;
        *info = uz_info_handle(made);
    }
    uz_mpit_copy_string(uz_mpit_event_name(event_index), name, name_len);
    uz_mpit_copy_string(uz_mpit_event_help(event_index), desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    return MPI_SUCCESS;
}

int uz_mpi_T_event_get_index(const char *name, int *event_index)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < uz_mpit_event_count(); i++) {
        if (strcmp(uz_mpit_event_name(i), name) == 0) {
            *event_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

/* ------------------------------------------------------- registrations */

/* Is `r` registered?  Called with ev_lock held. */
static int live(const struct MPI_T_event_registration_t *r)
{
    for (const struct MPI_T_event_registration_t *x = registrations; x; x = x->next)
        if (x == r)
            return 1;
    return 0;
}

/* A copy of an info argument (MPI_INFO_NULL: an empty one). */
static uz_info *copy_info(MPI_Info info)
{
    return info == MPI_INFO_NULL ? uz_info_new() : uz_info_dup(uz_info_get(info));
}

int uz_mpi_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                MPI_T_event_registration *event_registration)
{
    (void)obj_handle;               /* every event is bound to no object */
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (event_index < 0 || event_index >= uz_mpit_event_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (!event_registration)
        return MPI_T_ERR_INVALID;
    struct MPI_T_event_registration_t *r = calloc(1, sizeof(*r));
    if (!r || !(r->info = copy_info(info))) {
        free(r);
        return MPI_T_ERR_MEMORY;
    }
    r->event = event_index;
    pthread_rwlock_wrlock(&ev_lock);
    r->next = registrations;
    registrations = r;
    atomic_fetch_add(&uz_tool_event_watchers[event_index], 1);
    pthread_rwlock_unlock(&ev_lock);
    *event_registration = r;
    return MPI_SUCCESS;
}

int uz_mpi_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                               MPI_T_event_free_cb_function free_cb_function)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_rwlock_wrlock(&ev_lock);
    struct MPI_T_event_registration_t *r = NULL;
    for (struct MPI_T_event_registration_t **x = &registrations; *x; x = &(*x)->next) {
        if (*x == event_registration) {
            r = *x;
            *x = r->next;
            atomic_fetch_sub(&uz_tool_event_watchers[r->event], 1);
            break;
        }
    }
    pthread_rwlock_unlock(&ev_lock);
    if (!r)
        return MPI_T_ERR_INVALID_HANDLE;
    /* No callback of it can run any more: the tool may free what they use. */
    if (free_cb_function)
        free_cb_function(r, MPI_T_CB_REQUIRE_NONE, user_data);
    uz_info_free(r->info);
    for (int l = 0; l < LEVELS; l++)
        uz_info_free(r->cb[l].info);
    free(r);
    return MPI_SUCCESS;
}

int uz_mpi_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    int l = level_of(cb_safety);
    pthread_rwlock_wrlock(&ev_lock);
    int rc = MPI_SUCCESS;
    unsigned long missed = 0;
    MPI_T_event_dropped_cb_function *dropped_fn = NULL;
    if (!live(event_registration)) {
        rc = MPI_T_ERR_INVALID_HANDLE;
    } else if (l < 0) {
        rc = MPI_T_ERR_INVALID;
    } else {
        struct MPI_T_event_registration_t *r = event_registration;
        uz_info *copy = event_cb_function ? copy_info(info) : NULL;
        if (event_cb_function && !copy) {
            rc = MPI_T_ERR_MEMORY;
        } else {
            uz_info_free(r->cb[l].info);
            r->cb[l].fn = event_cb_function;
            r->cb[l].user_data = user_data;
            r->cb[l].info = copy;
            if (event_cb_function && r->dropped_fn) {
                missed = atomic_exchange(&r->dropped, 0);
                dropped_fn = r->dropped_fn;
            }
        }
    }
    pthread_rwlock_unlock(&ev_lock);
    /* Outside the lock: the handler may read what the interface says. */
    if (missed)
        dropped_fn((MPI_Count)missed, event_registration, 0, MPI_T_CB_REQUIRE_NONE, user_data);
    return rc;
}

int uz_mpi_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                       MPI_T_event_dropped_cb_function dropped_cb_function)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    pthread_rwlock_wrlock(&ev_lock);
    int rc = live(event_registration) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
    if (rc == MPI_SUCCESS)
        event_registration->dropped_fn = dropped_cb_function;
    pthread_rwlock_unlock(&ev_lock);
    return rc;
}

/* ------------------------------------------------------------ infos */

/* The info of a registration (level -1) or of one of its callbacks. */
static int info_get(MPI_T_event_registration r, int level, MPI_Info *info_used)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!info_used)
        return MPI_T_ERR_INVALID;
    pthread_rwlock_rdlock(&ev_lock);
    int rc = MPI_SUCCESS;
    if (!live(r)) {
        rc = MPI_T_ERR_INVALID_HANDLE;
    } else {
        uz_info *copy = uz_info_dup(level < 0 ? r->info : r->cb[level].info);
        if (copy)
            *info_used = uz_info_handle(copy);
        else
            rc = MPI_T_ERR_MEMORY;
    }
    pthread_rwlock_unlock(&ev_lock);
    return rc;
}

static int info_set(MPI_T_event_registration r, int level, MPI_Info info)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    uz_info *copy = copy_info(info);
    if (!copy)
        return MPI_T_ERR_MEMORY;
    pthread_rwlock_wrlock(&ev_lock);
    int rc = MPI_SUCCESS;
    if (!live(r)) {
        rc = MPI_T_ERR_INVALID_HANDLE;
    } else {
        uz_info **slot = level < 0 ? &r->info : &r->cb[level].info;
        uz_info_free(*slot);
        *slot = copy;
        copy = NULL;
    }
    pthread_rwlock_unlock(&ev_lock);
    uz_info_free(copy);
    return rc;
}

int uz_mpi_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    return info_get(event_registration, -1, info_used);
}

int uz_mpi_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    return info_set(event_registration, -1, info);
}

int uz_mpi_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     MPI_Info *info_used)
{
    int l = level_of(cb_safety);
    if (l < 0)
        return uz_mpit_initialized() ? MPI_T_ERR_INVALID : MPI_T_ERR_NOT_INITIALIZED;
    return info_get(event_registration, l, info_used);
}

int uz_mpi_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     MPI_Info info)
{
    int l = level_of(cb_safety);
    if (l < 0)
        return uz_mpit_initialized() ? MPI_T_ERR_INVALID : MPI_T_ERR_NOT_INITIALIZED;
    return info_set(event_registration, l, info);
}

/* ----------------------------------------------------------- instances */

static const struct MPI_T_event_instance_t *instance(MPI_T_event_instance event_instance)
{
    return event_instance && event_instance == current ? event_instance : NULL;
}

int uz_mpi_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct MPI_T_event_instance_t *e = instance(event_instance);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (element_index < 0 || element_index >= uz_mpit_event_elements(e->event))
        return MPI_T_ERR_INVALID_ITEM;
    if (!buffer)
        return MPI_T_ERR_INVALID;
    memcpy(buffer, &e->elements[element_index], sizeof(int64_t));
    return MPI_SUCCESS;
}

int uz_mpi_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct MPI_T_event_instance_t *e = instance(event_instance);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buffer)
        return MPI_T_ERR_INVALID;
    memcpy(buffer, e->elements, sizeof(int64_t) * (size_t)uz_mpit_event_elements(e->event));
    return MPI_SUCCESS;
}

int uz_mpi_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct MPI_T_event_instance_t *e = instance(event_instance);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!event_timestamp)
        return MPI_T_ERR_INVALID;
    *event_timestamp = e->timestamp;
    return MPI_SUCCESS;
}

int uz_mpi_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!instance(event_instance))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!source_index)
        return MPI_T_ERR_INVALID;
    *source_index = 0;
    return MPI_SUCCESS;
}
