/*
 * session_world.c — a program that never calls MPI_Init: one session, the
 * process sets it lists (names and sizes), communicators made from
 * mpi://WORLD, mpi://SELF and mpi://uzura/host, point-to-point and
 * collectives on them with every byte checked, an intercommunicator made
 * from two groups of the session, and MPI_Initialized / MPI_Finalized
 * untouched by it all.
 */
#include "session_util.h"

static void check_world_model_untouched(void)
{
    int flag = -1;
    MPI_Initialized(&flag);
    CHECK_EQ(flag, 0);
    MPI_Finalized(&flag);
    CHECK_EQ(flag, 0);
}

/* The sets, their names by index, and their sizes in their info. */
static void check_psets(MPI_Session s, int world_size, int host_size)
{
    int n = -1;
    CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK_EQ(n, 3);
    const char *want[] = { "mpi://WORLD", "mpi://SELF", "mpi://uzura/host" };
    const int sizes[] = { world_size, 1, host_size };
    for (int i = 0; i < n && i < 3; i++) {
        int len = 0;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK_EQ(len, (long long)strlen(want[i]) + 1);
        char name[64];
        len = sizeof(name);
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK(strcmp(name, want[i]) == 0, "pset %d is '%s', expected '%s'", i, name, want[i]);
        /* A short buffer gets the name cut, and the length it needs. */
        char shortbuf[6];
        len = sizeof(shortbuf);
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, shortbuf));
        CHECK(strncmp(shortbuf, want[i], 5) == 0 && shortbuf[5] == '\0', "cut name '%s'", shortbuf);
        CHECK_EQ(len, (long long)strlen(want[i]) + 1);

        MPI_Info info;
        CHECK_MPI(MPI_Session_get_pset_info(s, want[i], &info));
        char value[32] = "";
        int vlen = sizeof(value), flag = 0;
        CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag));
        CHECK(flag && atoi(value) == sizes[i], "%s: mpi_size '%s', expected %d", want[i], value, sizes[i]);
        MPI_Info_free(&info);

        MPI_Group g;
        int gsize = -1;
        CHECK_MPI(MPI_Group_from_session_pset(s, want[i], &g));
        MPI_Group_size(g, &gsize);
        CHECK_EQ(gsize, sizes[i]);
        MPI_Group_free(&g);
    }
}

/* An intercommunicator between the even and the odd ranks of WORLD. */
static void check_intercomm(MPI_Session s, MPI_Comm world)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    if (size < 2)
        return;
    MPI_Group wg, even, odd;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    int range_even[1][3] = { { 0, (size - 1) / 2 * 2, 2 } }, range_odd[1][3] = { { 1, size / 2 * 2 - 1, 2 } };
    MPI_Group_range_incl(wg, 1, range_even, &even);
    MPI_Group_range_incl(wg, 1, range_odd, &odd);
    int mine_even = rank % 2 == 0;
    MPI_Comm inter = MPI_COMM_NULL;
    CHECK_MPI(MPI_Intercomm_create_from_groups(mine_even ? even : odd, 0, mine_even ? odd : even, 0,
                                               "session_world.inter", MPI_INFO_NULL,
                                               MPI_ERRHANDLER_NULL, &inter));
    int is_inter = 0, lsize = 0, rsize = 0;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_EQ(is_inter, 1);
    CHECK_EQ(lsize, mine_even ? (size + 1) / 2 : size / 2);
    CHECK_EQ(rsize, mine_even ? size / 2 : (size + 1) / 2);
    /* Local rank i talks to remote rank i (when the other side has one). */
    int lrank;
    MPI_Comm_rank(inter, &lrank);
    if (lrank < rsize) {
        unsigned char out[3000], in[3000];
        uzs_fill(out, sizeof(out), rank, 77);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, sizeof(out), MPI_BYTE, lrank, 5, in, sizeof(in), MPI_BYTE, lrank, 5,
                               inter, &st));
        int peer = mine_even ? 2 * lrank + 1 : 2 * lrank;
        long bad = uzs_verify(in, sizeof(in), peer, 77);
        CHECK(bad < 0, "intercomm: byte %ld from world rank %d wrong", bad, peer);
        CHECK_EQ(st.MPI_SOURCE, lrank);
    }
    /* Merged, with the even side first: the ranks of WORLD, reordered. */
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(inter, !mine_even, &merged));
    int mrank;
    MPI_Comm_rank(merged, &mrank);
    CHECK_EQ(mrank, mine_even ? rank / 2 : (size + 1) / 2 + rank / 2);
    uzs_collectives(merged, 9);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    check_world_model_untouched();
    MPI_Session s = MPI_SESSION_NULL;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    check_world_model_untouched();

    MPI_Comm world = uzs_comm_from_pset(s, "mpi://WORLD", "session_world.world");
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    uzs_rank = rank;

    /* The host set is the group MPI_COMM_TYPE_SHARED gives. */
    MPI_Comm shared;
    CHECK_MPI(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    int shared_size = 0;
    MPI_Comm_size(shared, &shared_size);
    check_psets(s, size, shared_size);

    MPI_Comm host = uzs_comm_from_pset(s, "mpi://uzura/host", "session_world.host");
    MPI_Group hg, sg;
    int cmp = -1;
    MPI_Comm_group(host, &hg);
    MPI_Comm_group(shared, &sg);
    MPI_Group_compare(hg, sg, &cmp);
    CHECK(cmp == MPI_IDENT, "mpi://uzura/host is not the MPI_COMM_TYPE_SHARED group (%d)", cmp);
    MPI_Group_free(&hg);
    MPI_Group_free(&sg);

    MPI_Comm self = uzs_comm_from_pset(s, "mpi://SELF", "session_world.self");
    int self_size = 0, self_rank = -1;
    MPI_Comm_size(self, &self_size);
    MPI_Comm_rank(self, &self_rank);
    CHECK_EQ(self_size, 1);
    CHECK_EQ(self_rank, 0);

    uzs_ring(world, 1);
    uzs_collectives(world, 2);
    uzs_ring(host, 3);
    uzs_collectives(host, 4);
    uzs_ring(self, 5);
    uzs_collectives(self, 6);
    /* A communicator derived from a session communicator. */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(world, &dup));
    uzs_ring(dup, 7);
    uzs_collectives(dup, 8);
    check_intercomm(s, world);

    int provided = -1;
    MPI_Query_thread(&provided);
    CHECK_EQ(provided, MPI_THREAD_SINGLE);
    int main_thread = 0;
    MPI_Is_thread_main(&main_thread);
    CHECK_EQ(main_thread, 1);
    check_world_model_untouched();

    int rc = uzs_verdict(world, "session_world");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&self);
    MPI_Comm_free(&host);
    MPI_Comm_free(&shared);
    MPI_Comm_free(&world);
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");
    check_world_model_untouched();
    return rc || uzs_failures;
}
