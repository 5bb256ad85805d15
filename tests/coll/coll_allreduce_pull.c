/*
 * coll_allreduce_pull.c — Allreduce within one host where large vectors are
 * read by one copy from the other ranks' buffers (coll_shm.c
 * allreduce_pull: each rank combines its slice from every input, then reads
 * the others' slices of the result; two ranks below 1 MiB each combine the
 * whole vector) and the rest goes through the shared area or message
 * passing.  Every element is checked bit for bit against the rank-order
 * combination a0 op (a1 op (... a_{p-1})), with doubles whose sums round
 * differently in another order and with a non-commutative operation, and
 * the MPI_T counter coll_bytes_pulled shows which way each call went:
 * exactly what this rank must read when pulled, nothing when not.
 *
 *   coll_allreduce_pull pull   cross-memory attach works: large vectors pulled
 *                              with a core per rank, or at any rank count
 *                              under UZURA_COLL_ALLREDUCE=shm
 *   coll_allreduce_pull none   it is off (UZURA_SHM_CMA=off): nothing pulled
 *
 * Cases: vectors whose slice is below the pull size (16 KiB), at it, over
 * several 256 KiB pieces, not a multiple of the rank count, and from 1 MiB
 * (two ranks then split); MPI_MAX on ints; MPI_IN_PLACE (pulled too: the
 * others read only the slices this rank does not write); a strided
 * datatype and a non-commutative user operation on pairs (affine maps
 * composed in rank order), neither pulled: the pull combines with the
 * predefined operations' kernels on contiguous buffers.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

enum { PULL_MIN = 16384, WHOLE_MAX = 1 << 20 };
enum kind { DOUBLES, INTS, AFFINE };

static int rank, size, expect_pull;
static int shared_cores;           /* more ranks than CPUs (one host): auto does not pull */
static int named;                  /* UZURA_COLL_ALLREDUCE=shm: pulls anyway */
static MPI_T_pvar_session session;
static MPI_T_pvar_handle pulled;

/* Rank r's element i of call `seq`: fractions whose sums round. */
static double dval(int r, long i, int seq)
{
    return (double)((r * 7919 + i * 31 + seq * 17) % 1000) / 7.0 + (double)r * 1e-9 + 0.1;
}

static int ival(int r, long i, int seq)
{
    return (int)((r * 104729 + i * 13 + seq * 5) % 20011) - 10000;
}

/* An affine map x -> m x + c with m = +-1 and a small integer c: exact in
 * doubles, and composing two depends on their order. */
struct affine {
    double m, c;
};

static struct affine aval(int r, long i, int seq)
{
    struct affine a = { ((r + i + seq) % 3) ? 1.0 : -1.0, (double)((r * 37 + i * 11 + seq) % 101) - 50.0 };
    return a;
}

/* (f o g)(x) = f(g(x)): inout = in o inout, so that the result is
 * a0 o (a1 o (... a_{p-1})). */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const struct affine *f = in;
    struct affine *g = inout;
    for (int i = 0; i < *len; i++) {
        struct affine h = { f[i].m * g[i].m, f[i].m * g[i].c + f[i].c };
        g[i] = h;
    }
}

static void expected(enum kind k, long i, int seq, void *out)
{
    if (k == DOUBLES) {
        double acc = dval(size - 1, i, seq);
        for (int r = size - 2; r >= 0; r--)
            acc = dval(r, i, seq) + acc;
        memcpy(out, &acc, sizeof(acc));
    } else if (k == INTS) {
        int m = ival(0, i, seq);
        for (int r = 1; r < size; r++)
            m = ival(r, i, seq) > m ? ival(r, i, seq) : m;
        memcpy(out, &m, sizeof(m));
    } else {
        struct affine acc = aval(size - 1, i, seq);
        for (int r = size - 2; r >= 0; r--) {
            struct affine f = aval(r, i, seq);
            struct affine h = { f.m * acc.m, f.m * acc.c + f.c };
            acc = h;
        }
        memcpy(out, &acc, sizeof(acc));
    }
}

static void value(enum kind k, long i, int seq, void *out)
{
    if (k == DOUBLES) {
        double v = dval(rank, i, seq);
        memcpy(out, &v, sizeof(v));
    } else if (k == INTS) {
        int v = ival(rank, i, seq);
        memcpy(out, &v, sizeof(v));
    } else {
        struct affine v = aval(rank, i, seq);
        memcpy(out, &v, sizeof(v));
    }
}

/* What this rank reads when the call is pulled: with two ranks and a
 * commutative operation below 1 MiB not in place, the other's vector;
 * else its slice from each other rank (the whole slice from the one other
 * with two ranks) and the others' slices of the result. */
static unsigned long long pulled_bytes(long count, size_t esz)
{
    size_t n = (size_t)count * esz;
    long lo = count * rank / size, hi = count * (rank + 1) / size;
    size_t slice = (size_t)(hi - lo) * esz;
    return (unsigned long long)((size - 1) * slice + (n - slice));
}

static void one(const char *what, enum kind k, long count, int in_place, int strided, int seq)
{
    size_t esz = k == DOUBLES ? sizeof(double) : k == INTS ? sizeof(int) : sizeof(struct affine);
    int stride = strided ? 2 : 1;
    size_t span = (size_t)(count * stride + 1) * esz;      /* one element past the end */
    unsigned char *send = malloc(span), *recv = malloc(span), *want = malloc(esz);
    unsigned char *in = in_place ? recv : send;
    memset(send, 0x5a, span);
    memset(recv, 0xa5, span);
    for (long i = 0; i < count; i++)
        value(k, i, seq, in + (size_t)(i * stride) * esz);
    MPI_Datatype base = MPI_DOUBLE, t;
    MPI_Op op = MPI_SUM, user = MPI_OP_NULL;
    if (k == INTS) {
        base = MPI_INT;
        op = MPI_MAX;
    } else if (k == AFFINE) {
        CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &base));
        CHECK_MPI(MPI_Type_commit(&base));
        CHECK_MPI(MPI_Op_create(compose, 0, &user));
        op = user;
    }
    t = base;
    if (strided) {
        MPI_Datatype v;
        CHECK_MPI(MPI_Type_vector(1, 1, 2, base, &v));
        CHECK_MPI(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * esz), &t));
        CHECK_MPI(MPI_Type_commit(&t));
        MPI_Type_free(&v);
    }
    unsigned long long was = uzt_pvar(session, pulled);
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, (int)count, t, op, MPI_COMM_WORLD));
    unsigned long long got = uzt_pvar(session, pulled) - was;
    size_t n = (size_t)count * esz;
    int pull = expect_pull && (named || !shared_cores) && !strided && k != AFFINE && n / (size_t)size >= PULL_MIN;
    unsigned long long expect = 0;
    if (pull)
        expect = size == 2 && k != AFFINE && !in_place && n < WHOLE_MAX ? n : pulled_bytes(count, esz);
    CHECK(got == expect, "%s (seq %d, %ld elements): coll_bytes_pulled grew by %llu, expected %llu", what, seq, count,
          got, expect);
    long bad = 0;
    for (long i = 0; i < count; i++) {
        expected(k, i, seq, want);
        if (memcmp(recv + (size_t)(i * stride) * esz, want, esz) && bad++ < 3)
            CHECK(0, "%s (seq %d): element %ld of %ld wrong", what, seq, i, count);
    }
    CHECK(bad == 0, "%s (seq %d): %ld of %ld elements wrong", what, seq, bad, count);
    /* The gaps of a strided buffer and the element past the end: untouched. */
    unsigned char pad[sizeof(struct affine)];
    memset(pad, 0xa5, sizeof(pad));
    for (long i = 0; i < count * stride + 1; i++)
        if ((i % stride || i == count * stride) && memcmp(recv + (size_t)i * esz, pad, esz)) {
            CHECK(0, "%s (seq %d): element slot %ld outside the vector was written", what, seq, i);
            break;
        }
    if (!in_place)
        for (long i = 0; i < count; i++) {
            value(k, i, seq, want);
            if (memcmp(send + (size_t)(i * stride) * esz, want, esz)) {
                CHECK(0, "%s (seq %d): send element %ld changed", what, seq, i);
                break;
            }
        }
    if (!in_place)
        for (size_t b = 0; b < span; b++) {
            int used = (b / esz) % (size_t)stride == 0 && b / esz < (size_t)(count * stride);
            if (!used && send[b] != 0x5a) {
                CHECK(0, "%s (seq %d): send buffer byte %zu changed", what, seq, b);
                break;
            }
        }
    if (strided)
        MPI_Type_free(&t);
    if (k == AFFINE) {
        MPI_Type_free(&base);
        MPI_Op_free(&user);
    }
    free(send);
    free(recv);
    free(want);
}

int main(int argc, char **argv)
{
    int provided;
    expect_pull = argc > 1 && !strcmp(argv[1], "pull");
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *alg = getenv("UZURA_COLL_ALLREDUCE");
    named = alg && !strcmp(alg, "shm");
    shared_cores = size > sysconf(_SC_NPROCESSORS_ONLN);
    pulled = uzt_pvar_counter("coll_bytes_pulled", &session);

    /* Elements per rank's slice around the pull size, then vectors of
     * several pieces, one not a multiple of the rank count, one from 1 MiB. */
    long doubles[] = { 1024L * size, 2048L * size, 2047L * size + 1, 51200L * size + size - 1, 140001 };
    int seq = 0;
    for (size_t c = 0; c < sizeof(doubles) / sizeof(doubles[0]); c++) {
        one("MPI_SUM on doubles", DOUBLES, doubles[c], 0, 0, seq++);
        one("MPI_SUM on doubles, in place", DOUBLES, doubles[c], 1, 0, seq++);
        one("MPI_SUM on doubles, strided", DOUBLES, doubles[c], 0, 1, seq++);
        one("MPI_MAX on ints", INTS, doubles[c] * 2, 0, 0, seq++);
        one("affine maps composed", AFFINE, doubles[c] / 2, 0, 0, seq++);
        one("affine maps composed, in place", AFFINE, doubles[c] / 2, 1, 0, seq++);
    }
    /* Back to back, so that a rank still reading one call's buffers while
     * another starts the next would show. */
    for (int i = 0; i < 20; i++)
        one("MPI_SUM on doubles, repeated", DOUBLES, 40000, i & 1, 0, seq++);

    uzt_pvar_close(&session, &pulled);
    int rc = uzt_finish("coll_allreduce_pull");
    MPI_T_finalize();
    return rc;
}
