/*
 * rma_transpose.c — the UZURA paper's Figure 2: a matrix transposed by one
 * MPI_Get whose target datatype walks the remote matrix by columns.
 *
 * Rank 1 (rank 0 itself at one rank) exposes an N x N float matrix b,
 * N = 100, with MPI_Win_create(b, N*N*sizeof(float), sizeof(float), ...).
 * The paper passes a disp_unit of 0, but MPI requires a positive
 * disp_unit, so sizeof(float) is used here (the only displacement is 0, so
 * the result is the same).  Every rank, the target included, builds
 *     row   = MPI_Type_vector(N, 1, N, MPI_FLOAT)
 *     xpose = MPI_Type_create_hvector(N, 1, sizeof(float), row)
 * and calls MPI_Get(a, N*N, MPI_FLOAT, target, 0, 1, xpose, win), then
 * checks a[i*N+j] == b[j*N+i] for every element.  The epoch is a fence
 * pair (as in the paper), then a shared MPI_Win_lock/MPI_Win_unlock, then
 * a fence pair on a window from MPI_Win_allocate; last, the transposing
 * type on the origin side instead: MPI_Get(a, 1, xpose, target, 0, N*N,
 * MPI_FLOAT, win).
 */
#include "uztest.h"

#define N 100

static int rank, size, target;

static float bval(int k)
{
    return (float)k + 0.5f; /* exact in a float for k < 2^23 */
}

static void check_transposed(const float *a, const char *how)
{
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (a[i * N + j] != bval(j * N + i) && bad++ < 5)
                CHECK(0, "%s: a[%d*N+%d] = %g, expected b[%d*N+%d] = %g", how, i, j, (double)a[i * N + j], j, i,
                      (double)bval(j * N + i));
    CHECK(bad == 0, "%s: %d elements wrong", how, bad);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    target = size > 1 ? 1 : 0;

    MPI_Datatype row, xpose;
    CHECK_MPI(MPI_Type_vector(N, 1, N, MPI_FLOAT, &row));
    CHECK_MPI(MPI_Type_create_hvector(N, 1, sizeof(float), row, &xpose));
    CHECK_MPI(MPI_Type_commit(&xpose));

    float *a = malloc(N * N * sizeof(float));
    float *b = malloc(N * N * sizeof(float));
    for (int k = 0; k < N * N; k++)
        b[k] = rank == target ? bval(k) : -1.0f;
    /* Only the target exposes memory. */
    MPI_Aint bytes = rank == target ? N * N * sizeof(float) : 0;
    MPI_Win win;

    /* Figure 2: MPI_Win_create and fences. */
    CHECK_MPI(MPI_Win_create(b, bytes, sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int k = 0; k < N * N; k++)
        a[k] = -2.0f;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(a, N * N, MPI_FLOAT, target, 0, 1, xpose, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    check_transposed(a, "Win_create, fence");

    /* The same under a shared lock. */
    for (int k = 0; k < N * N; k++)
        a[k] = -2.0f;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK_MPI(MPI_Get(a, N * N, MPI_FLOAT, target, 0, 1, xpose, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
    check_transposed(a, "Win_create, lock");

    /* The transposing type on the origin side. */
    for (int k = 0; k < N * N; k++)
        a[k] = -2.0f;
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CHECK_MPI(MPI_Get(a, 1, xpose, target, 0, N * N, MPI_FLOAT, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    check_transposed(a, "Win_create, fence, xpose at the origin");
    /* Nothing wrote to b. */
    for (int k = 0; k < N * N; k++)
        CHECK(b[k] == (rank == target ? bval(k) : -1.0f), "b[%d] changed to %g", k, (double)b[k]);
    CHECK_MPI(MPI_Win_free(&win));

    /* MPI_Win_allocate: the matrix lives in the window's memory. */
    float *bw;
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &bw, &win));
    if (rank == target)
        for (int k = 0; k < N * N; k++)
            bw[k] = bval(k);
    for (int k = 0; k < N * N; k++)
        a[k] = -2.0f;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(a, N * N, MPI_FLOAT, target, 0, 1, xpose, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    check_transposed(a, "Win_allocate, fence");
    CHECK_MPI(MPI_Win_free(&win));

    CHECK_MPI(MPI_Type_free(&row));
    CHECK_MPI(MPI_Type_free(&xpose));
    free(a);
    free(b);
    return uzt_finish("rma_transpose");
}
