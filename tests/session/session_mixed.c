/*
 * session_mixed.c — sessions beside the World model in one process:
 * communicators of MPI_COMM_WORLD and of two sessions used together (the
 * same tags on each, so that a message matched on the wrong one shows),
 * a session that outlives MPI_Finalize and still communicates, MPI_Init
 * refused after MPI_Finalize, and a session started again once
 * everything has finalized.
 */
#include "session_util.h"

/* Messages with the same tag on three communicators at once, received in
 * the opposite order: each must arrive on its own. */
static void interleave(MPI_Comm a, MPI_Comm b, MPI_Comm c, int seq)
{
    int rank, size;
    MPI_Comm_rank(a, &rank);
    MPI_Comm_size(a, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm comms[3] = { a, b, c };
    enum { N = 2000 };
    unsigned char out[3][N], in[3][N];
    MPI_Request req[6];
    for (int i = 0; i < 3; i++) {
        uzs_fill(out[i], N, rank, seq * 10 + i);
        CHECK_MPI(MPI_Isend(out[i], N, MPI_BYTE, right, 3, comms[i], &req[i]));
    }
    for (int i = 2; i >= 0; i--)
        CHECK_MPI(MPI_Irecv(in[i], N, MPI_BYTE, left, 3, comms[i], &req[3 + i]));
    CHECK_MPI(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) {
        long bad = uzs_verify(in[i], N, left, seq * 10 + i);
        CHECK(bad < 0, "communicator %d: byte %ld wrong (matched on another communicator?)", i, bad);
    }
}

int main(int argc, char **argv)
{
    MPI_Session s1 = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
    /* A session first, then the World model on the runtime it started. */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1));
    int flag = -1;
    MPI_Initialized(&flag);
    CHECK_EQ(flag, 0);
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    CHECK_EQ(provided, MPI_THREAD_FUNNELED);
    MPI_Initialized(&flag);
    CHECK_EQ(flag, 1);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uzs_rank = rank;

    /* A second session, asking for more threads: the World model's level
     * stays what MPI_Init_thread gave. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s2));
    MPI_Info_free(&info);
    MPI_Query_thread(&provided);
    CHECK_EQ(provided, MPI_THREAD_FUNNELED);
    MPI_Info used;
    CHECK_MPI(MPI_Session_get_info(s2, &used));
    char value[64] = "";
    int vlen = sizeof(value);
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &vlen, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0, "s2 thread_level '%s'", value);
    MPI_Info_free(&used);
    CHECK_MPI(MPI_Session_get_info(s1, &used));
    vlen = sizeof(value);
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &vlen, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_SINGLE") == 0, "s1 thread_level '%s'", value);
    MPI_Info_free(&used);

    MPI_Comm c1 = uzs_comm_from_pset(s1, "mpi://WORLD", "mixed.s1");
    MPI_Comm c2 = uzs_comm_from_pset(s2, "mpi://WORLD", "mixed.s2");
    int r1, r2;
    MPI_Comm_rank(c1, &r1);
    MPI_Comm_rank(c2, &r2);
    CHECK_EQ(r1, rank);
    CHECK_EQ(r2, rank);
    for (int round = 0; round < 3; round++)
        interleave(MPI_COMM_WORLD, c1, c2, round);
    uzs_collectives(MPI_COMM_WORLD, 1);
    uzs_collectives(c1, 2);
    uzs_collectives(c2, 3);
    uzs_ring(c2, 4);

    /* s1 ends first; s2 outlives MPI_Finalize and keeps working. */
    MPI_Comm_free(&c1);
    CHECK_MPI(MPI_Session_finalize(&s1));
    uzs_ring(c2, 5);
    int rc = uzs_verdict(MPI_COMM_WORLD, "session_mixed (World model part)");
    CHECK_MPI(MPI_Finalize());
    MPI_Finalized(&flag);
    CHECK_EQ(flag, 1);
    uzs_ring(c2, 6);
    uzs_collectives(c2, 7);
    MPI_Comm c3 = uzs_comm_from_pset(s2, "mpi://WORLD", "mixed.s2.after");
    uzs_collectives(c3, 8);
    MPI_Comm_free(&c3);

    /* MPI_Init after MPI_Finalize stays an error (MPI_COMM_SELF returns it). */
    int err = MPI_Init(NULL, NULL);
    CHECK(err != MPI_SUCCESS, "MPI_Init after MPI_Finalize succeeded");
    CHECK_EQ(uzs_class(err), MPI_ERR_OTHER);
    rc |= uzs_verdict(c2, "session_mixed (after MPI_Finalize)");
    MPI_Comm_free(&c2);
    CHECK_MPI(MPI_Session_finalize(&s2));

    /* Everything finalized: a session starts the runtime again. */
    MPI_Session s3;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3));
    MPI_Comm c4 = uzs_comm_from_pset(s3, "mpi://WORLD", "mixed.s3");
    uzs_ring(c4, 9);
    uzs_collectives(c4, 10);
    MPI_Initialized(&flag);
    CHECK_EQ(flag, 1);
    MPI_Finalized(&flag);
    CHECK_EQ(flag, 1);
    rc |= uzs_verdict(c4, "session_mixed (restarted)");
    MPI_Comm_free(&c4);
    CHECK_MPI(MPI_Session_finalize(&s3));
    return rc || uzs_failures;
}
