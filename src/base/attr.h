/*
 * attr.h — keyvals and attribute caching, shared by communicators, datatypes
 * and windows.
 *
 * A keyval is created for one kind of object with a copy callback (run when
 * the object is duplicated), a delete callback (run when the attribute goes
 * away) and an extra_state handed to both.  The standard ABI gives the
 * predefined callbacks fixed values: 0 is MPI_*_NULL_COPY_FN (do not copy)
 * and MPI_*_NULL_DELETE_FN (nothing to do), 1 is MPI_*_DUP_FN (copy the
 * value as is); any other value is a user function of the kind's signature.
 *
 * Each object keeps a `struct uz_attr_list *` (NULL while it has no
 * attributes) and passes its user handle, so that callbacks see the handle
 * the user knows.  Attributes are kept in the order they were set
 * (replacing a value counts as setting it); when an object is freed they
 * are deleted in the reverse of that order (what MPI-4.1 §11.2.4 requires
 * of MPI_COMM_SELF at MPI_Finalize, and a fine order for every other
 * object).  Callbacks may set, get and delete other attributes of the
 * object whose callback is running.  A keyval freed while attributes still
 * use it lives until the last of them is deleted: its callbacks keep
 * running, its number still reaches those attributes, and freeing it again
 * meanwhile does nothing (as in MPICH); once it is gone, its number is
 * MPI_ERR_KEYVAL everywhere.
 *
 * Plugging in an object kind: call uz_attr_copy_all() from its dup (a copy
 * callback that fails makes the dup fail with that error; the attributes
 * copied so far are deleted again) and uz_attr_delete_all() from its free
 * (a delete callback that fails stops the free and its error is returned).
 * Predefined attribute keys (MPI_TAG_UB, MPI_WIN_BASE, ...) are not keyvals
 * of this table: the kind's get_attr answers them before calling here.
 */
#ifndef UZ_BASE_ATTR_H
#define UZ_BASE_ATTR_H

#include "base/object.h"

enum uz_attr_kind {
    UZ_ATTR_COMM = 0,
    UZ_ATTR_TYPE = 1,
    UZ_ATTR_WIN = 2,
};

/* Keyvals made here are numbered from this value up; smaller values are
 * MPI_KEYVAL_INVALID and the predefined attribute keys of mpi.h. */
enum { UZ_KEYVAL_FIRST = 0x1000 };

/* A callback as stored: the kind says which MPI signature it really has. */
typedef void (*uz_attr_fn)(void);

struct uz_attr_list;

/* MPI_{Comm,Type,Win}_create_keyval and _free_keyval.  free sets *keyval to
 * MPI_KEYVAL_INVALID; misuse (unknown or dead keyval, wrong kind) is
 * MPI_ERR_KEYVAL. */
int uz_keyval_create(enum uz_attr_kind kind, uz_attr_fn copy_fn, uz_attr_fn delete_fn,
                     void *extra_state, int *keyval);
int uz_keyval_free(enum uz_attr_kind kind, int *keyval);

/* Is `keyval` a live keyval of this kind?  MPI_SUCCESS or MPI_ERR_KEYVAL. */
int uz_keyval_check(enum uz_attr_kind kind, int keyval);

/* Set, get and delete one attribute of the object whose user handle is
 * `handle` and whose list is *list.  Setting a key that is already set runs
 * the delete callback on the old value first; if that callback fails, the
 * old value stays and its error is returned (so for delete).  Deleting a
 * key that is not set, or whose delete callback is running, does nothing. */
int uz_attr_set(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list,
                int keyval, void *value);
int uz_attr_get(enum uz_attr_kind kind, const struct uz_attr_list *list, int keyval,
                void **value, int *flag);
int uz_attr_delete(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list,
                   int keyval);

/* Duplicate: run every copy callback of `src` (the list of the object whose
 * handle is old_handle) in the order the attributes were set, and build
 * *dst, the list of the new object new_handle, from the ones that asked to
 * be copied.  On error the attributes copied so far are deleted again
 * (their delete callbacks see new_handle) and *dst is NULL. */
int uz_attr_copy_all(enum uz_attr_kind kind, void *old_handle, const struct uz_attr_list *src,
                     void *new_handle, struct uz_attr_list **dst);

/* Free: run the delete callbacks, newest attribute first, and release the
 * list.  If a callback fails, the attributes not yet deleted (that one
 * included) stay on the object and its error is returned.  Called while
 * one of the object's delete callbacks runs (the object freed from inside
 * it), it deletes nothing and fails with MPI_ERR_OTHER. */
int uz_attr_delete_all(enum uz_attr_kind kind, void *handle, struct uz_attr_list **list);

/* Number of attributes on a list (tests, diagnostics). */
int uz_attr_count(const struct uz_attr_list *list);

#endif /* UZ_BASE_ATTR_H */
