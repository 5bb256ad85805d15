/*
 * pt2pt_completion.c — the completion calls on mixed request arrays:
 * MPI_Waitany / Waitsome / Testany / Testsome / Testall and
 * MPI_Request_get_status(_any/_all/_some), with null and inactive
 * requests among them; and the combined calls MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_Isendrecv, MPI_Isendrecv_replace.
 */
#include "uztest.h"

enum { N = 12 };

static int rank, size;

static void mixed_arrays(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Request req[N + 2];
    int in[N], out[N], done[N + 2] = { 0 };
    for (int i = 0; i < N; i++) {
        out[i] = rank * 1000 + i;
        in[i] = -1;
    }
    for (int i = 0; i < N; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, from, i, MPI_COMM_WORLD, &req[i]);
    req[N] = MPI_REQUEST_NULL;
    MPI_Recv_init(NULL, 0, MPI_BYTE, from, 77, MPI_COMM_WORLD, &req[N + 1]);    /* inactive */
    /* Send in reverse order so that completions come out of order. */
    for (int i = N - 1; i >= 0; i--)
        MPI_Send(&out[i], 1, MPI_INT, to, i, MPI_COMM_WORLD);

    int completed = 0, outcount, idx[N + 2], flag;
    MPI_Status sts[N + 2];
    /* Waitany once, Testsome until something, Waitsome, then Testall. */
    CHECK_MPI(MPI_Waitany(N + 2, req, &idx[0], &sts[0]));
    CHECK(idx[0] >= 0 && idx[0] < N, "Waitany index %d", idx[0]);
    done[idx[0]] = 1;
    completed++;
    do {
        CHECK_MPI(MPI_Testsome(N + 2, req, &outcount, idx, sts));
    } while (outcount == 0);
    for (int k = 0; k < outcount; k++) {
        CHECK(idx[k] < N && !done[idx[k]], "Testsome index %d", idx[k]);
        done[idx[k]] = 1;
        CHECK(sts[k].MPI_TAG == idx[k] && sts[k].MPI_SOURCE == from, "Testsome status");
    }
    completed += outcount;
    while (completed < N) {
        CHECK_MPI(MPI_Waitsome(N + 2, req, &outcount, idx, sts));
        CHECK(outcount > 0, "Waitsome returned %d", outcount);
        for (int k = 0; k < outcount; k++)
            done[idx[k]] = 1;
        completed += outcount;
    }
    /* Everything left is null or inactive. */
    CHECK_MPI(MPI_Waitsome(N + 2, req, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome on finished array gave %d", outcount);
    int index;
    CHECK_MPI(MPI_Testany(N + 2, req, &index, &flag, &sts[0]));
    CHECK(flag && index == MPI_UNDEFINED, "Testany on finished array: flag %d index %d", flag, index);
    CHECK_MPI(MPI_Testall(N + 2, req, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "Testall on finished array");
    for (int i = 0; i < N; i++) {
        CHECK(in[i] == from * 1000 + i, "message %d carried %d", i, in[i]);
        CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    }
    MPI_Request_free(&req[N + 1]);
}

static void get_status(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int v = -1, w = rank, flag, index, outcount, idx[2];
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(&v, 1, MPI_INT, from, 31, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Request_get_status(r[0], &flag, &st[0]));
    MPI_Send(&w, 1, MPI_INT, to, 31, MPI_COMM_WORLD);
    do {
        CHECK_MPI(MPI_Request_get_status_any(2, r, &index, &flag, &st[0]));
    } while (!flag);
    CHECK(index == 0 && st[0].MPI_SOURCE == from, "get_status_any index %d", index);
    CHECK_MPI(MPI_Request_get_status_all(2, r, &flag, st));
    CHECK(flag, "get_status_all");
    CHECK_MPI(MPI_Request_get_status_some(2, r, &outcount, idx, st));
    CHECK(outcount == 1 && idx[0] == 0, "get_status_some outcount %d", outcount);
    CHECK(r[0] != MPI_REQUEST_NULL, "get_status freed the request");
    CHECK_MPI(MPI_Wait(&r[0], &st[0]));
    CHECK(v == from, "received %d", v);
}

static void sendrecv_calls(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    const size_t n = 100000;
    unsigned char *a = malloc(n), *b = malloc(n);
    MPI_Status st;
    MPI_Request r;
    int count;
    for (int k = 0; k < 4; k++) {
        uzt_fill(a, n, rank, k);
        memset(b, 0, n);
        switch (k) {
        case 0:
            CHECK_MPI(MPI_Sendrecv(a, (int)n, MPI_BYTE, to, 40, b, (int)n, MPI_BYTE, from, 40, MPI_COMM_WORLD, &st));
            break;
        case 1:
            memcpy(b, a, n);
            CHECK_MPI(MPI_Sendrecv_replace(b, (int)n, MPI_BYTE, to, 41, from, 41, MPI_COMM_WORLD, &st));
            break;
        case 2:
            CHECK_MPI(MPI_Isendrecv(a, (int)n, MPI_BYTE, to, 42, b, (int)n, MPI_BYTE, from, MPI_ANY_TAG,
                                    MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, &st));
            break;
        case 3:
            memcpy(b, a, n);
            CHECK_MPI(MPI_Isendrecv_replace(b, (int)n, MPI_BYTE, to, 43, MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, &st));
            break;
        }
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n && st.MPI_SOURCE == from && st.MPI_TAG == 40 + k, "sendrecv %d: count %d src %d tag %d",
              k, count, st.MPI_SOURCE, st.MPI_TAG);
        long bad = uzt_verify(b, n, from, k);
        CHECK(bad < 0, "sendrecv %d: byte %ld wrong", k, bad);
    }
    /* With MPI_PROC_NULL on both sides nothing moves and the status is empty. */
    CHECK_MPI(MPI_Sendrecv(a, 1, MPI_BYTE, MPI_PROC_NULL, 0, b, 1, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0, "PROC_NULL sendrecv status");
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mixed_arrays();
    get_status();
    sendrecv_calls();
    return uzt_finish("pt2pt_completion");
}
