/*
 * is_kernel.c — a bucket sort of integer keys whose exchange is one
 * MPI_Alltoall of counts and one MPI_Alltoallv of keys, as in the NAS
 * Parallel Benchmarks' IS.  Plain MPI, so bench/compare.py builds it with
 * Uzura, MPICH and Open MPI alike.
 *
 *   is_kernel [min_log2_keys max_log2_keys]   (total keys, default 2^20 .. 2^23)
 *
 * Every rank holds total/p keys in [0, 2^19) with NPB's bell-shaped spread
 * (the mean of four uniform numbers), so the ranks' shares of the key range
 * differ and the Alltoallv counts are uneven.  An iteration buckets the
 * keys by owning rank, exchanges counts and keys, and ranks the received
 * keys with a counting sort.  The result is checked every iteration: the
 * keys each rank holds are sorted, lie in its range, and the total is
 * conserved.  Prints "log2(total keys) milliseconds per iteration" (best
 * of 5).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5, MAX_KEY_LOG2 = 19 };

static int rank, size;

/* A small deterministic generator, different on every rank. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static int sort_once(const int *keys, int nkeys, int *sorted, int *out_n, int *send_counts, int *send_displs,
                     int *recv_counts, int *recv_displs, int *bucketed, int *histogram)
{
    int max_key = 1 << MAX_KEY_LOG2, per = max_key / size;
    memset(send_counts, 0, sizeof(int) * size);
    for (int i = 0; i < nkeys; i++)
        send_counts[keys[i] / per]++;
    send_displs[0] = 0;
    for (int r = 1; r < size; r++)
        send_displs[r] = send_displs[r - 1] + send_counts[r - 1];
    int *fill = recv_displs;    /* borrowed as cursors until the counts arrive */
    memcpy(fill, send_displs, sizeof(int) * size);
    for (int i = 0; i < nkeys; i++)
        bucketed[fill[keys[i] / per]++] = keys[i];
    MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
    recv_displs[0] = 0;
    for (int r = 1; r < size; r++)
        recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
    int n = recv_displs[size - 1] + recv_counts[size - 1];
    int *received = bucketed + nkeys;
    MPI_Alltoallv(bucketed, send_counts, send_displs, MPI_INT, received, recv_counts, recv_displs, MPI_INT,
                  MPI_COMM_WORLD);
    /* Counting sort of our range. */
    int lo = rank * per;
    memset(histogram, 0, sizeof(int) * per);
    for (int i = 0; i < n; i++) {
        if (received[i] < lo || received[i] >= lo + per)
            return 0;
        histogram[received[i] - lo]++;
    }
    int at = 0;
    for (int k = 0; k < per; k++)
        for (int c = 0; c < histogram[k]; c++)
            sorted[at++] = lo + k;
    *out_n = n;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lo = argc > 1 ? atoi(argv[1]) : 20, hi = argc > 2 ? atoi(argv[2]) : 23;
    if (rank == 0)
        printf("# is_kernel, %d ranks: log2 of total keys, milliseconds per iteration (bucket sort by alltoallv)\n",
               size);
    for (int lg = lo; lg <= hi; lg++) {
        long total = 1L << lg;
        int nkeys = (int)(total / size);
        int *keys = malloc(sizeof(int) * nkeys);
        /* Received keys may exceed an even share: room for all of them. */
        int *bucketed = malloc(sizeof(int) * ((size_t)nkeys + total));
        int *sorted = malloc(sizeof(int) * total);
        int *counts = malloc(sizeof(int) * 4 * size);
        int *histogram = malloc(sizeof(int) * ((1 << MAX_KEY_LOG2) / size));
        uint64_t state = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1);
        for (int i = 0; i < nkeys; i++) {
            uint64_t s = 0;
            for (int j = 0; j < 4; j++)
                s += next_random(&state) % (1u << MAX_KEY_LOG2);
            keys[i] = (int)(s / 4);
        }
        double best = 1e30;
        for (int rep = 0; rep < REPS; rep++) {
            int n = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int ok = sort_once(keys, nkeys, sorted, &n, counts, counts + size, counts + 2 * size, counts + 3 * size,
                               bucketed, histogram);
            double t = MPI_Wtime() - t0, tmax;
            for (int i = 1; ok && i < n; i++)
                ok = sorted[i - 1] <= sorted[i];
            long mine = n, sum;
            int all_ok;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (!all_ok || sum != (long)nkeys * size) {
                if (rank == 0)
                    fprintf(stderr, "is_kernel: 2^%d keys: the sort is wrong (%ld keys after, %ld before)\n", lg,
                            sum, (long)nkeys * size);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            best = tmax < best ? tmax : best;
        }
        if (rank == 0) {
            printf("%d %.3f\n", lg, best * 1e3);
            fflush(stdout);
        }
        free(keys);
        free(bucketed);
        free(sorted);
        free(counts);
        free(histogram);
    }
    MPI_Finalize();
    return 0;
}
