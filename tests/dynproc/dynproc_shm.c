/*
 * dynproc_shm.c — processes of two jobs on one host talk through shared
 * memory (docs/dynamic-processes.md, "Shared memory between jobs"), and
 * MPI_Comm_disconnect completes what is pending on the communicator.
 *
 *   1. The parents spawn NCHILD children; every parent and every child swap
 *      a small, a rendezvous-sized and a 1 MiB message, data checked.  The
 *      MPI_T counters show the traffic went through shm: links made
 *      (shm_foreign_peers), shm bytes, one-copy transfers between the jobs
 *      (shm_foreign_bulk; none with UZURA_SHM_CMA=off, where the rings
 *      carry them) and no byte through the tcp transport; no link's name
 *      is left in /dev/shm.
 *   2. Each child Isends DISC large messages to a parent and calls
 *      MPI_Comm_disconnect without waiting; the parents post their receives
 *      only later (the children are inside disconnect by then) and
 *      disconnect without waiting too.  After disconnect every request is
 *      complete on both sides (MPI_Testall), data checked.
 *   3. Two more jobs spawned one after the other meet by
 *      MPI_Comm_accept/MPI_Comm_connect (the port name relayed by the
 *      parents) and swap messages the same way: accept/connect between two
 *      jobs on this host through shm too.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

enum { NCHILD = 2, NSIDE = 2, DISC = 3, BIG = 1 << 20 };
static const size_t sizes[] = { 100, 40000, BIG };
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

static int rank, size;

/* ------------------------------------------------------------ counters */

static MPI_T_pvar_session session;
static const char *const names[] = { "shm_foreign_peers", "shm_foreign_bulk", "shm_bytes_sent", "tcp_bytes_sent",
                                     "tcp_bytes_received" };
enum { NNAMES = sizeof(names) / sizeof(names[0]) };
static MPI_T_pvar_handle handles[NNAMES];

/* Counters count while started: start them all at MPI_Init. */
static void start_counters(void)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    for (int i = 0; i < NNAMES; i++) {
        int idx = -1, count = 0;
        handles[i] = MPI_T_PVAR_HANDLE_NULL;
        if (MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) {
            CHECK(0, "no performance variable %s", names[i]);
            continue;
        }
        CHECK_EQ(MPI_T_pvar_handle_alloc(session, idx, NULL, &handles[i], &count), MPI_SUCCESS);
        CHECK_EQ(MPI_T_pvar_start(session, handles[i]), MPI_SUCCESS);
    }
}

static unsigned long long counter(const char *name)
{
    unsigned long long v = 0;
    for (int i = 0; i < NNAMES; i++)
        if (strcmp(names[i], name) == 0 && handles[i] != MPI_T_PVAR_HANDLE_NULL)
            CHECK_EQ(MPI_T_pvar_read(session, handles[i], &v), MPI_SUCCESS);
    return v;
}

static int cma_off(void)
{
    const char *v = getenv("UZURA_SHM_CMA");
    return v && strcmp(v, "off") == 0;
}

/* Every link's name is gone from /dev/shm once both sides mapped it. */
static void check_no_names_left(const char *who)
{
    const char *job = getenv("UZURA_JOB_ID");
    char prefix[128];
    if (!job)
        return;
    snprintf(prefix, sizeof(prefix), "uzura-%s-x", job);
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d));)
        CHECK(strncmp(e->d_name, prefix, strlen(prefix)) != 0, "%s: /dev/shm/%s is still there", who, e->d_name);
    if (d)
        closedir(d);
}

/* Traffic with `peers` processes of other jobs went through shm, `links`
 * of them linked since MPI_Init (a child links to its parents inside
 * MPI_Init, before its counters start). */
static void check_through_shm(const char *who, int peers, int links_made)
{
    unsigned long long links = counter("shm_foreign_peers"), bulk = counter("shm_foreign_bulk");
    CHECK(links >= (unsigned long long)links_made, "%s: %llu shm links, expected at least %d", who, links,
          links_made);
    CHECK(counter("shm_bytes_sent") >= (unsigned long long)peers * BIG, "%s: too few bytes through shm", who);
    CHECK_EQ(counter("tcp_bytes_sent"), 0ull);
    CHECK_EQ(counter("tcp_bytes_received"), 0ull);
    check_no_names_left(who);
    if (cma_off())
        CHECK(bulk == 0, "%s: %llu one-copy transfers with UZURA_SHM_CMA=off", who, bulk);
    else
        CHECK(bulk > 0, "%s: no one-copy transfer with the other job", who);
}

/* ------------------------------------------------------------ exchange */

/* Every local process swaps each size with every remote one; `side` and
 * `other` tell the two groups' patterns apart. */
static void exchange(MPI_Comm inter, int side, int other)
{
    int me, remote;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_remote_size(inter, &remote);
    int n = remote * NSIZES;
    unsigned char **sb = calloc((size_t)n, sizeof(*sb)), **rb = calloc((size_t)n, sizeof(*rb));
    MPI_Request *req = calloc(2 * (size_t)n, sizeof(*req));
    for (int r = 0; r < remote; r++)
        for (int k = 0; k < NSIZES; k++) {
            int i = r * NSIZES + k;
            sb[i] = malloc(sizes[k]);
            rb[i] = calloc(1, sizes[k]);
            uzt_fill(sb[i], sizes[k], side * 1000 + me, r * 10 + k);
            CHECK_MPI(MPI_Irecv(rb[i], (int)sizes[k], MPI_BYTE, r, k, inter, &req[2 * i]));
            CHECK_MPI(MPI_Isend(sb[i], (int)sizes[k], MPI_BYTE, r, k, inter, &req[2 * i + 1]));
        }
    CHECK_MPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
    for (int r = 0; r < remote; r++)
        for (int k = 0; k < NSIZES; k++) {
            int i = r * NSIZES + k;
            long bad = uzt_verify(rb[i], sizes[k], other * 1000 + r, me * 10 + k);
            CHECK(bad < 0, "%zu bytes from remote rank %d damaged at byte %ld", sizes[k], r, bad);
            free(sb[i]);
            free(rb[i]);
        }
    free(sb);
    free(rb);
    free(req);
}

/* ------------------------------------------------------------ children */

/* Part 2, sending side: large Isends left pending into disconnect. */
static void isend_then_disconnect(MPI_Comm *parent)
{
    int nparents, flag = 0;
    MPI_Comm_remote_size(*parent, &nparents);
    unsigned char *buf[DISC];
    MPI_Request req[DISC];
    for (int k = 0; k < DISC; k++) {
        buf[k] = malloc(BIG);
        uzt_fill(buf[k], BIG, 500 + rank, k);
        CHECK_MPI(MPI_Isend(buf[k], BIG, MPI_BYTE, rank % nparents, 100 + k, *parent, &req[k]));
    }
    /* A nonblocking collective pending into disconnect too: the parents'
     * root starts its side of the broadcast only later. */
    unsigned char *bc = calloc(1, BIG);
    MPI_Request breq;
    CHECK_MPI(MPI_Ibcast(bc, BIG, MPI_BYTE, 0, *parent, &breq));
    CHECK_MPI(MPI_Comm_disconnect(parent));
    CHECK_MPI(MPI_Testall(DISC, req, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "child %d: an Isend is still pending after MPI_Comm_disconnect", rank);
    if (!flag)
        MPI_Waitall(DISC, req, MPI_STATUSES_IGNORE);
    CHECK_MPI(MPI_Test(&breq, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "child %d: an Ibcast is still pending after MPI_Comm_disconnect", rank);
    if (!flag)
        MPI_Wait(&breq, MPI_STATUS_IGNORE);
    CHECK_EQ(uzt_verify(bc, BIG, 900, 0), 0);
    free(bc);
    for (int k = 0; k < DISC; k++)
        free(buf[k]);
}

static int child(void)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL)
        return uzt_finish("dynproc_shm child");
    int nparents;
    MPI_Comm_remote_size(parent, &nparents);
    exchange(parent, 1, 0);
    check_through_shm("child", nparents, 0);
    isend_then_disconnect(&parent);
    return uzt_finish("dynproc_shm child");
}

/* Part 3: a job that accepts (`server`) or connects (`client`); the port
 * name comes from the server's rank 0 through the parents' rank 0. */
static int meeting(int server)
{
    MPI_Comm parent, other;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm_get_parent(&parent);
    if (server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 7, parent));
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
    } else {
        if (rank == 0)
            CHECK_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 8, parent, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
    }
    int remote;
    MPI_Comm_remote_size(other, &remote);
    CHECK_EQ(remote, NSIDE);
    exchange(other, server ? 2 : 3, server ? 3 : 2);
    /* The parent link carried only the port name: NSIDE more links. */
    check_through_shm(server ? "server" : "client", NSIDE, NSIDE);
    CHECK_MPI(MPI_Comm_disconnect(&other));
    if (server && rank == 0)
        CHECK_MPI(MPI_Close_port(port));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    return uzt_finish(server ? "dynproc_shm server" : "dynproc_shm client");
}

/* ------------------------------------------------------------ parents */

/* Part 2, receiving side: receives posted late, left pending into
 * disconnect. */
static void recv_late_then_disconnect(MPI_Comm *inter)
{
    int mine[NCHILD], n = 0, flag = 0;
    for (int c = 0; c < NCHILD; c++)
        if (c % size == rank)
            mine[n++] = c;
    unsigned char *buf[NCHILD * DISC];
    MPI_Request req[NCHILD * DISC];
    usleep(200 * 1000);                 /* the children are inside MPI_Comm_disconnect now */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < DISC; k++) {
            buf[i * DISC + k] = calloc(1, BIG);
            CHECK_MPI(MPI_Irecv(buf[i * DISC + k], BIG, MPI_BYTE, mine[i], 100 + k, *inter, &req[i * DISC + k]));
        }
    unsigned char *bc = malloc(BIG);
    uzt_fill(bc, BIG, 900, 0);
    MPI_Request breq;
    CHECK_MPI(MPI_Ibcast(bc, BIG, MPI_BYTE, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, *inter, &breq));
    CHECK_MPI(MPI_Comm_disconnect(inter));
    CHECK_MPI(MPI_Testall(n * DISC, req, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "parent %d: an Irecv is still pending after MPI_Comm_disconnect", rank);
    if (!flag)
        MPI_Waitall(n * DISC, req, MPI_STATUSES_IGNORE);
    CHECK_MPI(MPI_Test(&breq, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "parent %d: an Ibcast is still pending after MPI_Comm_disconnect", rank);
    if (!flag)
        MPI_Wait(&breq, MPI_STATUS_IGNORE);
    free(bc);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < DISC; k++) {
            long bad = uzt_verify(buf[i * DISC + k], BIG, 500 + mine[i], k);
            CHECK(bad < 0, "message %d from child %d damaged at byte %ld", k, mine[i], bad);
            free(buf[i * DISC + k]);
        }
}

static int parents(const char *prog)
{
    MPI_Comm inter, servers, clients;
    char *child_args[] = { "child", NULL }, *server_args[] = { "server", NULL }, *client_args[] = { "client", NULL };
    CHECK_MPI(MPI_Comm_spawn(prog, child_args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE));
    exchange(inter, 0, 1);
    check_through_shm("parent", NCHILD, NCHILD);
    recv_late_then_disconnect(&inter);

    CHECK_MPI(MPI_Comm_spawn(prog, server_args, NSIDE, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &servers,
                             MPI_ERRCODES_IGNORE));
    CHECK_MPI(MPI_Comm_spawn(prog, client_args, NSIDE, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &clients,
                             MPI_ERRCODES_IGNORE));
    if (rank == 0) {
        char port[MPI_MAX_PORT_NAME];
        CHECK_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 7, servers, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 8, clients));
    }
    CHECK_MPI(MPI_Comm_disconnect(&servers));
    CHECK_MPI(MPI_Comm_disconnect(&clients));
    return uzt_finish("dynproc_shm");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    start_counters();
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    if (argc > 1 && (strcmp(argv[1], "server") == 0 || strcmp(argv[1], "client") == 0))
        return meeting(strcmp(argv[1], "server") == 0);
    return parents(argv[0]);
}
