/*
 * p2p_memory.c — memory a rank uses for communication: resident memory
 * (VmRSS), the shared memory it has touched (RssShmem) and the growth of
 * /dev/shm, after each rank has exchanged messages with its two ring
 * neighbours ("ring") or with every other rank ("all").  Plain MPI.
 *
 *   p2p_memory [ring|all]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static long status_kb(const char *field)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            v = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return v;
}

static long long shm_used(void)
{
    struct statvfs s;
    if (statvfs("/dev/shm", &s) != 0)
        return 0;
    return (long long)(s.f_blocks - s.f_bfree) * (long long)s.f_frsize;
}

static void exchange(int to, int from, int rank)
{
    char out[1024], in[1024];
    memset(out, rank, sizeof(out));
    /* A small and a large message, so that every protocol's memory shows. */
    static char big_out[1 << 20], big_in[1 << 20];
    MPI_Sendrecv(out, sizeof(out), MPI_BYTE, to, 0, in, sizeof(in), MPI_BYTE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(big_out, sizeof(big_out), MPI_BYTE, to, 1, big_in, sizeof(big_in), MPI_BYTE, from, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    long long shm_before = shm_used();
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int all = argc > 1 && strcmp(argv[1], "all") == 0;
    if (all) {
        for (int d = 1; d < size; d++) {
            int to = (rank + d) % size, from = (rank - d + size) % size;
            char out = 1, in;
            MPI_Sendrecv(&out, 1, MPI_BYTE, to, 0, &in, 1, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (size > 1) {
        int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
        exchange(next, prev, rank);     /* each rank talks to its two neighbours, both ways */
        exchange(prev, next, rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long mine[2] = { status_kb("VmRSS"), status_kb("RssShmem") };
    long max[2], sum[2];
    MPI_Reduce(mine, max, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long long grown = shm_used() - shm_before;
    if (rank == 0) {
        printf("# np %d, %s exchange\n", size, all ? "all-pairs" : "ring");
        printf("rss_kb_max %ld\nrss_kb_avg %ld\n", max[0], sum[0] / size);
        printf("shm_touched_kb_max %ld\nshm_touched_kb_avg %ld\n", max[1], sum[1] / size);
        printf("dev_shm_growth_kb_per_rank %lld\n", grown / 1024 / size);
    }
    MPI_Finalize();
    return 0;
}
