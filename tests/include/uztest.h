/*
 * uztest.h — small helpers shared by the MPI test programs: checks that
 * name the rank and line, and data patterns that make every byte of a
 * message depend on who sent it, which message it is and where the byte is.
 */
#ifndef UZTEST_H
#define UZTEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int uzt_failures;

static void uzt_fail(const char *file, int line, const char *fmt, ...)
{
    int rank = -1, init = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL rank %d %s:%d: ", rank, file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    if (++uzt_failures > 20)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(cond, ...) \
    do { if (!(cond)) uzt_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

#define CHECK_EQ(a, b) \
    CHECK((a) == (b), "%s == %lld, expected %s == %lld", #a, (long long)(a), #b, (long long)(b))

#define CHECK_MPI(call) \
    do { int uzt_rc_ = (call); if (uzt_rc_ != MPI_SUCCESS) { \
        char uzt_msg_[MPI_MAX_ERROR_STRING]; int uzt_len_; \
        MPI_Error_string(uzt_rc_, uzt_msg_, &uzt_len_); \
        uzt_fail(__FILE__, __LINE__, "%s returned %d: %s", #call, uzt_rc_, uzt_msg_); } } while (0)

/* The value of an unsigned counter or level performance variable. */
static inline unsigned long long uzt_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_EQ(MPI_T_pvar_read(session, h, &v), MPI_SUCCESS);
    return v;
}

/* A new session and in it a started handle on the counter performance
 * variable `name` (bound to no object): read it with uzt_pvar, end with
 * uzt_pvar_close. */
static inline MPI_T_pvar_handle uzt_pvar_counter(const char *name, MPI_T_pvar_session *session)
{
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    int idx = -1, count = 0;
    CHECK_EQ(MPI_T_pvar_session_create(session), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_handle_alloc(*session, idx, NULL, &h, &count), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_start(*session, h), MPI_SUCCESS);
    return h;
}

static inline void uzt_pvar_close(MPI_T_pvar_session *session, MPI_T_pvar_handle *h)
{
    CHECK_EQ(MPI_T_pvar_handle_free(*session, h), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_session_free(session), MPI_SUCCESS);
}

/* The error class of a call that must fail (the communicator must have
 * MPI_ERRORS_RETURN). */
static inline int uzt_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static inline unsigned char uzt_byte(int src, int seq, size_t i)
{
    uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)seq * 40503u ^ (uint32_t)i * 2246822519u;
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}

static inline void uzt_fill(void *buf, size_t n, int src, int seq)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = uzt_byte(src, seq, i);
}

/* Index of the first wrong byte, or -1. */
static inline long uzt_verify(const void *buf, size_t n, int src, int seq)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != uzt_byte(src, seq, i))
            return (long)i;
    return -1;
}

/* Call at the end: rank 0 collects every rank's failure count (with
 * point-to-point only, so that tests of point-to-point do not depend on
 * collectives) and prints the verdict; each rank exits non-zero if it
 * failed. */
static inline int uzt_finish(const char *name)
{
    int total = uzt_failures, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Rank 0 asks each rank in turn, so that no count can arrive while a
     * test's wildcard receive on rank 0 is still pending. */
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            int n = 0;
            MPI_Send(NULL, 0, MPI_BYTE, r, 32766, MPI_COMM_WORLD);
            MPI_Recv(&n, 1, MPI_INT, r, 32767, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += n;
        }
        printf("%s: %s (%d failures, %d ranks)\n", name, total ? "FAILED" : "passed", total, size);
        fflush(stdout);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 32766, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&uzt_failures, 1, MPI_INT, 0, 32767, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return uzt_failures || (rank == 0 && total) ? 1 : 0;
}

#endif /* UZTEST_H */
