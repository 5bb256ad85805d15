/*
 * runtime_info_env.c — MPI_Info_create_env before and after MPI_Init, and
 * MPI_INFO_ENV (issue 22): the same keys every time (command, argv,
 * maxprocs, soft, host, arch, wdir, thread_level), with the values this
 * process can check for itself: its command line (given, or 0/NULL for
 * "find it yourself"), the job's size, the host's name, the machine, the
 * working directory and the thread level.
 *
 * Run with arguments "funneled <words...>": MPI_Init_thread asks for
 * MPI_THREAD_FUNNELED, which only the infos made after it report.
 */
#include <sys/utsname.h>
#include <unistd.h>

#include "uztest.h"

enum { MAXKEYS = 16 };

static const char *const expected_keys[] = {
    "command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "thread_level",
};
enum { NKEYS = sizeof(expected_keys) / sizeof(expected_keys[0]) };

struct snapshot {
    int nkeys;
    char key[MAXKEYS][MPI_MAX_INFO_KEY];
    char value[MAXKEYS][MPI_MAX_INFO_VAL];
};

/* Read an info out while it is legal to (before MPI_Init too). */
static void take(MPI_Info info, struct snapshot *s)
{
    memset(s, 0, sizeof(*s));
    CHECK_MPI(MPI_Info_get_nkeys(info, &s->nkeys));
    CHECK(s->nkeys <= MAXKEYS, "%d keys", s->nkeys);
    for (int i = 0; i < s->nkeys && i < MAXKEYS; i++) {
        int flag = 0, len = MPI_MAX_INFO_VAL;
        CHECK_MPI(MPI_Info_get_nthkey(info, i, s->key[i]));
        CHECK_MPI(MPI_Info_get_string(info, s->key[i], &len, s->value[i], &flag));
        CHECK(flag && len == (int)strlen(s->value[i]) + 1, "key %s: flag %d length %d",
              s->key[i], flag, len);
    }
}

static const char *value_of(const struct snapshot *s, const char *key)
{
    for (int i = 0; i < s->nkeys; i++)
        if (strcmp(s->key[i], key) == 0)
            return s->value[i];
    return NULL;
}

/* Same keys in the same order; the same values except thread_level,
 * which is compared separately. */
static void same(const char *what, const struct snapshot *a, const struct snapshot *b)
{
    CHECK(a->nkeys == b->nkeys, "%s: %d keys against %d", what, a->nkeys, b->nkeys);
    for (int i = 0; i < a->nkeys && i < b->nkeys; i++) {
        CHECK(strcmp(a->key[i], b->key[i]) == 0, "%s: key %d is %s against %s", what, i,
              a->key[i], b->key[i]);
        if (strcmp(a->key[i], "thread_level") != 0)
            CHECK(strcmp(a->value[i], b->value[i]) == 0, "%s: %s = \"%s\" against \"%s\"", what,
                  a->key[i], a->value[i], b->value[i]);
    }
}

static void check_values(const char *what, const struct snapshot *s, int argc, char **argv,
                         int size, const char *level)
{
    char text[MPI_MAX_INFO_VAL];
    struct utsname uts;
    CHECK(s->nkeys == NKEYS, "%s: %d keys, expected %d", what, s->nkeys, (int)NKEYS);
    for (int i = 0; i < NKEYS; i++) {
        const char *v = value_of(s, expected_keys[i]);
        CHECK(v != NULL, "%s: no key %s", what, expected_keys[i]);
        if (!v)
            return;
    }
    CHECK(strcmp(value_of(s, "command"), argv[0]) == 0, "%s: command \"%s\"", what,
          value_of(s, "command"));
    text[0] = '\0';
    for (int i = 1; i < argc; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", i > 1 ? " " : "", argv[i]);
    CHECK(strcmp(value_of(s, "argv"), text) == 0, "%s: argv \"%s\", expected \"%s\"", what,
          value_of(s, "argv"), text);
    snprintf(text, sizeof(text), "%d", size);
    CHECK(strcmp(value_of(s, "maxprocs"), text) == 0, "%s: maxprocs %s", what, value_of(s, "maxprocs"));
    CHECK(strcmp(value_of(s, "soft"), text) == 0, "%s: soft %s", what, value_of(s, "soft"));
    gethostname(text, sizeof(text));
    CHECK(strcmp(value_of(s, "host"), text) == 0, "%s: host %s", what, value_of(s, "host"));
    uname(&uts);
    CHECK(strcmp(value_of(s, "arch"), uts.machine) == 0, "%s: arch %s", what, value_of(s, "arch"));
    CHECK(getcwd(text, sizeof(text)) && strcmp(value_of(s, "wdir"), text) == 0, "%s: wdir %s",
          what, value_of(s, "wdir"));
    CHECK(strcmp(value_of(s, "thread_level"), level) == 0, "%s: thread_level %s, expected %s",
          what, value_of(s, "thread_level"), level);
}

static void take_env(int argc, char **argv, struct snapshot *s)
{
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_Info_create_env(argc, argv, &info));
    take(info, s);
    CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    static struct snapshot given_before, found_before, given_after, found_after, env;
    int funneled = argc > 1 && strcmp(argv[1], "funneled") == 0;
    const char *level = funneled ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE";

    take_env(argc, argv, &given_before);
    take_env(0, NULL, &found_before);

    int provided, size;
    MPI_Init_thread(&argc, &argv, funneled ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    take_env(argc, argv, &given_after);
    take_env(0, NULL, &found_after);
    take(MPI_INFO_ENV, &env);

    check_values("before MPI_Init", &given_before, argc, argv, size, "MPI_THREAD_SINGLE");
    check_values("before MPI_Init, argc 0", &found_before, argc, argv, size, "MPI_THREAD_SINGLE");
    check_values("after MPI_Init", &given_after, argc, argv, size, level);
    check_values("after MPI_Init, argc 0", &found_after, argc, argv, size, level);
    check_values("MPI_INFO_ENV", &env, argc, argv, size, level);
    same("argc 0 against the arguments, before", &found_before, &given_before);
    same("before against after", &given_before, &given_after);
    same("argc 0 before against after", &found_before, &found_after);
    same("MPI_INFO_ENV against MPI_Info_create_env", &env, &given_after);

    /* Only the command: no argv key, before or after. */
    struct snapshot one;
    char *only[] = { argv[0], NULL };
    take_env(1, only, &one);
    CHECK(one.nkeys == NKEYS - 1 && value_of(&one, "argv") == NULL && value_of(&one, "command") &&
          strcmp(value_of(&one, "command"), argv[0]) == 0, "a command without arguments: %d keys",
          one.nkeys);
    return uzt_finish("runtime_info_env");
}
