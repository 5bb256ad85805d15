/*
 * runtime_info.c — MPI_Info objects: set/get/delete/dup/nkeys/nthkey,
 * get_string's length protocol, the deprecated MPI_Info_get, and the
 * errors for keys and values that are too long or missing.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info info, copy;
    char val[MPI_MAX_INFO_VAL], key[MPI_MAX_INFO_KEY];
    int flag, n, len;

    CHECK_MPI(MPI_Info_create(&info));
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 0, "new info has %d keys", n);
    CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
    CHECK_MPI(MPI_Info_set(info, "beta", "two words"));
    CHECK_MPI(MPI_Info_set(info, "alpha", "one"));           /* replaces */
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "%d keys after three sets of two keys", n);
    MPI_Info_get_nthkey(info, 0, key);
    CHECK(strcmp(key, "alpha") == 0, "key 0 \"%s\"", key);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK(strcmp(key, "beta") == 0, "key 1 \"%s\"", key);

    len = sizeof(val);
    MPI_Info_get_string(info, "beta", &len, val, &flag);
    CHECK(flag && strcmp(val, "two words") == 0 && len == 10, "get_string \"%s\" len %d", val, len);
    len = 4;                                                /* too short: truncated, length reported */
    MPI_Info_get_string(info, "beta", &len, val, &flag);
    CHECK(flag && strcmp(val, "two") == 0 && len == 10, "short get_string \"%s\" len %d", val, len);
    len = 0;
    MPI_Info_get_string(info, "beta", &len, NULL, &flag);
    CHECK(flag && len == 10, "get_string length query %d", len);
    MPI_Info_get_valuelen(info, "alpha", &len, &flag);
    CHECK(flag && len == 3, "valuelen %d", len);
    MPI_Info_get(info, "alpha", 2, val, &flag);
    CHECK(flag && strcmp(val, "on") == 0, "MPI_Info_get with valuelen 2 gave \"%s\"", val);
    MPI_Info_get(info, "gamma", sizeof(val) - 1, val, &flag);
    CHECK(!flag, "missing key found");

    CHECK_MPI(MPI_Info_dup(info, &copy));
    CHECK_MPI(MPI_Info_delete(info, "alpha"));
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 1, "%d keys after delete", n);
    MPI_Info_get_nkeys(copy, &n);
    CHECK(n == 2, "the duplicate changed with the original (%d keys)", n);

    char longkey[MPI_MAX_INFO_KEY + 10];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = 0;
    CHECK(uzt_class(MPI_Info_set(info, longkey, "x")) == MPI_ERR_INFO_KEY, "long key");
    CHECK(uzt_class(MPI_Info_set(info, "", "x")) == MPI_ERR_INFO_KEY, "empty key");
    CHECK(uzt_class(MPI_Info_delete(info, "nosuch")) == MPI_ERR_INFO_NOKEY, "delete missing key");
    CHECK(uzt_class(MPI_Info_get_nthkey(info, 5, key)) == MPI_ERR_ARG, "nthkey out of range");
    CHECK(uzt_class(MPI_Info_set(MPI_INFO_NULL, "a", "b")) == MPI_ERR_INFO, "set on MPI_INFO_NULL");
    CHECK(uzt_class(MPI_Info_free(&(MPI_Info){ MPI_INFO_ENV })) == MPI_ERR_INFO, "freeing MPI_INFO_ENV");

    MPI_Info env;
    char *args[] = { "prog", "-x", "3" };
    CHECK_MPI(MPI_Info_create_env(3, args, &env));
    len = sizeof(val);
    MPI_Info_get_string(env, "argv", &len, val, &flag);
    CHECK(flag && strcmp(val, "-x 3") == 0, "create_env argv \"%s\"", val);
    MPI_Info_free(&env);
    MPI_Info_free(&copy);
    MPI_Info_free(&info);
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free did not reset the handle");
    return uzt_finish("runtime_info");
}
