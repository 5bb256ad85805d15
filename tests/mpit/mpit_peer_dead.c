/*
 * mpit_peer_dead.c — the MPI_T event peer_declared_dead, end to end: rank 1
 * of a tcp or udp job goes silent (it closes the transport's sockets and
 * sleeps, as a crashed host looks to its peers); rank 0, which registered
 * a callback for the event, keeps talking to it until a call fails, and
 * checks that the event fired once, naming world rank 1 and the error
 * class that call returned.  mpit_peer_dead.sh drives it.
 *
 *   mpit_peer_dead tcp|udp   rank 0 prints "mpit_peer_dead: rank 0 passed"
 *                            and calls MPI_Abort(.., 3) (rank 1 never returns)
 */
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uztest.h"

struct seen {
    int count;
    int64_t world_rank, error_class;
    MPI_T_cb_safety safety;
};

static void on_dead(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)r;
    struct seen *seen = user;
    int64_t el[2] = { -1, -1 };
    CHECK_EQ(MPI_T_event_copy(e, el), MPI_SUCCESS);
    if (seen->count++ == 0) {
        seen->world_rank = el[0];
        seen->error_class = el[1];
        seen->safety = s;
    }
}

/* Close this process's sockets of `type` (the transport's): its peers see
 * a connection reset (tcp) or silence and then ICMP port-unreachable (udp). */
static void close_sockets(int type)
{
    for (int fd = 3; fd < 4096; fd++) {
        int domain = 0, t = 0;
        socklen_t len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
            continue;
        len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &len) != 0)
            continue;
        if ((domain == AF_INET || domain == AF_INET6) && t == type)
            close(fd);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int provided, rank, size, idx, token = 0;
    int udp = argc > 1 && strcmp(argv[1], "udp") == 0;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct seen seen = { 0 };
    MPI_T_event_registration reg = NULL;
    CHECK_EQ(MPI_T_event_get_index("peer_declared_dead", &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg), MPI_SUCCESS);
    CHECK_EQ(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &seen, on_dead),
             MPI_SUCCESS);

    for (int i = 0; i < 50 && rank <= 1; i++) {         /* the path works first */
        if (rank == 0) {
            MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ(token, i);
        } else {
            MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    CHECK_EQ(seen.count, 0);
    if (rank == 1) {
        close_sockets(udp ? SOCK_DGRAM : SOCK_STREAM);
        fflush(stdout);
        fflush(stderr);
        sleep(60);                      /* silent until the job ends */
        _exit(0);
    }
    if (rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        /* A receive from it and sends to it, until one fails: tcp finds the
         * reset connection, udp the datagrams nobody takes any more. */
        MPI_Request req;
        int rc_send = MPI_SUCCESS, rc_recv = MPI_SUCCESS, flag = 0;
        CHECK_MPI(MPI_Irecv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req));
        double start = now();
        while (now() - start < 30) {
            rc_send = MPI_Send(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
            if (rc_send != MPI_SUCCESS)
                break;
            rc_recv = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (flag || rc_recv != MPI_SUCCESS)
                break;          /* the receive from the dead rank failed first */
            usleep(1000);
        }
        CHECK(rc_send != MPI_SUCCESS || rc_recv != MPI_SUCCESS,
              "talking to the silent rank did not fail within 30 s");
        /* A send may fail inside the transport before the request layer
         * hears of the dead peer (the transport says so at the top of its
         * next progress): the receive naming it fails then, and the event
         * has fired by the time it does. */
        int fired_at_failure = seen.count;
        if (req != MPI_REQUEST_NULL)
            rc_recv = MPI_Wait(&req, MPI_STATUS_IGNORE);
        int cls = uzt_class(rc_recv);
        printf("rank 0: after %.2f s the send %s (class %d; event fired %d time(s) by then), the receive failed "
               "with class %d; peer_declared_dead fired %d time(s): rank %lld, class %lld\n", now() - start,
               rc_send ? "failed" : "had not failed", uzt_class(rc_send), fired_at_failure, cls, seen.count,
               (long long)seen.world_rank, (long long)seen.error_class);
        CHECK_EQ(cls, MPI_ERR_PROC_ABORTED);
        CHECK(rc_send == MPI_SUCCESS || uzt_class(rc_send) == cls, "the send failed with class %d",
              uzt_class(rc_send));
        CHECK_EQ(seen.count, 1);
        CHECK_EQ(seen.world_rank, 1);
        CHECK_EQ(seen.error_class, cls);
        CHECK_EQ(seen.safety, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
        CHECK_EQ(MPI_T_event_handle_free(reg, NULL, NULL), MPI_SUCCESS);
        printf("mpit_peer_dead: rank 0 %s\n", uzt_failures ? "FAILED" : "passed");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, uzt_failures ? 1 : 3);
    }
    sleep(60);                          /* other ranks: wait to be ended */
    MPI_Finalize();
    return 0;
}
