/*
 * status.h — what Uzura keeps in the hidden part of MPI_Status.
 *
 * MPI_internal[0..1]: the number of bytes received (64 bits, so large-count
 * receives report exactly); MPI_internal[2]: 1 when the request was
 * cancelled.  MPI_Get_count, MPI_Get_elements and MPI_Test_cancelled read
 * these; MPI_Status_set_elements and MPI_Status_set_cancelled write them.
 *
 * MPI_ERROR belongs to the user except in the calls that return several
 * statuses (MPI_Waitall, MPI_Testall, MPI_Waitsome, MPI_Testsome and the
 * MPI_Request_get_status_all/some pair): MPI 4.1 §3.2.5 says message-passing
 * calls do not modify it otherwise, and programs (MPICH's test suite among
 * them) preset it and check that it survives a receive, a probe or a wait.
 */
#ifndef UZ_PT2PT_STATUS_H
#define UZ_PT2PT_STATUS_H

#include <string.h>

#include <mpi.h>

static inline void uz_status_set_bytes(MPI_Status *s, MPI_Count bytes)
{
    memcpy(&s->MPI_internal[0], &bytes, sizeof(bytes));
}

static inline MPI_Count uz_status_bytes(const MPI_Status *s)
{
    MPI_Count bytes;
    memcpy(&bytes, &s->MPI_internal[0], sizeof(bytes));
    return bytes;
}

static inline void uz_status_set_cancelled(MPI_Status *s, int cancelled)
{
    s->MPI_internal[2] = cancelled;
}

static inline int uz_status_cancelled(const MPI_Status *s)
{
    return s->MPI_internal[2];
}

/* The status of an empty receive (from MPI_PROC_NULL, or a null request). */
static inline void uz_status_set_empty(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    uz_status_set_bytes(s, 0);
    uz_status_set_cancelled(s, 0);
}

/* The status of a receive or probe from MPI_PROC_NULL (MPI 4.1 §3.10):
 * source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; MPI_ERROR untouched. */
static inline void uz_status_set_proc_null(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_TAG = MPI_ANY_TAG;
    uz_status_set_bytes(s, 0);
    uz_status_set_cancelled(s, 0);
}

/* Give a completed operation's status to a call that returns one status:
 * everything but MPI_ERROR, whose news is the call's return value. */
static inline void uz_status_copy_out(MPI_Status *dst, const MPI_Status *src)
{
    dst->MPI_SOURCE = src->MPI_SOURCE;
    dst->MPI_TAG = src->MPI_TAG;
    memcpy(dst->MPI_internal, src->MPI_internal, sizeof(dst->MPI_internal));
}

#endif /* UZ_PT2PT_STATUS_H */
