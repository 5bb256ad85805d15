/*
 * pt2pt_status_error.c — the MPI_ERROR field of a status is the user's:
 * calls that return one status (receives, probes, matched probes and
 * receives, MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
 * MPI_Request_get_status, MPI_Sendrecv) fill source, tag and count and
 * leave MPI_ERROR as it was (MPI 4.1 §3.2.5), with MPI_PROC_NULL (source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0) and with real messages, eager
 * and rendezvous.  Every status starts as garbage with a sentinel in
 * MPI_ERROR.
 */
#include "uztest.h"

enum { SENTINEL = 0x5eed };

static void preset(MPI_Status *st)
{
    memset(st, 0xa5, sizeof(*st));
    st->MPI_ERROR = SENTINEL;
}

static void check_status(const char *call, const MPI_Status *st, int src, int tag, int bytes)
{
    int count = -1, elements = -1, cancelled = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MPI_Get_elements(st, MPI_BYTE, &elements);
    MPI_Test_cancelled(st, &cancelled);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == bytes && elements == bytes && !cancelled,
          "%s: source %d tag %d count %d elements %d cancelled %d, expected %d %d %d", call, st->MPI_SOURCE,
          st->MPI_TAG, count, elements, cancelled, src, tag, bytes);
    CHECK(st->MPI_ERROR == SENTINEL, "%s overwrote status.MPI_ERROR (%d)", call, st->MPI_ERROR);
}

static void check_proc_null(const char *call, const MPI_Status *st)
{
    check_status(call, st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
}

static void proc_null_calls(void)
{
    char buf[16];
    MPI_Status st;
    MPI_Request req;
    MPI_Message msg;
    int flag;

    preset(&st);
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_proc_null("MPI_Probe(MPI_PROC_NULL)", &st);
    preset(&st);
    flag = 0;
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL): flag 0");
    check_proc_null("MPI_Iprobe(MPI_PROC_NULL)", &st);
    preset(&st);
    CHECK_MPI(MPI_Recv(buf, 16, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_proc_null("MPI_Recv(MPI_PROC_NULL)", &st);
    preset(&st);
    CHECK_MPI(MPI_Irecv(buf, 16, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    check_proc_null("MPI_Irecv(MPI_PROC_NULL)+MPI_Wait", &st);
    preset(&st);
    CHECK_MPI(MPI_Sendrecv(buf, 16, MPI_BYTE, MPI_PROC_NULL, 1, buf, 16, MPI_BYTE, MPI_PROC_NULL, 1,
                           MPI_COMM_WORLD, &st));
    check_proc_null("MPI_Sendrecv(MPI_PROC_NULL)", &st);

    preset(&st);
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL): not MPI_MESSAGE_NO_PROC");
    check_proc_null("MPI_Mprobe(MPI_PROC_NULL)", &st);
    preset(&st);
    CHECK_MPI(MPI_Mrecv(buf, 16, MPI_BYTE, &msg, &st));
    check_proc_null("MPI_Mrecv(MPI_MESSAGE_NO_PROC)", &st);
    preset(&st);
    flag = 0;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe(MPI_PROC_NULL): flag %d", flag);
    check_proc_null("MPI_Improbe(MPI_PROC_NULL)", &st);
    preset(&st);
    CHECK_MPI(MPI_Imrecv(buf, 16, MPI_BYTE, &msg, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    check_proc_null("MPI_Imrecv(MPI_MESSAGE_NO_PROC)+MPI_Wait", &st);
}

enum method {
    PROBE_RECV, IPROBE_IRECV_WAIT, MPROBE_MRECV, IMPROBE_IMRECV_WAIT, IRECV_TEST, IRECV_WAITANY,
    IRECV_TESTANY, IRECV_GET_STATUS, SENDRECV, METHODS
};

static const char *const method_names[METHODS] = {
    "MPI_Probe+MPI_Recv", "MPI_Iprobe+MPI_Irecv+MPI_Wait", "MPI_Mprobe+MPI_Mrecv",
    "MPI_Improbe+MPI_Imrecv+MPI_Wait", "MPI_Irecv+MPI_Test", "MPI_Irecv+MPI_Waitany",
    "MPI_Irecv+MPI_Testany", "MPI_Irecv+MPI_Request_get_status", "MPI_Sendrecv",
};

/* Receive message `tag` of n bytes from `from` by method m; `out` is what
 * this rank sends (MPI_Sendrecv sends it itself). */
static void receive(enum method m, unsigned char *in, const unsigned char *out, int n, int to, int from, int tag)
{
    MPI_Status pst, st;
    MPI_Request req;
    MPI_Message msg;
    int flag = 0, index = -1;
    char what[96];
    preset(&st);
    switch (m) {
    case PROBE_RECV:
        preset(&pst);
        CHECK_MPI(MPI_Probe(from, tag, MPI_COMM_WORLD, &pst));
        check_status("MPI_Probe", &pst, from, tag, n);
        CHECK_MPI(MPI_Recv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st));
        break;
    case IPROBE_IRECV_WAIT:
        preset(&pst);
        while (!flag)
            CHECK_MPI(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &pst));
        check_status("MPI_Iprobe", &pst, from, tag, n);
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, &st));
        break;
    case MPROBE_MRECV:
        preset(&pst);
        CHECK_MPI(MPI_Mprobe(from, tag, MPI_COMM_WORLD, &msg, &pst));
        check_status("MPI_Mprobe", &pst, from, tag, n);
        CHECK_MPI(MPI_Mrecv(in, n, MPI_BYTE, &msg, &st));
        break;
    case IMPROBE_IMRECV_WAIT:
        preset(&pst);
        while (!flag)
            CHECK_MPI(MPI_Improbe(from, tag, MPI_COMM_WORLD, &flag, &msg, &pst));
        check_status("MPI_Improbe", &pst, from, tag, n);
        CHECK_MPI(MPI_Imrecv(in, n, MPI_BYTE, &msg, &req));
        CHECK_MPI(MPI_Wait(&req, &st));
        break;
    case IRECV_TEST:
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req));
        while (!flag)
            CHECK_MPI(MPI_Test(&req, &flag, &st));
        break;
    case IRECV_WAITANY:
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Waitany(1, &req, &index, &st));
        CHECK(index == 0, "MPI_Waitany: index %d", index);
        break;
    case IRECV_TESTANY:
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req));
        while (!flag)
            CHECK_MPI(MPI_Testany(1, &req, &index, &flag, &st));
        CHECK(index == 0, "MPI_Testany: index %d", index);
        break;
    case IRECV_GET_STATUS:
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req));
        while (!flag)
            CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
        snprintf(what, sizeof(what), "MPI_Request_get_status (%d bytes)", n);
        check_status(what, &st, from, tag, n);
        preset(&st);
        CHECK_MPI(MPI_Wait(&req, &st));
        break;
    default:
        CHECK_MPI(MPI_Sendrecv(out, n, MPI_BYTE, to, tag, in, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st));
        break;
    }
    snprintf(what, sizeof(what), "%s (%d bytes)", method_names[m], n);
    check_status(what, &st, from, tag, n);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    proc_null_calls();

    const int lens[] = { 0, 8, 12000, 70000 };
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    unsigned char *out = malloc(70000), *in = malloc(70000);
    for (int i = 0; i < 4; i++) {
        int n = lens[i];
        for (int m = 0; m < METHODS; m++) {
            int seq = i * METHODS + m;
            uzt_fill(out, (size_t)n, rank, seq);
            memset(in, 0, (size_t)n);
            MPI_Request sreq = MPI_REQUEST_NULL;
            if (m != SENDRECV)
                CHECK_MPI(MPI_Isend(out, n, MPI_BYTE, to, seq, MPI_COMM_WORLD, &sreq));
            receive((enum method)m, in, out, n, to, from, seq);
            long bad = uzt_verify(in, (size_t)n, from, seq);
            CHECK(bad < 0, "%s (%d bytes): byte %ld wrong", method_names[m], n, bad);
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
    }
    free(out);
    free(in);
    return uzt_finish("pt2pt_status_error");
}
