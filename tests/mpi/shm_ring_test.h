/*
 * shm_ring_test.h — what the tests that read the shm transport's own state
 * share (they link the library's objects, not libmpi): a check that names
 * the test and stops after ten failures, and the local index of a rank.
 */
#ifndef SHM_RING_TEST_H
#define SHM_RING_TEST_H

#include <mpi.h>
#include <stdio.h>

#include "transport/shm/shm_state.h"

static int shm_test_failures;

#define SHM_CHECK(test, cond, ...)                                                  \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, test ": " __VA_ARGS__);                                 \
            fputc('\n', stderr);                                                    \
            if (++shm_test_failures > 10)                                           \
                MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                           \
    } while (0)

/* The shm transport's index of world rank `world`, or -1 (not on this
 * host, or no shm). */
static inline int shm_test_local_of(int world)
{
    for (int i = 0; uz_shm.base && i < uz_shm.nlocal; i++)
        if (uz_shm.local_world_ranks[i] == world)
            return i;
    return -1;
}

/* MPI_Init; 0 when the test can run, else (fewer than 2 ranks, no shm)
 * it has said SKIPPED and finalized: return 77 from main. */
static inline int shm_test_start(int *argc, char ***argv, int *rank)
{
    int size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2 && uz_shm.base != NULL)
        return 0;
    if (*rank == 0)
        printf("SKIPPED: needs 2 ranks on one host with the shm transport\n");
    MPI_Finalize();
    return 1;
}

/* Failures on every rank, after a barrier. */
static inline int shm_test_all_failures(void)
{
    int all;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&shm_test_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

#endif
