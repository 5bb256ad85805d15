/*
 * coll_area_unnamed.c — a communicator's shared collective area never
 * appears under /dev/shm while the ranks attach to it, when cross-memory
 * attach works (the others take the creator's memfd), so a job killed in
 * that window leaves nothing behind; with it off (argument "named") the
 * area is a named file there for that window, which shows the test sees it.
 *
 * Rank 0 enters the first collective on a fresh communicator, creating the
 * area and waiting for the others; rank 1 meanwhile looks for this job's
 * uzura-<job>-coll-* files.  Then every collective result is checked.
 */
#include <dirent.h>
#include <unistd.h>

#include "uztest.h"

static int count_named_areas(const char *job)
{
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "uzura-%s-coll-", job);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect_named = argc > 1 && strcmp(argv[1], "named") == 0;
    const char *job = getenv("UZURA_JOB_ID");
    if (!job || !*job) {
        if (rank == 0)
            printf("SKIPPED: UZURA_JOB_ID not set (not started by Uzura's mpiexec)\n");
        MPI_Finalize();
        return 77;
    }
    for (int round = 0; round < 3; round++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        int seen = 0;
        if (rank == 1) {
            /* Give rank 0 time to create the area; look while it waits. */
            for (int i = 0; i < 40 && !seen; i++) {
                usleep(10000);
                seen = count_named_areas(job);
            }
        }
        int value = rank + 1, sum = 0;
        CHECK_MPI(MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm));
        CHECK_EQ(sum, size * (size + 1) / 2);
        int seen_any = 0;
        CHECK_MPI(MPI_Allreduce(&seen, &seen_any, 1, MPI_INT, MPI_MAX, comm));
        if (expect_named)
            CHECK(seen_any > 0, "round %d: no named area seen with cross-memory attach off", round);
        else
            CHECK(seen_any == 0, "round %d: %d named area(s) under /dev/shm while ranks attached", round,
                  seen_any);
        CHECK_MPI(MPI_Comm_free(&comm));
    }
    CHECK(count_named_areas(job) == 0, "named areas left after the communicators were freed");
    return uzt_finish("coll_area_unnamed");
}
