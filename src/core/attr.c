/*
 * attr.c — the keyval table and per-object attribute lists (see attr.h).
 *
 * Keyvals live in a growable table indexed by (keyval - UZ_KEYVAL_FIRST),
 * guarded by one mutex: creating, freeing and looking up keyvals is rare
 * next to communication, and the lock keeps MPI_THREAD_MULTIPLE programs
 * safe.  A keyval is reference counted: one reference for the user's
 * handle, one for every attribute that uses it.  Callbacks are never run
 * with the lock held, since they may call MPI themselves.
 *
 * An object's attribute list is a small array in the order the attributes
 * were set; lists are per object, and MPI leaves concurrent updates of one
 * object's attributes to the user to serialise.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "core/errors.h"

struct uz_keyval {
    enum uz_attr_kind kind;
    uz_attr_fn copy_fn;
    uz_attr_fn delete_fn;
    void *extra_state;
    int id;
    int refs;                   /* user handle + attributes; under keyval_lock */
};

struct uz_attr_entry {
    struct uz_keyval *kv;
    void *value;
};

struct uz_attr_list {
    int n, cap;
    struct uz_attr_entry *v;
};

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uz_keyval **keyvals;
static int nkeyvals;            /* slots in use or ever used */
static int keyval_cap;

static const char *const kind_names[] = { "communicator", "datatype", "window" };

/* ------------------------------------------------------------ keyval table */

static struct uz_keyval *keyval_lookup_locked(int keyval)
{
    int i = keyval - UZ_KEYVAL_FIRST;
    if (keyval < UZ_KEYVAL_FIRST || i >= nkeyvals)
        return NULL;
    return keyvals[i];
}

/* Find a live keyval of this kind and take a reference to it. */
static int keyval_acquire(enum uz_attr_kind kind, int keyval, struct uz_keyval **out)
{
    pthread_mutex_lock(&keyval_lock);
    struct uz_keyval *kv = keyval_lookup_locked(keyval);
    if (kv != NULL && kv->kind == kind)
        kv->refs++;
    pthread_mutex_unlock(&keyval_lock);
    if (kv == NULL)
        return uz_err_make(MPI_ERR_KEYVAL, "invalid keyval %d", keyval);
    if (kv->kind != kind)
        return uz_err_make(MPI_ERR_KEYVAL, "keyval %d belongs to a %s, not a %s", keyval,
                           kind_names[kv->kind], kind_names[kind]);
    *out = kv;
    return MPI_SUCCESS;
}

static void keyval_release(struct uz_keyval *kv)
{
    pthread_mutex_lock(&keyval_lock);
    int dead = --kv->refs == 0;
    pthread_mutex_unlock(&keyval_lock);
    if (dead)
        free(kv);
}

int uz_keyval_create(enum uz_attr_kind kind, uz_attr_fn copy_fn, uz_attr_fn delete_fn,
                     void *extra_state, int *keyval)
{
    struct uz_keyval *kv = malloc(sizeof(*kv));
    if (kv == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a keyval");
    kv->kind = kind;
    kv->copy_fn = copy_fn;
    kv->delete_fn = delete_fn;
    kv->extra_state = extra_state;
    kv->refs = 1;

    pthread_mutex_lock(&keyval_lock);
    int slot = -1;
    for (int i = 0; i < nkeyvals; i++) {
        if (keyvals[i] == NULL) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        if (nkeyvals == keyval_cap) {
            int cap = keyval_cap ? 2 * keyval_cap : 16;
            struct uz_keyval **t = realloc(keyvals, (size_t)cap * sizeof(*t));
            if (t == NULL) {
                pthread_mutex_unlock(&keyval_lock);
                free(kv);
                return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a keyval");
            }
            keyvals = t;
            keyval_cap = cap;
        }
        slot = nkeyvals++;
    }
    keyvals[slot] = kv;
    kv->id = UZ_KEYVAL_FIRST + slot;
    pthread_mutex_unlock(&keyval_lock);
    *keyval = kv->id;
    return MPI_SUCCESS;
}

int uz_keyval_free(enum uz_attr_kind kind, int *keyval)
{
    pthread_mutex_lock(&keyval_lock);
    struct uz_keyval *kv = keyval_lookup_locked(*keyval);
    if (kv == NULL || kv->kind != kind) {
        pthread_mutex_unlock(&keyval_lock);
        if (kv == NULL)
            return uz_err_make(MPI_ERR_KEYVAL, "invalid keyval %d", *keyval);
        return uz_err_make(MPI_ERR_KEYVAL, "keyval %d belongs to a %s, not a %s", *keyval,
                           kind_names[kv->kind], kind_names[kind]);
    }
    /* The slot is reused by later keyvals; attributes that still use this
     * one hold the pointer, not the number. */
    keyvals[kv->id - UZ_KEYVAL_FIRST] = NULL;
    int dead = --kv->refs == 0;
    pthread_mutex_unlock(&keyval_lock);
    if (dead)
        free(kv);
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

/* ---------------------------------------------------------- attribute lists */

static int list_find(const struct uz_attr_list *list, const struct uz_keyval *kv)
{
    for (int i = 0; list != NULL && i < list->n; i++)
        if (list->v[i].kv == kv)
            return i;
    return -1;
}

static int list_append(struct uz_attr_list **listp, struct uz_keyval *kv, void *value)
{
    struct uz_attr_list *list = *listp;
    if (list == NULL) {
        list = calloc(1, sizeof(*list));
        if (list == NULL)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting an attribute");
        *listp = list;
    }
    if (list->n == list->cap) {
        int cap = list->cap ? 2 * list->cap : 4;
        struct uz_attr_entry *v = realloc(list->v, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting an attribute");
        list->v = v;
        list->cap = cap;
    }
    list->v[list->n++] = (struct uz_attr_entry){ kv, value };
    return MPI_SUCCESS;
}

static void list_remove(struct uz_attr_list **listp, int i)
{
    struct uz_attr_list *list = *listp;
    memmove(&list->v[i], &list->v[i + 1], (size_t)(list->n - i - 1) * sizeof(list->v[0]));
    if (--list->n == 0) {
        free(list->v);
        free(list);
        *listp = NULL;
    }
}

int uz_attr_set(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list, int keyval,
                void *value)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err)
        return err;
    int i = list_find(*list, kv);
    if (i >= 0) {
        /* Replacing: the old value is deleted first, and the attribute
         * counts as set now (it moves to the end of the order). */
        int rc = call_delete(kv, handle, (*list)->v[i].value);
        if (rc != MPI_SUCCESS) {
            keyval_release(kv);
            return callback_error(rc, "delete", keyval);
        }
        list_remove(list, i);
        keyval_release(kv);     /* the reference the old entry held */
    }
    if ((err = list_append(list, kv, value)))
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
    int i = list_find(list, kv);
    *flag = i >= 0;
    if (i >= 0)
        *value = list->v[i].value;
    keyval_release(kv);
    return MPI_SUCCESS;
}

int uz_attr_delete(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list, int keyval)
{
    struct uz_keyval *kv;
    int err = keyval_acquire(kind, keyval, &kv);
    if (err)
        return err;
    int i = list_find(*list, kv);
    if (i < 0) {                /* nothing to delete is not an error (as in MPICH) */
        keyval_release(kv);
        return MPI_SUCCESS;
    }
    int rc = call_delete(kv, handle, (*list)->v[i].value);
    if (rc == MPI_SUCCESS) {
        list_remove(list, i);
        keyval_release(kv);     /* the entry's reference */
    }
    keyval_release(kv);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : callback_error(rc, "delete", keyval);
}

int uz_attr_copy_all(enum uz_attr_kind kind, void *old_handle, const struct uz_attr_list *src,
                     void *new_handle, struct uz_attr_list **dst)
{
    *dst = NULL;
    for (int i = 0; src != NULL && i < src->n; i++) {
        struct uz_keyval *kv = src->v[i].kv;
        void *out = NULL;
        int flag = 0;
        int rc = call_copy(kv, old_handle, src->v[i].value, &out, &flag);
        int err = rc == MPI_SUCCESS ? MPI_SUCCESS : callback_error(rc, "copy", kv->id);
        if (err == MPI_SUCCESS && flag) {
            pthread_mutex_lock(&keyval_lock);
            kv->refs++;
            pthread_mutex_unlock(&keyval_lock);
            if ((err = list_append(dst, kv, out)))
                keyval_release(kv);
        }
        if (err) {
            /* The new object will not be returned: undo the copies. */
            uz_attr_delete_all(kind, new_handle, dst);
            if (*dst != NULL) {         /* a delete callback failed too */
                for (int k = 0; k < (*dst)->n; k++)
                    keyval_release((*dst)->v[k].kv);
                free((*dst)->v);
                free(*dst);
                *dst = NULL;
            }
            return err;
        }
    }
    return MPI_SUCCESS;
}

int uz_attr_delete_all(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list)
{
    while (*list != NULL) {
        int i = (*list)->n - 1;
        struct uz_keyval *kv = (*list)->v[i].kv;
        int rc = call_delete(kv, handle, (*list)->v[i].value);
        if (rc != MPI_SUCCESS)
            return callback_error(rc, "delete", kv->id);
        list_remove(list, i);
        keyval_release(kv);
    }
    return MPI_SUCCESS;
}

int uz_attr_count(const struct uz_attr_list *list)
{
    return list ? list->n : 0;
}
