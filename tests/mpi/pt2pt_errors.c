/*
 * pt2pt_errors.c — bad arguments to point-to-point calls return the right
 * error class through MPI_ERRORS_RETURN, with a message naming the
 * function and the argument, and leave the library working.
 */
#include "uztest.h"

static void expect(int rc, int cls, const char *fn, const char *words)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    CHECK(uzt_class(rc) == cls, "%s: class %d, expected %d", fn, uzt_class(rc), cls);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, fn) != NULL, "message does not name %s: \"%s\"", fn, text);
    CHECK(strstr(text, words) != NULL, "message lacks \"%s\": \"%s\"", words, text);
}

int main(int argc, char **argv)
{
    int rank, size, buf[4] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    expect(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send", "count -1");
    expect(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send", "dest");
    expect(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send", "rank -7");
    expect(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send", "tag -1");
    expect(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send", "tag");
    expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "datatype");
    expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send", "communicator");
    expect(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK, "MPI_Recv",
           "source");
    expect(MPI_Irecv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, NULL), MPI_ERR_TAG, "MPI_Irecv", "tag");
    MPI_Request r;
    expect(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Isend", "request");
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    expect(MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", "committed");
    MPI_Type_free(&uncommitted);
    r = (MPI_Request)(void *)buf;       /* not a request */
    expect(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait", "request");
    MPI_Request reqs[2] = { MPI_REQUEST_NULL, (MPI_Request)(void *)buf };
    expect(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall", "index 1");
    MPI_Request inactive = MPI_REQUEST_NULL;
    MPI_Recv_init(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &inactive);
    expect(MPI_Cancel(&inactive), MPI_ERR_REQUEST, "MPI_Cancel", "not active");
    MPI_Request_free(&inactive);
    expect(MPI_Buffer_detach(&r, buf), MPI_ERR_BUFFER, "MPI_Buffer_detach", "no buffer");
    expect(MPI_Bsend(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend", "no buffer");
    char small[MPI_BSEND_OVERHEAD + 8];
    MPI_Buffer_attach(small, sizeof(small));
    int big[64];
    expect(MPI_Bsend(big, 64, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend", "attached buffer");
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);

    /* The library still works after all that. */
    int v = rank, w = -1;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 3, &w, 1, MPI_INT, (rank - 1 + size) % size, 3,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == (rank - 1 + size) % size, "after the errors, received %d", w);
    return uzt_finish("pt2pt_errors");
}
