/*
 * dynproc_ports.c — two separately started jobs meet through a port:
 * `server <file> <their np>` opens a port and writes its name to <file>,
 * `client <file> <their np>` reads it and connects (two_jobs.sh starts
 * both).  Over the intercommunicator: messages both ways (eager and large),
 * intercommunicator collectives, MPI_Intercomm_merge with an allreduce and
 * an allgather over both jobs, every byte checked; a connect with a wrong
 * secret and one to a closed port fail with MPI_ERR_PORT, and
 * MPI_Comm_disconnect ends it.  A fourth argument says where the jobs run
 * ("host": one host, "netns": two), and the MPI_T counters must show the
 * traffic took shm on one host (tcp with UZURA_SHM=0) and tcp across hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

enum { SMALL = 1000, LARGE = 1 << 20 };

static int rank, size, their;
static int is_server;

static void read_port(const char *file, char *port)
{
    if (rank == 0) {
        FILE *f = NULL;
        for (int i = 0; i < 1200 && !(f = fopen(file, "r")); i++)
            usleep(50000);
        CHECK(f != NULL, "no port name in %s", file);
        if (!f || !fgets(port, MPI_MAX_PORT_NAME, f))
            MPI_Abort(MPI_COMM_WORLD, 2);
        fclose(f);
        port[strcspn(port, "\n")] = '\0';
    }
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void write_port(const char *file, const char *port)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    if (!f)
        MPI_Abort(MPI_COMM_WORLD, 2);
    fprintf(f, "%s\n", port);
    fclose(f);
    rename(tmp, file);
}

/* Every process of one side sends to every process of the other, a small
 * and a large message; the other side checks every byte.  seq tells the
 * direction apart. */
static void exchange(MPI_Comm inter, int sending, int seq)
{
    int nremote;
    MPI_Comm_remote_size(inter, &nremote);
    unsigned char *small = malloc(SMALL), *large = malloc(LARGE);
    if (sending) {
        for (int r = 0; r < nremote; r++) {
            uzt_fill(small, SMALL, rank, seq + r);
            uzt_fill(large, LARGE, rank, seq + 1000 + r);
            CHECK_MPI(MPI_Send(small, SMALL, MPI_BYTE, r, 7, inter));
            CHECK_MPI(MPI_Send(large, LARGE, MPI_BYTE, r, 8, inter));
        }
    } else {
        for (int s = 0; s < nremote; s++) {
            MPI_Status st;
            int count;
            CHECK_MPI(MPI_Recv(small, SMALL, MPI_BYTE, s, 7, inter, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK_EQ(count, SMALL);
            CHECK_EQ(st.MPI_SOURCE, s);
            CHECK_EQ(st.MPI_TAG, 7);
            CHECK(uzt_verify(small, SMALL, s, seq + rank) < 0, "small message from %d damaged", s);
            CHECK_MPI(MPI_Recv(large, LARGE, MPI_BYTE, MPI_ANY_SOURCE, 8, inter, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK_EQ(count, LARGE);
            CHECK(uzt_verify(large, LARGE, st.MPI_SOURCE, seq + 1000 + rank) < 0, "large message from %d "
                  "damaged", st.MPI_SOURCE);
        }
    }
    free(small);
    free(large);
}

static void collectives(MPI_Comm inter)
{
    /* Allreduce over an intercommunicator: each side gets the other's sum. */
    int mine = (is_server ? 1000 : 1) * (rank + 1), sum = -1;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    int expect = (is_server ? 1 : 1000) * their * (their + 1) / 2;
    CHECK_EQ(sum, expect);
    /* Bcast from the server's rank 0 to every client. */
    int value[4] = { 0 };
    if (is_server) {
        if (rank == 0)
            for (int i = 0; i < 4; i++)
                value[i] = 4242 + i;
        CHECK_MPI(MPI_Bcast(value, 4, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    } else {
        CHECK_MPI(MPI_Bcast(value, 4, MPI_INT, 0, inter));
        for (int i = 0; i < 4; i++)
            CHECK_EQ(value[i], 4242 + i);
    }
    CHECK_MPI(MPI_Barrier(inter));
}

static void merged(MPI_Comm inter)
{
    MPI_Comm all;
    CHECK_MPI(MPI_Intercomm_merge(inter, is_server ? 0 : 1, &all));
    int arank, asize;
    MPI_Comm_rank(all, &arank);
    MPI_Comm_size(all, &asize);
    CHECK_EQ(asize, size + their);
    CHECK_EQ(arank, is_server ? rank : their + rank);
    long one = arank, total = -1;
    CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_LONG, MPI_SUM, all));
    CHECK_EQ(total, (long)asize * (asize - 1) / 2);
    int *ranks = malloc(sizeof(int) * (size_t)asize);
    int tagged = arank * 3 + 1;
    CHECK_MPI(MPI_Allgather(&tagged, 1, MPI_INT, ranks, 1, MPI_INT, all));
    for (int i = 0; i < asize; i++)
        CHECK_EQ(ranks[i], i * 3 + 1);
    free(ranks);
    /* The same high flag on both sides: the order must still agree. */
    MPI_Comm again;
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &again));
    int r2, first = -1;
    MPI_Comm_rank(again, &r2);
    int mark = is_server;
    CHECK_MPI(MPI_Allreduce(&mark, &first, 1, MPI_INT, MPI_SUM, again));
    CHECK_EQ(first, size * 0 + (is_server ? size : their));
    CHECK_MPI(MPI_Comm_disconnect(&again));
    CHECK_MPI(MPI_Comm_disconnect(&all));
    CHECK(all == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
}

/* A client that does not know the secret is refused; a closed port too. */
static void bad_connects(const char *port)
{
    MPI_Comm c = MPI_COMM_NULL;
    char forged[MPI_MAX_PORT_NAME];
    snprintf(forged, sizeof(forged), "%s", port);
    char *secret = strchr(forged, ':') + 1;
    secret[0] = secret[0] == '0' ? '1' : '0';
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_connect(forged, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_PORT);
    CHECK(c == MPI_COMM_NULL, "a refused connect returned a communicator");
    rc = MPI_Comm_connect("uzport1:00000000000000000000000000000000@127.0.0.1:1", MPI_INFO_NULL, 0,
                          MPI_COMM_SELF, &c);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_PORT);
    rc = MPI_Comm_connect("not a port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_PORT);
}

/* Counters of the transports the jobs' traffic takes, started before the
 * meeting: on one host shm (a link per process of the other job, no tcp
 * byte), across hosts (namespaces) tcp and no link. */
static MPI_T_pvar_session session;
static MPI_T_pvar_handle links_h, tcp_h;

static MPI_T_pvar_handle start_counter(const char *name)
{
    int idx = -1, count = 0;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_EQ(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_handle_alloc(session, idx, NULL, &h, &count), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_start(session, h), MPI_SUCCESS);
    return h;
}

static void check_path(int across_hosts)
{
    unsigned long long links = 0, tcp = 0;
    CHECK_EQ(MPI_T_pvar_read(session, links_h, &links), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_read(session, tcp_h, &tcp), MPI_SUCCESS);
    if (across_hosts) {
        CHECK(links == 0 && tcp > 0, "across hosts: %llu shm links, %llu tcp bytes", links, tcp);
    } else if (getenv("UZURA_SHM") && strcmp(getenv("UZURA_SHM"), "0") == 0) {
        CHECK(links == 0 && tcp > 0, "one host, UZURA_SHM=0: %llu shm links, %llu tcp bytes", links, tcp);
    } else {
        CHECK(links == (unsigned long long)their && tcp == 0, "one host: %llu shm links (expected %d), %llu tcp "
              "bytes (expected 0)", links, their, tcp);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        fprintf(stderr, "usage: %s server|client <file> <their np>\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    is_server = strcmp(argv[1], "server") == 0;
    their = atoi(argv[3]);
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&session);
    links_h = start_counter("shm_foreign_peers");
    tcp_h = start_counter("tcp_bytes_sent");
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (is_server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            write_port(argv[2], port);
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    } else {
        read_port(argv[2], port);
        if (rank == 0)
            bad_connects(port);
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    }
    int flag, rsize;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "the result is not an intercommunicator");
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_EQ(rsize, their);

    exchange(inter, is_server, 10);
    exchange(inter, !is_server, 20000);
    collectives(inter);
    merged(inter);
    check_path(argc > 4 && strcmp(argv[4], "netns") == 0);

    /* The port closes: a later connect to it fails at once. */
    if (is_server && rank == 0)
        CHECK_MPI(MPI_Close_port(port));
    CHECK_MPI(MPI_Barrier(inter));
    if (!is_server && rank == 0) {
        MPI_Comm c = MPI_COMM_NULL;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_PORT);
    }
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (is_server && rank == 0)
        unlink(argv[2]);
    return uzt_finish(is_server ? "dynproc_ports server" : "dynproc_ports client");
}
