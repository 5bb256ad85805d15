/*
 * runtime_errcodes.c — user error classes and codes over a long run
 * (issue 22): MPI_Remove_error_code/class give their values back, so a
 * program that adds and removes more codes than can exist at once never
 * runs out; freed values are handed out again; MPI_LASTUSEDCODE is always
 * the largest value in use (MPI_ERR_LASTCODE when none is); a removed
 * value is no longer a valid code; threads adding and removing at once
 * never get the same value.
 */
#include <pthread.h>

#include "uztest.h"

/* More than the 16,384 classes and codes that can exist at once. */
enum { ROUNDS = 20000, MANY = 200 };

static int last_used(void)
{
    int *v = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && v, "MPI_LASTUSEDCODE not set");
    return flag && v ? *v : -1;
}

static int class_of(int code)
{
    int cls = -1;
    CHECK_MPI(MPI_Error_class(code, &cls));
    return cls;
}

static void string_is(int code, const char *want)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(len == (int)strlen(want) && strcmp(text, want) == 0,
          "MPI_Error_string(%d) = \"%s\" (%d), expected \"%s\"", code, text, len, want);
}

/* Add and remove a class with two codes and strings, far more times than
 * there are values. */
static void churn(void)
{
    int base = last_used();
    CHECK_EQ(base, MPI_ERR_LASTCODE);
    for (int r = 0; r < ROUNDS; r++) {
        int cls, code[2];
        char text[64];
        int rc = MPI_Add_error_class(&cls);
        if (rc != MPI_SUCCESS) {
            CHECK(0, "round %d: MPI_Add_error_class failed (class %d)", r, uzt_class(rc));
            return;
        }
        for (int k = 0; k < 2; k++) {
            rc = MPI_Add_error_code(cls, &code[k]);
            if (rc != MPI_SUCCESS) {
                CHECK(0, "round %d: MPI_Add_error_code failed (class %d)", r, uzt_class(rc));
                return;
            }
            snprintf(text, sizeof(text), "round %d code %d", r, k);
            CHECK_MPI(MPI_Add_error_string(code[k], text));
        }
        /* Values are reused lowest first, so each round gets the same three. */
        CHECK(cls > MPI_ERR_LASTCODE && code[0] > cls && code[1] > code[0],
              "round %d: class %d codes %d %d", r, cls, code[0], code[1]);
        if (r == 0 || r == ROUNDS - 1) {
            CHECK_EQ(last_used(), code[1]);
            CHECK_EQ(class_of(cls), cls);
            CHECK_EQ(class_of(code[0]), cls);
            CHECK_EQ(class_of(code[1]), cls);
            snprintf(text, sizeof(text), "round %d code %d", r, 1);
            string_is(code[1], text);
        }
        for (int k = 0; k < 2; k++) {
            CHECK_MPI(MPI_Remove_error_string(code[k]));
            CHECK_MPI(MPI_Remove_error_code(code[k]));
        }
        CHECK_MPI(MPI_Remove_error_class(cls));
        if (r == 0 || r == ROUNDS - 1) {
            CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
            CHECK_EQ(uzt_class(MPI_Error_class(code[0], &(int){ 0 })), MPI_ERR_ARG);
        }
    }
    CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
}

/* Holes: remove codes in the middle and at the top, and see which values
 * come back and what MPI_LASTUSEDCODE says. */
static void holes(void)
{
    int cls, code[MANY];
    CHECK_MPI(MPI_Add_error_class(&cls));
    for (int i = 0; i < MANY; i++) {
        CHECK_MPI(MPI_Add_error_code(cls, &code[i]));
        CHECK_EQ(code[i], cls + 1 + i);
    }
    CHECK_EQ(last_used(), code[MANY - 1]);

    /* Every third code in the middle: the largest value is still in use. */
    for (int i = 1; i < MANY - 1; i += 3)
        CHECK_MPI(MPI_Remove_error_code(code[i]));
    CHECK_EQ(last_used(), code[MANY - 1]);
    for (int i = 1; i < MANY - 1; i += 3) {
        int again;
        CHECK_MPI(MPI_Add_error_code(MPI_ERR_COUNT, &again));
        CHECK_EQ(again, code[i]);                   /* the lowest free value */
        CHECK_EQ(class_of(again), MPI_ERR_COUNT);   /* now of its new class */
        code[i] = again;
    }
    CHECK_EQ(last_used(), code[MANY - 1]);

    /* The top ones: MPI_LASTUSEDCODE comes down to the largest left. */
    CHECK_MPI(MPI_Remove_error_code(code[MANY - 1]));
    CHECK_EQ(last_used(), code[MANY - 2]);
    CHECK_MPI(MPI_Remove_error_code(code[MANY - 3]));
    CHECK_EQ(last_used(), code[MANY - 2]);
    CHECK_MPI(MPI_Remove_error_code(code[MANY - 2]));
    CHECK_EQ(last_used(), code[MANY - 4]);

    /* A removed code is no longer a code; removing it twice is an error. */
    CHECK_EQ(uzt_class(MPI_Error_class(code[MANY - 1], &(int){ 0 })), MPI_ERR_ARG);
    CHECK_EQ(uzt_class(MPI_Remove_error_code(code[MANY - 1])), MPI_ERR_ARG);
    CHECK_EQ(uzt_class(MPI_Add_error_string(code[MANY - 1], "gone")), MPI_ERR_ARG);

    /* A class keeps its codes: it cannot go first. */
    CHECK_EQ(uzt_class(MPI_Remove_error_class(cls)), MPI_ERR_ARG);
    for (int i = 0; i < MANY - 3; i++)
        CHECK_MPI(MPI_Remove_error_code(code[i]));
    CHECK_EQ(last_used(), cls);
    CHECK_MPI(MPI_Remove_error_class(cls));
    CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
}

/* Fill every value, see the limit refused, free one, add again. */
static void full(void)
{
    int n = 0, cls, rc, *codes = malloc(sizeof(int) * 20000);
    CHECK_MPI(MPI_Add_error_class(&cls));
    while ((rc = MPI_Add_error_code(cls, &codes[n])) == MPI_SUCCESS && n < 19999)
        n++;
    CHECK(rc != MPI_SUCCESS && uzt_class(rc) == MPI_ERR_OTHER,
          "adding code %d past the limit gave class %d", n, uzt_class(rc));
    CHECK(n >= 1000, "only %d codes fit", n);
    CHECK_EQ(last_used(), codes[n - 1]);
    int middle = codes[n / 2], again = -1;
    CHECK_MPI(MPI_Remove_error_code(middle));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &again));
    CHECK_EQ(again, middle);
    codes[n / 2] = again;
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Remove_error_code(codes[i]));
    CHECK_MPI(MPI_Remove_error_class(cls));
    CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
    free(codes);
}

/* Threads add, name, check and remove codes at once: a value handed to two
 * of them would show another thread's string. */
enum { THREADS = 4, THREAD_ROUNDS = 3000 };
static int shared_class;

static void *thread_churn(void *arg)
{
    int id = (int)(intptr_t)arg;
    char want[64], got[MPI_MAX_ERROR_STRING];
    for (int r = 0; r < THREAD_ROUNDS; r++) {
        int code, len = -1, cls = -1;
        CHECK_MPI(MPI_Add_error_code(shared_class, &code));
        snprintf(want, sizeof(want), "thread %d round %d", id, r);
        CHECK_MPI(MPI_Add_error_string(code, want));
        CHECK_MPI(MPI_Error_class(code, &cls));
        CHECK_MPI(MPI_Error_string(code, got, &len));
        CHECK(cls == shared_class && strcmp(got, want) == 0,
              "code %d: class %d string \"%s\", expected \"%s\"", code, cls, got, want);
        CHECK_MPI(MPI_Remove_error_string(code));
        CHECK_MPI(MPI_Remove_error_code(code));
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t[THREADS];
    CHECK_MPI(MPI_Add_error_class(&shared_class));
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, thread_churn, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(last_used(), shared_class);
    CHECK_MPI(MPI_Remove_error_class(shared_class));
    CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    churn();
    holes();
    full();
    churn();
    if (provided == MPI_THREAD_MULTIPLE)
        threads();
    else
        CHECK(0, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    return uzt_finish("runtime_errcodes");
}
