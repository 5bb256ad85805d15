/*
 * dt_transpose.c — the transpose of UZURA (seed 000) Figure 1 through
 * MPI_Sendrecv: the sender describes the matrix column by column with a
 * vector of one float per row and an hvector of those rows one float
 * apart; the receiver takes plain MPI_FLOATs.  Sender and receiver use
 * different type maps of the same signature, and every element of the
 * result is checked.  With two ranks, rank 0's matrix arrives transposed
 * at rank 1 and the other way round; with one rank, a process transposes
 * to itself.  Also run with a matrix large enough for the rendezvous path
 * (the scatter/gather one-copy transfer), and the other way round
 * (contiguous send, strided receive).  Last, the datatypes of a pending
 * nonblocking send and receive are freed before the transfer completes:
 * they must stay valid until it does.
 */
#include "uztest.h"

static float value(int rank, int i, int j)
{
    return (float)(rank * 1000000 + i * 1000 + j);
}

static void transpose(int n, int rank, int size)
{
    float *a = malloc((size_t)n * n * sizeof(float));
    float *b = malloc((size_t)n * n * sizeof(float));
    MPI_Aint lb, sz;
    MPI_Datatype row, xpose;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = value(rank, i, j);
    memset(b, 0, (size_t)n * n * sizeof(float));

    /* Figure 1, as written (MPI_REAL is Fortran's; C uses MPI_FLOAT). */
    CHECK_MPI(MPI_Type_get_extent(MPI_FLOAT, &lb, &sz));
    CHECK_MPI(MPI_Type_vector(n, 1, n, MPI_FLOAT, &row));
    CHECK_MPI(MPI_Type_create_hvector(n, 1, sz, row, &xpose));
    CHECK_MPI(MPI_Type_commit(&xpose));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(a, 1, xpose, peer, 0, b, n * n, MPI_FLOAT, from, 0, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_FLOAT, &count);
    CHECK_EQ(count, n * n);
    long bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += b[i * n + j] != value(from, j, i);
    CHECK(bad == 0, "n=%d: %ld of %d elements wrong after the transpose", n, bad, n * n);

    /* And back: contiguous send, transposing receive. */
    memset(b, 0, (size_t)n * n * sizeof(float));
    CHECK_MPI(MPI_Sendrecv(a, n * n, MPI_FLOAT, peer, 1, b, 1, xpose, from, 1, MPI_COMM_WORLD, &st));
    MPI_Get_elements(&st, xpose, &count);
    CHECK_EQ(count, n * n);
    bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += b[i * n + j] != value(from, j, i);
    CHECK(bad == 0, "n=%d: %ld of %d elements wrong after the receive-side transpose", n, bad,
          n * n);
    MPI_Type_free(&row);
    MPI_Type_free(&xpose);
    free(a);
    free(b);
}

/* Free the types while the operations using them are pending. */
static void freed_while_pending(int n, int rank, int size)
{
    float *a = malloc((size_t)n * n * sizeof(float));
    float *b = malloc((size_t)n * n * sizeof(float));
    for (int i = 0; i < n * n; i++)
        a[i] = value(rank, i / n, i % n);
    memset(b, 0, (size_t)n * n * sizeof(float));
    MPI_Datatype row, xpose, col;
    CHECK_MPI(MPI_Type_vector(n, 1, n, MPI_FLOAT, &row));
    CHECK_MPI(MPI_Type_create_hvector(n, 1, sizeof(float), row, &xpose));
    CHECK_MPI(MPI_Type_commit(&xpose));
    CHECK_MPI(MPI_Type_dup(xpose, &col));
    CHECK_MPI(MPI_Type_commit(&col));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(b, 1, col, from, 2, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(a, 1, xpose, peer, 2, MPI_COMM_WORLD, &rq[1]));
    MPI_Type_free(&col);
    MPI_Type_free(&xpose);
    MPI_Type_free(&row);
    /* Scribble over freed memory if it were freed: allocate and fill. */
    void *junk = malloc(1 << 16);
    memset(junk, 0xff, 1 << 16);
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    free(junk);
    /* Sent transposed and received transposed: the original matrix. */
    long bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += b[i * n + j] != value(from, i, j);
    CHECK(bad == 0, "n=%d: %ld elements wrong with types freed while pending", n, bad);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    transpose(100, rank, size);     /* the figure's 100x100: 40 KB */
    transpose(7, rank, size);       /* small: eager */
    transpose(600, rank, size);     /* 1.4 MB: rendezvous */
    freed_while_pending(9, rank, size);
    freed_while_pending(300, rank, size);
    return uzt_finish("dt_transpose");
}
