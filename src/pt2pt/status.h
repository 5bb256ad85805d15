/*
 * status.h — what Uzura keeps in the hidden part of MPI_Status.
 *
 * MPI_internal[0..1]: the number of bytes received (64 bits, so large-count
 * receives report exactly); MPI_internal[2]: 1 when the request was
 * cancelled.  MPI_Get_count, MPI_Get_elements and MPI_Test_cancelled read
 * these; MPI_Status_set_elements and MPI_Status_set_cancelled write them.
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

#endif /* UZ_PT2PT_STATUS_H */
