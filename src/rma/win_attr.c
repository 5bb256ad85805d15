/*
 * win_attr.c — what a window says about itself: its handle check, the
 * predefined attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR,
 * _MODEL), user attributes, its name, group and info.
 */
#include <string.h>

#include "base/attr.h"
#include "base/errors.h"
#include "core/info.h"
#include "rma/rma.h"

/* ------------------------------------------------------------ attributes */

/* The predefined attributes: MPI_WIN_BASE is the base address itself; the
 * others are pointers to values the window keeps (as the standard has C
 * programs read them). */
static int get_predefined(uz_win *w, int key, void *attribute_val, int *flag)
{
    static const int model = MPI_WIN_UNIFIED;
    void **out = attribute_val;
    *flag = 1;
    switch (key) {
    case MPI_WIN_BASE:
        *out = w->base;
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *out = &w->win_size;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        w->attr_disp_unit = (int)w->disp_unit;
        *out = &w->attr_disp_unit;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *out = &w->flavor;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *out = (void *)&model;
        return MPI_SUCCESS;
    }
    *flag = 0;
    return MPI_SUCCESS;
}

static int is_predefined(int key)
{
    return key >= MPI_WIN_BASE && key <= MPI_WIN_MODEL;
}

int uz_mpi_Win_get_attr(uz_win *win, int win_keyval, void *attribute_val, int *flag)
{
    if (is_predefined(win_keyval))
        return get_predefined(win, win_keyval, attribute_val, flag);
    return uz_attr_get(UZ_ATTR_WIN, win->attrs, win_keyval, (void **)attribute_val, flag);
}

int uz_mpi_Win_set_attr(uz_win *win, int win_keyval, void *attribute_val)
{
    if (is_predefined(win_keyval))
        return uz_err_make(MPI_ERR_KEYVAL, "the predefined window attribute %d cannot be set", win_keyval);
    return uz_attr_set(UZ_ATTR_WIN, uz_win_handle(win), &win->attrs, win_keyval, attribute_val);
}

int uz_mpi_Win_delete_attr(uz_win *win, int win_keyval)
{
    if (is_predefined(win_keyval))
        return uz_err_make(MPI_ERR_KEYVAL, "the predefined window attribute %d cannot be deleted", win_keyval);
    return uz_attr_delete(UZ_ATTR_WIN, uz_win_handle(win), &win->attrs, win_keyval);
}

/* ------------------------------------------------------- name and group */

int uz_mpi_Win_set_name(uz_win *win, const char *win_name)
{
    size_t n = strlen(win_name);
    if (n >= MPI_MAX_OBJECT_NAME)
        return uz_err_make(MPI_ERR_ARG, "name of %zu characters is longer than MPI_MAX_OBJECT_NAME - 1 (%d)", n,
                           MPI_MAX_OBJECT_NAME - 1);
    memcpy(win->name, win_name, n + 1);
    return MPI_SUCCESS;
}

int uz_mpi_Win_get_name(uz_win *win, char *win_name, int *resultlen)
{
    /* win is NULL for MPI_WIN_NULL, whose name is the constant's. */
    const char *name = win ? win->name : "MPI_WIN_NULL";
    size_t n = strlen(name);
    memcpy(win_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

int uz_mpi_Win_get_group(uz_win *win, MPI_Group *group)
{
    uz_group_retain(win->comm->local_group);
    *group = uz_group_handle(win->comm->local_group);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ info */

/* The hints a window honours or reports, with their defaults. */
static const struct {
    const char *key, *value;
} hints[] = {
    { "no_locks", "false" },
    { "accumulate_ordering", "rar,raw,war,waw" },
    { "accumulate_ops", "same_op_no_op" },
    { "same_size", "false" },
    { "same_disp_unit", "false" },
    { "alloc_shared_noncontig", "false" },
};

int uz_mpi_Win_set_info(uz_win *win, uz_info *info)
{
    uz_info *copy = win->info ? uz_info_dup(win->info) : uz_info_new();
    if (!copy)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
    /* Hints that shape the window (memory layout, lock support) were
     * fixed at creation; the rest are taken as given. */
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
        const char *v = uz_info_lookup(info, hints[i].key);
        if (v && strcmp(hints[i].key, "no_locks") && strcmp(hints[i].key, "alloc_shared_noncontig") &&
            uz_info_set(copy, hints[i].key, v)) {
            uz_info_free(copy);
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
        }
    }
    if (win->info)
        uz_info_free(win->info);
    win->info = copy;
    return MPI_SUCCESS;
}

int uz_mpi_Win_get_info(uz_win *win, MPI_Info *info_used)
{
    uz_info *copy = uz_info_new();
    if (!copy)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
        const char *v = win->info ? uz_info_lookup(win->info, hints[i].key) : NULL;
        if (uz_info_set(copy, hints[i].key, v ? v : hints[i].value)) {
            uz_info_free(copy);
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
        }
    }
    *info_used = uz_info_handle(copy);
    return MPI_SUCCESS;
}
