/*
 * session_alloc_kinds.c — the info key mpi_memory_alloc_kinds (MPI-4.1
 * §12.4.3): what MPI_Comm_get_info on MPI_COMM_WORLD / MPI_COMM_SELF and
 * MPI_Session_get_info report, for the default request ("mpi,system"), for
 * what mpiexec -memory-alloc-kinds (UZURA_MEMORY_ALLOC_KINDS) requests, and
 * for what a session's info requests; unsupported kinds (accelerators,
 * unknown restrictors) are left out, an empty value means none.
 *
 *   session_alloc_kinds EXPECTED_WORLD_VALUE
 */
#include <stdio.h>
#include <string.h>

#include "uztest.h"

static void expect_key(MPI_Info info, const char *expected, const char *what)
{
    char value[256] = "";
    int buflen = sizeof value, flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, "mpi_memory_alloc_kinds", &buflen, value, &flag));
    CHECK(flag, "%s: no mpi_memory_alloc_kinds", what);
    CHECK(strcmp(value, expected) == 0, "%s: mpi_memory_alloc_kinds '%s', expected '%s'", what, value, expected);
}

static void expect_comm(MPI_Comm comm, const char *expected, const char *what)
{
    MPI_Info info;
    CHECK_MPI(MPI_Comm_get_info(comm, &info));
    expect_key(info, expected, what);
    MPI_Info_free(&info);
}

/* A session requesting `asked` (NULL: no info) must report `expected`, and
 * so must a communicator made from it. */
static void session_case(const char *asked, const char *expected)
{
    MPI_Info info = MPI_INFO_NULL, got;
    if (asked) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_memory_alloc_kinds", asked);
    }
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    CHECK_MPI(MPI_Session_get_info(s, &got));
    char what[128];
    snprintf(what, sizeof what, "session asking '%s'", asked ? asked : "(nothing)");
    expect_key(got, expected, what);
    MPI_Info_free(&got);
    MPI_Group g;
    MPI_Comm c;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, "uzura.test.alloc_kinds", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    expect_comm(c, expected, "a communicator from the session");
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Session_finalize(&s));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *world = argc > 1 ? argv[1] : "mpi,system";
    expect_comm(MPI_COMM_WORLD, world, "MPI_COMM_WORLD");
    expect_comm(MPI_COMM_SELF, world, "MPI_COMM_SELF");

    session_case(NULL, world);
    session_case("mpi,system", "mpi,system");
    session_case(" cuda:device, mpi:win_allocate:alloc_mem ,system:x,system,mpi,mpi",
                 "mpi:win_allocate:alloc_mem,system,mpi");
    session_case("mpi:alloc_mem:bogus,level_zero:host", "");
    session_case("", "");

    /* A communicator given the key keeps the supported kinds it names that
     * its origin (here the World Model) supports. */
    MPI_Info hint;
    MPI_Comm dup;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "mpi_memory_alloc_kinds", "system,cuda:host");
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hint, &dup));
    expect_comm(dup, strstr(world, "system") ? "system" : "", "a dup given system,cuda:host");
    MPI_Comm_free(&dup);
    MPI_Info_free(&hint);
    return uzt_finish("session_alloc_kinds");
}
