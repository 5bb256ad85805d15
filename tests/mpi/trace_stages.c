/*
 * trace_stages.c — UZURA_TRACE=stages stamps every stage of each message
 * of a ping-pong (small eager messages and rendezvous ones), in order and
 * once per message, and records nothing without it.
 *
 * Messages that arrive before their receive is posted (eager and
 * rendezvous) are stamped too, their receive posted after they arrived.
 *
 * With "file" the program reads nothing: UZURA_TRACE_FILE gets the stamps
 * at MPI_Finalize (trace_stages_file.sh checks them).
 *
 * Usage: trace_stages on|off|file   (run at np 2; the transport is chosen by
 * the environment: shm, or UZURA_SHM=0 with UZURA_NET=tcp or udp).
 */
#include <uzura_ext.h>

#include "uztest.h"

enum { TAG_SMALL = 4201, TAG_LARGE = 4202, TAG_UNEXP = 4203, TAG_UNEXP_LARGE = 4204, TAG_MARK = 4205,
       N_SMALL = 20, N_LARGE = 4, N_UNEXP = 10, SMALL = 8, LARGE = 1 << 20, MAX_RECORDS = 4096 };

static UZURA_Stage_record recs[MAX_RECORDS];

static void pingpong(int rank, int tag, int n, unsigned char *buf, int bytes)
{
    int other = 1 - rank;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            memset(buf, i, (size_t)bytes);
            CHECK_MPI(MPI_Send(buf, bytes, MPI_BYTE, other, tag, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(buf, bytes, MPI_BYTE, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf[bytes - 1] == (unsigned char)(i + 1), "pong %d carries %d", i, buf[bytes - 1]);
        } else {
            CHECK_MPI(MPI_Recv(buf, bytes, MPI_BYTE, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf[0] == (unsigned char)i, "ping %d carries %d", i, buf[0]);
            memset(buf, i + 1, (size_t)bytes);
            CHECK_MPI(MPI_Send(buf, bytes, MPI_BYTE, other, tag, MPI_COMM_WORLD));
        }
    }
}

/* Rank 0 sends N_UNEXP small messages and a large one that rank 1 has not
 * asked for yet, then a marker; rank 1 waits for the marker (so the others
 * are in and queued), then receives them. */
static void unexpected(int rank, unsigned char *buf)
{
    if (rank == 0) {
        MPI_Request req;
        for (int i = 0; i < N_UNEXP; i++)
            CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 1, TAG_UNEXP, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Isend(buf, LARGE, MPI_BYTE, 1, TAG_UNEXP_LARGE, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Send(buf, 0, MPI_BYTE, 1, TAG_MARK, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        int v = -1;
        CHECK_MPI(MPI_Probe(0, TAG_MARK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N_UNEXP; i++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, TAG_UNEXP, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_EQ(v, i);
        }
        CHECK_MPI(MPI_Recv(buf, LARGE, MPI_BYTE, 0, TAG_UNEXP_LARGE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(buf, 0, MPI_BYTE, 0, TAG_MARK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

static int is_send_stage(int s)
{
    return s >= UZURA_STAGE_SEND_ENTRY && s <= UZURA_STAGE_SEND_COMPLETE;
}

/* The stages one message passes on one side, in order, each once (the
 * send_data stage only for a rendezvous by CTS/DATA).  Returns messages seen. */
static int check_side(const UZURA_Stage_record *r, int n, int tag, int peer, int sender, int expect,
                      int posted_late)
{
    static const int send_order[] = { UZURA_STAGE_SEND_ENTRY, UZURA_STAGE_SEND_ENQUEUED,
                                      UZURA_STAGE_SEND_DATA, UZURA_STAGE_SEND_COMPLETE };
    static const int recv_order[] = { UZURA_STAGE_ARRIVAL, UZURA_STAGE_MATCH, UZURA_STAGE_COPY,
                                      UZURA_STAGE_RECV_COMPLETE };
    const int *order = sender ? send_order : recv_order;
    uint32_t seqs[64];
    int nseq = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].tag != tag || is_send_stage(r[i].stage) != sender)
            continue;
        CHECK(r[i].peer == peer, "stamp %s of message %u names peer %d", UZURA_Trace_stage_name(r[i].stage),
              r[i].seq, r[i].peer);
        int known = 0;
        for (int k = 0; k < nseq; k++)
            known |= seqs[k] == r[i].seq;
        if (!known && nseq < 64)
            seqs[nseq++] = r[i].seq;
    }
    CHECK(nseq == expect, "%s side of tag %d: %d messages stamped, expected %d", sender ? "send" : "receive",
          tag, nseq, expect);
    for (int k = 0; k < nseq; k++) {
        uint64_t at[UZURA_STAGE_LAST + 1] = { 0 };
        int times[UZURA_STAGE_LAST + 1] = { 0 };
        for (int i = 0; i < n; i++) {
            if (r[i].tag == tag && r[i].seq == seqs[k] && is_send_stage(r[i].stage) == sender) {
                times[r[i].stage]++;
                at[r[i].stage] = r[i].time;
            }
        }
        uint64_t last = 0;
        for (int j = 0; j < 4; j++) {
            int s = order[j];
            if (s == UZURA_STAGE_SEND_DATA && times[s] == 0)
                continue;
            CHECK(times[s] == 1, "message %u (tag %d): stage %s stamped %d times", seqs[k], tag,
                  UZURA_Trace_stage_name(s), times[s]);
            CHECK(at[s] >= last, "message %u (tag %d): stage %s before the one preceding it", seqs[k], tag,
                  UZURA_Trace_stage_name(s));
            last = at[s];
        }
        if (!sender) {
            CHECK(times[UZURA_STAGE_RECV_ENTRY] == 1, "message %u: recv_entry stamped %d times", seqs[k],
                  times[UZURA_STAGE_RECV_ENTRY]);
            CHECK(at[UZURA_STAGE_RECV_ENTRY] <= at[UZURA_STAGE_MATCH], "message %u: posted after matched",
                  seqs[k]);
            if (posted_late)
                CHECK(at[UZURA_STAGE_RECV_ENTRY] >= at[UZURA_STAGE_ARRIVAL], "message %u (tag %d): posted "
                      "before it arrived, not unexpected", seqs[k], tag);
        }
    }
    return nseq;
}

int main(int argc, char **argv)
{
    int rank, size, count;
    double rate = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int on = argc > 1 && strcmp(argv[1], "on") == 0;
    if (size != 2) {
        if (rank == 0)
            printf("SKIPPED: needs 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    unsigned char *buf = malloc(LARGE);
    int file = argc > 1 && strcmp(argv[1], "file") == 0;
    if (!file)
        CHECK_MPI(UZURA_Trace_stages(recs, MAX_RECORDS, &count, &rate));     /* what wire-up sent */
    pingpong(rank, TAG_SMALL, N_SMALL, buf, SMALL);
    pingpong(rank, TAG_LARGE, N_LARGE, buf, LARGE);
    unexpected(rank, buf);
    if (file)
        count = 0;
    else
        CHECK_MPI(UZURA_Trace_stages(recs, MAX_RECORDS, &count, &rate));
    if (file) {
        /* left for MPI_Finalize */
    } else if (!on) {
        CHECK(count == 0, "%d stamps recorded without UZURA_TRACE=stages", count);
    } else {
        CHECK(rate > 0, "counter rate %g", rate);
        int peer = 1 - rank;
        check_side(recs, count, TAG_SMALL, peer, 1, N_SMALL, 0);
        check_side(recs, count, TAG_SMALL, peer, 0, N_SMALL, 0);
        check_side(recs, count, TAG_LARGE, peer, 1, N_LARGE, 0);
        check_side(recs, count, TAG_LARGE, peer, 0, N_LARGE, 0);
        check_side(recs, count, TAG_UNEXP, peer, rank == 0, N_UNEXP, 1);
        check_side(recs, count, TAG_UNEXP_LARGE, peer, rank == 0, 1, 1);
        /* The ping-pong's stamps are all there is: 3-4 per send, 5 per receive. */
        int mine = 0;
        for (int i = 0; i < count; i++)
            mine += recs[i].tag == TAG_SMALL || recs[i].tag == TAG_LARGE;
        CHECK(mine >= (N_SMALL + N_LARGE) * 8 && mine <= (N_SMALL + N_LARGE) * 8 + N_LARGE,
              "%d stamps for %d messages each way", mine, N_SMALL + N_LARGE);
        int bad = 0;
        CHECK(UZURA_Trace_stages(NULL, 1, &count, NULL) != MPI_SUCCESS, "a NULL array was accepted");
        (void)bad;
    }
    free(buf);
    int fails = uzt_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0 && all == 0)
        printf("trace_stages %s: OK\n", argc > 1 ? argv[1] : "off");
    return all != 0;
}
