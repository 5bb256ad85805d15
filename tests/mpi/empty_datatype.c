/*
 * empty_datatype.c — the datatype of a point-to-point transfer of count 0
 * is not checked, as in MPICH (issue 22): MPI_Irecv(NULL, 0,
 * MPI_DATATYPE_NULL, MPI_PROC_NULL, ...) is legal, and so is a zero-count
 * message with MPI_DATATYPE_NULL or an uncommitted type on either side,
 * to self and to a peer.  With count > 0 the same datatypes are still
 * MPI_ERR_TYPE, and collectives still check their datatypes.
 */
#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;

    /* The call: an empty receive from MPI_PROC_NULL. */
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    CHECK(req != MPI_REQUEST_NULL, "no request");
    CHECK_MPI(MPI_Wait(&req, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
          "MPI_PROC_NULL status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Irecv_c(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Empty messages with MPI_DATATYPE_NULL or an uncommitted type, to
     * self and around the ring: they match and carry nothing. */
    MPI_Datatype uncommitted;
    MPI_Type_vector(2, 1, 3, MPI_INT, &uncommitted);
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, rank, 11, NULL, 0, uncommitted, rank, 11,
                           MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 11, "self: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, from, 12, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Send(NULL, 0, uncommitted, peer, 12, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 12 && n == 0, "ring: source %d tag %d count %d",
          st.MPI_SOURCE, st.MPI_TAG, n);
    /* A persistent empty receive with MPI_DATATYPE_NULL. */
    CHECK_MPI(MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, from, 13, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Ssend(NULL, 0, MPI_DATATYPE_NULL, peer, 13, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 13, "persistent: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Request_free(&req);

    /* With data to move the datatype is checked as before. */
    int buf[4] = { 0 };
    int rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL with count 1: class %d", uzt_class(rc));
    rc = MPI_Irecv(buf, 1, uncommitted, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    CHECK(uzt_class(rc) == MPI_ERR_TYPE, "uncommitted with count 1: class %d", uzt_class(rc));
    /* An empty transfer with a datatype that is too short to be a message
     * of any size: a too-long message into it is truncation, not a crash. */
    if (size > 1) {
        CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, from, 14, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Send(buf, 2, MPI_INT, peer, 14, MPI_COMM_WORLD));
        rc = MPI_Wait(&req, &st);
        CHECK(uzt_class(rc) == MPI_ERR_TRUNCATE, "8 bytes into an empty receive: class %d", uzt_class(rc));
    }
    /* Collectives check their datatypes (MPICH too). */
    rc = MPI_Bcast(NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_TYPE, "MPI_Bcast with MPI_DATATYPE_NULL: class %d", uzt_class(rc));
    MPI_Type_free(&uncommitted);
    return uzt_finish("empty_datatype");
}
