/*
 * rma_win_attrs.c — what a window knows about itself.
 *
 *  - Predefined attributes for every flavour: MPI_WIN_BASE (the memory
 *    given or returned), MPI_WIN_SIZE, MPI_WIN_DISP_UNIT (different on
 *    every rank), MPI_WIN_CREATE_FLAVOR (MPI_WIN_FLAVOR_CREATE, _ALLOCATE,
 *    _SHARED, _DYNAMIC), MPI_WIN_MODEL (MPI_WIN_UNIFIED expected on this
 *    cache-coherent host).  For a dynamic window only the flavour and the
 *    model are checked.
 *  - User keyvals: MPI_Win_create_keyval, set/get/delete attribute, the
 *    delete callback run with the old value when a value is replaced, when
 *    it is deleted, and at MPI_Win_free (after MPI_Win_free_keyval, which
 *    sets the keyval to MPI_KEYVAL_INVALID) with the window's handle and
 *    the extra state.
 *  - MPI_Win_set_name/get_name (empty until set).
 *  - MPI_Win_get_group: MPI_IDENT to the communicator's group.
 *  - Info: no_locks, accumulate_ordering, accumulate_ops, same_size and
 *    same_disp_unit given at creation come back from MPI_Win_get_info with
 *    the values given.  An implementation may ignore hints and then not
 *    return them (MPI-4.1 §12.2.7), so their presence is required of Uzura
 *    only (MPI_Get_library_version contains "Uzura"); elsewhere a key
 *    returned must have the value given.  On a window made without info,
 *    the same keys, where present, have their default values.
 *    MPI_Win_set_info is accepted.
 *  - Error handlers: MPI_Win_create_errhandler, set, get (the returned
 *    handle freed to MPI_ERRHANDLER_NULL), MPI_Win_call_errhandler runs the
 *    user function with the window and the code (a predefined one and one
 *    from MPI_Add_error_code), and an erroneous call (MPI_Win_lock of rank
 *    size) runs it with an MPI_ERR_RANK code (what the call returns after
 *    a user handler is left open by the standard and not checked).
 *  - MPI_Win_free sets the handle to MPI_WIN_NULL.
 *  - MPI_Win_test after post: loops until the epoch is over, then every
 *    origin's Put is there.
 */
#include "uztest.h"

static int rank, size, is_uzura;

static int get_int_attr(MPI_Win win, int key, const char *what)
{
    int *v = NULL, flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag, "%s not set", what);
    return flag && v ? *v : -1;
}

/* Base, size and disp_unit, flavour and model. */
static void check_attrs(MPI_Win win, const char *name, void *base, MPI_Aint size_, int du, int flavour)
{
    int flag = 0;
    if (flavour != MPI_WIN_FLAVOR_DYNAMIC) {
        void *b = NULL;
        MPI_Aint *sz = NULL;
        CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
        CHECK(flag && b == base, "%s: MPI_WIN_BASE %p (flag %d), expected %p", name, b, flag, base);
        CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
        CHECK(flag && sz && *sz == size_, "%s: MPI_WIN_SIZE %ld (flag %d), expected %ld", name,
              sz ? (long)*sz : -1L, flag, (long)size_);
        int d = get_int_attr(win, MPI_WIN_DISP_UNIT, "MPI_WIN_DISP_UNIT");
        CHECK(d == du, "%s: MPI_WIN_DISP_UNIT %d, expected %d", name, d, du);
    }
    int f = get_int_attr(win, MPI_WIN_CREATE_FLAVOR, "MPI_WIN_CREATE_FLAVOR");
    CHECK(f == flavour, "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d", name, f, flavour);
    int m = get_int_attr(win, MPI_WIN_MODEL, "MPI_WIN_MODEL");
    CHECK(m == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d, expected MPI_WIN_UNIFIED (%d)", name, m, MPI_WIN_UNIFIED);
}

static void free_win(MPI_Win *win, const char *name)
{
    CHECK_MPI(MPI_Win_free(win));
    CHECK(*win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", name);
}

static void flavours(void)
{
    MPI_Win win;
    /* create */
    MPI_Aint sz = 1000 + 8 * rank;
    char *buf = malloc(sz);
    CHECK_MPI(MPI_Win_create(buf, sz, 1 + rank % 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "create", buf, sz, 1 + rank % 4, MPI_WIN_FLAVOR_CREATE);
    free_win(&win, "create");
    free(buf);
    /* allocate */
    void *base = NULL;
    CHECK_MPI(MPI_Win_allocate(sz, 2 + rank % 3, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    check_attrs(win, "allocate", base, sz, 2 + rank % 3, MPI_WIN_FLAVOR_ALLOCATE);
    free_win(&win, "allocate");
    /* allocate_shared */
    MPI_Comm shm;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    CHECK_MPI(MPI_Win_allocate_shared(sz, 8, MPI_INFO_NULL, shm, &base, &win));
    check_attrs(win, "allocate_shared", base, sz, 8, MPI_WIN_FLAVOR_SHARED);
    free_win(&win, "allocate_shared");
    CHECK_MPI(MPI_Comm_free(&shm));
    /* dynamic */
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "dynamic", NULL, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    free_win(&win, "dynamic");
}

/* ------------------------------------------------------------- keyvals */

static int del_calls;
static MPI_Win del_win;
static void *del_val, *del_extra;
static int extra_token;

static int del_fn(MPI_Win win, int keyval, void *attr_val, void *extra)
{
    (void)keyval;
    del_calls++;
    del_win = win;
    del_val = attr_val;
    del_extra = extra;
    return MPI_SUCCESS;
}

static void keyvals(void)
{
    int kv, v1 = 1, v2 = 2, v3 = 3, flag = -1;
    void *got = NULL;
    MPI_Win win;
    char buf[64];
    CHECK_MPI(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win saved = win;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, &extra_token));
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag == 0, "attribute present before it was set");

    CHECK_MPI(MPI_Win_set_attr(win, kv, &v1));
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag == 1 && got == &v1, "get_attr after set: flag %d value %p, expected %p", flag, got, (void *)&v1);
    CHECK_EQ(del_calls, 0);

    /* Replacing runs the delete callback on the old value. */
    CHECK_MPI(MPI_Win_set_attr(win, kv, &v2));
    CHECK(del_calls == 1 && del_val == &v1 && del_win == saved && del_extra == &extra_token,
          "replacing: %d delete calls, value %p (expected %p)", del_calls, del_val, (void *)&v1);
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag == 1 && got == &v2, "get_attr after replace: flag %d value %p", flag, got);

    CHECK_MPI(MPI_Win_delete_attr(win, kv));
    CHECK(del_calls == 2 && del_val == &v2, "delete_attr: %d delete calls, value %p (expected %p)", del_calls,
          del_val, (void *)&v2);
    CHECK_MPI(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag == 0, "attribute present after delete_attr");

    /* Still attached when the keyval is freed: deleted at MPI_Win_free. */
    CHECK_MPI(MPI_Win_set_attr(win, kv, &v3));
    CHECK_MPI(MPI_Win_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval did not set MPI_KEYVAL_INVALID");
    CHECK_EQ(del_calls, 2);
    free_win(&win, "keyvals");
    CHECK(del_calls == 3 && del_val == &v3 && del_win == saved && del_extra == &extra_token,
          "MPI_Win_free: %d delete calls, value %p (expected %p), window %s", del_calls, del_val, (void *)&v3,
          del_win == saved ? "right" : "wrong");
}

/* ------------------------------------------------- name, group, info */

static void name_group(void)
{
    MPI_Win win;
    char buf[64], name[MPI_MAX_OBJECT_NAME];
    int len = -1, cmp;
    CHECK_MPI(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0 && name[0] == 0, "unnamed window: name \"%s\" length %d", name, len);
    CHECK_MPI(MPI_Win_set_name(win, "rma attrs: window one"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "rma attrs: window one") == 0 && len == (int)strlen(name), "name \"%s\" length %d", name, len);
    CHECK_MPI(MPI_Win_set_name(win, "renamed"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "renamed") == 0 && len == 7, "renamed: \"%s\" length %d", name, len);

    MPI_Group wg, cg;
    CHECK_MPI(MPI_Win_get_group(win, &wg));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &cg));
    CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "window group vs communicator group: %d, expected MPI_IDENT", cmp);
    int gs = -1;
    MPI_Group_size(wg, &gs);
    CHECK_EQ(gs, size);
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK_MPI(MPI_Group_free(&cg));
    free_win(&win, "name_group");
}

/* The value of `key` in `info`, or NULL. */
static const char *info_value(MPI_Info info, const char *key, char *buf, int buflen)
{
    int flag = 0;
#if MPI_VERSION >= 4
    int len = buflen;
    CHECK_MPI(MPI_Info_get_string(info, key, &len, buf, &flag));
#else
    CHECK_MPI(MPI_Info_get(info, key, buflen - 1, buf, &flag));
#endif
    return flag ? buf : NULL;
}

static const char *hint_keys[] = { "no_locks", "accumulate_ordering", "accumulate_ops", "same_size",
                                   "same_disp_unit" };
static const char *hint_given[] = { "true", "none", "same_op", "true", "true" };
static const char *hint_default[] = { "false", "rar,raw,war,waw", "same_op_no_op", "false", "false" };

static void info(void)
{
    MPI_Info in, used;
    MPI_Win win;
    void *base;
    char v[MPI_MAX_INFO_VAL + 1];
    CHECK_MPI(MPI_Info_create(&in));
    for (int k = 0; k < 5; k++)
        CHECK_MPI(MPI_Info_set(in, hint_keys[k], hint_given[k]));
    /* same_size and same_disp_unit true: every rank gives the same. */
    CHECK_MPI(MPI_Win_allocate(256, 8, in, MPI_COMM_WORLD, &base, &win));
    CHECK_MPI(MPI_Info_free(&in));
    CHECK_MPI(MPI_Win_get_info(win, &used));
    for (int k = 0; k < 5; k++) {
        const char *got = info_value(used, hint_keys[k], v, sizeof(v));
        CHECK((got || !is_uzura) && (!got || strcmp(got, hint_given[k]) == 0), "get_info: %s = %s, given %s",
              hint_keys[k], got ? got : "(absent)", hint_given[k]);
    }
    CHECK_MPI(MPI_Info_free(&used));
    /* set_info is accepted; what it changes is the implementation's choice. */
    CHECK_MPI(MPI_Info_create(&in));
    CHECK_MPI(MPI_Info_set(in, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Info_set(in, "uzura_test_unknown_hint", "1"));
    CHECK_MPI(MPI_Win_set_info(win, in));
    CHECK_MPI(MPI_Info_free(&in));
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK(used != MPI_INFO_NULL, "get_info after set_info gave MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_free(&used));
    free_win(&win, "info");

    /* No info: the keys that are reported have their default values. */
    CHECK_MPI(MPI_Win_allocate(256, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_MPI(MPI_Win_get_info(win, &used));
    for (int k = 0; k < 5; k++) {
        const char *got = info_value(used, hint_keys[k], v, sizeof(v));
        CHECK(!got || strcmp(got, hint_default[k]) == 0, "get_info without hints: %s = %s, default %s",
              hint_keys[k], got, hint_default[k]);
    }
    CHECK_MPI(MPI_Info_free(&used));
    free_win(&win, "info default");
}

/* -------------------------------------------------------- errhandlers */

static int eh_calls, eh_code;
static MPI_Win eh_win;

static void eh_fn(MPI_Win *win, int *code, ...)
{
    eh_calls++;
    eh_win = *win;
    eh_code = *code;
}

static void errhandlers(void)
{
    MPI_Win win;
    MPI_Errhandler eh, got;
    char buf[64];
    CHECK_MPI(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_create_errhandler(eh_fn, &eh));
    CHECK_MPI(MPI_Win_get_errhandler(win, &got)); /* the default: not checked */
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Win_set_errhandler(win, eh));
    /* The window keeps it after the user's handle is freed. */
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");

    CHECK_MPI(MPI_Win_get_errhandler(win, &got));
    CHECK(got != MPI_ERRHANDLER_NULL && got != MPI_ERRORS_ARE_FATAL && got != MPI_ERRORS_RETURN,
          "MPI_Win_get_errhandler did not return the user's handler");
    /* The returned handle works: set it again. */
    CHECK_MPI(MPI_Win_set_errhandler(win, got));
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK(got == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");

    int rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS, "MPI_Win_call_errhandler returned %d", rc);
    CHECK(eh_calls == 1 && eh_win == win && eh_code == MPI_ERR_OTHER,
          "call_errhandler(MPI_ERR_OTHER): %d calls, code %d, window %s", eh_calls, eh_code,
          eh_win == win ? "right" : "wrong");

    int cls, code;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Win_call_errhandler(win, code));
    CHECK(eh_calls == 2 && eh_win == win && eh_code == code && uzt_class(eh_code) == cls,
          "call_errhandler(user code): %d calls, code %d (class %d), expected %d (class %d)", eh_calls, eh_code,
          uzt_class(eh_code), code, cls);

    /* A real error goes to the user's function, and the call returns.
     * What it returns after a user handler is not checked: the standard
     * does not say, and MPICH 5.0.2 returns MPI_SUCCESS. */
    (void)MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win);
    CHECK(eh_calls == 3 && eh_win == win && uzt_class(eh_code) == MPI_ERR_RANK,
          "MPI_Win_lock(rank %d): handler called %d times, class %d", size, eh_calls - 2, uzt_class(eh_code));

    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_get_errhandler(win, &got));
    CHECK(got == MPI_ERRORS_RETURN, "get_errhandler after setting MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&got));
    free_win(&win, "errhandlers");
}

/* --------------------------------------------------------- Win_test */

static void win_test(void)
{
    MPI_Win win;
    MPI_Group grp;
    int *buf = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++)
        buf[i] = -1;
    CHECK_MPI(MPI_Win_create(buf, size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_get_group(win, &grp));
    int val = 1000 + rank;
    CHECK_MPI(MPI_Win_post(grp, 0, win));
    CHECK_MPI(MPI_Win_start(grp, 0, win));
    for (int t = 0; t < size; t++)
        CHECK_MPI(MPI_Put(&val, 1, MPI_INT, t, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    int flag = 0;
    long polls = 0;
    while (!flag) {
        CHECK_MPI(MPI_Win_test(win, &flag));
        polls++;
    }
    CHECK(polls >= 1, "no polls");
    for (int o = 0; o < size; o++)
        CHECK(buf[o] == 1000 + o, "after MPI_Win_test: element %d is %d, expected %d", o, buf[o], 1000 + o);
    CHECK_MPI(MPI_Group_free(&grp));
    free_win(&win, "win_test");
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    CHECK_MPI(MPI_Get_library_version(ver, &len));
    is_uzura = strstr(ver, "Uzura") != NULL;

    flavours();
    keyvals();
    name_group();
    info();
    errhandlers();
    win_test();
    return uzt_finish("rma_win_attrs");
}
