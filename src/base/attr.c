/*
 * attr.c — the keyval table and per-object attribute lists (see attr.h).
 *
 * Keyvals live in a growable table of slots, guarded by one mutex:
 * creating, freeing and looking up keyvals is rare next to communication,
 * and the lock keeps MPI_THREAD_MULTIPLE programs safe.  A keyval is
 * reference counted: one reference for the user's handle (until
 * MPI_*_free_keyval), one for every attribute that uses it and one for
 * every call that is running one of its callbacks.  It keeps its slot, and
 * so its number, until the last reference goes: an attribute whose keyval
 * the user freed can still be read, deleted and copied through that number
 * (MPICH allows it too, and programs rely on it), and freeing such a
 * keyval again does nothing.  A keyval's number carries its slot's
 * generation, so a number that outlived its keyval names nothing even when
 * the slot has been reused: it is MPI_ERR_KEYVAL, never someone else's key.
 *
 * An object's attribute list is a doubly linked list in the order the
 * attributes were set.  Callbacks are never run with the lock held, since
 * they may call MPI themselves — and they may set, get and delete other
 * attributes of the object whose callback is running.  So nothing here
 * holds a position in a list across a callback except the entry whose
 * callback runs, and that entry is marked busy meanwhile: nobody else
 * unlinks it (deleting it again is a no-op, setting it again an error),
 * which also keeps the list itself from being freed under the caller.
 * MPI leaves concurrent updates of one object's attributes to the user to
 * serialise; the lists have no lock.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/attr.h"
#include "base/errors.h"

struct uz_keyval {
    enum uz_attr_kind kind;
    uz_attr_fn copy_fn;
    uz_attr_fn delete_fn;
    void *extra_state;
    int id;
    int slot;
    int refs;                   /* under keyval_lock */
    int user_freed;             /* MPI_*_free_keyval was called; under keyval_lock */
};

struct uz_attr {
    struct uz_attr *prev, *next;
    struct uz_keyval *kv;       /* the entry holds a reference */
    void *value;
    int busy;                   /* its delete callback is running */
};

struct uz_attr_list {
    struct uz_attr *first, *last;
};

/* A keyval number is UZ_KEYVAL_FIRST + (generation << SLOT_BITS | slot);
 * generations wrap below GEN_LIMIT so that every number is a positive int. */
enum { SLOT_BITS = 16, SLOT_LIMIT = 1 << SLOT_BITS };
enum { GEN_LIMIT = (INT_MAX - UZ_KEYVAL_FIRST) >> SLOT_BITS };

struct keyval_slot {
    struct uz_keyval *kv;       /* NULL while free */
    int gen;
};

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static struct keyval_slot *slots;
static int nslots;              /* slots in use or ever used */
static int slot_cap;

static const char *const kind_names[] = { "communicator", "datatype", "window" };

/* ------------------------------------------------------------ keyval table */

static struct uz_keyval *keyval_lookup_locked(int keyval)
{
    if (keyval < UZ_KEYVAL_FIRST)
        return NULL;
    int i = keyval - UZ_KEYVAL_FIRST;
    int slot = i & (SLOT_LIMIT - 1), gen = i >> SLOT_BITS;
    if (slot >= nslots || slots[slot].gen != gen)
        return NULL;
    return slots[slot].kv;
}

static int keyval_error(enum uz_attr_kind kind, int keyval, const struct uz_keyval *kv)
{
    if (kv == NULL)
        return uz_err_make(MPI_ERR_KEYVAL, "invalid keyval %d (never created, or freed and no "
                           "longer in use)", keyval);
    return uz_err_make(MPI_ERR_KEYVAL, "keyval %d belongs to a %s, not a %s", keyval,
                       kind_names[kv->kind], kind_names[kind]);
}

/* Find a live keyval of this kind and take a reference to it. */
static int keyval_acquire(enum uz_attr_kind kind, int keyval, struct uz_keyval **out)
{
    pthread_mutex_lock(&keyval_lock);
    struct uz_keyval *kv = keyval_lookup_locked(keyval);
    int ok = kv != NULL && kv->kind == kind;
    if (ok)
        kv->refs++;
    pthread_mutex_unlock(&keyval_lock);
    if (!ok)
        return keyval_error(kind, keyval, kv);
    *out = kv;
    return MPI_SUCCESS;
}

/* Drop one reference; the last one gives the slot back, under a new
 * generation so that the old number stays invalid. */
static void keyval_release_locked(struct uz_keyval *kv, struct uz_keyval **dead)
{
    if (--kv->refs > 0)
        return;
    struct keyval_slot *s = &slots[kv->slot];
    s->kv = NULL;
    s->gen = (s->gen + 1) % GEN_LIMIT;
    *dead = kv;
}

static void keyval_release(struct uz_keyval *kv)
{
    struct uz_keyval *dead = NULL;
    pthread_mutex_lock(&keyval_lock);
    keyval_release_locked(kv, &dead);
    pthread_mutex_unlock(&keyval_lock);
    free(dead);
}

/* A free slot, growing the table if none is; -1 when out of memory or
 * when SLOT_LIMIT keyvals are alive at once. */
static int slot_take_locked(void)
{
    for (int i = 0; i < nslots; i++)
        if (slots[i].kv == NULL)
            return i;
    if (nslots == SLOT_LIMIT)
        return -1;
    if (nslots == slot_cap) {
        int cap = slot_cap ? 2 * slot_cap : 16;
        struct keyval_slot *t = realloc(slots, (size_t)cap * sizeof(*t));
        if (t == NULL)
            return -1;
        slots = t;
        slot_cap = cap;
    }
    slots[nslots].kv = NULL;
    slots[nslots].gen = 0;
    return nslots++;
}

int uz_keyval_create(enum uz_attr_kind kind, uz_attr_fn copy_fn, uz_attr_fn delete_fn,
                     void *extra_state, int *keyval)
{
    struct uz_keyval *kv = malloc(sizeof(*kv));
    if (kv == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a keyval");
    *kv = (struct uz_keyval){ .kind = kind, .copy_fn = copy_fn, .delete_fn = delete_fn,
                              .extra_state = extra_state, .refs = 1 };
    pthread_mutex_lock(&keyval_lock);
    int slot = slot_take_locked();
    if (slot >= 0) {
        slots[slot].kv = kv;
        kv->slot = slot;
        kv->id = UZ_KEYVAL_FIRST + (slots[slot].gen << SLOT_BITS | slot);
    }
    pthread_mutex_unlock(&keyval_lock);
    if (slot < 0) {
        free(kv);
        return uz_err_make(MPI_ERR_NO_MEM, "cannot create another keyval (%d are alive, or out "
                           "of memory)", nslots);
    }
    *keyval = kv->id;
    return MPI_SUCCESS;
}

int uz_keyval_free(enum uz_attr_kind kind, int *keyval)
{
    struct uz_keyval *dead = NULL;
    pthread_mutex_lock(&keyval_lock);
    struct uz_keyval *kv = keyval_lookup_locked(*keyval);
    if (kv == NULL || kv->kind != kind) {
        pthread_mutex_unlock(&keyval_lock);
        return keyval_error(kind, *keyval, kv);
    }
    /* Freed before but still in use: the first free already dropped the
     * user's reference (MPICH ignores the repeat the same way). */
    if (!kv->user_freed) {
        kv->user_freed = 1;
        keyval_release_locked(kv, &dead);
    }
    pthread_mutex_unlock(&keyval_lock);
    free(dead);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int uz_keyval_check(enum uz_attr_kind kind, int keyval)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err == MPI_SUCCESS)
        keyval_release(kv);
    return err;
}

/* --------------------------------------------------------------- callbacks */

static int call_copy(const struct uz_keyval *kv, void *handle, void *in, void *out, int *flag)
{
    if ((uintptr_t)kv->copy_fn == 0) {          /* MPI_*_NULL_COPY_FN */
        *flag = 0;
        return MPI_SUCCESS;
    }
    if ((uintptr_t)kv->copy_fn == 1) {          /* MPI_*_DUP_FN */
        *(void **)out = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
    switch (kv->kind) {
    case UZ_ATTR_COMM:
        return ((MPI_Comm_copy_attr_function *)kv->copy_fn)((MPI_Comm)handle, kv->id,
                                                            kv->extra_state, in, out, flag);
    case UZ_ATTR_TYPE:
        return ((MPI_Type_copy_attr_function *)kv->copy_fn)((MPI_Datatype)handle, kv->id,
                                                            kv->extra_state, in, out, flag);
    case UZ_ATTR_WIN:
        return ((MPI_Win_copy_attr_function *)kv->copy_fn)((MPI_Win)handle, kv->id,
                                                           kv->extra_state, in, out, flag);
    }
    return MPI_ERR_INTERN;
}

static int call_delete(const struct uz_keyval *kv, void *handle, void *value)
{
    if ((uintptr_t)kv->delete_fn == 0)          /* MPI_*_NULL_DELETE_FN */
        return MPI_SUCCESS;
    switch (kv->kind) {
    case UZ_ATTR_COMM:
        return ((MPI_Comm_delete_attr_function *)kv->delete_fn)((MPI_Comm)handle, kv->id, value,
                                                                kv->extra_state);
    case UZ_ATTR_TYPE:
        return ((MPI_Type_delete_attr_function *)kv->delete_fn)((MPI_Datatype)handle, kv->id,
                                                                value, kv->extra_state);
    case UZ_ATTR_WIN:
        return ((MPI_Win_delete_attr_function *)kv->delete_fn)((MPI_Win)handle, kv->id, value,
                                                               kv->extra_state);
    }
    return MPI_ERR_INTERN;
}

/* A callback's error code is passed on; MPI_SUCCESS never comes here. */
static int callback_error(int rc, const char *which, int keyval)
{
    if (uz_err_code_is_valid(rc))
        return rc;
    return uz_err_make(MPI_ERR_OTHER, "attribute %s callback of keyval %d returned %d", which,
                       keyval, rc);
}

/* Run the delete callback of entry e, marked busy meanwhile so that the
 * callback's own calls leave it in place. */
static int entry_call_delete(struct uz_attr *e, void *handle)
{
    e->busy = 1;
    int rc = call_delete(e->kv, handle, e->value);
    e->busy = 0;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : callback_error(rc, "delete", e->kv->id);
}

/* ---------------------------------------------------------- attribute lists */

static struct uz_attr *list_find(const struct uz_attr_list *list, const struct uz_keyval *kv)
{
    for (struct uz_attr *e = list ? list->first : NULL; e != NULL; e = e->next)
        if (e->kv == kv)
            return e;
    return NULL;
}

/* The newest attribute whose delete callback is not already running. */
static struct uz_attr *list_newest_idle(const struct uz_attr_list *list)
{
    for (struct uz_attr *e = list ? list->last : NULL; e != NULL; e = e->prev)
        if (!e->busy)
            return e;
    return NULL;
}

/* Append (kv, value); the new entry takes over a reference to kv that the
 * caller holds. */
static int list_append(struct uz_attr_list **listp, struct uz_keyval *kv, void *value)
{
    struct uz_attr_list *list = *listp;
    if (list == NULL && (list = calloc(1, sizeof(*list))) == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting an attribute");
    *listp = list;
    struct uz_attr *e = malloc(sizeof(*e));
    if (e == NULL) {
        if (list->first == NULL) {
            free(list);
            *listp = NULL;
        }
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting an attribute");
    }
    *e = (struct uz_attr){ .prev = list->last, .kv = kv, .value = value };
    if (list->last)
        list->last->next = e;
    else
        list->first = e;
    list->last = e;
    return MPI_SUCCESS;
}

/* Unlink and free e (its keyval reference passes to the caller); an
 * emptied list is freed too. */
static void list_remove(struct uz_attr_list **listp, struct uz_attr *e)
{
    struct uz_attr_list *list = *listp;
    if (e->prev)
        e->prev->next = e->next;
    else
        list->first = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        list->last = e->prev;
    free(e);
    if (list->first == NULL) {
        free(list);
        *listp = NULL;
    }
}

/* Release a list without running callbacks (an object that cannot keep
 * its attributes: a duplicate being discarded whose delete failed). */
static void list_drop(struct uz_attr_list **listp)
{
    while (*listp != NULL) {
        struct uz_attr *e = (*listp)->first;
        struct uz_keyval *kv = e->kv;
        list_remove(listp, e);
        keyval_release(kv);
    }
}

int uz_attr_set(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list, int keyval,
                void *value)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err)
        return err;
    struct uz_attr *e = list_find(*list, kv);
    if (e != NULL && e->busy)
        err = uz_err_make(MPI_ERR_OTHER, "the attribute of keyval %d is being deleted: its "
                          "delete callback cannot set it again", keyval);
    else if (e != NULL && (err = entry_call_delete(e, handle)) == MPI_SUCCESS) {
        /* Replaced: the old value is gone, and the attribute counts as set
         * now (it moves to the end of the order).  The old entry's keyval
         * reference goes; the one taken above is the new entry's. */
        list_remove(list, e);
        keyval_release(kv);
    }
    if (err == MPI_SUCCESS)
        err = list_append(list, kv, value);
    if (err)
        keyval_release(kv);
    return err;
}

int uz_attr_get(enum uz_attr_kind kind, const struct uz_attr_list *list, int keyval,
                void **value, int *flag)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err)
        return err;
    /* An attribute whose delete callback is running is still there: the
     * callback may fail and leave it. */
    const struct uz_attr *e = list_find(list, kv);
    *flag = e != NULL;
    if (e != NULL)
        *value = e->value;
    keyval_release(kv);
    return MPI_SUCCESS;
}

int uz_attr_delete(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list, int keyval)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err)
        return err;
    /* Nothing to delete is not an error (as in MPICH), nor is deleting an
     * attribute from inside its own delete callback: it is going already. */
    struct uz_attr *e = list_find(*list, kv);
    if (e != NULL && !e->busy && (err = entry_call_delete(e, handle)) == MPI_SUCCESS) {
        list_remove(list, e);
        keyval_release(kv);     /* the entry's reference */
    }
    keyval_release(kv);
    return err;
}

/* What copy_all works from: the source list as it was when the dup began,
 * each keyval retained, since copy callbacks may change the source. */
struct attr_snapshot {
    struct uz_keyval *kv;
    void *value;
};

static int snapshot_take(const struct uz_attr_list *src, struct attr_snapshot **out, int *n)
{
    int count = uz_attr_count(src);
    *out = NULL;
    *n = 0;
    if (count == 0)
        return MPI_SUCCESS;
    struct attr_snapshot *s = malloc((size_t)count * sizeof(*s));
    if (s == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying attributes");
    int i = 0;
    pthread_mutex_lock(&keyval_lock);
    for (const struct uz_attr *e = src->first; e != NULL; e = e->next, i++) {
        s[i] = (struct attr_snapshot){ e->kv, e->value };
        e->kv->refs++;
    }
    pthread_mutex_unlock(&keyval_lock);
    *out = s;
    *n = count;
    return MPI_SUCCESS;
}

int uz_attr_copy_all(enum uz_attr_kind kind, void *old_handle, const struct uz_attr_list *src,
                     void *new_handle, struct uz_attr_list **dst)
{
    struct attr_snapshot *s;
    int n;
    *dst = NULL;
    int err = snapshot_take(src, &s, &n);
    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        void *out = NULL;
        int flag = 0;
        int rc = call_copy(s[i].kv, old_handle, s[i].value, &out, &flag);
        if (rc != MPI_SUCCESS)
            err = callback_error(rc, "copy", s[i].kv->id);
        else if (flag && (err = list_append(dst, s[i].kv, out)) == MPI_SUCCESS)
            s[i].kv = NULL;     /* its reference now belongs to the new entry */
    }
    for (int i = 0; i < n; i++)
        if (s[i].kv != NULL)
            keyval_release(s[i].kv);
    free(s);
    if (err) {
        /* The new object will not be returned: undo the copies. */
        if (uz_attr_delete_all(kind, new_handle, dst) != MPI_SUCCESS)
            list_drop(dst);
    }
    return err;
}

int uz_attr_delete_all(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list)
{
    (void)kind;
    /* An attribute whose delete callback runs further up the stack: the
     * object is being freed from inside one of its own callbacks.  Refuse
     * before deleting anything, which keeps the object (and that caller's
     * entry) alive. */
    for (struct uz_attr *e = *list ? (*list)->first : NULL; e != NULL; e = e->next)
        if (e->busy)
            return uz_err_make(MPI_ERR_OTHER, "cannot free an object from inside the delete "
                               "callback of its attribute (keyval %d)", e->kv->id);
    /* Newest first; a callback may delete or add attributes of this very
     * object, so the next one to delete is looked up afresh each time. */
    struct uz_attr *e;
    while ((e = list_newest_idle(*list)) != NULL) {
        struct uz_keyval *kv = e->kv;
        int err = entry_call_delete(e, handle);
        if (err)
            return err;
        list_remove(list, e);
        keyval_release(kv);
    }
    return MPI_SUCCESS;
}

int uz_attr_count(const struct uz_attr_list *list)
{
    int n = 0;
    for (const struct uz_attr *e = list ? list->first : NULL; e != NULL; e = e->next)
        n++;
    return n;
}
