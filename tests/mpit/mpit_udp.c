/*
 * mpit_udp.c — the udp transport seen through MPI_T, run with
 * UZURA_SHM=0 UZURA_NET=udp and datagrams dropped on purpose
 * (UZURA_UDP_FAULTS): rank 0 sends N messages and one large one to rank 1;
 * every go-back it makes is a udp_retransmit event, and the datagrams the
 * events name add up to its udp_retransmits counter exactly; the messages
 * and bytes through udp are counted exactly too.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "uztest.h"

enum { N = 200, SMALL = 1000, LARGE = 1 << 20 };

static long long resent_by_events, events;

static void on_retransmit(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *u)
{
    (void)r, (void)s, (void)u;
    int64_t peer = -1, datagrams = 0;
    MPI_T_event_read(e, 0, &peer);
    MPI_T_event_read(e, 1, &datagrams);
    CHECK_EQ(peer, 1);
    CHECK(datagrams > 0, "a go-back of %lld datagrams", (long long)datagrams);
    resent_by_events += datagrams;
    events++;
}

static MPI_T_pvar_handle counter(MPI_T_pvar_session s, const char *name)
{
    int idx = -1, count;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_EQ(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    return h;
}

static unsigned long long value(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;
    CHECK_EQ(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("SKIPPED: needs 2 processes\n");
        MPI_Finalize();
        return 77;
    }
    MPI_T_event_registration r;
    int idx;
    MPI_T_event_get_index("udp_retransmit", &idx);
    CHECK_EQ(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &r), MPI_SUCCESS);
    if (rank == 0)
        CHECK_EQ(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL,
                                               on_retransmit), MPI_SUCCESS);
    MPI_T_pvar_session s;
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_handle resent = counter(s, "udp_retransmits"), msgs = counter(s, "udp_messages_sent");
    MPI_T_pvar_handle bytes = counter(s, "udp_bytes_sent"), shm = counter(s, "shm_messages_sent");

    unsigned char *buf = calloc(1, LARGE);
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            MPI_Send(buf, SMALL, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Send(buf, LARGE, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        /* Its answer comes after rank 1 has every byte. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(value(s, msgs), N + 1);
        CHECK_EQ(value(s, bytes), (unsigned long long)N * SMALL + LARGE);
        CHECK_EQ(value(s, shm), 0);
        unsigned long long counted = value(s, resent);
        CHECK(counted > 0, "no datagram was sent again although a fifth were dropped");
        CHECK_EQ((long long)counted, resent_by_events);
        CHECK(events > 0 && events <= (long long)counted, "%lld events for %llu datagrams", events, counted);
    } else {
        for (int i = 0; i < N; i++)
            MPI_Recv(buf, SMALL, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, LARGE, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        CHECK_EQ(value(s, msgs), 1);
    }
    free(buf);
    MPI_T_pvar_session_free(&s);
    MPI_T_event_handle_free(r, NULL, NULL);
    int rc = uzt_finish("mpit_udp");
    MPI_T_finalize();
    return rc;
}
