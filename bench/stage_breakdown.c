/*
 * stage_breakdown.c — where the time of one message goes, stage by stage,
 * as Table 5 of the UZURA paper breaks down its one-way latency: a
 * ping-pong between ranks 0 and 1 with UZURA_TRACE=stages, for a small
 * eager message and a rendezvous one, over whichever transport the
 * environment selects (shm; UZURA_SHM=0 UZURA_NET=tcp or udp).
 * Uzura only: it reads the stamps with UZURA_Trace_stages (uzura_ext.h).
 *
 *   UZURA_TRACE=stages mpiexec -n 2 stage_breakdown [round_trips [small_bytes [large_bytes]]]
 *
 * Each rank stamps its own stages with its own clock; only durations
 * measured on one rank are used.  The transit (from the sender's transport
 * publishing the record to the receiver's transport seeing it) spans both
 * clocks, so it is reconstructed as what is left of half the round trip
 * (measured on rank 0) once every locally measured stage of both
 * directions is taken off:
 *     round trip = send(0) + transit(0→1) + receive(1) + turn-around(1)
 *                + send(1) + transit(1→0) + receive(0)
 * The rows are means over the round trips whose time is below the 90th
 * percentile (the rest were preempted), so they add up to the total.  On
 * one host every rank reads the same counter: the reconstruction is then
 * exact, and the transit of each direction is printed apart as well.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uzura_ext.h>

enum { TAG = 31000, WARMUP = 100, NSTAGE = UZURA_STAGE_LAST + 1 };

static int rank;

/* Stamps of one side of the k-th message of a phase (0 when missing). */
struct msg_stamps {
    uint64_t at[NSTAGE];
};

static UZURA_Stage_record *read_all(int max, int *n, double *rate)
{
    UZURA_Stage_record *r = malloc(sizeof(*r) * (size_t)max);
    if (!r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    UZURA_Trace_stages(r, max, n, rate);
    return r;
}

static void discard(void)
{
    UZURA_Stage_record r[256];
    int n;
    do
        UZURA_Trace_stages(r, 256, &n, NULL);
    while (n == 256);
}

/* Sort the phase's stamps of one side (sender or receiver) into messages,
 * in the order this rank numbered them. */
static void collect(const UZURA_Stage_record *r, int n, int sender, struct msg_stamps *out, int iters)
{
    uint32_t first = 0;
    memset(out, 0, sizeof(*out) * (size_t)iters);
    for (int i = 0; i < n; i++) {
        int is_send = r[i].stage <= UZURA_STAGE_SEND_COMPLETE;
        if (r[i].tag != TAG || is_send != sender)
            continue;
        if (!first || r[i].seq < first)
            first = r[i].seq;
    }
    for (int i = 0; i < n; i++) {
        int is_send = r[i].stage <= UZURA_STAGE_SEND_COMPLETE;
        if (r[i].tag != TAG || is_send != sender || r[i].seq < first || r[i].seq - first >= (uint32_t)iters)
            continue;
        out[r[i].seq - first].at[r[i].stage] = r[i].time;
    }
}

static double span(const struct msg_stamps *m, int from, int to)
{
    if (!m->at[from] || !m->at[to])
        return 0;
    return (double)(int64_t)(m->at[to] - m->at[from]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void phase(int iters, int bytes, const char *what, const char *transport)
{
    char *buf = calloc(1, (size_t)bytes);
    int other = 1 - rank, n;
    double rate;
    for (int i = 0; i < WARMUP + iters; i++) {
        if (i == WARMUP) {
            MPI_Barrier(MPI_COMM_WORLD);
            discard();
        }
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, other, TAG, MPI_COMM_WORLD);
        }
    }
    int max = iters * 12 + 1024;
    UZURA_Stage_record *mine = read_all(max, &n, &rate);
    /* Rank 1's stamps go to rank 0 (after the reading: this traffic is not in them). */
    UZURA_Stage_record *theirs = NULL;
    int ntheirs = 0;
    if (rank == 1) {
        MPI_Send(&n, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(mine, n * (int)sizeof(*mine), MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&ntheirs, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        theirs = malloc(sizeof(*theirs) * (size_t)(ntheirs ? ntheirs : 1));
        MPI_Recv(theirs, ntheirs * (int)sizeof(*theirs), MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        struct msg_stamps *ps = malloc(sizeof(*ps) * (size_t)iters), *pr = malloc(sizeof(*pr) * (size_t)iters);
        struct msg_stamps *qs = malloc(sizeof(*qs) * (size_t)iters), *qr = malloc(sizeof(*qr) * (size_t)iters);
        collect(mine, n, 1, ps, iters);             /* ping, sent by 0 */
        collect(theirs, ntheirs, 0, pr, iters);     /* ping, received by 1 */
        collect(theirs, ntheirs, 1, qs, iters);     /* pong, sent by 1 */
        collect(mine, n, 0, qr, iters);             /* pong, received by 0 */
        double *rtt = malloc(sizeof(double) * (size_t)iters), *sorted = malloc(sizeof(double) * (size_t)iters);
        for (int k = 0; k < iters; k++) {
            rtt[k] = (ps[k].at[UZURA_STAGE_SEND_ENTRY] && qr[k].at[UZURA_STAGE_RECV_COMPLETE])
                ? (double)(int64_t)(qr[k].at[UZURA_STAGE_RECV_COMPLETE] - ps[k].at[UZURA_STAGE_SEND_ENTRY]) : 0;
            sorted[k] = rtt[k];
        }
        qsort(sorted, (size_t)iters, sizeof(double), cmp_double);
        double cut = sorted[(iters * 9) / 10];
        enum { SEND, TRANSIT, R_MATCH, R_COPY, R_DONE, TURN, TOTAL, DIRECT, DIRECT_BACK, S_WAIT, ROWS };
        double sum[ROWS] = { 0 };
        int used = 0;
        for (int k = 0; k < iters; k++) {
            if (rtt[k] <= 0 || rtt[k] > cut)
                continue;
            used++;
            double send = span(&ps[k], UZURA_STAGE_SEND_ENTRY, UZURA_STAGE_SEND_ENQUEUED) +
                          span(&qs[k], UZURA_STAGE_SEND_ENTRY, UZURA_STAGE_SEND_ENQUEUED);
            double match = span(&pr[k], UZURA_STAGE_ARRIVAL, UZURA_STAGE_MATCH) +
                           span(&qr[k], UZURA_STAGE_ARRIVAL, UZURA_STAGE_MATCH);
            double copy = span(&pr[k], UZURA_STAGE_MATCH, UZURA_STAGE_COPY) +
                          span(&qr[k], UZURA_STAGE_MATCH, UZURA_STAGE_COPY);
            double done = span(&pr[k], UZURA_STAGE_COPY, UZURA_STAGE_RECV_COMPLETE) +
                          span(&qr[k], UZURA_STAGE_COPY, UZURA_STAGE_RECV_COMPLETE);
            double turn = (pr[k].at[UZURA_STAGE_RECV_COMPLETE] && qs[k].at[UZURA_STAGE_SEND_ENTRY])
                ? (double)(int64_t)(qs[k].at[UZURA_STAGE_SEND_ENTRY] - pr[k].at[UZURA_STAGE_RECV_COMPLETE]) : 0;
            sum[SEND] += send / 2;
            sum[R_MATCH] += match / 2;
            sum[R_COPY] += copy / 2;
            sum[R_DONE] += done / 2;
            sum[TURN] += turn / 2;
            sum[TOTAL] += rtt[k] / 2;
            sum[TRANSIT] += (rtt[k] - send - match - copy - done - turn) / 2;
            /* Across the two ranks' clocks: meaningful only when they
             * read one counter (one host). */
            sum[DIRECT] += (double)(int64_t)(pr[k].at[UZURA_STAGE_ARRIVAL] - ps[k].at[UZURA_STAGE_SEND_ENQUEUED]);
            sum[DIRECT_BACK] += (double)(int64_t)(qr[k].at[UZURA_STAGE_ARRIVAL] - qs[k].at[UZURA_STAGE_SEND_ENQUEUED]);
            sum[S_WAIT] += (span(&ps[k], UZURA_STAGE_SEND_ENQUEUED, UZURA_STAGE_SEND_COMPLETE) +
                            span(&qs[k], UZURA_STAGE_SEND_ENQUEUED, UZURA_STAGE_SEND_COMPLETE)) / 2;
        }
        double us = used ? 1.0 / (rate * used) : 0;
        printf("# stage_breakdown, %s, %s ping-pong of %d bytes: %d of %d round trips (below the 90th "
               "percentile), mean per one-way message, microseconds\n", transport, what, bytes, used, iters);
        printf("| stage | side | µs |\n|---|---|---|\n");
        printf("| request layer + transport enqueue (send entry → record published) | sender | %.3f |\n", sum[SEND] * us);
        printf("| transit (published → seen by the receiver's poll), reconstructed | both | %.3f |\n", sum[TRANSIT] * us);
        printf("| matching (arrival seen → matched with the receive) | receiver | %.3f |\n", sum[R_MATCH] * us);
        printf("| copy (matched → last byte in the receive buffer) | receiver | %.3f |\n", sum[R_COPY] * us);
        printf("| completion (copied → request complete) | receiver | %.3f |\n", sum[R_DONE] * us);
        printf("| turn-around at rank 1 (MPI_Recv returns → MPI_Send entered), half | receiver | %.3f |\n", sum[TURN] * us);
        printf("| **one-way latency** (round trip / 2) | | **%.3f** |\n", sum[TOTAL] * us);
        printf("| transit 0 → 1 and 1 → 0 apart, across the two ranks' clocks (one host only) | both | %.3f, %.3f |\n",
               sum[DIRECT] * us, sum[DIRECT_BACK] * us);
        printf("| sender: record published → send complete (not on the path above) | sender | %.3f |\n",
               sum[S_WAIT] * us);
        printf("\n");
        free(ps); free(pr); free(qs); free(qr); free(rtt); free(sorted);
    }
    free(theirs);
    free(mine);
    free(buf);
}

int main(int argc, char **argv)
{
    int size, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    int small = argc > 2 ? atoi(argv[2]) : 8;
    int large = argc > 3 ? atoi(argv[3]) : 1 << 20;
    UZURA_Stage_record probe;
    double rate = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    UZURA_Trace_stages(&probe, 1, &count, &rate);
    if (size != 2 || count == 0 || iters < 10) {
        if (rank == 0)
            fprintf(stderr, "stage_breakdown: run at np 2 with UZURA_TRACE=stages, at least 10 round trips\n");
        MPI_Finalize();
        return 1;
    }
    const char *shm = getenv("UZURA_SHM"), *net = getenv("UZURA_NET");
    const char *transport = shm && strcmp(shm, "0") == 0 ? (net ? net : "tcp") : "shm";
    if (rank == 0)
        printf("# counter: %.1f ticks per microsecond\n\n", rate);
    phase(iters, small, "eager", transport);
    phase(iters > 200 ? iters / 5 : iters, large, "rendezvous", transport);
    MPI_Finalize();
    return 0;
}
