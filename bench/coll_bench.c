/*
 * coll_bench.c — latency of collective operations.  Plain MPI, so the same
 * source builds with any implementation's mpicc (bench/compare.py runs it
 * with Uzura, MPICH and Open MPI side by side).
 *
 *   coll_bench barrier|bcast|reduce|allreduce|allgather|allgatherv|gather|
 *              gatherv|scatter|scatterv|alltoall|alltoallv|alltoallw|
 *              reduce_scatter|reduce_scatter_v|scan|exscan|
 *              gather_p2p|scatter_p2p [min_bytes max_bytes]
 *
 * Prints "bytes microseconds" lines, sizes from min to max by factors of 8
 * (and max itself).  "bytes" is the message of one rank: the vector of a
 * reduction (doubles, MPI_SUM), the broadcast buffer, the block each rank
 * contributes to an allgather or sends to each peer in an alltoall; for
 * reduce_scatter (MPI_Reduce_scatter_block) and reduce_scatter_v
 * (MPI_Reduce_scatter with equal counts), the block each rank receives. The
 * v and w variants use equal counts, so they compare with the plain ones:
 * the difference is what the argument vectors cost.  gather_p2p and
 * scatter_p2p are linear Gather and Scatter written with MPI_Send and
 * MPI_Recv (rooted_p2p), the same messages without the collective layer.  A
 * point is the time per call averaged over the ranks (as OSU does), best of
 * several repetitions, each long enough (about 0.1 s) to swamp the clock;
 * every repetition starts from a barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5 };

static int rank, size;
static char *sbuf, *rbuf;
static int *counts, *displs, *wdispls, *dcounts;
static MPI_Datatype *bytes_types;

/* The operations, resolved from their names once: a chain of strcmp in
 * the timed loop cost up to 16 comparisons a call (260 instructions for
 * exscan, a fifth of a tiny call's work), and more for the operations
 * further down the list. */
enum op_kind {
    BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, GATHER, SCATTER, ALLTOALL, ALLTOALLV, REDUCE_SCATTER,
    REDUCE_SCATTER_V, SCAN, EXSCAN, ALLGATHERV, GATHERV, SCATTERV, ALLTOALLW, GATHER_P2P, SCATTER_P2P, OP_KINDS
};
static const char *const op_names[OP_KINDS] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "gather", "scatter", "alltoall", "alltoallv",
    "reduce_scatter", "reduce_scatter_v", "scan", "exscan", "allgatherv", "gatherv", "scatterv", "alltoallw",
    "gather_p2p", "scatter_p2p",
};

static int op_kind_of(const char *name)
{
    for (int k = 0; k < OP_KINDS; k++)
        if (!strcmp(name, op_names[k]))
            return k;
    return -1;
}

/* Linear Gather and Scatter written with MPI_Send and MPI_Recv, blocks in
 * rank order and the root's own block copied last: what the collective's
 * messages cost by themselves, so that gather/gather_p2p shows what an
 * implementation's collective layer adds around them. */
static void rooted_p2p(int to_root, int b)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (rank != 0) {
        if (to_root)
            MPI_Send(sbuf, b, MPI_BYTE, 0, 1, w);
        else
            MPI_Recv(rbuf, b, MPI_BYTE, 0, 1, w, MPI_STATUS_IGNORE);
        return;
    }
    for (int i = 1; i < size; i++) {
        if (to_root)
            MPI_Recv(rbuf + (size_t)i * (size_t)b, b, MPI_BYTE, i, 1, w, MPI_STATUS_IGNORE);
        else
            MPI_Send(sbuf + (size_t)i * (size_t)b, b, MPI_BYTE, i, 1, w);
    }
    memcpy(rbuf, sbuf, (size_t)b);     /* the root's own block: slot 0 of either buffer */
}

static void one(int op, size_t bytes)
{
    int n = (int)(bytes / 8), b = (int)bytes;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (op) {
    case BARRIER: MPI_Barrier(w); break;
    case BCAST: MPI_Bcast(sbuf, b, MPI_BYTE, 0, w); break;
    case REDUCE: MPI_Reduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, w); break;
    case ALLREDUCE: MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w); break;
    case ALLGATHER: MPI_Allgather(sbuf, b, MPI_BYTE, rbuf, b, MPI_BYTE, w); break;
    case GATHER: MPI_Gather(sbuf, b, MPI_BYTE, rbuf, b, MPI_BYTE, 0, w); break;
    case SCATTER: MPI_Scatter(sbuf, b, MPI_BYTE, rbuf, b, MPI_BYTE, 0, w); break;
    case ALLTOALL: MPI_Alltoall(sbuf, b, MPI_BYTE, rbuf, b, MPI_BYTE, w); break;
    case ALLTOALLV: MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, w); break;
    case REDUCE_SCATTER: MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w); break;
    case REDUCE_SCATTER_V: MPI_Reduce_scatter(sbuf, rbuf, dcounts, MPI_DOUBLE, MPI_SUM, w); break;
    case SCAN: MPI_Scan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w); break;
    case EXSCAN: MPI_Exscan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w); break;
    case ALLGATHERV: MPI_Allgatherv(sbuf, b, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, w); break;
    case GATHERV: MPI_Gatherv(sbuf, b, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, 0, w); break;
    case SCATTERV: MPI_Scatterv(sbuf, counts, displs, MPI_BYTE, rbuf, b, MPI_BYTE, 0, w); break;
    case ALLTOALLW:
        MPI_Alltoallw(sbuf, counts, wdispls, bytes_types, rbuf, counts, wdispls, bytes_types, w);
        break;
    case GATHER_P2P: rooted_p2p(1, b); break;
    case SCATTER_P2P: rooted_p2p(0, b); break;
    }
}

/* Seconds per call over `iters` calls, averaged over the ranks. */
static double timed(int op, size_t bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        one(op, bytes);
    double t = (MPI_Wtime() - t0) / iters, sum;
    MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / size;
}

static double measure(int op, size_t bytes)
{
    /* Calibrate on rank 0's view, so that every rank runs as many. */
    int iters = 1;
    double t = timed(op, bytes, 1);
    while (t * iters < 0.02 && iters < (1 << 20)) {
        iters *= 4;
        t = timed(op, bytes, iters);
    }
    int n = t > 0 ? (int)(0.1 / t) : 1000;
    if (n < 1)
        n = 1;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        t = timed(op, bytes, n);
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = argc > 1 ? argv[1] : "allreduce";
    int op = op_kind_of(name);
    if (op < 0) {
        if (rank == 0)
            fprintf(stderr, "coll_bench: unknown operation %s\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t lo = argc > 2 ? strtoul(argv[2], NULL, 0) : 8, hi = argc > 3 ? strtoul(argv[3], NULL, 0) : 4 << 20;
    if (op == BARRIER)
        lo = hi = 0;
    /* Every operation but the reductions to one vector moves a block per rank. */
    int one_vector = op == BARRIER || op == BCAST || op == REDUCE || op == ALLREDUCE || op == SCAN || op == EXSCAN;
    size_t per_rank = one_vector ? 1 : (size_t)size;
    /* Both buffers are written before the first call: untouched calloc'd
     * memory reads as the kernel's one zero page, which stays in the
     * cache, so every copy out of a send buffer nobody had written (until
     * 2026-11-27) cost only its writes.  Doubles of 1.0 keep the
     * reductions' sums finite. */
    sbuf = malloc(hi * per_rank + 8);
    rbuf = malloc(hi * per_rank + 8);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "coll_bench: out of memory for %zu-byte buffers\n", hi * per_rank + 8);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i + sizeof(double) <= hi * per_rank + 8; i += sizeof(double)) {
        double one = 1.0;
        memcpy(sbuf + i, &one, sizeof(one));
    }
    memset(rbuf, 0, hi * per_rank + 8);
    counts = malloc(sizeof(int) * size);
    displs = malloc(sizeof(int) * size);
    wdispls = malloc(sizeof(int) * size);
    dcounts = malloc(sizeof(int) * size);
    bytes_types = malloc(sizeof(MPI_Datatype) * size);
    for (int i = 0; i < size; i++)
        bytes_types[i] = MPI_BYTE;
    if (rank == 0)
        printf("# %s, %d ranks: bytes, microseconds per call\n", name, size);
    for (size_t b = lo;; b = b ? b * 8 : 8) {
        if (b > hi)
            b = hi;
        for (int i = 0; i < size; i++) {
            counts[i] = (int)b;
            displs[i] = wdispls[i] = (int)(i * b);
            dcounts[i] = (int)(b / 8);
        }
        double t = measure(op, b);
        if (rank == 0)
            printf("%zu %.3f\n", b, t * 1e6);
        fflush(stdout);
        if (b >= hi)
            break;
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    free(wdispls);
    free(dcounts);
    free(bytes_types);
    MPI_Finalize();
    return 0;
}
