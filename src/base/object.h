/*
 * object.h — what every MPI object shares: a magic word and a reference count.
 *
 * A user handle *is* the object pointer (struct MPI_ABI_Comm is Uzura's
 * communicator).  Predefined handles are the small integers the standard ABI
 * fixes; they index per-kind tables of built-in objects.  Every other object
 * lives in the object arena (object_arena.c), so that any handle value can
 * be validated safely: one outside the arena is rejected by a subtract, a
 * rotate and a compare, and one inside is always readable.  Every object
 * starts with struct uz_object, whose magic names the kind; it is cleared
 * when the object is freed, which turns most use-after-free mistakes into a
 * clean "invalid handle" error.
 */
#ifndef UZ_BASE_OBJECT_H
#define UZ_BASE_OBJECT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "base/compiler.h"

/* The kinds of object whose struct the MPI core defines, by name only, so
 * that a layer below may hold a pointer to one without seeing inside. */
typedef struct MPI_ABI_Comm uz_comm;
typedef struct MPI_ABI_Win uz_win;
typedef struct MPI_ABI_File uz_file;
typedef struct MPI_ABI_Session uz_session;

/* Every predefined handle of the standard ABI is below this value, and no
 * heap object lives in the first page. */
enum { UZ_PREDEFINED_HANDLE_LIMIT = 0x1000 };

enum uz_magic {
    UZ_MAGIC_FREED      = 0xdeadbeefu,
    UZ_MAGIC_COMM       = 0x757a6301u,
    UZ_MAGIC_GROUP      = 0x757a6302u,
    UZ_MAGIC_DATATYPE   = 0x757a6303u,
    UZ_MAGIC_OP         = 0x757a6304u,
    UZ_MAGIC_INFO       = 0x757a6305u,
    UZ_MAGIC_ERRHANDLER = 0x757a6306u,
    UZ_MAGIC_REQUEST    = 0x757a6307u,
    UZ_MAGIC_WIN        = 0x757a6308u,
    UZ_MAGIC_FILE       = 0x757a6309u,
    UZ_MAGIC_SESSION    = 0x757a630au,
    UZ_MAGIC_MESSAGE    = 0x757a630bu,
};

struct uz_object {
    uint32_t magic;
    /* The integer this object has as a Fortran or MPI_*_toint handle, given
     * on first request (0: none yet); see handle_table.c. */
    int32_t int_handle;
    /* Built-in objects are never freed: their count starts at 1 and the
     * `builtin` flag keeps release from ever dropping them. */
    uint32_t builtin;
    atomic_int refcount;
};

static inline void uz_object_init(struct uz_object *obj, uint32_t magic)
{
    obj->magic = magic;
    obj->int_handle = 0;
    obj->builtin = 0;
    atomic_init(&obj->refcount, 1);
}

static inline void uz_object_init_builtin(struct uz_object *obj, uint32_t magic)
{
    uz_object_init(obj, magic);
    obj->builtin = 1;
}

static inline void uz_object_retain(struct uz_object *obj)
{
    if (!obj->builtin)
        atomic_fetch_add_explicit(&obj->refcount, 1, memory_order_relaxed);
}

/* Returns 1 when the caller dropped the last reference and must destroy. */
static inline int uz_object_release(struct uz_object *obj)
{
    if (obj->builtin)
        return 0;
    return atomic_fetch_sub_explicit(&obj->refcount, 1, memory_order_acq_rel) == 1;
}

static inline int uz_handle_is_predefined(const void *handle)
{
    return (uintptr_t)handle < UZ_PREDEFINED_HANDLE_LIMIT;
}

/* ------------------------------------------------------ the object arena */

/* Objects start on this alignment inside the arena (object_arena.c). */
enum { UZ_OBJECT_ALIGN_SHIFT = 6, UZ_OBJECT_ALIGN = 1 << UZ_OBJECT_ALIGN_SHIFT };

struct uz_object_arena {
    /* Size of the reserved range in UZ_OBJECT_ALIGN units; 0 until the
     * first object is allocated (then every handle is rejected). */
    _Atomic uintptr_t slots;
    uintptr_t base;
};
extern struct uz_object_arena uz_object_arena;

/* Could `p` be an object: an aligned address inside the arena?  Rotating
 * the offset right by the alignment moves misaligned low bits to the top,
 * so one unsigned compare rejects addresses below, above and between
 * object boundaries alike.  Nothing is loaded through `p`. */
static inline int uz_arena_holds(const void *p)
{
    uintptr_t slots = atomic_load_explicit(&uz_object_arena.slots, memory_order_acquire);
    uintptr_t off = (uintptr_t)p - uz_object_arena.base;
    uintptr_t rot = (off >> UZ_OBJECT_ALIGN_SHIFT) | (off << (sizeof(uintptr_t) * 8 - UZ_OBJECT_ALIGN_SHIFT));
    return rot < slots;
}

/* Zeroed memory for an object of `size` bytes in the arena (NULL when
 * out of memory); the caller initialises its header. */
void *uz_object_alloc(size_t size);
/* Mark the object dead (uz_object_destroy, below) and give its memory
 * back. */
void uz_object_free(void *obj, size_t size);

/* A handle is valid when it points at an object with the right magic. */
static inline void *uz_object_check(void *handle, uint32_t magic)
{
    if (UZ_UNLIKELY(!uz_arena_holds(handle)))
        return NULL;
    struct uz_object *obj = handle;
    return obj->magic == magic ? obj : NULL;
}

/* Integer handles (handle_table.c): predefined handles keep their value;
 * other objects get a slot on first use, released when the object dies. */
int uz_handle_to_int(const void *handle);
void *uz_handle_from_int(int value, void *null_handle);
void uz_handle_forget(struct uz_object *obj);

/* Mark an object dead: its handle stops validating and its integer handle
 * is released.  Callers free the memory afterwards. */
static inline void uz_object_destroy(struct uz_object *obj)
{
    if (obj->int_handle)
        uz_handle_forget(obj);
    obj->magic = UZ_MAGIC_FREED;
}

#endif /* UZ_BASE_OBJECT_H */
