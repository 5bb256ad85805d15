/*
 * mpit.h — what the files of the MPI tool information interface (MPI_T,
 * MPI-4.1 chapter 15) share: whether it is initialized, its lock, and the
 * tables of control variables, performance variables, categories, enums
 * and events that tools index.
 *
 * MPI_T works before MPI_Init and after MPI_Finalize and has no error
 * handler: every procedure returns an MPI_T_ERR_* code.  The variables are
 * views of what the library already keeps: the tunables' table
 * (base/params.c) and the request layer's and transports' counters.
 * Nothing here is on a communication path.
 *
 * Locks, always taken in this order: uz_mpit_lock (tool state: handles,
 * sessions), then the library lock (uz_lock, only to read queues or write
 * a tunable the library may be reading).  Events have a lock of their own
 * (events.c) that is taken under the library lock and never takes either.
 */
#ifndef UZ_MPIT_MPIT_H
#define UZ_MPIT_MPIT_H

#include <pthread.h>
#include <stdint.h>

#include <mpi.h>

#include "base/params.h"

extern pthread_mutex_t uz_mpit_lock;

/* MPI_T_init_thread has been called more often than MPI_T_finalize. */
int uz_mpit_initialized(void);

/* Copy `src` to a caller's (buf, *len) pair the way MPI_T returns every
 * string: *len in is the room, *len out the length used with its NUL;
 * with no room (NULL buf or 0), only the length needed. */
void uz_mpit_copy_string(const char *src, char *buf, int *len);

/* ---------------------------------------------------------------- cvars */

/* The MPI_T scope of a tunable now (it depends on whether MPI runs). */
int uz_mpit_cvar_scope(const struct uz_param *p);
int uz_mpit_cvar_verbosity(const struct uz_param *p);
/* MPI_T datatype of a tunable's value, and the elements it takes. */
MPI_Datatype uz_mpit_cvar_datatype(const struct uz_param *p);
int uz_mpit_cvar_count(const struct uz_param *p);
void uz_mpit_cvar_free_all(void);

/* ---------------------------------------------------------------- enums */

/* An enumeration a variable's values are taken from. */
struct uz_mpit_enum {
    char name[64];
    int nitems;
    int (*item)(const struct uz_mpit_enum *e, int i, const char **word);   /* value of item i */
    const void *source;                 /* what `item` reads */
};
int uz_mpit_enums_build(void);
/* The enum of an enum-typed tunable, or NULL. */
const struct uz_mpit_enum *uz_mpit_param_enum(int param_index);
/* The transports, as uz_transport_table lists them. */
const struct uz_mpit_enum *uz_mpit_transport_enum(void);
MPI_T_enum uz_mpit_enum_handle(const struct uz_mpit_enum *e);

/* ---------------------------------------------------------------- pvars */

/* One performance variable.  Its raw value is a 64-bit count (nanoseconds
 * for a timer), shown as its datatype. */
struct uz_mpit_pvar {
    char name[64];
    char help[160];
    int var_class;                      /* MPI_T_PVAR_CLASS_* */
    MPI_Datatype datatype;              /* MPI_UNSIGNED_LONG_LONG, or MPI_DOUBLE for seconds */
    int bind;                           /* MPI_T_BIND_* */
    int readonly, continuous, atomic;
    int category;
    /* The raw value now; `context` is the bound communicator's context id. */
    uint64_t (*read)(const struct uz_mpit_pvar *v, uint32_t context);
    const void *source;                 /* what `read` reads */
    int slot;
    int enum_param;                     /* a state's values: the words of this tunable, or -1 */
};

int uz_mpit_pvar_count(void);
const struct uz_mpit_pvar *uz_mpit_pvar_at(int index);
int uz_mpit_pvars_build(void);
/* Write the raw value as the variable's datatype into buf. */
void uz_mpit_pvar_store(const struct uz_mpit_pvar *v, uint64_t raw, void *buf);
void uz_mpit_pvar_sessions_free_all(void);

/* ------------------------------------------------------------ categories */

int uz_mpit_categories_build(void);
/* The category of tunable `param_index`. */
int uz_mpit_param_category(int param_index);
/* The category named `name`, made if new (while building). */
int uz_mpit_category_of(const char *name, const char *desc);

/* ---------------------------------------------------------------- events */

int uz_mpit_event_count(void);
const char *uz_mpit_event_name(int index);
const char *uz_mpit_event_help(int index);
int uz_mpit_event_elements(int index);
const char *uz_mpit_event_element_name(int index, int element);
int uz_mpit_event_category(int index);
void uz_mpit_events_install(void);
void uz_mpit_events_free_all(void);

/* Timestamps of source 0 (sources.c), in nanoseconds. */
MPI_Count uz_mpit_now(void);

#endif /* UZ_MPIT_MPIT_H */
