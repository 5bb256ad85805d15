/*
 * dt_attr_callbacks.c — datatype attribute callbacks under
 * MPI_ERRORS_RETURN and keyvals that outlive their free (issue 22): a
 * failing copy callback makes MPI_Type_dup return its error and
 * MPI_DATATYPE_NULL, with the copies made before it deleted again; a
 * failing delete callback makes MPI_Type_free, MPI_Type_delete_attr and a
 * replacing MPI_Type_set_attr return its error and keep the type and the
 * old value; a delete callback deleting other attributes of the type being
 * freed; a keyval freed in its own delete callback and again while in use
 * (MPICH's keyval_double_free_type); a freed keyval still copying and
 * deleting, also on a type that another type is built from (MPICH's
 * fkeyvaltype, attr2type).
 */
#include "dt_check.h"

static int log_keys[64], nlog;
static intptr_t log_vals[64];

static void log_delete(int key, void *val)
{
    if (nlog < 64) {
        log_keys[nlog] = key;
        log_vals[nlog] = (intptr_t)val;
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

static int logging_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    log_delete(key, val);
    return MPI_SUCCESS;
}

/* Some bytes through the type, to show it still works. */
static void expect_usable(MPI_Datatype t, const char *what)
{
    int src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, dst[8] = { 0 }, pos = 0, size = 0;
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Type_size(t, &size));
    CHECK_EQ(size, 2 * (int)sizeof(int));
    CHECK_MPI(MPI_Pack(src, 1, t, dst, sizeof(dst), &pos, MPI_COMM_SELF));
    CHECK(pos == size && dst[0] == 1 && dst[1] == 2 && dst[2] == 0, "%s: type unusable", what);
}

/* ----------------------------------------------------- failing callbacks */

static int copy_rc = MPI_ERR_OTHER;

static int copy_fails(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    /* Says "copy me" and fails, as MPICH's copybomb does. */
    *(void **)out = in;
    *flag = 1;
    return copy_rc;
}

static int copy_plus_one(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int refuse = 1;

static int delete_may_fail(MPI_Datatype t, int key, void *val, void *extra)
{
    log_delete(key, val);
    return refuse ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void test_failing_copy(void)
{
    int kok, kbad, user_class, user_code;
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, logging_delete, &kok, NULL));
    CHECK_MPI(MPI_Type_create_keyval(copy_fails, logging_delete, &kbad, NULL));
    CHECK_MPI(MPI_Add_error_class(&user_class));
    CHECK_MPI(MPI_Add_error_code(user_class, &user_code));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, kok, (void *)10));
    CHECK_MPI(MPI_Type_set_attr(t, kbad, (void *)20));
    int codes[] = { MPI_ERR_OTHER, user_code, -5 };
    int classes[] = { MPI_ERR_OTHER, user_class, MPI_ERR_OTHER };
    for (int i = 0; i < 3; i++) {
        copy_rc = codes[i];
        d = MPI_INT;            /* not what a failed dup must leave */
        nlog = 0;
        CHECK_CLASS(MPI_Type_dup(t, &d), classes[i]);
        CHECK(d == MPI_DATATYPE_NULL, "a failed MPI_Type_dup did not return MPI_DATATYPE_NULL");
        expect_log((int[]){ kok }, (intptr_t[]){ 11 }, 1, "the copy before the failure is undone");
    }
    /* The same from a predefined type. */
    CHECK_MPI(MPI_Type_set_attr(MPI_SHORT, kbad, (void *)30));
    d = MPI_INT;
    CHECK_CLASS(MPI_Type_dup(MPI_SHORT, &d), MPI_ERR_OTHER);
    CHECK(d == MPI_DATATYPE_NULL, "a failed dup of MPI_SHORT did not return MPI_DATATYPE_NULL");
    CHECK_MPI(MPI_Type_delete_attr(MPI_SHORT, kbad));

    expect_usable(t, "after failed dups");
    void *v;
    int flag;
    CHECK_MPI(MPI_Type_get_attr(t, kbad, &v, &flag));
    CHECK(flag && v == (void *)20, "the original lost its attribute");
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&t));
    expect_log((int[]){ kbad, kok }, (intptr_t[]){ 20, 10 }, 2, "free of the original");
    CHECK_MPI(MPI_Type_free_keyval(&kok));
    CHECK_MPI(MPI_Type_free_keyval(&kbad));
}

static void test_failing_delete(void)
{
    int k, flag;
    void *v;
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_may_fail, &k, NULL));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, k, (void *)1));
    refuse = 1;
    nlog = 0;
    CHECK_CLASS(MPI_Type_set_attr(t, k, (void *)2), MPI_ERR_OTHER);
    CHECK_CLASS(MPI_Type_delete_attr(t, k), MPI_ERR_OTHER);
    MPI_Datatype keep = t;
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_OTHER);
    CHECK(t == keep, "a failed MPI_Type_free changed the handle");
    expect_log((int[]){ k, k, k }, (intptr_t[]){ 1, 1, 1 }, 3,
               "each attempt ran the delete callback on the old value");
    CHECK_MPI(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(flag && v == (void *)1, "the old value did not stay");
    expect_usable(t, "after failed deletes");
    refuse = 0;
    nlog = 0;
    CHECK_MPI(MPI_Type_set_attr(t, k, (void *)3));
    CHECK_MPI(MPI_Type_free(&t));
    expect_log((int[]){ k, k }, (intptr_t[]){ 1, 3 }, 2, "replace, then free");
    CHECK_MPI(MPI_Type_free_keyval(&k));
}

/* ------------------------------------------- deleting from a callback */

static int k_x, k_y, k_z;

static int delete_others(MPI_Datatype t, int key, void *val, void *extra)
{
    log_delete(key, val);
    CHECK_MPI(MPI_Type_delete_attr(t, k_x));
    CHECK_MPI(MPI_Type_delete_attr(t, k_z));
    return MPI_SUCCESS;
}

static void test_delete_deletes_others(void)
{
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, logging_delete, &k_x, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_others, &k_y, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, logging_delete, &k_z, NULL));
    MPI_Datatype t;
    /* Set z, x, y: y goes first and takes x and z with it. */
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, k_z, (void *)3));
    CHECK_MPI(MPI_Type_set_attr(t, k_x, (void *)1));
    CHECK_MPI(MPI_Type_set_attr(t, k_y, (void *)2));
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "free did not set MPI_DATATYPE_NULL");
    expect_log((int[]){ k_y, k_x, k_z }, (intptr_t[]){ 2, 1, 3 }, 3, "type free, set z x y");
    /* Set x, y, z: z goes, then y (deleting x). */
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, k_x, (void *)11));
    CHECK_MPI(MPI_Type_set_attr(t, k_y, (void *)12));
    CHECK_MPI(MPI_Type_set_attr(t, k_z, (void *)13));
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&t));
    expect_log((int[]){ k_z, k_y, k_x }, (intptr_t[]){ 13, 12, 11 }, 3, "type free, set x y z");
    /* Through MPI_Type_delete_attr on a predefined type. */
    CHECK_MPI(MPI_Type_set_attr(MPI_FLOAT, k_x, (void *)21));
    CHECK_MPI(MPI_Type_set_attr(MPI_FLOAT, k_y, (void *)22));
    CHECK_MPI(MPI_Type_set_attr(MPI_FLOAT, k_z, (void *)23));
    nlog = 0;
    CHECK_MPI(MPI_Type_delete_attr(MPI_FLOAT, k_y));
    expect_log((int[]){ k_y, k_x, k_z }, (intptr_t[]){ 22, 21, 23 }, 3, "delete_attr on MPI_FLOAT");
    int flag;
    void *v;
    CHECK_MPI(MPI_Type_get_attr(MPI_FLOAT, k_x, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Type_free_keyval(&k_x));
    CHECK_MPI(MPI_Type_free_keyval(&k_y));
    CHECK_MPI(MPI_Type_free_keyval(&k_z));
}

/* ------------------------------------------------------ keyval lifetime */

static int free_failures, frees_in_callback;

static int delete_frees_keyval(MPI_Datatype t, int key, void *val, void *extra)
{
    int copy = key;
    if (MPI_Type_free_keyval(&copy) != MPI_SUCCESS || copy != MPI_KEYVAL_INVALID)
        free_failures++;
    frees_in_callback++;
    return MPI_SUCCESS;
}

static int counter_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (*(int *)in)++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int counter_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (*(int *)val)--;
    return MPI_SUCCESS;
}

static void test_keyval_lifetime(void)
{
    int k, flag;
    void *v;
    MPI_Datatype a, b;
    /* MPICH's keyval_double_free_type. */
    CHECK_MPI(MPI_Type_dup(MPI_INT, &a));
    CHECK_MPI(MPI_Type_dup(MPI_INT, &b));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_frees_keyval, &k, NULL));
    int saved = k;
    CHECK_MPI(MPI_Type_set_attr(a, k, NULL));
    CHECK_MPI(MPI_Type_set_attr(b, k, (void *)5));
    CHECK_MPI(MPI_Type_free(&a));
    CHECK_MPI(MPI_Type_free_keyval(&k));
    CHECK_EQ(k, MPI_KEYVAL_INVALID);
    int again = saved;
    CHECK_MPI(MPI_Type_free_keyval(&again));
    CHECK_MPI(MPI_Type_get_attr(b, saved, &v, &flag));
    CHECK(flag && v == (void *)5, "the attribute of a freed keyval cannot be read");
    CHECK_MPI(MPI_Type_free(&b));
    CHECK_EQ(frees_in_callback, 2);
    CHECK_EQ(free_failures, 0);
    again = saved;
    CHECK_CLASS(MPI_Type_free_keyval(&again), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_INT, saved, &v, &flag), MPI_ERR_KEYVAL);

    /* MPICH's fkeyvaltype: a keyval freed while in use keeps copying and
     * deleting, with other keyvals made in between; the attribute of a
     * type that another type is built from goes at the user's free. */
    MPI_Datatype inner, outer, dup;
    int count = 1, keys[32];
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &inner));
    CHECK_MPI(MPI_Type_contiguous(3, inner, &outer));
    CHECK_MPI(MPI_Type_create_keyval(counter_copy, counter_delete, &k, NULL));
    saved = k;
    CHECK_MPI(MPI_Type_set_attr(inner, k, &count));
    CHECK_MPI(MPI_Type_free_keyval(&k));
    for (int i = 0; i < 32; i++)
        CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keys[i],
                                         NULL));
    CHECK_MPI(MPI_Type_dup(inner, &dup));
    CHECK_EQ(count, 2);
    CHECK_MPI(MPI_Type_get_attr(dup, saved, &v, &flag));
    CHECK(flag && v == &count, "the copy of a freed keyval's attribute");
    CHECK_MPI(MPI_Type_free(&dup));
    CHECK_EQ(count, 1);
    CHECK_MPI(MPI_Type_free(&inner));
    CHECK_EQ(count, 0);
    for (int i = 0; i < 32; i++) {
        CHECK(keys[i] != saved, "a new keyval got the number of one in use");
        CHECK_MPI(MPI_Type_free_keyval(&keys[i]));
    }
    CHECK_CLASS(MPI_Type_get_attr(outer, saved, &v, &flag), MPI_ERR_KEYVAL);
    int size = 0;
    CHECK_MPI(MPI_Type_size(outer, &size));
    CHECK_EQ(size, 6 * (int)sizeof(int));
    CHECK_MPI(MPI_Type_free(&outer));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Datatype errors go to MPI_COMM_SELF's handler (MPI-4.1 §9.3). */
    dt_errors_return();
    test_failing_copy();
    test_failing_delete();
    test_delete_deletes_others();
    test_keyval_lifetime();
    return uzt_finish("dt_attr_callbacks");
}
