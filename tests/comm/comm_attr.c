/*
 * comm_attr.c — attribute caching on communicators: copy callbacks on dup
 * (user functions, MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN), delete
 * callbacks on free, replace and delete, and the order they run in; a
 * copy callback that fails makes MPI_Comm_dup fail with its error, a
 * delete callback that fails makes MPI_Comm_free and MPI_Comm_delete_attr
 * fail; keyvals freed while still in use; the predefined attributes; the
 * deprecated MPI-1 names; and MPI_COMM_SELF's attributes deleted at the
 * start of MPI_Finalize, newest first.
 */
#include "uztest.h"

static int n, me;

/* ------------------------------------------------------------ event log */

enum { EV_COPY = 1, EV_DELETE = 2 };
struct event {
    int kind, keyval;
    MPI_Comm comm;
    intptr_t value;
};
static struct event events[256];
static int nevents;
static int copy_fail_rc;        /* what the copy callback returns (0: succeed) */
static int delete_fail_rc;

static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    events[nevents++] = (struct event){ EV_COPY, keyval, oldcomm, (intptr_t)in };
    if (copy_fail_rc && (intptr_t)extra == 1)
        return copy_fail_rc;
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    events[nevents++] = (struct event){ EV_DELETE, keyval, comm, (intptr_t)value };
    if (delete_fail_rc && (intptr_t)extra == 1)
        return delete_fail_rc;
    return MPI_SUCCESS;
}

static void expect_event(int i, int kind, int keyval, intptr_t value, const char *what)
{
    CHECK(i < nevents, "%s: event %d missing (only %d)", what, i, nevents);
    if (i >= nevents)
        return;
    CHECK(events[i].kind == kind && events[i].keyval == keyval && events[i].value == value,
          "%s: event %d is (%d, keyval %d, value %ld), expected (%d, %d, %ld)", what, i,
          events[i].kind, events[i].keyval, (long)events[i].value, kind, keyval, (long)value);
}

static intptr_t get(MPI_Comm c, int k, int *flag)
{
    void *v = NULL;
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, flag));
    return (intptr_t)v;
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS && uzt_class(rc) == cls, "%s: rc %d class %d, expected class %d", what,
          rc, rc ? uzt_class(rc) : 0, cls);
}

/* -------------------------------------------------------------- tests */

static void test_copy_and_delete(void)
{
    int k1, k2, k3;
    CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, (void *)0));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k2, (void *)0));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, (void *)0));

    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    CHECK_MPI(MPI_Comm_set_attr(a, k2, (void *)2));
    CHECK_MPI(MPI_Comm_set_attr(a, k1, (void *)1));
    CHECK_MPI(MPI_Comm_set_attr(a, k3, (void *)3));
    int flag;
    CHECK_EQ(get(a, k1, &flag), 1);
    CHECK(flag, "k1 not set");

    nevents = 0;
    CHECK_MPI(MPI_Comm_dup(a, &b));
    /* One user copy callback ran, with the old communicator. */
    CHECK_EQ(nevents, 1);
    expect_event(0, EV_COPY, k1, 1, "dup");
    CHECK(events[0].comm == a, "copy callback did not get the old communicator");
    CHECK_EQ(get(b, k1, &flag), 101);
    CHECK(flag, "k1 not copied");
    get(b, k2, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    CHECK_EQ(get(b, k3, &flag), 3);
    CHECK(flag, "MPI_COMM_DUP_FN attribute not copied");

    /* Replacing runs the delete callback on the old value first. */
    nevents = 0;
    CHECK_MPI(MPI_Comm_set_attr(b, k1, (void *)7));
    CHECK_EQ(nevents, 1);
    expect_event(0, EV_DELETE, k1, 101, "replace");
    CHECK(events[0].comm == b, "delete callback did not get the communicator");

    /* Explicit delete. */
    nevents = 0;
    CHECK_MPI(MPI_Comm_set_attr(b, k2, (void *)22));
    CHECK_MPI(MPI_Comm_delete_attr(b, k2));
    expect_event(0, EV_DELETE, k2, 22, "delete_attr");
    get(b, k2, &flag);
    CHECK(!flag, "attribute still there after delete");
    /* Deleting what is not there is no error (MPICH agrees). */
    CHECK_MPI(MPI_Comm_delete_attr(b, k2));

    /* Free runs the delete callbacks, newest attribute first: on a the
     * attributes were set k2, k1, k3 (k3 has no callback). */
    nevents = 0;
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_EQ(nevents, 2);
    expect_event(0, EV_DELETE, k1, 1, "free order");
    expect_event(1, EV_DELETE, k2, 2, "free order");

    /* A keyval freed while in use still works for the attributes that use
     * it: b keeps k1 and its delete callback runs at b's free. */
    int k1_saved = k1;
    CHECK_MPI(MPI_Comm_free_keyval(&k1));
    CHECK_EQ(k1, MPI_KEYVAL_INVALID);
    nevents = 0;
    CHECK_MPI(MPI_Comm_free(&b));
    CHECK_EQ(nevents, 1);
    expect_event(0, EV_DELETE, k1_saved, 7, "delete after keyval free");
    CHECK_MPI(MPI_Comm_free_keyval(&k2));
    CHECK_MPI(MPI_Comm_free_keyval(&k3));
}

static void test_failing_callbacks(void)
{
    int kok, kbad;
    CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &kok, (void *)0));
    CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &kbad, (void *)1));
    MPI_Comm a, b = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    CHECK_MPI(MPI_Comm_set_attr(a, kok, (void *)5));
    CHECK_MPI(MPI_Comm_set_attr(a, kbad, (void *)6));

    /* The copy of kbad fails: the dup fails with that error, and the
     * attribute already copied (kok) is deleted from the discarded one. */
    copy_fail_rc = MPI_ERR_ARG;
    nevents = 0;
    int rc = MPI_Comm_dup(a, &b);
    expect_class(rc, MPI_ERR_ARG, "dup with a failing copy callback");
    CHECK_EQ(nevents, 3);
    expect_event(0, EV_COPY, kok, 5, "failed dup");
    expect_event(1, EV_COPY, kbad, 6, "failed dup");
    expect_event(2, EV_DELETE, kok, 105, "failed dup undoes the copy");
    /* A code that is no error code at all becomes MPI_ERR_OTHER. */
    copy_fail_rc = 123456;
    rc = MPI_Comm_dup(a, &b);
    expect_class(rc, MPI_ERR_OTHER, "dup with a copy callback returning junk");
    /* Idup fails the same way, at the call. */
    MPI_Request r = MPI_REQUEST_NULL;
    copy_fail_rc = MPI_ERR_ARG;
    rc = MPI_Comm_idup(a, &b, &r);
    expect_class(rc, MPI_ERR_ARG, "idup with a failing copy callback");
    copy_fail_rc = 0;

    /* The communicator still works after the failed dups. */
    int v = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, a));
    CHECK_EQ(sum, n);

    /* A failing delete callback makes delete_attr and free fail and keeps
     * the attribute (and the communicator). */
    delete_fail_rc = MPI_ERR_INTERN;
    expect_class(MPI_Comm_delete_attr(a, kbad), MPI_ERR_INTERN, "delete_attr failing");
    int flag;
    CHECK_EQ(get(a, kbad, &flag), 6);
    CHECK(flag, "attribute gone after a failed delete");
    MPI_Comm keep = a;
    expect_class(MPI_Comm_free(&a), MPI_ERR_INTERN, "free with a failing delete callback");
    CHECK(a == keep, "a failed free changed the handle");
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, a));
    CHECK_EQ(sum, n);
    delete_fail_rc = 0;
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free_keyval(&kok));
    CHECK_MPI(MPI_Comm_free_keyval(&kbad));
}

static void test_idup_copies(void)
{
    int k;
    CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &k, (void *)0));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, k, (void *)40));
    MPI_Comm c;
    MPI_Request r;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int flag;
    CHECK_EQ(get(c, k, &flag), 140);
    CHECK(flag, "idup did not copy the attribute");
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, k));
    MPI_Comm_free_keyval(&k);
}

static void test_predefined(void)
{
    MPI_Comm comms[2] = { MPI_COMM_WORLD, MPI_COMM_NULL };
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    for (int i = 0; i < 2; i++) {
        int *v, flag;
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_TAG_UB, &v, &flag));
        CHECK(flag && *v >= 32767, "MPI_TAG_UB missing or too small");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_HOST, &v, &flag));
        CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < n)), "MPI_HOST");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_IO, &v, &flag));
        CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < n)), "MPI_IO");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_WTIME_IS_GLOBAL, &v, &flag));
        CHECK(!flag || *v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_UNIVERSE_SIZE, &v, &flag));
        CHECK(!flag || *v >= n, "MPI_UNIVERSE_SIZE");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_APPNUM, &v, &flag));
        CHECK(!flag || *v >= 0, "MPI_APPNUM");
        CHECK_MPI(MPI_Comm_get_attr(comms[i], MPI_LASTUSEDCODE, &v, &flag));
        CHECK(flag && *v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
    }
    int cls, *v, flag;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v >= cls, "MPI_LASTUSEDCODE %d below the class just added (%d)", *v, cls);
    /* The deprecated call answers too. */
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
    /* Predefined keys cannot be set, deleted or freed. */
    int key = MPI_TAG_UB;
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *)1), MPI_ERR_KEYVAL,
                 "set_attr(MPI_TAG_UB)");
    expect_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST), MPI_ERR_KEYVAL,
                 "delete_attr(MPI_HOST)");
    expect_class(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL, "free_keyval(MPI_TAG_UB)");
    expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag), MPI_ERR_KEYVAL,
                 "get_attr(MPI_WIN_BASE) on a communicator");
    MPI_Comm_free(&comms[1]);
}

static void test_deprecated(void)
{
    int k;
    CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    CHECK_MPI(MPI_Attr_put(a, k, (void *)9));
    CHECK_MPI(MPI_Comm_dup(a, &b));
    void *v;
    int flag;
    CHECK_MPI(MPI_Attr_get(b, k, &v, &flag));
    CHECK(flag && (intptr_t)v == 9, "MPI_DUP_FN via MPI_Keyval_create");
    CHECK_MPI(MPI_Attr_delete(b, k));
    CHECK_MPI(MPI_Attr_get(b, k, &v, &flag));
    CHECK(!flag, "MPI_Attr_delete left the attribute");
    int k2;
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_cb, &k2, NULL));
    CHECK_MPI(MPI_Attr_put(a, k2, (void *)8));
    MPI_Comm c;
    MPI_Comm_dup(a, &c);
    CHECK_MPI(MPI_Attr_get(c, k2, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN via MPI_Keyval_create copied");
    MPI_Comm_free(&c);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
    CHECK_MPI(MPI_Keyval_free(&k));
    CHECK_MPI(MPI_Keyval_free(&k2));
    CHECK_EQ(k, MPI_KEYVAL_INVALID);
}

static void test_keyval_misuse(void)
{
    int k, tk;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    int saved = k;
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    void *v;
    int flag;
    expect_class(MPI_Comm_free_keyval(&saved), MPI_ERR_KEYVAL, "keyval freed twice");
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL), MPI_ERR_KEYVAL, "set with a freed keyval");
    expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag), MPI_ERR_KEYVAL,
                 "get with a freed keyval");
    int invalid = MPI_KEYVAL_INVALID;
    expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, invalid, &v, &flag), MPI_ERR_KEYVAL,
                 "get with MPI_KEYVAL_INVALID");
    expect_class(MPI_Comm_free_keyval(&invalid), MPI_ERR_KEYVAL, "free of MPI_KEYVAL_INVALID");
    /* A datatype keyval is not a communicator keyval. */
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL), MPI_ERR_KEYVAL,
                 "set with a datatype keyval");
    int tk2 = tk;
    expect_class(MPI_Comm_free_keyval(&tk2), MPI_ERR_KEYVAL, "comm free of a datatype keyval");
    CHECK_MPI(MPI_Type_free_keyval(&tk));
}

/* Attributes on MPI_COMM_SELF are deleted at the start of MPI_Finalize,
 * newest first; the callbacks may still call MPI. */
static int self_keys[3];
static int self_order[3], nself;
static int self_could_call_mpi = 1;

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag)
        self_could_call_mpi = 0;
    int size = -1;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != n)
        self_could_call_mpi = 0;
    if (nself < 3)
        self_order[nself++] = (int)(intptr_t)value;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_copy_and_delete();
    test_failing_callbacks();
    test_idup_copies();
    test_predefined();
    test_deprecated();
    test_keyval_misuse();

    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keys[i], NULL));
        CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, self_keys[i], (void *)(intptr_t)(i + 1)));
    }
    int rc = uzt_finish("comm_attr");
    int ok = nself == 3 && self_order[0] == 3 && self_order[1] == 2 && self_order[2] == 1 &&
             self_could_call_mpi;
    if (!ok) {
        fprintf(stderr, "FAIL rank %d: MPI_COMM_SELF delete callbacks at MPI_Finalize: %d ran "
                "(order %d %d %d), MPI usable: %d\n", me, nself, self_order[0], self_order[1],
                self_order[2], self_could_call_mpi);
        return 1;
    }
    return rc;
}
