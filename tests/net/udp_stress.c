/*
 * udp_stress.c — a large volume of messages of mixed sizes between pairs
 * of ranks, each carrying its sequence number and a checksum, so that
 * whatever the network does (UZURA_UDP_FAULTS: loss, duplication,
 * reordering) the test sees every message exactly once, in order, intact.
 *
 *   udp_stress [MiB] [slow_us]
 *
 * Ranks pair up (0↔1, 2↔3, ...); each sends MiB mebibytes (default 64) to
 * its partner while receiving as much, in sizes from 1 byte to 1 MiB
 * (eager and rendezvous).  With slow_us > 0 the odd ranks only receive,
 * sleeping slow_us microseconds between receives: a slow receiver, whose
 * backlog makes it STOP the sender (check with UZURA_VERBOSE=2).
 * Prints the volume and rate; exits non-zero on any error.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_MSG = 1 << 20, HEADER = 16, WINDOW = 8 };

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Sizes: mostly small, some medium, a few large (rendezvous). */
static size_t size_of(uint64_t seq, int src)
{
    uint64_t r = mix(seq * 2654435761u + (uint64_t)src);
    switch (r % 8) {
    case 0: case 1: case 2: return HEADER + r % 256;
    case 3: case 4: return HEADER + r % 8192;
    case 5: case 6: return HEADER + r % 131072;
    default: return HEADER + (r >> 8) % (MAX_MSG - HEADER);
    }
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* Message `seq` from `src`: [seq][checksum of the rest][bytes...]. */
static void fill(unsigned char *buf, size_t len, uint64_t seq, int src)
{
    uint64_t x = mix(seq ^ ((uint64_t)src << 48));
    for (size_t i = HEADER; i < len; i++) {
        if ((i & 7) == 0)
            x = mix(x + i);
        buf[i] = (unsigned char)(x >> (8 * (i & 7)));
    }
    uint64_t sum = fnv(buf + HEADER, len - HEADER);
    memcpy(buf, &seq, 8);
    memcpy(buf + 8, &sum, 8);
}

static int check(const unsigned char *buf, size_t len, uint64_t want_seq, int src, size_t got_len)
{
    uint64_t seq, sum;
    memcpy(&seq, buf, 8);
    memcpy(&sum, buf + 8, 8);
    if (got_len != len) {
        fprintf(stderr, "message %llu from %d: %zu bytes, expected %zu\n", (unsigned long long)want_seq,
                src, got_len, len);
        return 1;
    }
    if (seq != want_seq) {
        fprintf(stderr, "from %d: got message %llu where %llu was due (duplicate or out of order)\n", src,
                (unsigned long long)seq, (unsigned long long)want_seq);
        return 1;
    }
    if (fnv(buf + HEADER, len - HEADER) != sum) {
        fprintf(stderr, "message %llu from %d: checksum mismatch\n", (unsigned long long)seq, src);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double mib = argc > 1 ? atof(argv[1]) : 64;
    long slow_us = argc > 2 ? atol(argv[2]) : 0;
    int partner = rank ^ 1;
    size_t budget = (size_t)(mib * 1048576.0);
    int sends = !(slow_us && (rank & 1)), recvs = !(slow_us && !(rank & 1));
    if (partner >= size)                        /* the odd one out only joins the collectives */
        sends = recvs = 0;

    unsigned char *sbuf[WINDOW], *rbuf[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        sbuf[i] = malloc(MAX_MSG);
        rbuf[i] = malloc(MAX_MSG);
    }
    MPI_Request sreq[WINDOW], rreq[WINDOW];
    uint64_t sseq = 0, rseq = 0;
    size_t sent = 0, recvd = 0;
    int errors = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();

    /* Up to WINDOW sends and WINDOW receives in flight; the receiver posts
     * in order, and MPI's non-overtaking rule makes message k land in
     * receive k. */
    for (int i = 0; i < WINDOW; i++)
        sreq[i] = rreq[i] = MPI_REQUEST_NULL;
    int sdone = !sends, rdone = !recvs;
    uint64_t rposted = 0;
    size_t rposted_bytes = 0;
    while (!sdone || !rdone) {
        if (!sdone) {
            int slot = (int)(sseq % WINDOW);
            MPI_Wait(&sreq[slot], MPI_STATUS_IGNORE);
            if (sent >= budget) {
                MPI_Waitall(WINDOW, sreq, MPI_STATUSES_IGNORE);
                /* An empty message ends the stream. */
                MPI_Send(NULL, 0, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                sdone = 1;
            } else {
                size_t len = size_of(sseq, rank);
                fill(sbuf[slot], len, sseq, rank);
                MPI_Isend(sbuf[slot], (int)len, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &sreq[slot]);
                sent += len;
                sseq++;
            }
        }
        if (!rdone) {
            /* Keep WINDOW receives posted, then complete the oldest. */
            while (rposted < rseq + WINDOW && rposted_bytes < budget) {
                int slot = (int)(rposted % WINDOW);
                MPI_Irecv(rbuf[slot], MAX_MSG, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &rreq[slot]);
                rposted_bytes += size_of(rposted, partner);
                rposted++;
            }
            if (rseq == rposted) {
                MPI_Recv(NULL, 0, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                rdone = 1;
                continue;
            }
            int slot = (int)(rseq % WINDOW);
            MPI_Status st;
            MPI_Wait(&rreq[slot], &st);
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            errors += check(rbuf[slot], size_of(rseq, partner), rseq, partner, (size_t)count);
            recvd += (size_t)count;
            rseq++;
            if (slow_us)
                usleep((useconds_t)slow_us);
            if (errors > 10)
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double t = MPI_Wtime() - t0;
    int any = errors;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: sent %llu messages (%.1f MiB), received %llu (%.1f MiB) in %.2f s: %.1f MiB/s in, %s\n",
           rank, (unsigned long long)sseq, sent / 1048576.0, (unsigned long long)rseq, recvd / 1048576.0, t,
           recvd / 1048576.0 / t, errors ? "ERRORS" : "all in order and intact");
    for (int i = 0; i < WINDOW; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    MPI_Finalize();
    return any ? 1 : 0;
}
