/*
 * buffer_args.c — buffer arguments under MPI_ERRORS_RETURN (issue 22):
 * a NULL buffer with data to move, MPI_IN_PLACE where it is not allowed,
 * and a send buffer that is the receive buffer in reductions and the
 * gather family are MPI_ERR_BUFFER with a message naming the function and
 * the argument, instead of a crash; NULL stays legal where nothing is read
 * (count 0, a datatype of size 0, MPI_BOTTOM with absolute addresses); and
 * the library keeps working afterwards.
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

static int rank, size;

/* Point-to-point: NULL, MPI_IN_PLACE, and what stays legal. */
static void p2p(void)
{
    int buf[4] = { 1, 2, 3, 4 }, peer = (rank + 1) % size;
    expect(MPI_Send(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send", "buf is NULL");
    expect(MPI_Send(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send", "buf is NULL");
    expect(MPI_Ssend(NULL, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Ssend", "buf");
    expect(MPI_Send_c(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send_c", "buf is NULL");
    MPI_Request req = MPI_REQUEST_NULL;
    expect(MPI_Isend(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER, "MPI_Isend", "buf");
    CHECK(req == MPI_REQUEST_NULL, "a failed MPI_Isend set the request");
    expect(MPI_Recv(NULL, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
           "MPI_Recv", "buf is NULL");
    expect(MPI_Irecv(NULL, 2, MPI_INT, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER, "MPI_Irecv", "buf");
    expect(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send",
           "buf cannot be MPI_IN_PLACE");
    expect(MPI_Sendrecv(buf, 1, MPI_INT, rank, 0, NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE), MPI_ERR_BUFFER, "MPI_Sendrecv", "recvbuf is NULL");
    expect(MPI_Sendrecv(MPI_IN_PLACE, 1, MPI_INT, rank, 0, buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE), MPI_ERR_BUFFER, "MPI_Sendrecv", "sendbuf cannot be MPI_IN_PLACE");
    expect(MPI_Bsend(NULL, 3, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend", "buf is NULL");
    int pos = 0;
    char packed[64];
    expect(MPI_Pack(NULL, 2, MPI_INT, packed, sizeof(packed), &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Pack",
           "inbuf is NULL");

    /* Legal: count 0, a datatype of size 0, MPI_PROC_NULL with count 0. */
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, rank, 5, NULL, 0, MPI_INT, rank, 5, MPI_COMM_WORLD, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0 && st.MPI_SOURCE == rank && st.MPI_TAG == 5, "empty self message: count %d source %d tag %d",
          n, st.MPI_SOURCE, st.MPI_TAG);
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    CHECK_MPI(MPI_Sendrecv(NULL, 5, empty, rank, 6, NULL, 5, empty, rank, 6, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 6, "zero-size type message: tag %d", st.MPI_TAG);
    MPI_Type_free(&empty);

    /* MPI_BOTTOM (NULL in the standard ABI) with absolute addresses, to
     * self and to a peer: every byte arrives. */
    int src[3], dst[3] = { -1, -1, -1 };
    for (int i = 0; i < 3; i++)
        src[i] = 1000 * rank + i;
    MPI_Aint a_src, a_dst;
    MPI_Get_address(src, &a_src);
    MPI_Get_address(dst, &a_dst);
    int blen = 3;
    MPI_Datatype t_src, t_dst;
    MPI_Type_create_hindexed(1, &blen, &a_src, MPI_INT, &t_src);
    MPI_Type_create_hindexed(1, &blen, &a_dst, MPI_INT, &t_dst);
    MPI_Type_commit(&t_src);
    MPI_Type_commit(&t_dst);
    CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, t_src, peer, 7, MPI_BOTTOM, 1, t_dst, (rank - 1 + size) % size, 7,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int from = (rank - 1 + size) % size;
    for (int i = 0; i < 3; i++)
        CHECK(dst[i] == 1000 * from + i, "MPI_BOTTOM message: dst[%d] = %d, expected %d", i, dst[i],
              1000 * from + i);
    MPI_Type_free(&t_src);
    MPI_Type_free(&t_dst);
}

/* Collectives where every rank makes the same mistake: each returns the
 * error and none enters the operation. */
static void coll_symmetric(void)
{
    int sbuf[8], rbuf[8];
    for (int i = 0; i < 8; i++)
        sbuf[i] = rank + i;
    expect(MPI_Allreduce(sbuf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allreduce", "recvbuf cannot be MPI_IN_PLACE");
    expect(MPI_Allreduce(sbuf, sbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce",
           "sendbuf and recvbuf are the same buffer");
    expect(MPI_Allreduce(NULL, rbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce",
           "sendbuf is NULL");
    MPI_Request req;
    expect(MPI_Iallreduce(sbuf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER,
           "MPI_Iallreduce", "recvbuf cannot be MPI_IN_PLACE");
    expect(MPI_Scan(sbuf, sbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Scan", "same buffer");
    expect(MPI_Exscan(sbuf, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Exscan",
           "recvbuf cannot be MPI_IN_PLACE");
    expect(MPI_Reduce_scatter_block(sbuf, sbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Reduce_scatter_block", "same buffer");
    expect(MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast", "buffer is NULL");
    expect(MPI_Bcast(MPI_IN_PLACE, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast",
           "buffer cannot be MPI_IN_PLACE");
    expect(MPI_Allgather(sbuf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allgather", "recvbuf cannot be MPI_IN_PLACE");
    int *big = malloc(sizeof(int) * size * 2);
    expect(MPI_Allgather(big + rank, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allgather", "sendbuf is this process's own block of recvbuf");
    expect(MPI_Alltoall(big, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Alltoall",
           "same buffer");
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }
    expect(MPI_Allgatherv(sbuf, 1, MPI_INT, NULL, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allgatherv", "recvbuf is NULL");
    expect(MPI_Alltoallv(NULL, counts, displs, MPI_INT, big, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "MPI_Alltoallv", "sendbuf is NULL");
    int *bdispls = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++)
        bdispls[i] = i * (int)sizeof(int);
    expect(MPI_Alltoallw(NULL, counts, bdispls, types, big, counts, bdispls, types, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "MPI_Alltoallw", "sendbuf is NULL");
    expect(MPI_Reduce_scatter(sbuf, MPI_IN_PLACE, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Reduce_scatter", "recvbuf cannot be MPI_IN_PLACE");
    expect(MPI_Reduce_local(sbuf, sbuf, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local",
           "inbuf and inoutbuf are the same buffer");
    expect(MPI_Reduce_local(MPI_IN_PLACE, rbuf, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local",
           "inbuf cannot be MPI_IN_PLACE");

    /* Neighborhood collectives never take MPI_IN_PLACE. */
    MPI_Comm ring;
    int periodic = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    expect(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, ring), MPI_ERR_BUFFER,
           "MPI_Neighbor_allgather", "sendbuf cannot be MPI_IN_PLACE");
    int two[2] = { 1, 1 }, twod[2] = { 0, 1 };
    expect(MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, NULL, two, twod, MPI_INT, ring), MPI_ERR_BUFFER,
           "MPI_Neighbor_allgatherv", "recvbuf is NULL");
    /* MPI_BOTTOM with absolute addresses as the displacements (mpi4py's
     * testNeighborAlltoallwBottom): legal, and every value arrives. */
    int sv[2] = { rank * 10 + 1, rank * 10 + 2 }, rv[2] = { -1, -1 };
    MPI_Aint sd[2], rd[2];
    MPI_Get_address(&sv[0], &sd[0]);
    MPI_Get_address(&sv[1], &sd[1]);
    MPI_Get_address(&rv[0], &rd[0]);
    MPI_Get_address(&rv[1], &rd[1]);
    MPI_Datatype ints[2] = { MPI_INT, MPI_INT };
    CHECK_MPI(MPI_Neighbor_alltoallw(MPI_BOTTOM, two, sd, ints, MPI_BOTTOM, two, rd, ints, ring));
    /* A 1-d periodic ring: block 0 comes from the left neighbour's block 1
     * (its "+1" send), block 1 from the right neighbour's block 0. */
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    CHECK(rv[0] == left * 10 + 2 && rv[1] == right * 10 + 1, "neighbor alltoallw from MPI_BOTTOM: %d %d",
          rv[0], rv[1]);
    MPI_Comm_free(&ring);
    MPI_Count *wc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *wsd = malloc(sizeof(MPI_Aint) * size), *wrd = malloc(sizeof(MPI_Aint) * size);
    int *wsrc = malloc(sizeof(int) * size), *wdst = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) {
        wc[i] = 1;
        wsrc[i] = rank * 100 + i;
        wdst[i] = -1;
        MPI_Get_address(&wsrc[i], &wsd[i]);
        MPI_Get_address(&wdst[i], &wrd[i]);
    }
    CHECK_MPI(MPI_Alltoallw_c(MPI_BOTTOM, wc, wsd, types, MPI_BOTTOM, wc, wrd, types, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(wdst[i] == i * 100 + rank, "alltoallw_c from MPI_BOTTOM: wdst[%d] = %d", i, wdst[i]);
    free(wc);
    free(wsd);
    free(wrd);
    free(wsrc);
    free(wdst);
    free(big);
    free(counts);
    free(displs);
    free(types);
    free(bdispls);

    /* Legal: count 0 with NULL, MPI_IN_PLACE where allowed. */
    CHECK_MPI(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        rbuf[i] = rank + i;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, rbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK(rbuf[i] == size * (size - 1) / 2 + size * i, "in-place allreduce: rbuf[%d] = %d", i, rbuf[i]);
}

/* Rooted collectives whose mistake only one side makes: the ranks that
 * got an error post a correct call, so the others' call completes
 * (MPICH's errors/coll/noalias.c does the same). */
static void coll_rooted(void)
{
    int *buf = malloc(sizeof(int) * size), *rbuf = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++)
        buf[i] = rank * 100 + i;

    int rc = MPI_Reduce(buf, rank == 0 ? buf : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        expect(rc, MPI_ERR_BUFFER, "MPI_Reduce", "sendbuf and recvbuf are the same buffer");
    else
        CHECK_MPI(rc);
    if (rc)
        CHECK_MPI(MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(rbuf[0] == 100 * size * (size - 1) / 2, "make-up reduce: %d", rbuf[0]);

    /* MPI_IN_PLACE at the root with recvbuf == the data: no alias error. */
    int v = rank;
    CHECK_MPI(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &v, &v, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(v == size * (size - 1) / 2, "in-place reduce: %d", v);

    rc = MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        expect(rc, MPI_ERR_BUFFER, "MPI_Gather", "sendbuf is this process's own block of recvbuf");
    else
        CHECK_MPI(rc);
    if (rc)
        CHECK_MPI(MPI_Gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK(rbuf[i] == i * 100, "make-up gather: rbuf[%d] = %d", i, rbuf[i]);

    /* MPI_IN_PLACE away from the root of a gather is an error there. */
    rc = MPI_Gather(rank == 0 ? buf : MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        expect(rc, MPI_ERR_BUFFER, "MPI_Gather", "except at the root");
        CHECK_MPI(MPI_Gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(rc);
    }

    rc = MPI_Scatter(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        expect(rc, MPI_ERR_BUFFER, "MPI_Scatter", "recvbuf is this process's own block of sendbuf");
    else
        CHECK_MPI(rc);
    if (rc)
        CHECK_MPI(MPI_Scatter(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(rbuf[0] == 0, "make-up scatter at the root: rbuf[0] = %d", rbuf[0]);
    else
        CHECK(buf[0] == rank, "scatter matched by the make-up: buf[0] = %d", buf[0]);
    free(buf);
    free(rbuf);
}

/* MPI_IN_PLACE on an intercommunicator: not allowed at all. */
static void coll_inter(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int x[2] = { rank, rank };
    expect(MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER, "MPI_Allreduce",
           "sendbuf cannot be MPI_IN_PLACE on an intercommunicator");
    int y[2];
    CHECK_MPI(MPI_Allreduce(x, y, 2, MPI_INT, MPI_MAX, inter));
    /* Each group gets the largest rank of the other group. */
    int other = 1 - rank % 2, max = (size - 1) % 2 == other ? size - 1 : size - 2;
    CHECK(y[0] == max && y[1] == max, "intercomm allreduce: %d %d, expected %d", y[0], y[1], max);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    p2p();
    coll_symmetric();
    coll_rooted();
    coll_inter();

    /* The library still works after all that. */
    int v = rank, w = -1;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 3, &w, 1, MPI_INT, (rank - 1 + size) % size, 3,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == (rank - 1 + size) % size, "after the errors, received %d", w);
    return uzt_finish("buffer_args");
}
