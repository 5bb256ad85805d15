/*
 * session_util.h — helpers of the session tests: a communicator from a
 * process set, checks that do not need MPI_COMM_WORLD (a session-only
 * program never has it), and the verdict gathered over a communicator.
 */
#ifndef SESSION_UTIL_H
#define SESSION_UTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int uzs_failures;
static int uzs_rank = -1;       /* in mpi://WORLD, once known */

static void uzs_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL rank %d %s:%d: ", uzs_rank, file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    if (++uzs_failures > 20)
        exit(1);
}

#define CHECK(cond, ...) \
    do { if (!(cond)) uzs_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

#define CHECK_EQ(a, b) \
    CHECK((a) == (b), "%s == %lld, expected %s == %lld", #a, (long long)(a), #b, (long long)(b))

#define CHECK_MPI(call) \
    do { int uzs_rc_ = (call); if (uzs_rc_ != MPI_SUCCESS) { \
        char uzs_msg_[MPI_MAX_ERROR_STRING]; int uzs_len_; \
        MPI_Error_string(uzs_rc_, uzs_msg_, &uzs_len_); \
        uzs_fail(__FILE__, __LINE__, "%s returned %d: %s", #call, uzs_rc_, uzs_msg_); } } while (0)

/* The class of an error code, and whether its message contains `text`. */
static inline int uzs_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static inline int uzs_message_has(int rc, const char *text)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return strstr(msg, text) != NULL;
}

static inline unsigned char uzs_byte(int src, int seq, size_t i)
{
    uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)seq * 40503u ^ (uint32_t)i * 2246822519u;
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}

static inline void uzs_fill(void *buf, size_t n, int src, int seq)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = uzs_byte(src, seq, i);
}

/* Index of the first wrong byte, or -1. */
static inline long uzs_verify(const void *buf, size_t n, int src, int seq)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != uzs_byte(src, seq, i))
            return (long)i;
    return -1;
}

/* A communicator over process set `pset` of `session`. */
static inline MPI_Comm uzs_comm_from_pset(MPI_Session session, const char *pset, const char *tag)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_MPI(MPI_Group_from_session_pset(session, pset, &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &c));
    CHECK(c != MPI_COMM_NULL, "no communicator from %s", pset);
    MPI_Group_free(&g);
    return c;
}

/* Every byte of messages of several sizes (fast box, eager, rendezvous)
 * around a ring on comm; `seq` makes each call's bytes its own. */
static inline void uzs_ring(MPI_Comm comm, int seq)
{
    static const size_t sizes[] = { 0, 1, 40, 1000, 70000, 1 << 20 };
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
        uzs_fill(out, n, rank, seq * 100 + (int)k);
        memset(in, 0xee, n + 1);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, right, 7 + (int)k, in, (int)n + 1, MPI_BYTE, left,
                               7 + (int)k, comm, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_EQ(count, (long long)n);
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, 7 + (int)k);
        long bad = uzs_verify(in, n, left, seq * 100 + (int)k);
        CHECK(bad < 0, "ring seq %d size %zu: byte %ld wrong", seq, n, bad);
        CHECK(in[n] == 0xee, "ring seq %d size %zu: byte past the message overwritten", seq, n);
        free(out);
        free(in);
    }
}

/* Collectives on comm with every byte checked. */
static inline void uzs_collectives(MPI_Comm comm, int seq)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK_MPI(MPI_Barrier(comm));
    /* Bcast from each root. */
    for (int root = 0; root < size; root++) {
        size_t n = 5000 + (size_t)root;
        unsigned char *b = malloc(n);
        if (rank == root)
            uzs_fill(b, n, root, seq);
        else
            memset(b, 0, n);
        CHECK_MPI(MPI_Bcast(b, (int)n, MPI_BYTE, root, comm));
        long bad = uzs_verify(b, n, root, seq);
        CHECK(bad < 0, "bcast root %d: byte %ld wrong", root, bad);
        free(b);
    }
    /* Allreduce of distinct per-rank values. */
    long long mine[3] = { rank + 1, (long long)rank * rank, seq }, sum[3];
    CHECK_MPI(MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, comm));
    CHECK_EQ(sum[0], (long long)size * (size + 1) / 2);
    CHECK_EQ(sum[1], (long long)(size - 1) * size * (2 * size - 1) / 6);
    CHECK_EQ(sum[2], (long long)seq * size);
    /* Allgather and alltoall of per-(source, destination) bytes. */
    const size_t blk = 300;
    unsigned char *s = malloc(blk * size), *r = malloc(blk * size);
    uzs_fill(s, blk, rank, seq);
    CHECK_MPI(MPI_Allgather(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, comm));
    for (int p = 0; p < size; p++) {
        long bad = uzs_verify(r + blk * p, blk, p, seq);
        CHECK(bad < 0, "allgather block %d: byte %ld wrong", p, bad);
    }
    for (int p = 0; p < size; p++)
        uzs_fill(s + blk * p, blk, rank * 1000 + p, seq);
    CHECK_MPI(MPI_Alltoall(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, comm));
    for (int p = 0; p < size; p++) {
        long bad = uzs_verify(r + blk * p, blk, p * 1000 + rank, seq);
        CHECK(bad < 0, "alltoall block from %d: byte %ld wrong", p, bad);
    }
    free(s);
    free(r);
}

/* Rank 0 of comm collects every rank's failure count and prints the
 * verdict; returns the exit code of this rank. */
static inline int uzs_verdict(MPI_Comm comm, const char *name)
{
    int rank, size, total = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Reduce(&uzs_failures, &total, 1, MPI_INT, MPI_SUM, 0, comm);
    if (rank == 0) {
        printf("%s: %s (%d failures, %d ranks)\n", name, total ? "FAILED" : "passed", total, size);
        fflush(stdout);
    }
    return uzs_failures || (rank == 0 && total) ? 1 : 0;
}

#endif /* SESSION_UTIL_H */
