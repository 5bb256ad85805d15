/*
 * mpit_events.c — MPI_T events fired and received: rank 0 sends U small
 * messages rank 1 has not asked for (unexpected_message_arrived there) and
 * M large ones (rendezvous_started at rank 0; at one process, to itself,
 * every message is eager and none starts a rendezvous).  Checks each
 * instance's elements, timestamp and source, the callbacks' safety levels,
 * dropped events reported to the dropped handler, infos, and freeing.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

enum { U = 5, M = 3, SMALL = 48, LARGE = 1 << 17, TAG_UNEXP = 100, TAG_LARGE = 12, TAG_GO = 13 };

struct seen {
    int count;
    int64_t elements[8][4];
    MPI_Count first_stamp, last_stamp;
    MPI_T_cb_safety safety;
};

static int world_rank;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)r;
    struct seen *seen = user;
    int64_t copy[4] = { 0 }, one = -1;
    MPI_Count stamp = 0;
    int source = -1;
    CHECK_EQ(MPI_T_event_copy(e, copy), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_read(e, 2, &one), MPI_SUCCESS);
    CHECK_EQ(one, copy[2]);
    CHECK_EQ(MPI_T_event_read(e, 4, &one), MPI_T_ERR_INVALID_ITEM);
    CHECK_EQ(MPI_T_event_read(e, -1, &one), MPI_T_ERR_INVALID_ITEM);
    CHECK_EQ(MPI_T_event_get_timestamp(e, &stamp), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_get_source(e, &source), MPI_SUCCESS);
    CHECK_EQ(source, 0);
    if (seen->count < 8)
        memcpy(seen->elements[seen->count], copy, sizeof(copy));
    if (!seen->count)
        seen->first_stamp = stamp;
    CHECK(stamp >= seen->last_stamp, "timestamps go back: %lld after %lld", (long long)stamp,
          (long long)seen->last_stamp);
    seen->last_stamp = stamp;
    seen->safety = s;
    seen->count++;
}

static void never(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)e, (void)r, (void)s, (void)user;
    uzt_fail(__FILE__, __LINE__, "a callback that asks for no safety ran inside the library");
}

static MPI_Count dropped_count;
static int dropped_calls;
static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void *user)
{
    (void)r, (void)s, (void)user;
    CHECK_EQ(source, 0);
    dropped_count += count;
    dropped_calls++;
}

static int freed;
static void on_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)r;
    CHECK_EQ(s, MPI_T_CB_REQUIRE_NONE);
    CHECK(user == &freed, "free callback got the wrong user data");
    freed++;
}

static void describe_events(void)
{
    int n = 0;
    CHECK_EQ(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK_EQ(n, 4);
    static const char *const names[] = { "unexpected_message_arrived", "rendezvous_started", "peer_declared_dead",
                                         "udp_retransmit" };
    static const int elements[] = { 4, 3, 2, 2 };
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, num = 4, bind, idx;
        MPI_Datatype types[4];
        MPI_Aint displs[4];
        MPI_T_enum en;
        MPI_Info info = MPI_INFO_NULL;
        CHECK_EQ(MPI_T_event_get_info(i, name, &name_len, &verbosity, types, displs, &num, &en, &info, desc,
                                      &desc_len, &bind), MPI_SUCCESS);
        CHECK_EQ(strcmp(name, names[i]), 0);
        CHECK_EQ(num, elements[i]);
        for (int k = 0; k < num; k++) {
            CHECK(types[k] == MPI_INT64_T, "event %d element %d type", i, k);
            CHECK_EQ(displs[k], 8 * k);
        }
        CHECK_EQ(bind, MPI_T_BIND_NO_OBJECT);
        CHECK(en == MPI_T_ENUM_NULL, "event %d has an enum", i);
        CHECK(info != MPI_INFO_NULL, "no info for event %d", i);
        MPI_Info_free(&info);
        CHECK_EQ(MPI_T_event_get_index(names[i], &idx), MPI_SUCCESS);
        CHECK_EQ(idx, i);
        /* Asking for the number of elements only. */
        num = 0;
        CHECK_EQ(MPI_T_event_get_info(i, NULL, NULL, NULL, NULL, NULL, &num, NULL, NULL, NULL, NULL, NULL),
                 MPI_SUCCESS);
        CHECK_EQ(num, elements[i]);
    }
    /* Categories hold them: three in pt2pt, one in udp. */
    int cat, num_events = -1, list[4] = { -1, -1, -1, -1 };
    CHECK_EQ(MPI_T_category_get_index("pt2pt", &cat), MPI_SUCCESS);
    CHECK_EQ(MPI_T_category_get_num_events(cat, &num_events), MPI_SUCCESS);
    CHECK_EQ(num_events, 3);
    CHECK_EQ(MPI_T_category_get_events(cat, 4, list), MPI_SUCCESS);
    CHECK(list[0] == 0 && list[1] == 1 && list[2] == 2 && list[3] == -1, "pt2pt events %d %d %d %d", list[0],
          list[1], list[2], list[3]);
    CHECK_EQ(MPI_T_category_get_index("udp", &cat), MPI_SUCCESS);
    CHECK_EQ(MPI_T_category_get_num_events(cat, &num_events), MPI_SUCCESS);
    CHECK_EQ(num_events, 1);

    /* One source: this process's clock in nanoseconds, in order. */
    int nsrc = 0, len = 64;
    char sname[64];
    MPI_T_source_order order;
    MPI_Count ticks, max, t1, t2;
    MPI_Info info;
    CHECK_EQ(MPI_T_source_get_num(&nsrc), MPI_SUCCESS);
    CHECK_EQ(nsrc, 1);
    CHECK_EQ(MPI_T_source_get_info(0, sname, &len, NULL, NULL, &order, &ticks, &max, &info), MPI_SUCCESS);
    CHECK_EQ(strcmp(sname, "monotonic_clock"), 0);
    CHECK_EQ(order, MPI_T_SOURCE_ORDERED);
    CHECK_EQ(ticks, 1000000000);
    CHECK_EQ(max, INT64_MAX);
    MPI_Info_free(&info);
    CHECK_EQ(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
    CHECK_EQ(MPI_T_source_get_timestamp(0, &t2), MPI_SUCCESS);
    CHECK(t2 >= t1, "the clock went back");
}

static MPI_T_event_registration watch(const char *event, MPI_Info info)
{
    int idx;
    MPI_T_event_registration r = NULL;
    CHECK_EQ(MPI_T_event_get_index(event, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_handle_alloc(idx, NULL, info, &r), MPI_SUCCESS);
    return r;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    describe_events();

    const int sender = world_rank == 0, receiver = world_rank == (size == 1 ? 0 : 1);
    const int peer = size == 1 ? 0 : 1 - world_rank;
    struct seen unexp = { 0 }, rndv = { 0 };

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "purpose", "test");
    MPI_T_event_registration r_unexp = watch("unexpected_message_arrived", info);
    MPI_T_event_registration r_rndv = watch("rendezvous_started", MPI_INFO_NULL);
    MPI_T_event_registration r_drop = watch("unexpected_message_arrived", MPI_INFO_NULL);
    MPI_Info_free(&info);
    /* The registration keeps its own copy of the info. */
    MPI_Info used;
    char value[16];
    int flag = 0;
    CHECK_EQ(MPI_T_event_handle_get_info(r_unexp, &used), MPI_SUCCESS);
    MPI_Info_get_string(used, "purpose", &(int){ sizeof(value) }, value, &flag);
    CHECK(flag && strcmp(value, "test") == 0, "handle info lost its key");
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "purpose", "changed");
    CHECK_EQ(MPI_T_event_handle_set_info(r_unexp, info), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_callback_set_info(r_unexp, MPI_T_CB_REQUIRE_MPI_RESTRICTED, info), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_callback_get_info(r_unexp, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &used), MPI_SUCCESS);
    MPI_Info_get_string(used, "purpose", &(int){ sizeof(value) }, value, &flag);
    CHECK(flag && strcmp(value, "changed") == 0, "callback info not kept");
    MPI_Info_free(&used);

    /* The library calls back inside MPI calls: a callback must be at
     * least MPI_RESTRICTED.  One registered for no safety never runs there;
     * its events are dropped and counted. */
    CHECK_EQ(MPI_T_event_register_callback(r_unexp, MPI_T_CB_REQUIRE_MPI_RESTRICTED, info, &unexp, on_event),
             MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK_EQ(MPI_T_event_register_callback(r_rndv, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &rndv, on_event),
             MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_register_callback(r_drop, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, never),
             MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_set_dropped_handler(r_drop, on_dropped), MPI_SUCCESS);

    unsigned char *buf = malloc(LARGE), *in = malloc(LARGE);
    MPI_Count before;
    MPI_T_source_get_timestamp(0, &before);
    MPI_Request reqs[M];
    if (receiver) {
        for (int i = 0; i < M; i++)
            MPI_Irecv(in, LARGE, MPI_BYTE, 0, TAG_LARGE, MPI_COMM_WORLD, &reqs[i]);
        if (size > 1)
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
    }
    if (sender) {
        if (size > 1)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < U; i++)
            MPI_Send(buf, SMALL, MPI_BYTE, peer, TAG_UNEXP + i, MPI_COMM_WORLD);
        for (int i = 0; i < M; i++)
            MPI_Send(buf, LARGE, MPI_BYTE, peer, TAG_LARGE, MPI_COMM_WORLD);
    }
    if (receiver) {
        MPI_Waitall(M, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < U; i++)
            MPI_Recv(in, SMALL, MPI_BYTE, 0, TAG_UNEXP + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Count after;
    MPI_T_source_get_timestamp(0, &after);

    if (receiver) {
        /* The U messages came before their receives, in order. */
        CHECK_EQ(unexp.count, U);
        /* Seen once in CI (2026-11-27, under ctest -j2): two events more
         * than U.  Say what they were, so that the next failure tells. */
        for (int i = 0; unexp.count != U && i < unexp.count && i < 8; i++)
            fprintf(stderr, "rank %d: unexpected-message event %d: source %lld tag %lld bytes %lld context %lld\n",
                    world_rank, i, (long long)unexp.elements[i][0], (long long)unexp.elements[i][1],
                    (long long)unexp.elements[i][2], (long long)unexp.elements[i][3]);
        for (int i = 0; i < U && i < 8; i++) {
            CHECK_EQ(unexp.elements[i][0], 0);
            CHECK_EQ(unexp.elements[i][1], TAG_UNEXP + i);
            CHECK_EQ(unexp.elements[i][2], SMALL);
        }
        CHECK(unexp.first_stamp >= before && unexp.last_stamp <= after, "event stamps outside the run");
        CHECK_EQ(unexp.safety, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
        CHECK_EQ(dropped_calls, 0);
        /* Registering a callback that may run reports what was missed. */
        CHECK_EQ(MPI_T_event_register_callback(r_drop, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL,
                                               on_event), MPI_SUCCESS);
        CHECK_EQ(dropped_calls, 1);
        CHECK_EQ(dropped_count, U);
    } else {
        CHECK_EQ(unexp.count, 0);
    }
    if (sender) {
        CHECK_EQ(rndv.count, size == 1 ? 0 : M);
        for (int i = 0; i < rndv.count && i < 8; i++) {
            CHECK_EQ(rndv.elements[i][0], peer);
            CHECK_EQ(rndv.elements[i][1], TAG_LARGE);
            CHECK_EQ(rndv.elements[i][2], LARGE);
        }
        if (rndv.count)
            CHECK_EQ(rndv.safety, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    }

    /* Freed: the free callback runs once, and no more events arrive. */
    CHECK_EQ(MPI_T_event_handle_free(r_unexp, &freed, on_free), MPI_SUCCESS);
    CHECK_EQ(freed, 1);
    CHECK_EQ(MPI_T_event_handle_free(r_rndv, NULL, NULL), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_handle_free(r_drop, NULL, NULL), MPI_SUCCESS);
    int count_then = unexp.count;
    if (sender)
        MPI_Send(buf, SMALL, MPI_BYTE, peer, TAG_UNEXP, MPI_COMM_WORLD);
    if (receiver) {
        MPI_Recv(in, SMALL, MPI_BYTE, 0, TAG_UNEXP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(unexp.count, count_then);
    }
    free(buf);
    free(in);
    int rc = uzt_finish("mpit_events");
    MPI_T_finalize();
    return rc;
}
