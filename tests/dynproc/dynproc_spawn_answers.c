/*
 * dynproc_spawn_answers.c — every MPI_Comm_spawn gets its own answer from
 * mpiexec, and only one, while the launchers of earlier spawns are ending.
 *
 * Each rank spawns on MPI_COMM_SELF, round after round: a child that only
 * disconnects and exits (so its job's mpiexec ends while the next spawns
 * start), then a program missing under a name unique to the rank and the
 * round, whose refusal must name exactly that program.  A second answer
 * sent for an earlier spawn (mpiexec once sent one when a launcher was
 * reaped in the same poll round as another launcher's report) would be
 * taken by the next spawn: a refusal naming another round, or "ended
 * before starting it".  Last, a refused spawn of many processes (more
 * than the library keeps recent error messages for): every process's
 * error code still names the program, on every rank.
 */
#include <stdio.h>
#include <string.h>

#include "uztest.h"

enum { ROUNDS = 12, MANY = 600 };

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

static int child(void)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent != MPI_COMM_NULL)
        CHECK_MPI(MPI_Comm_disconnect(&parent));
    return uzt_finish("quick child");
}

/* A spawn that must start its child. */
static void spawn_quick(const char *self)
{
    char *args[] = { "quick", NULL };
    MPI_Comm inter = MPI_COMM_NULL;
    int code = -1;
    int rc = MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, &code);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
    CHECK(rc == MPI_SUCCESS, "spawn of a program that exists failed: %s", text);
    if (rc != MPI_SUCCESS)
        return;
    CHECK_EQ(code, MPI_SUCCESS);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

/* A spawn that must be refused, naming this very program. */
static void spawn_missing(int rank, int round)
{
    char name[64], text[MPI_MAX_ERROR_STRING];
    int len, code = -1;
    snprintf(name, sizeof name, "uzura-missing-r%d-round%d", rank, round);
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn(name, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, &code);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a refused spawn returned a communicator");
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, name) != NULL, "refusal of %s: %s", name, text);
    CHECK_EQ(error_class(code), MPI_ERR_SPAWN);
    MPI_Error_string(code, text, &len);
    CHECK(strstr(text, name) != NULL, "errcode of %s: %s", name, text);
}

/* MPI_Comm_spawn_multiple with 2 x MANY processes on MPI_COMM_WORLD, the
 * second program missing: the root makes the codes, the others rebuild
 * them from the texts it sends; none may lose its message. */
static void spawn_many_missing(const char *self)
{
    static int codes[2 * MANY];
    char *cmds[2] = { (char *)self, "uzura-missing-many" };
    int maxprocs[2] = { MANY, MANY };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD,
                                     &inter, codes);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    int bad = 0;
    for (int p = 0; p < 2 * MANY; p++) {
        char text[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(codes[p], text, &len);
        const char *want = p < MANY ? "another program" : "uzura-missing-many";
        if (error_class(codes[p]) != MPI_ERR_SPAWN || !strstr(text, want)) {
            if (!bad++)
                CHECK(0, "errcode %d of %d: '%s' lacks '%s'", p, 2 * MANY, text, want);
        }
    }
    CHECK_EQ(bad, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "quick") == 0)
        return child();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int round = 0; round < ROUNDS; round++) {
        spawn_quick(argv[0]);
        spawn_missing(rank, round);
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    spawn_many_missing(argv[0]);
    return uzt_finish("dynproc_spawn_answers");
}
