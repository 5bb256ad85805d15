/*
 * uzio.h — what the MPI-IO test programs share: one scratch file name per
 * run, made by rank 0 and broadcast (the ranks may be on different hosts
 * sharing the directory, so each cannot make its own).  The directory is
 * $UZURA_TEST_TMPDIR, else $TMPDIR, else /tmp.
 */
#ifndef UZIO_H
#define UZIO_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* "<dir>/<prefix><tag>.<pid>.<time><suffix>" into out[len], the same on
 * every rank of MPI_COMM_WORLD (collective). */
static void uzio_scratch_name(char *out, int len, const char *prefix, const char *tag, const char *suffix)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *dir = getenv("UZURA_TEST_TMPDIR");
        if (!dir || !*dir)
            dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
        snprintf(out, (size_t)len, "%s/%s%s.%ld.%ld%s", dir, prefix, tag, (long)getpid(), (long)time(NULL),
                 suffix);
    }
    MPI_Bcast(out, len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

#endif /* UZIO_H */
