/*
 * transport_rma.c — the one-copy put and get of byte runs that one-sided
 * operations will use (uz_path_put / uz_path_get, transport.h's put/get):
 * through the shm transport by cross-memory attach, through self by memcpy,
 * and refused with -ENOTSUP (the caller then sends records) where the
 * peer's transport has none or it does not work here.
 *
 * Each rank exposes a window of memory and publishes its address.  Every
 * rank then puts into every rank's window (itself included) a block made
 * of its own pattern: from strided local runs into one remote run, and
 * from one local run into more remote runs than one system call takes;
 * after a barrier every byte of every block is checked where it landed.
 * Then every rank gets every other rank's blocks back, into strided local
 * runs, and checks them again.  Runs of different total lengths are an
 * error (MPI_ERR_ARG).
 *
 * It reaches into the request layer, so it links the library's objects.
 * The expectation comes from the environment: UZURA_SHM=0 (remote ranks
 * over the network) and UZURA_SHM_CMA=off give -ENOTSUP for other ranks.
 */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/errors.h"
#include "pt2pt/path.h"
#include "uztest.h"

enum {
    RUN = 24,                   /* bytes of each short run */
    NRUNS = 1500,               /* runs of one block: more than one system call takes */
    BLOCK = RUN * NRUNS,        /* bytes one rank puts into another's window */
    BIG = (1 << 20) + 4093,     /* a second, large block: one run each side */
};

static int rank, size;

/* The window: a short-run block and a big block per rank. */
struct window {
    unsigned char *small;       /* size * BLOCK */
    unsigned char *big;         /* size * BIG */
};

/* `n` runs of RUN bytes, every other RUN bytes of `base` (2 * n * RUN). */
static struct iovec *strided(unsigned char *base, int n)
{
    struct iovec *v = malloc(sizeof(*v) * n);
    for (int i = 0; i < n; i++) {
        v[i].iov_base = base + 2 * (size_t)i * RUN;
        v[i].iov_len = RUN;
    }
    return v;
}

/* `n` runs of RUN bytes, back to back, at `addr` in another process. */
static struct iovec *remote_runs(uintptr_t addr, int n)
{
    struct iovec *v = malloc(sizeof(*v) * n);
    for (int i = 0; i < n; i++) {
        v[i].iov_base = (void *)(addr + (size_t)i * RUN);
        v[i].iov_len = RUN;
    }
    return v;
}

static int expect_one_copy(int world)
{
    if (world == rank)
        return 1;
    const char *shm = getenv("UZURA_SHM"), *cma = getenv("UZURA_SHM_CMA");
    return !(shm && !strcmp(shm, "0")) && !(cma && !strcmp(cma, "off"));
}

/* Gather the strided runs of `src` (2 * BLOCK bytes) into `out`. */
static void unstride(const unsigned char *src, unsigned char *out)
{
    for (int i = 0; i < NRUNS; i++)
        memcpy(out + (size_t)i * RUN, src + 2 * (size_t)i * RUN, RUN);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct window w = { calloc((size_t)size, BLOCK), calloc((size_t)size, BIG) };
    uintptr_t mine[2] = { (uintptr_t)w.small, (uintptr_t)w.big };
    uintptr_t *addrs = malloc(sizeof(uintptr_t) * 2 * size);
    CHECK_MPI(MPI_Allgather(mine, 2 * sizeof(uintptr_t), MPI_BYTE, addrs, 2 * sizeof(uintptr_t), MPI_BYTE,
                            MPI_COMM_WORLD));

    /* Source blocks: this rank's pattern, the small one strided (every
     * other run), the big one contiguous. */
    unsigned char *small_src = calloc(2, BLOCK), *packed = malloc(BLOCK), *big_src = malloc(BIG);
    uzt_fill(packed, BLOCK, rank, 1);
    for (int i = 0; i < NRUNS; i++)
        memcpy(small_src + 2 * (size_t)i * RUN, packed + (size_t)i * RUN, RUN);
    uzt_fill(big_src, BIG, rank, 2);
    struct iovec *src_runs = strided(small_src, NRUNS);

    /* Put into every rank, this one included. */
    for (int q = 0; q < size; q++) {
        uintptr_t small_at = addrs[2 * q] + (size_t)rank * BLOCK, big_at = addrs[2 * q + 1] + (size_t)rank * BIG;
        struct iovec remote_small = { (void *)small_at, BLOCK };
        struct iovec local_big = { big_src, BIG }, remote_big = { (void *)big_at, BIG };
        int want = expect_one_copy(q) ? 0 : -ENOTSUP;
        int rc = uz_path_put(q, src_runs, NRUNS, &remote_small, 1, NULL);
        CHECK(rc == want, "put of %d strided runs to rank %d: %d, expected %d", NRUNS, q, rc, want);
        rc = uz_path_put(q, &local_big, 1, &remote_big, 1, NULL);
        CHECK(rc == want, "put of %d bytes to rank %d: %d, expected %d", BIG, q, rc, want);
        if (want == 0) {
            /* Runs of different lengths: an error naming it, nothing done. */
            struct iovec shorter = { (void *)small_at, BLOCK - 1 };
            rc = uz_path_put(q, src_runs, NRUNS, &shorter, 1, NULL);
            CHECK(rc > 0 && uzt_class(rc) == MPI_ERR_ARG, "put with runs of different lengths to rank %d: %d",
                  q, rc);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* What landed here, from every rank that could put. */
    for (int r = 0; r < size; r++) {
        if (!expect_one_copy(r))
            continue;
        long bad = uzt_verify(w.small + (size_t)r * BLOCK, BLOCK, r, 1);
        CHECK(bad < 0, "block put by rank %d: byte %ld wrong", r, bad);
        bad = uzt_verify(w.big + (size_t)r * BIG, BIG, r, 2);
        CHECK(bad < 0, "big block put by rank %d: byte %ld wrong", r, bad);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Get every rank's blocks back: the small one from NRUNS remote runs
     * into strided local runs, the big one in one run. */
    unsigned char *small_dst = malloc(2 * (size_t)BLOCK), *big_dst = malloc(BIG);
    struct iovec *dst_runs = strided(small_dst, NRUNS);
    for (int q = 0; q < size; q++) {
        for (int r = 0; r < size; r++) {
            if (!expect_one_copy(r))
                continue;          /* nothing was put there */
            int want = expect_one_copy(q) ? 0 : -ENOTSUP;
            struct iovec *remote = remote_runs(addrs[2 * q] + (size_t)r * BLOCK, NRUNS);
            memset(small_dst, 0, 2 * (size_t)BLOCK);
            int rc = uz_path_get(q, dst_runs, NRUNS, remote, NRUNS, NULL);
            CHECK(rc == want, "get of rank %d's block from rank %d: %d, expected %d", r, q, rc, want);
            if (rc == 0) {
                unstride(small_dst, packed);
                long bad = uzt_verify(packed, BLOCK, r, 1);
                CHECK(bad < 0, "rank %d's block got from rank %d: byte %ld wrong", r, q, bad);
                for (int i = 0; i < NRUNS; i++)
                    CHECK(small_dst[(2 * (size_t)i + 1) * RUN] == 0, "get wrote between the runs (run %d)", i);
            }
            free(remote);
            struct iovec local_big = { big_dst, BIG }, remote_big = { (void *)(addrs[2 * q + 1] + (size_t)r * BIG),
                                                                     BIG };
            rc = uz_path_get(q, &local_big, 1, &remote_big, 1, NULL);
            CHECK(rc == want, "get of %d bytes from rank %d: %d, expected %d", BIG, q, rc, want);
            if (rc == 0) {
                long bad = uzt_verify(big_dst, BIG, r, 2);
                CHECK(bad < 0, "rank %d's big block got from rank %d: byte %ld wrong", r, q, bad);
            }
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(src_runs);
    free(dst_runs);
    free(small_src);
    free(small_dst);
    free(packed);
    free(big_src);
    free(big_dst);
    free(addrs);
    free(w.small);
    free(w.big);
    return uzt_finish("transport_rma");
}
