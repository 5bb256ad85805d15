/*
 * session_reinit.c — the runtime torn down and started again, round after
 * round, by a program that uses sessions alone: each round makes a
 * session (alternating thread levels, MPI_THREAD_MULTIPLE among them),
 * communicates over mpi://WORLD and mpi://uzura/host with every byte
 * checked, frees everything and finalizes.
 */
#include "session_util.h"

int main(int argc, char **argv)
{
    static const char *levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_MULTIPLE", "MPI_THREAD_FUNNELED",
                                    "MPI_THREAD_SERIALIZED" };
    enum { ROUNDS = 5 };
    int rc = 0;
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "thread_level", levels[round % 4]);
        MPI_Session s;
        CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
        MPI_Info_free(&info);
        int provided = -1;
        MPI_Query_thread(&provided);
        int want = round % 4 == 1 ? MPI_THREAD_MULTIPLE : round % 4 == 2 ? MPI_THREAD_FUNNELED
                 : round % 4 == 3 ? MPI_THREAD_SERIALIZED : MPI_THREAD_SINGLE;
        CHECK(provided == want, "round %d: MPI_Query_thread gives %d, expected %d", round, provided, want);

        char tag[32];
        snprintf(tag, sizeof(tag), "reinit.%d", round);
        MPI_Comm world = uzs_comm_from_pset(s, "mpi://WORLD", tag);
        MPI_Comm_rank(world, &uzs_rank);
        snprintf(tag, sizeof(tag), "reinit.host.%d", round);
        MPI_Comm host = uzs_comm_from_pset(s, "mpi://uzura/host", tag);
        uzs_ring(world, round * 10 + 1);
        uzs_collectives(world, round * 10 + 2);
        uzs_ring(host, round * 10 + 3);
        uzs_collectives(host, round * 10 + 4);
        char name[48];
        snprintf(name, sizeof(name), "session_reinit round %d", round);
        rc |= uzs_verdict(world, name);
        MPI_Comm_free(&host);
        MPI_Comm_free(&world);
        CHECK_MPI(MPI_Session_finalize(&s));
        int flag = -1;
        MPI_Initialized(&flag);
        CHECK_EQ(flag, 0);
    }
    return rc || uzs_failures;
}
