/*
 * part_errors.c — wrong uses of partitioned communication return the
 * right error class through MPI_ERRORS_RETURN, with a message naming the
 * function and the argument: bad partitions, counts, wildcards, ranks;
 * MPI_Pready* on what is not an active partitioned send or with partitions
 * out of range or already ready; MPI_Parrived on what is not a partitioned
 * receive; freeing or cancelling an active one; a send and a receive whose
 * sizes differ (MPI_ERR_TRUNCATE on both sides).  The requests keep
 * working afterwards.
 */
#include "uztest.h"

static void expect(int rc, int cls, const char *fn, const char *words)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    CHECK(uzt_class(rc) == cls, "%s (%s): class %d, expected %d", fn, words, uzt_class(rc), cls);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, fn) != NULL, "message does not name %s: \"%s\"", fn, text);
    CHECK(strstr(text, words) != NULL, "message lacks \"%s\": \"%s\"", words, text);
}

int main(int argc, char **argv)
{
    int rank, size, buf[16] = { 0 }, rbuf[16];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Request s, r, q;

    /* Creation. */
    expect(MPI_Psend_init(buf, -1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_ARG,
           "MPI_Psend_init", "partitions -1");
    expect(MPI_Precv_init(buf, -2, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_ARG,
           "MPI_Precv_init", "partitions -2");
    expect(MPI_Psend_init(buf, 2, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_COUNT,
           "MPI_Psend_init", "count");
    expect(MPI_Psend_init(buf, 2, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_RANK,
           "MPI_Psend_init", "dest");
    expect(MPI_Psend_init(buf, 2, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_TAG,
           "MPI_Psend_init", "tag");
    expect(MPI_Precv_init(buf, 2, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s),
           MPI_ERR_RANK, "MPI_Precv_init", "source");
    expect(MPI_Precv_init(buf, 2, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &s),
           MPI_ERR_TAG, "MPI_Precv_init", "tag");
    expect(MPI_Psend_init(buf, 2, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s),
           MPI_ERR_TYPE, "MPI_Psend_init", "datatype");

    /* A pair with itself on MPI_COMM_SELF: 4 partitions of 4 ints. */
    CHECK_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, 2, 8, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Send_init(buf, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &q));
    int list_bad[2] = { 1, 4 }, flag;
    expect(MPI_Pready(0, s), MPI_ERR_REQUEST, "MPI_Pready", "not active");
    expect(MPI_Pready(0, r), MPI_ERR_REQUEST, "MPI_Pready", "not a partitioned send");
    expect(MPI_Pready(0, q), MPI_ERR_REQUEST, "MPI_Pready", "not a partitioned send");
    expect(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST, "MPI_Pready", "request");
    expect(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "not a partitioned receive");
    expect(MPI_Parrived(q, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "not a partitioned receive");
    flag = 0;
    CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    CHECK(flag, "MPI_Parrived(MPI_REQUEST_NULL): flag false");
    expect(MPI_Parrived(r, 2, &flag), MPI_ERR_ARG, "MPI_Parrived", "partition 2");
    CHECK_MPI(MPI_Parrived(r, 1, &flag));
    CHECK(flag, "inactive partitioned receive: MPI_Parrived says not arrived");

    for (int i = 0; i < 16; i++)
        buf[i] = 100 + i;
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    expect(MPI_Start(&s), MPI_ERR_REQUEST, "MPI_Start", "active");
    expect(MPI_Pready(4, s), MPI_ERR_ARG, "MPI_Pready", "partition 4");
    expect(MPI_Pready(-1, s), MPI_ERR_ARG, "MPI_Pready", "partition -1");
    expect(MPI_Pready_range(2, 1, s), MPI_ERR_ARG, "MPI_Pready_range", "partition_high 1");
    expect(MPI_Pready_range(0, 4, s), MPI_ERR_ARG, "MPI_Pready_range", "partition_high 4");
    expect(MPI_Pready_list(2, list_bad, s), MPI_ERR_ARG, "MPI_Pready_list", "4");
    expect(MPI_Pready_list(-1, list_bad, s), MPI_ERR_ARG, "MPI_Pready_list", "length -1");
    expect(MPI_Request_free(&s), MPI_ERR_REQUEST, "MPI_Request_free", "active");
    expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel", "partitioned");
    CHECK_MPI(MPI_Pready(0, s));
    expect(MPI_Pready(0, s), MPI_ERR_ARG, "MPI_Pready", "already ready");
    int rest[3] = { 3, 1, 2 };
    CHECK_MPI(MPI_Pready_list(3, rest, s));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    for (int i = 0; i < 16; i++)
        CHECK(rbuf[i] == 100 + i, "after the errors: int %d is %d", i, rbuf[i]);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Request_free(&q));

    /* Sizes that differ: 16 ints sent, 12 expected. */
    CHECK_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, 0, 10, MPI_COMM_SELF, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, 3, 4, MPI_INT, 0, 10, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Pready_range(0, 3, s));
    expect(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "MPI_Wait", "partitioned receive of 48 bytes");
    expect(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "MPI_Wait", "partitioned send of 64 bytes");
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));

    /* The library still works between ranks. */
    if (size > 1) {
        int to = (rank + 1) % size, from = (rank - 1 + size) % size;
        CHECK_MPI(MPI_Psend_init(buf, 2, 8, MPI_INT, to, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
        CHECK_MPI(MPI_Precv_init(rbuf, 1, 16, MPI_INT, from, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        MPI_Request both[2] = { r, s };
        CHECK_MPI(MPI_Startall(2, both));
        CHECK_MPI(MPI_Pready_range(0, 1, s));
        CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 16; i++)
            CHECK(rbuf[i] == 100 + i, "between ranks: int %d is %d", i, rbuf[i]);
        CHECK_MPI(MPI_Request_free(&both[0]));
        CHECK_MPI(MPI_Request_free(&both[1]));
    }
    return uzt_finish("part_errors");
}
