/*
 * dynproc_spawn_hosts.c — MPI_Comm_spawn from a job on several hosts onto
 * other hosts (run by spawn_hosts.sh: one rank per network namespace of
 * tests/net/netns.sh, each a host with its own address).
 *
 *   dynproc_spawn_hosts HOST0 HOST1 ...        the parents: rank i on HOSTi
 *
 * The first and the last parent rank (on different hosts) are in turn the root of spawns that put the children on
 * the other host (info "host"), on a host named in a host file (info
 * "hostfile", with "wdir"), and on its own host (no info): the children
 * check that they run in the namespace named (/run/netns/<host> is the same
 * namespace as theirs), compute a value from their rank, reduce it to the
 * parents' root over the intercommunicator, answer a bcast with messages
 * checked byte by byte, and allreduce over the merged communicator.  Then
 * a spawn_multiple of two programs onto the other host (MPI_APPNUM 0 and
 * 1, one MPI_COMM_WORLD), and a host that cannot be reached (MPI_ERR_SPAWN
 * naming it, at once rather than after UZURA_PORT_TIMEOUT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uztest.h"

enum { NCHILD = 3, MSG = 5000 };

static int rank, size;

/* Is this process in the network namespace that netns.sh named `host`? */
static int in_namespace(const char *host)
{
    char path[512];
    struct stat mine, theirs;
    snprintf(path, sizeof path, "/run/netns/%s", host);
    if (stat("/proc/self/ns/net", &mine) != 0 || stat(path, &theirs) != 0)
        return 0;
    return mine.st_ino == theirs.st_ino && mine.st_dev == theirs.st_dev;
}

/* ------------------------------------------------------------ children */

/* argv: role, the host it must run on, the parents' root, [wdir] */
static int child(int argc, char **argv)
{
    const char *role = argv[1], *host = argv[2];
    int root = atoi(argv[3]);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL)
        return uzt_finish(role);
    CHECK(in_namespace(host), "child %d of root %d (%s) does not run on host %s", rank, root, role, host);
    if (argc > 4) {
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, argv[4]) == 0, "info wdir=%s not honoured: %s",
              argv[4], cwd);
    }
    int nparents;
    MPI_Comm_remote_size(parent, &nparents);
    if (strcmp(role, "childA") == 0 || strcmp(role, "childB") == 0) {
        int *appnum, flag, b = role[5] == 'B';
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        CHECK(flag && *appnum == b, "MPI_APPNUM of %s", role);
        CHECK_EQ(size, 3);
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&b, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(sum, 2);
        int mine = 100 + rank;
        CHECK_MPI(MPI_Reduce(&mine, NULL, 1, MPI_INT, MPI_SUM, root, parent));
    } else {
        CHECK_EQ(size, NCHILD);
        /* What the children compute: a value from their rank, summed at the parents' root. */
        long long mine = 1000LL * (rank + 1) + root, squares = 0;
        CHECK_MPI(MPI_Reduce(&mine, NULL, 1, MPI_LONG_LONG, MPI_SUM, root, parent));
        long long me = rank + 1, sq = me * me;
        CHECK_MPI(MPI_Allreduce(&sq, &squares, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(squares, (long long)NCHILD * (NCHILD + 1) * (2 * NCHILD + 1) / 6);
        /* The parents' root sends a pattern; every child answers every parent. */
        unsigned char buf[MSG];
        CHECK_MPI(MPI_Bcast(buf, MSG, MPI_BYTE, root, parent));
        CHECK(uzt_verify(buf, MSG, root, 9) < 0, "bcast from the parents damaged");
        for (int p = 0; p < nparents; p++) {
            uzt_fill(buf, MSG, rank, 10 + p);
            CHECK_MPI(MPI_Send(buf, MSG, MPI_BYTE, p, 4, parent));
        }
        MPI_Comm all;
        CHECK_MPI(MPI_Intercomm_merge(parent, 1, &all));
        int one = rank + 1, total = 0, n;
        MPI_Comm_size(all, &n);
        CHECK_EQ(n, nparents + size);
        CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, all));
        CHECK_EQ(total, nparents * (nparents + 1) / 2 + size * (size + 1) / 2);
        CHECK_MPI(MPI_Comm_free(&all));
    }
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    return uzt_finish(role);
}

/* ------------------------------------------------------------ parents */

/* Spawn NCHILD children from `root` with info; they must run on `host`. */
static void spawn_to(const char *self, int root, MPI_Info info, const char *host, const char *wdir)
{
    char rootnum[16];
    snprintf(rootnum, sizeof rootnum, "%d", root);
    char *args[] = { "child", (char *)host, rootnum, (char *)wdir, NULL };
    int codes[NCHILD] = { -1, -1, -1 };
    MPI_Comm inter;
    CHECK_MPI(MPI_Comm_spawn(self, args, NCHILD, info, root, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < NCHILD; i++)
        CHECK_EQ(codes[i], MPI_SUCCESS);
    long long sum = -1;
    CHECK_MPI(MPI_Reduce(NULL, &sum, 1, MPI_LONG_LONG, MPI_SUM, rank == root ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (rank == root)
        CHECK_EQ(sum, 1000LL * NCHILD * (NCHILD + 1) / 2 + (long long)NCHILD * root);
    unsigned char buf[MSG];
    uzt_fill(buf, MSG, root, 9);
    CHECK_MPI(MPI_Bcast(buf, MSG, MPI_BYTE, rank == root ? MPI_ROOT : MPI_PROC_NULL, inter));
    for (int c = 0; c < NCHILD; c++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, MSG, MPI_BYTE, c, 4, inter, &st));
        CHECK_EQ(st.MPI_SOURCE, c);
        CHECK(uzt_verify(buf, MSG, c, 10 + rank) < 0, "message from child %d to parent %d damaged", c, rank);
    }
    MPI_Comm all;
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &all));
    int one = rank + 1, total = 0;
    CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, all));
    CHECK_EQ(total, size * (size + 1) / 2 + NCHILD * (NCHILD + 1) / 2);
    CHECK_MPI(MPI_Comm_free(&all));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static void spawn_two_programs(const char *self, int root, const char *host)
{
    char rootnum[16];
    snprintf(rootnum, sizeof rootnum, "%d", root);
    char *cmds[2] = { (char *)self, (char *)self };
    char *argA[] = { "childA", (char *)host, rootnum, NULL }, *argB[] = { "childB", (char *)host, rootnum, NULL };
    char **argvs[2] = { argA, argB };
    int maxprocs[2] = { 1, 2 }, codes[3] = { -1, -1, -1 };
    MPI_Info infos[2];
    for (int i = 0; i < 2; i++) {
        MPI_Info_create(&infos[i]);
        MPI_Info_set(infos[i], "host", host);
    }
    MPI_Comm inter;
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, root, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(codes[i], MPI_SUCCESS);
    int sum = -1;
    CHECK_MPI(MPI_Reduce(NULL, &sum, 1, MPI_INT, MPI_SUM, rank == root ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (rank == root)
        CHECK_EQ(sum, 300 + 3);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    for (int i = 0; i < 2; i++)
        MPI_Info_free(&infos[i]);
}

/* A host the launcher cannot reach: refused at once, and the message names it. */
static void spawn_unreachable(const char *self)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", "uzh-none");
    char *args[] = { "child", "uzh-none", "0", NULL };
    MPI_Comm inter = MPI_COMM_NULL;
    int codes[1] = { -1 };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_WORLD, &inter, codes);
    int cls = -1, len;
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
    CHECK(MPI_Wtime() - t0 < 30, "an unreachable host took %.0f s to be refused", MPI_Wtime() - t0);
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "uzh-none") != NULL, "the refusal does not name the host: %s", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strncmp(argv[1], "child", 5) == 0)
        return child(argc, argv);
    if (argc < 1 + size) {
        fprintf(stderr, "usage: dynproc_spawn_hosts HOST0 .. HOST%d (one per rank)\n", size - 1);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char **host = argv + 1;
    CHECK(in_namespace(host[rank]), "parent %d does not run on host %s", rank, host[rank]);
    char hostfile[] = "/tmp/uz-spawn-hosts.XXXXXX";
    /* The first and the last rank are the roots: they are on different hosts. */
    for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
        const char *other = host[(root + size / 2) % size];
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", other);
        spawn_to(argv[0], root, info, other, NULL);

        /* hostfile and wdir: the root writes the file (the hosts share /tmp). */
        if (rank == root) {
            int fd = mkstemp(hostfile);
            CHECK(fd >= 0, "mkstemp");
            dprintf(fd, "# spawned children go here\n%s slots=4\n", other);
            close(fd);
        }
        MPI_Info_delete(info, "host");
        MPI_Info_set(info, "hostfile", hostfile);
        MPI_Info_set(info, "wdir", "/tmp");
        spawn_to(argv[0], root, info, other, "/tmp");
        if (rank == root) {
            unlink(hostfile);
            strcpy(hostfile, "/tmp/uz-spawn-hosts.XXXXXX");
        }
        MPI_Info_free(&info);

        /* No hint: where the root runs. */
        spawn_to(argv[0], root, MPI_INFO_NULL, host[root], NULL);
        spawn_two_programs(argv[0], root, other);
    }
    spawn_unreachable(argv[0]);
    return uzt_finish("dynproc_spawn_hosts");
}
