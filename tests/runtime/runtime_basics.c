/*
 * runtime_basics.c — what every program asks first: initialisation state,
 * thread level, versions, the standard-ABI queries, host name, clock, and
 * rank/size/names of the built-in communicators.  Also run without
 * mpiexec, as a singleton.
 */
#include <unistd.h>

#include "uztest.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank, size, len;
    MPI_Initialized(&flag);
    CHECK(flag == 0, "MPI_Initialized before MPI_Init says %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "MPI_Finalized before MPI_Init says %d", flag);
    int v = 0, sv = -1;
    MPI_Get_version(&v, &sv);           /* allowed before MPI_Init */
    CHECK(v == 5 && sv == 0, "MPI_Get_version %d.%d", v, sv);

    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    CHECK(provided == MPI_THREAD_SERIALIZED, "asked for SERIALIZED, got %d", provided);
    MPI_Query_thread(&flag);
    CHECK(flag == provided, "MPI_Query_thread %d", flag);
    MPI_Is_thread_main(&flag);
    CHECK(flag, "MPI_Is_thread_main");
    MPI_Initialized(&flag);
    CHECK(flag == 1, "MPI_Initialized after MPI_Init says %d", flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *expect_size = getenv("UZT_EXPECT_SIZE");
    if (expect_size)
        CHECK(size == atoi(expect_size), "size %d, expected %s", size, expect_size);
    CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
    int srank = -1, ssize = -1;
    MPI_Comm_rank(MPI_COMM_SELF, &srank);
    MPI_Comm_size(MPI_COMM_SELF, &ssize);
    CHECK(srank == 0 && ssize == 1, "MPI_COMM_SELF rank %d size %d", srank, ssize);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    CHECK(strstr(lib, "Uzura") && (int)strlen(lib) == len, "library version \"%s\" (len %d)", lib, len);
    int major = -1, minor = -1;
    CHECK_MPI(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "ABI version %d.%d", major, minor);
    MPI_Info info;
    CHECK_MPI(MPI_Abi_get_info(&info));
    char val[MPI_MAX_INFO_VAL];
    int vlen = sizeof(val);
    MPI_Info_get_string(info, "mpi_aint_size", &vlen, val, &flag);
    CHECK(flag && atoi(val) == (int)sizeof(MPI_Aint), "mpi_aint_size \"%s\"", flag ? val : "(none)");
    vlen = sizeof(val);
    MPI_Info_get_string(info, "mpi_count_size", &vlen, val, &flag);
    CHECK(flag && atoi(val) == 8, "mpi_count_size");
    MPI_Info_free(&info);

    char host[MPI_MAX_PROCESSOR_NAME], want[256];
    MPI_Get_processor_name(host, &len);
    gethostname(want, sizeof(want));
    CHECK(strcmp(host, want) == 0 && (int)strlen(host) == len, "processor name \"%s\"", host);

    double tick = MPI_Wtick(), t0 = MPI_Wtime();
    CHECK(tick > 0 && tick <= 1e-6, "MPI_Wtick %g", tick);
    usleep(20000);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 1.0, "20 ms measured as %g s", dt);

    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name \"%s\"", name);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name \"%s\"", name);
    CHECK_MPI(MPI_Comm_set_name(MPI_COMM_WORLD, "everyone"));
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "everyone") == 0 && len == 8, "renamed world \"%s\"", name);

    /* MPI_INFO_ENV describes how we were started. */
    vlen = sizeof(val);
    MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &vlen, val, &flag);
    CHECK(flag && atoi(val) == size, "MPI_INFO_ENV maxprocs \"%s\"", flag ? val : "(none)");
    vlen = sizeof(val);
    MPI_Info_get_string(MPI_INFO_ENV, "command", &vlen, val, &flag);
    CHECK(flag && strstr(val, "runtime_basics"), "MPI_INFO_ENV command \"%s\"", flag ? val : "(none)");

    /* Handle integers: predefined handles keep their value; others round-trip. */
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "MPI_Comm_toint(MPI_COMM_WORLD)");
    CHECK(MPI_Comm_fromint(0x102) == MPI_COMM_SELF, "MPI_Comm_fromint");
    MPI_Info mine;
    MPI_Info_create(&mine);
    int as_int = MPI_Info_toint(mine);
    CHECK(as_int >= 0x1000 && MPI_Info_fromint(as_int) == mine && MPI_Info_c2f(mine) == as_int,
          "info handle integer %d", as_int);
    MPI_Info_free(&mine);

    /* Memory from MPI_Alloc_mem, MPI_Free_mem (zero bytes too). */
    for (MPI_Aint bytes = 0; bytes <= 4096; bytes += 4096) {
        char *mem = NULL;
        CHECK_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
        CHECK(mem != NULL, "MPI_Alloc_mem(%ld) gave NULL", (long)bytes);
        if (mem && bytes)
            memset(mem, 1, (size_t)bytes);
        CHECK_MPI(MPI_Free_mem(mem));
    }
    CHECK_MPI(MPI_Pcontrol(1));
    MPI_Info hw;
    CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    CHECK(hw != MPI_INFO_NULL, "MPI_Get_hw_resource_info gave MPI_INFO_NULL");
    MPI_Info_free(&hw);

    /* The null handles have names; a status holds any source and tag. */
    char oname[MPI_MAX_OBJECT_NAME];
    int nlen;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, oname, &nlen));
    CHECK(strcmp(oname, "MPI_COMM_NULL") == 0 && nlen == 13, "name of MPI_COMM_NULL \"%s\"", oname);
    CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, oname, &nlen));
    CHECK(strcmp(oname, "MPI_DATATYPE_NULL") == 0, "name of MPI_DATATYPE_NULL \"%s\"", oname);
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_tag(&st, MPI_ANY_TAG));
    CHECK_MPI(MPI_Status_set_source(&st, MPI_ANY_SOURCE));
    CHECK(st.MPI_TAG == MPI_ANY_TAG && st.MPI_SOURCE == MPI_ANY_SOURCE, "status wildcards");

    int code = uzt_finish("runtime_basics");
    MPI_Finalized(&flag);
    if (flag != 1) {
        fprintf(stderr, "MPI_Finalized after MPI_Finalize says %d\n", flag);
        return 1;
    }
    return code;
}
