/*
 * comm_attr_callbacks.c — attribute callbacks that call MPI on the object
 * whose callback is running, and keyvals that outlive their free (issue
 * 22): a delete callback that deletes, reads or sets other attributes of
 * the same communicator (through MPI_Comm_delete_attr, MPI_Comm_free and
 * MPI_Finalize), or tries to free it (refused); a copy callback that
 * changes the communicator being duplicated; a keyval freed inside its own
 * delete callback and freed again while attributes still use it; a freed
 * keyval's number never reaching a newer keyval; a failing copy callback
 * leaving MPI_COMM_NULL from MPI_Comm_dup, _dup_with_info and _idup; a
 * failing delete callback when a value is replaced; window keyvals; and at
 * MPI_Finalize the attributes of MPI_COMM_SELF deleted newest first, then
 * those of MPI_COMM_WORLD and of the predefined datatypes.
 */
#include "uztest.h"

static int n, me;

/* ------------------------------------------------------------ event log */

static int log_keys[256];
static intptr_t log_vals[256];
static int nlog;

static void log_delete(int keyval, void *value)
{
    if (nlog < 256) {
        log_keys[nlog] = keyval;
        log_vals[nlog] = (intptr_t)value;
    }
    nlog++;
}

static void expect_log(const int *keys, const intptr_t *vals, int count, const char *what)
{
    CHECK(nlog == count, "%s: %d delete callbacks ran, expected %d", what, nlog, count);
    for (int i = 0; i < count && i < nlog; i++)
        CHECK(log_keys[i] == keys[i] && log_vals[i] == vals[i],
              "%s: delete %d was (keyval %d, value %ld), expected (%d, %ld)", what, i,
              log_keys[i], (long)log_vals[i], keys[i], (long)vals[i]);
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS && uzt_class(rc) == cls, "%s: rc %d (class %d), expected class %d",
          what, rc, rc ? uzt_class(rc) : 0, cls);
}

static intptr_t get(MPI_Comm c, int k, int *flag)
{
    void *v = NULL;
    *flag = -1;
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, flag));
    return (intptr_t)v;
}

static int logging_delete(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    return MPI_SUCCESS;
}

/* ------------------------------------------- deleting from a callback */

static int k_a, k_b, k_c;

/* k_b's delete: deletes k_a and k_c of the same communicator. */
static int delete_others(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    CHECK_MPI(MPI_Comm_delete_attr(c, k_a));
    CHECK_MPI(MPI_Comm_delete_attr(c, k_c));
    return MPI_SUCCESS;
}

static void test_delete_deletes_others(void)
{
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, logging_delete, &k_a, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_others, &k_b, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, logging_delete, &k_c, NULL));
    int flag;

    /* Through MPI_Comm_delete_attr (MPICH's attrdelete). */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)1));
    CHECK_MPI(MPI_Comm_set_attr(c, k_b, (void *)2));
    CHECK_MPI(MPI_Comm_set_attr(c, k_c, (void *)3));
    nlog = 0;
    CHECK_MPI(MPI_Comm_delete_attr(c, k_b));
    expect_log((int[]){ k_b, k_a, k_c }, (intptr_t[]){ 2, 1, 3 }, 3, "delete_attr");
    get(c, k_a, &flag);
    CHECK_EQ(flag, 0);
    get(c, k_b, &flag);
    CHECK_EQ(flag, 0);
    get(c, k_c, &flag);
    CHECK_EQ(flag, 0);

    /* Through MPI_Comm_free, newest first: k_c goes, then k_b, whose
     * callback deletes k_a (k_c is gone already). */
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)11));
    CHECK_MPI(MPI_Comm_set_attr(c, k_b, (void *)12));
    CHECK_MPI(MPI_Comm_set_attr(c, k_c, (void *)13));
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
    expect_log((int[]){ k_c, k_b, k_a }, (intptr_t[]){ 13, 12, 11 }, 3, "free, set a b c");

    /* Set b, a, c: c goes, then a, then b (whose deletes find nothing). */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k_b, (void *)22));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)21));
    CHECK_MPI(MPI_Comm_set_attr(c, k_c, (void *)23));
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    expect_log((int[]){ k_c, k_a, k_b }, (intptr_t[]){ 23, 21, 22 }, 3, "free, set b a c");

    /* Set c, a, b: b goes first and takes a and c with it. */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k_c, (void *)33));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)31));
    CHECK_MPI(MPI_Comm_set_attr(c, k_b, (void *)32));
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    expect_log((int[]){ k_b, k_a, k_c }, (intptr_t[]){ 32, 31, 33 }, 3, "free, set c a b");
}

/* A delete callback that reads its own attribute and uses the
 * communicator being freed (MPICH's attrdeleteget), then sets a new
 * attribute on it, which must be deleted too before the free returns. */
static int k_reader, k_late;
static int reader_ok;

static int delete_reads_and_sets(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    int flag = 0, size = -1;
    void *got = NULL;
    reader_ok = c != MPI_COMM_NULL && MPI_Comm_get_attr(c, k, &got, &flag) == MPI_SUCCESS &&
                flag && got == v && MPI_Comm_size(c, &size) == MPI_SUCCESS && size == n;
    CHECK_MPI(MPI_Comm_set_attr(c, k_late, (void *)99));
    return MPI_SUCCESS;
}

static void test_delete_reads_and_sets(void)
{
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_reads_and_sets, &k_reader,
                                     NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, logging_delete, &k_late, NULL));
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 1, 0, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)41));
    CHECK_MPI(MPI_Comm_set_attr(c, k_reader, (void *)42));
    nlog = 0;
    reader_ok = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(reader_ok, "the delete callback could not read its attribute or use the communicator");
    expect_log((int[]){ k_reader, k_late, k_a }, (intptr_t[]){ 42, 99, 41 }, 3,
               "free with an attribute set by a delete callback");
    CHECK_MPI(MPI_Comm_free_keyval(&k_reader));
    CHECK_MPI(MPI_Comm_free_keyval(&k_late));
}

/* A delete callback that frees its own communicator is refused (the
 * communicator and its other attributes stay). */
static int k_freer, free_class_in_callback;

static int delete_frees_comm(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    MPI_Comm copy = c;
    int rc = MPI_Comm_free(&copy);
    free_class_in_callback = rc == MPI_SUCCESS ? MPI_SUCCESS : uzt_class(rc);
    if (copy != c)
        free_class_in_callback = -1;
    return MPI_SUCCESS;
}

static void test_free_from_callback(void)
{
    int flag, v = 1, sum = 0;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_comm, &k_freer, NULL));
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)61));
    CHECK_MPI(MPI_Comm_set_attr(c, k_freer, (void *)62));
    nlog = 0;
    CHECK_MPI(MPI_Comm_delete_attr(c, k_freer));
    CHECK_EQ(free_class_in_callback, MPI_ERR_OTHER);
    expect_log((int[]){ k_freer }, (intptr_t[]){ 62 }, 1, "a refused free deletes nothing");
    CHECK_EQ(get(c, k_a, &flag), 61);
    CHECK_EQ(flag, 1);
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, n);
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    expect_log((int[]){ k_a }, (intptr_t[]){ 61 }, 1, "the free after it");
    CHECK_MPI(MPI_Comm_free_keyval(&k_freer));
}

/* --------------------------------------------- copy changing the source */

static int k_dupper;

/* Deletes k_a from the communicator being duplicated and sets k_c on it. */
static int copy_changes_source(MPI_Comm old, int k, void *extra, void *in, void *out, int *flag)
{
    CHECK_MPI(MPI_Comm_delete_attr(old, k_a));
    CHECK_MPI(MPI_Comm_set_attr(old, k_c, (void *)53));
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_copy_changes_source(void)
{
    int k_keep, flag;
    CHECK_MPI(MPI_Comm_create_keyval(copy_changes_source, logging_delete, &k_dupper, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, logging_delete, &k_keep, NULL));
    MPI_Comm c, d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k_dupper, (void *)51));
    CHECK_MPI(MPI_Comm_set_attr(c, k_a, (void *)52));       /* NULL_COPY: not copied */
    CHECK_MPI(MPI_Comm_set_attr(c, k_keep, (void *)54));
    nlog = 0;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    /* The copies are of the attributes as they were when the dup began. */
    expect_log((int[]){ k_a }, (intptr_t[]){ 52 }, 1, "the copy callback's delete of k_a");
    CHECK_EQ(get(d, k_dupper, &flag), 1051);
    CHECK_EQ(flag, 1);
    CHECK_EQ(get(d, k_keep, &flag), 54);
    CHECK_EQ(flag, 1);
    get(d, k_c, &flag);
    CHECK_EQ(flag, 0);
    get(c, k_a, &flag);
    CHECK_EQ(flag, 0);
    CHECK_EQ(get(c, k_c, &flag), 53);
    CHECK_EQ(flag, 1);
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&d));
    expect_log((int[]){ k_keep, k_dupper }, (intptr_t[]){ 54, 1051 }, 2, "free of the dup");
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    expect_log((int[]){ k_c, k_keep, k_dupper }, (intptr_t[]){ 53, 54, 51 }, 3,
               "free of the original");
    CHECK_MPI(MPI_Comm_free_keyval(&k_dupper));
    CHECK_MPI(MPI_Comm_free_keyval(&k_keep));
}

/* ------------------------------------------------------ keyval lifetime */

static int frees_in_callback, free_rc_in_callback;

/* Frees its own keyval (a copy of the number: MPICH's keyval_double_free). */
static int delete_frees_keyval(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    int copy = k;
    int rc = MPI_Comm_free_keyval(&copy);
    if (rc != MPI_SUCCESS || copy != MPI_KEYVAL_INVALID)
        free_rc_in_callback = rc ? rc : -1;
    frees_in_callback++;
    return MPI_SUCCESS;
}

static int copies_seen;

static int counting_copy(MPI_Comm old, int k, void *extra, void *in, void *out, int *flag)
{
    copies_seen++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_keyval_freed_in_use(void)
{
    int k, flag;
    void *v;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_keyval, &k, NULL));
    int saved = k;
    MPI_Comm a, b;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    CHECK_MPI(MPI_Comm_set_attr(a, k, (void *)61));
    CHECK_MPI(MPI_Comm_set_attr(b, k, (void *)62));

    /* The first free happens in the callback; b still uses the keyval. */
    nlog = frees_in_callback = free_rc_in_callback = 0;
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_EQ(frees_in_callback, 1);
    CHECK_EQ(free_rc_in_callback, 0);
    /* Freeing it again while in use does nothing (MPICH agrees). */
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    CHECK_EQ(k, MPI_KEYVAL_INVALID);
    int again = saved;
    CHECK_MPI(MPI_Comm_free_keyval(&again));
    /* The attribute that uses it is still reachable through its number. */
    CHECK_EQ(get(b, saved, &flag), 62);
    CHECK_EQ(flag, 1);
    nlog = 0;
    CHECK_MPI(MPI_Comm_delete_attr(b, saved));
    expect_log((int[]){ saved }, (intptr_t[]){ 62 }, 1, "delete through a freed keyval");
    CHECK_EQ(frees_in_callback, 2);
    CHECK_EQ(free_rc_in_callback, 0);
    /* Now it is gone: its number is an error everywhere. */
    again = saved;
    expect_class(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL, "free of a dead keyval");
    expect_class(MPI_Comm_get_attr(b, saved, &v, &flag), MPI_ERR_KEYVAL, "get with a dead keyval");
    expect_class(MPI_Comm_set_attr(b, saved, NULL), MPI_ERR_KEYVAL, "set with a dead keyval");
    expect_class(MPI_Comm_delete_attr(b, saved), MPI_ERR_KEYVAL, "delete with a dead keyval");
    /* ... even once its slot is taken by newer keyvals. */
    int fresh[40];
    for (int i = 0; i < 40; i++) {
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                         &fresh[i], NULL));
        CHECK(fresh[i] != saved, "a new keyval got the number of a dead one");
    }
    expect_class(MPI_Comm_get_attr(b, saved, &v, &flag), MPI_ERR_KEYVAL,
                 "get with a dead keyval after reuse");
    again = saved;
    expect_class(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL, "free of a dead keyval after reuse");
    for (int i = 0; i < 40; i++)
        CHECK_MPI(MPI_Comm_free_keyval(&fresh[i]));

    /* A keyval freed while in use keeps copying and deleting (MPICH's
     * fkeyval), on MPI_COMM_WORLD too, where only a delete ends it. */
    CHECK_MPI(MPI_Comm_create_keyval(counting_copy, logging_delete, &k, NULL));
    saved = k;
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, k, (void *)70));
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    for (int i = 0; i < 40; i++)
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                         &fresh[i], NULL));
    copies_seen = 0;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_EQ(copies_seen, 1);
    CHECK_EQ(get(a, saved, &flag), 71);
    CHECK_EQ(flag, 1);
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&a));
    expect_log((int[]){ saved }, (intptr_t[]){ 71 }, 1, "free of the dup");
    nlog = 0;
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved));
    expect_log((int[]){ saved }, (intptr_t[]){ 70 }, 1, "delete on MPI_COMM_WORLD");
    for (int i = 0; i < 40; i++)
        CHECK_MPI(MPI_Comm_free_keyval(&fresh[i]));
    expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag), MPI_ERR_KEYVAL,
                 "get after the last use");
    CHECK_MPI(MPI_Comm_free(&b));
}

/* ------------------------------------------------------ failing callbacks */

static int copy_rc;

static int copy_may_fail(MPI_Comm old, int k, void *extra, void *in, void *out, int *flag)
{
    /* Says "copy me" and fails, as MPICH's copybomb does. */
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return extra ? copy_rc : MPI_SUCCESS;
}

static void test_failing_copy(void)
{
    int kok, kbad, user_class, user_code;
    CHECK_MPI(MPI_Comm_create_keyval(copy_may_fail, logging_delete, &kok, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(copy_may_fail, logging_delete, &kbad, (void *)1));
    CHECK_MPI(MPI_Add_error_class(&user_class));
    CHECK_MPI(MPI_Add_error_code(user_class, &user_code));
    MPI_Comm a, d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_set_attr(a, kok, (void *)80));
    CHECK_MPI(MPI_Comm_set_attr(a, kbad, (void *)90));
    int codes[] = { MPI_ERR_OTHER, user_code, 4242 };
    int classes[] = { MPI_ERR_OTHER, user_class, MPI_ERR_OTHER };
    for (int i = 0; i < 3; i++) {
        copy_rc = codes[i];
        nlog = 0;
        d = MPI_COMM_WORLD;     /* not what a failed dup must leave */
        expect_class(MPI_Comm_dup(a, &d), classes[i], "dup with a failing copy callback");
        CHECK(d == MPI_COMM_NULL, "a failed MPI_Comm_dup did not return MPI_COMM_NULL");
        /* The copy made before the failure is deleted again. */
        expect_log((int[]){ kok }, (intptr_t[]){ 81 }, 1, "failed dup");

        MPI_Info info;
        CHECK_MPI(MPI_Info_create(&info));
        d = MPI_COMM_WORLD;
        nlog = 0;
        expect_class(MPI_Comm_dup_with_info(a, info, &d), classes[i],
                     "dup_with_info with a failing copy callback");
        CHECK(d == MPI_COMM_NULL, "a failed MPI_Comm_dup_with_info did not return MPI_COMM_NULL");
        expect_log((int[]){ kok }, (intptr_t[]){ 81 }, 1, "failed dup_with_info");
        CHECK_MPI(MPI_Info_free(&info));

        MPI_Request r = MPI_REQUEST_NULL;
        d = MPI_COMM_WORLD;
        nlog = 0;
        expect_class(MPI_Comm_idup(a, &d, &r), classes[i], "idup with a failing copy callback");
        CHECK(d == MPI_COMM_NULL, "a failed MPI_Comm_idup did not return MPI_COMM_NULL");
        CHECK(r == MPI_REQUEST_NULL, "a failed MPI_Comm_idup returned a request");
        expect_log((int[]){ kok }, (intptr_t[]){ 81 }, 1, "failed idup");
    }
    /* a is untouched and works. */
    int flag, v = me + 1, sum = 0;
    CHECK_EQ(get(a, kbad, &flag), 90);
    CHECK_EQ(flag, 1);
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, a));
    CHECK_EQ(sum, n * (n + 1) / 2);
    copy_rc = MPI_SUCCESS;
    CHECK_MPI(MPI_Comm_dup(a, &d));
    CHECK_EQ(get(d, kbad, &flag), 91);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free_keyval(&kok));
    CHECK_MPI(MPI_Comm_free_keyval(&kbad));
}

static int delete_refuses = 1;

static int delete_may_fail(MPI_Comm c, int k, void *v, void *extra)
{
    log_delete(k, v);
    return delete_refuses ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* MPICH's attrerr: replacing a value whose delete callback fails fails,
 * and keeps the old value; so does deleting it. */
static void test_failing_delete_on_replace(void)
{
    int k, flag;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_may_fail, &k, NULL));
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_attr(c, k, (void *)(intptr_t)me));
    nlog = 0;
    expect_class(MPI_Comm_set_attr(c, k, (void *)(intptr_t)(2 * me + 1)), MPI_ERR_OTHER,
                 "set over a value whose delete fails");
    expect_class(MPI_Attr_put(c, k, (void *)(intptr_t)(3 * me + 1)), MPI_ERR_OTHER,
                 "MPI_Attr_put over a value whose delete fails");
    expect_class(MPI_Comm_delete_attr(c, k), MPI_ERR_OTHER, "delete that fails");
    expect_class(MPI_Attr_delete(c, k), MPI_ERR_OTHER, "MPI_Attr_delete that fails");
    expect_log((int[]){ k, k, k, k }, (intptr_t[]){ me, me, me, me }, 4,
               "each attempt ran the delete callback on the old value");
    CHECK_EQ(get(c, k, &flag), me);
    CHECK_EQ(flag, 1);
    delete_refuses = 0;
    nlog = 0;
    CHECK_MPI(MPI_Comm_set_attr(c, k, (void *)5));
    CHECK_MPI(MPI_Comm_free(&c));
    expect_log((int[]){ k, k }, (intptr_t[]){ me, 5 }, 2, "replace then free");
    CHECK_MPI(MPI_Comm_free_keyval(&k));
}

/* ------------------------------------------------------------ window keys */

static void test_window_keyvals(void)
{
    int w1, w2, ck;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &w1, NULL));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &w2, (void *)7));
    CHECK(w1 != w2 && w1 != MPI_KEYVAL_INVALID && w2 != MPI_KEYVAL_INVALID, "window keyvals");
    /* A window keyval is no communicator keyval, and the other way round. */
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, w1, NULL), MPI_ERR_KEYVAL,
                 "a window keyval on a communicator");
    int copy = w1;
    expect_class(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval of a window keyval");
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    copy = ck;
    expect_class(MPI_Win_free_keyval(&copy), MPI_ERR_KEYVAL, "MPI_Win_free_keyval of a comm keyval");
    CHECK_MPI(MPI_Comm_free_keyval(&ck));
    int base = MPI_WIN_BASE;
    expect_class(MPI_Win_free_keyval(&base), MPI_ERR_KEYVAL, "freeing MPI_WIN_BASE");
    CHECK_EQ(base, MPI_WIN_BASE);
    copy = w1;
    CHECK_MPI(MPI_Win_free_keyval(&w1));
    CHECK_EQ(w1, MPI_KEYVAL_INVALID);
    expect_class(MPI_Win_free_keyval(&copy), MPI_ERR_KEYVAL, "window keyval freed twice");
    CHECK_MPI(MPI_Win_free_keyval(&w2));
}

/* ---------------------------------------------------------- at finalize */

/* Set on MPI_COMM_SELF in order 1, 2, 3, 4; 3's callback deletes 1 and
 * sets 5; MPI_COMM_WORLD and MPI_INT carry one each. */
static int s_keys[5], w_key, t_key;
static int fin_order[16], nfin, fin_bad;

static void fin_note(intptr_t v)
{
    int flag = 1;
    MPI_Finalized(&flag);
    if (flag)
        fin_bad = 1;
    if (nfin < 16)
        fin_order[nfin] = (int)v;
    nfin++;
}

static int self_delete(MPI_Comm c, int k, void *v, void *extra)
{
    fin_note((intptr_t)v);
    if ((intptr_t)v == 3) {
        if (MPI_Comm_delete_attr(c, s_keys[0]) != MPI_SUCCESS ||
            MPI_Comm_set_attr(c, s_keys[4], (void *)5) != MPI_SUCCESS)
            fin_bad = 1;
    }
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int k, void *v, void *extra)
{
    fin_note((intptr_t)v);
    return MPI_SUCCESS;
}

static void prepare_finalize(void)
{
    for (int i = 0; i < 5; i++)
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &s_keys[i], NULL));
    for (int i = 0; i < 4; i++)
        CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, s_keys[i], (void *)(intptr_t)(i + 1)));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &w_key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, w_key, (void *)10));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, &t_key, NULL));
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, t_key, (void *)20));
    /* Freed keyvals still run at MPI_Finalize (MPICH's attrend). */
    int k = s_keys[1];
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    CHECK_MPI(MPI_Comm_free_keyval(&w_key));
    CHECK_MPI(MPI_Type_free_keyval(&t_key));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_delete_deletes_others();
    test_delete_reads_and_sets();
    test_free_from_callback();
    test_copy_changes_source();
    test_keyval_freed_in_use();
    test_failing_copy();
    test_failing_delete_on_replace();
    test_window_keyvals();
    CHECK_MPI(MPI_Comm_free_keyval(&k_a));
    CHECK_MPI(MPI_Comm_free_keyval(&k_b));
    CHECK_MPI(MPI_Comm_free_keyval(&k_c));
    prepare_finalize();

    int rc = uzt_finish("comm_attr_callbacks");
    /* MPI_COMM_SELF newest first: 4, 3 (deleting 1 from its callback and
     * setting 5), 5, 2; then MPI_COMM_WORLD's 10 and MPI_INT's 20, each
     * exactly once. */
    const int want[] = { 4, 3, 1, 5, 2, 10, 20 };
    int ok = nfin == 7 && !fin_bad;
    for (int i = 0; ok && i < 7; i++)
        ok = fin_order[i] == want[i];
    if (!ok) {
        fprintf(stderr, "FAIL rank %d: delete callbacks at MPI_Finalize: %d ran (", me, nfin);
        for (int i = 0; i < nfin && i < 16; i++)
            fprintf(stderr, "%s%d", i ? " " : "", fin_order[i]);
        fprintf(stderr, "), expected 4 3 1 5 2 10 20; MPI finalized or failed in a callback: %d\n",
                fin_bad);
        return 1;
    }
    return rc;
}
