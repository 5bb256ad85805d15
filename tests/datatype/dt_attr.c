/*
 * dt_attr.c — keyvals and attributes on datatypes: copy callbacks on
 * MPI_Type_dup (user functions, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN, and
 * a failing copy that makes the dup fail), delete callbacks (on delete, on
 * replacing a value, on free in the reverse order of setting), keyvals
 * freed while still in use (still reachable through their number until
 * the last attribute goes), attributes on predefined types, and
 * MPI_ERR_KEYVAL for misuse.
 */
#include "dt_check.h"

static int log_keys[64], log_vals[64], nlog;
static int extra_seen;

static int copy_plus_one(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    extra_seen = *(int *)extra;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int delete_logs(MPI_Datatype t, int key, void *val, void *extra)
{
    if (nlog < 64) {
        log_keys[nlog] = key;
        log_vals[nlog] = (int)(intptr_t)val;
        nlog++;
    }
    return MPI_SUCCESS;
}

static int refuse_deletes = 1;

static int delete_fails(MPI_Datatype t, int key, void *val, void *extra)
{
    return refuse_deletes ? MPI_ERR_ARG : MPI_SUCCESS;
}

static void test_set_get_delete(void)
{
    int k1, k2, flag, extra = 42;
    void *v;
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, delete_logs, &k1, &extra));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    CHECK(k1 != k2 && k1 != MPI_KEYVAL_INVALID, "keyvals");
    CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void *)100));
    CHECK_MPI(MPI_Type_set_attr(t, k2, (void *)200));
    CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
    CHECK(flag && v == (void *)100, "get k1");
    /* Replacing runs the delete callback on the old value. */
    nlog = 0;
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void *)101));
    CHECK(nlog == 1 && log_keys[0] == k1 && log_vals[0] == 100, "replace deletes the old value");
    nlog = 0;
    CHECK_MPI(MPI_Type_delete_attr(t, k1));
    CHECK(nlog == 1 && log_vals[0] == 101, "delete runs the callback");
    CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
    CHECK_EQ(flag, 0);
    CHECK_MPI(MPI_Type_delete_attr(t, k1));     /* nothing there: no error (as MPICH) */
    /* A delete callback that fails keeps the attribute and its error. */
    int k3;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_fails, &k3, NULL));
    CHECK_MPI(MPI_Type_set_attr(t, k3, (void *)7));
    CHECK_CLASS(MPI_Type_delete_attr(t, k3), MPI_ERR_ARG);
    CHECK_MPI(MPI_Type_get_attr(t, k3, &v, &flag));
    CHECK(flag && v == (void *)7, "a failed delete keeps the attribute");
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_ARG);
    CHECK(t != MPI_DATATYPE_NULL, "a failed free keeps the type");
    /* Free the keyval while the attribute still uses it (deferred), then
     * let the delete succeed and the type go. */
    CHECK_MPI(MPI_Type_free_keyval(&k3));
    CHECK_EQ(k3, MPI_KEYVAL_INVALID);
    refuse_deletes = 0;
    CHECK_MPI(MPI_Type_free(&t));
    MPI_Type_free_keyval(&k1);
    MPI_Type_free_keyval(&k2);
}

static void test_dup(void)
{
    int kplus, kdup, knull, kfail, flag, extra = 77;
    void *v;
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &t));
    CHECK_MPI(MPI_Type_create_keyval(copy_plus_one, delete_logs, &kplus, &extra));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_logs, &kdup, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_logs, &knull, NULL));
    CHECK_MPI(MPI_Type_set_attr(t, kplus, (void *)10));
    CHECK_MPI(MPI_Type_set_attr(t, kdup, (void *)20));
    CHECK_MPI(MPI_Type_set_attr(t, knull, (void *)30));
    extra_seen = 0;
    CHECK_MPI(MPI_Type_dup(t, &d));
    CHECK_EQ(extra_seen, 77);
    CHECK_MPI(MPI_Type_get_attr(d, kplus, &v, &flag));
    CHECK(flag && v == (void *)11, "user copy callback result");
    CHECK_MPI(MPI_Type_get_attr(d, kdup, &v, &flag));
    CHECK(flag && v == (void *)20, "MPI_TYPE_DUP_FN copies the value");
    CHECK_MPI(MPI_Type_get_attr(d, knull, &v, &flag));
    CHECK(!flag, "MPI_TYPE_NULL_COPY_FN does not copy");
    /* Free: delete callbacks newest first. */
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(nlog == 3 && log_keys[0] == knull && log_keys[1] == kdup && log_keys[2] == kplus &&
          log_vals[2] == 10, "free deletes in reverse order of setting");
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&d));
    CHECK(nlog == 2 && log_keys[0] == kdup && log_keys[1] == kplus && log_vals[1] == 11,
          "the dup's attributes are deleted when it is freed");

    /* A copy callback that fails makes the dup fail with its error, and
     * what was already copied is deleted again. */
    CHECK_MPI(MPI_Type_create_keyval(copy_fails, delete_logs, &kfail, NULL));
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, kdup, (void *)1));
    CHECK_MPI(MPI_Type_set_attr(t, kfail, (void *)2));
    nlog = 0;
    d = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Type_dup(t, &d), MPI_ERR_OTHER);
    CHECK(d == MPI_DATATYPE_NULL, "a failed dup returns no type");
    CHECK(nlog == 1 && log_keys[0] == kdup && log_vals[0] == 1,
          "the copy made before the failure is deleted");
    CHECK_MPI(MPI_Type_delete_attr(t, kfail));
    CHECK_MPI(MPI_Type_free(&t));

    /* A keyval freed while attributes use it: they stay until deleted. */
    CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, kplus, (void *)5));
    int kp = kplus;
    CHECK_MPI(MPI_Type_free_keyval(&kplus));
    /* Its number still reaches them (as in MPICH). */
    CHECK_MPI(MPI_Type_get_attr(t, kp, &v, &flag));
    CHECK(flag && v == (void *)5, "the attribute of a freed keyval");
    nlog = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(nlog == 1 && log_keys[0] == kp && log_vals[0] == 5,
          "the attribute of a freed keyval is deleted with its object");
    MPI_Type_free_keyval(&kdup);
    MPI_Type_free_keyval(&knull);
    MPI_Type_free_keyval(&kfail);
}

static void test_predefined_and_errors(void)
{
    int k, flag;
    void *v;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_logs, &k, NULL));
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, k, (void *)9));
    CHECK_MPI(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    CHECK(flag && v == (void *)9, "attribute on MPI_INT");
    CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag));
    CHECK(!flag, "not on MPI_DOUBLE");
    nlog = 0;
    CHECK_MPI(MPI_Type_delete_attr(MPI_INT, k));
    CHECK_EQ(nlog, 1);

    CHECK_CLASS(MPI_Type_get_attr(MPI_INT, 12345, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_delete_attr(MPI_INT, -7), MPI_ERR_KEYVAL);
    int bad = 999999;
    CHECK_CLASS(MPI_Type_free_keyval(&bad), MPI_ERR_KEYVAL);
    int kk = k;
    CHECK_MPI(MPI_Type_free_keyval(&k));
    CHECK_CLASS(MPI_Type_free_keyval(&kk), MPI_ERR_KEYVAL);    /* twice */
    CHECK_CLASS(MPI_Type_set_attr(MPI_INT, kk, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_DATATYPE_NULL, 12345, &v, &flag), MPI_ERR_TYPE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_set_get_delete();
    test_dup();
    test_predefined_and_errors();
    return uzt_finish("dt_attr");
}
