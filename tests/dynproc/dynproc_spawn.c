/*
 * dynproc_spawn.c — MPI_Comm_spawn and MPI_Comm_spawn_multiple through
 * mpiexec.  The parents (every rank of the job, root 0) start copies of
 * this program; the children find their parent, check MPI_APPNUM and
 * MPI_UNIVERSE_SIZE, send patterned messages to the parents, reduce a
 * value to the parents' root and take part in a bcast and a merge with
 * allreduce; both sides disconnect.  Then: MPI_Comm_spawn_multiple with
 * two programs (the children check their MPI_APPNUM and world size), and
 * spawns of a missing program, which fail with MPI_ERR_SPAWN and error
 * codes saying which processes' program was at fault; info keys wdir,
 * path and host (this host is accepted; a host that cannot be reached
 * fails at once, with mpiexec's message naming it).
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

enum { NCHILD = 3, MSG = 3000 };

static int rank, size;

/* ------------------------------------------------------------ children */

static int child(const char *role)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL)
        return uzt_finish("dynproc_spawn child");
    int *appnum, *usize, flag, nparents;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag, "MPI_APPNUM is not set");
    int b = strcmp(role, "childB") == 0;
    if (flag)
        CHECK_EQ(*appnum, b ? 1 : 0);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    CHECK(flag && *usize >= size, "MPI_UNIVERSE_SIZE");
    MPI_Comm_remote_size(parent, &nparents);
    if (strcmp(role, "childW") == 0) {
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") == 0, "info wdir=/ not honoured: %s", cwd);
        CHECK_MPI(MPI_Barrier(parent));
    } else if (strcmp(role, "child") == 0) {
        CHECK_EQ(size, NCHILD);
        unsigned char buf[MSG];
        uzt_fill(buf, MSG, rank, 77);
        CHECK_MPI(MPI_Send(buf, MSG, MPI_BYTE, rank % nparents, 5, parent));
        int mine = 10 * (rank + 1);
        CHECK_MPI(MPI_Reduce(&mine, NULL, 1, MPI_INT, MPI_SUM, 0, parent));
        double from[2];
        CHECK_MPI(MPI_Bcast(from, 2, MPI_DOUBLE, 0, parent));
        CHECK(from[0] == 2.5 && from[1] == -1.25, "bcast from the parents damaged");
        MPI_Comm all;
        CHECK_MPI(MPI_Intercomm_merge(parent, 1, &all));
        int r, n, one = 1, count = 0;
        MPI_Comm_rank(all, &r);
        MPI_Comm_size(all, &n);
        CHECK_EQ(n, nparents + size);
        CHECK_EQ(r, nparents + rank);
        CHECK_MPI(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, all));
        CHECK_EQ(count, n);
        CHECK_MPI(MPI_Comm_free(&all));
    } else {
        CHECK_EQ(size, 3);
        int sum = 0, mine = b;
        CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(sum, 2);
        CHECK_MPI(MPI_Barrier(parent));
    }
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent after disconnect");
    return uzt_finish(role);
}

/* ------------------------------------------------------------ parents */

static void spawn_one(const char *self)
{
    MPI_Comm inter;
    int errcodes[NCHILD];
    char *args[] = { "child", NULL };
    for (int i = 0; i < NCHILD; i++)
        errcodes[i] = -1;
    CHECK_MPI(MPI_Comm_spawn(rank == 0 ? self : NULL, rank == 0 ? args : NULL, NCHILD, MPI_INFO_NULL, 0,
                             MPI_COMM_WORLD, &inter, errcodes));
    for (int i = 0; i < NCHILD; i++)
        CHECK_EQ(errcodes[i], MPI_SUCCESS);
    int rsize, lsize;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_size(inter, &lsize);
    CHECK_EQ(rsize, NCHILD);
    CHECK_EQ(lsize, size);
    for (int c = rank; c < NCHILD; c += size) {
        unsigned char buf[MSG];
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, MSG, MPI_BYTE, c, 5, inter, &st));
        CHECK_EQ(st.MPI_SOURCE, c);
        CHECK(uzt_verify(buf, MSG, c, 77) < 0, "message from child %d damaged", c);
    }
    int sum = -1;
    CHECK_MPI(MPI_Reduce(NULL, &sum, 1, MPI_INT, MPI_SUM, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (rank == 0)
        CHECK_EQ(sum, 10 * NCHILD * (NCHILD + 1) / 2);
    double to[2] = { 2.5, -1.25 };
    CHECK_MPI(MPI_Bcast(to, 2, MPI_DOUBLE, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    MPI_Comm all;
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &all));
    int r, one = 1, count = 0;
    MPI_Comm_rank(all, &r);
    CHECK_EQ(r, rank);
    CHECK_MPI(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, all));
    CHECK_EQ(count, size + NCHILD);
    CHECK_MPI(MPI_Comm_free(&all));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static void spawn_two_programs(const char *self)
{
    char *cmds[2] = { (char *)self, (char *)self };
    char *argA[] = { "childA", NULL }, *argB[] = { "childB", NULL };
    char **argvs[2] = { argA, argB };
    int maxprocs[2] = { 1, 2 }, errcodes[3] = { -1, -1, -1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm inter;
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter, errcodes));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(errcodes[i], MPI_SUCCESS);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_EQ(rsize, 3);
    CHECK_MPI(MPI_Barrier(inter));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

static void spawn_missing(const char *self)
{
    MPI_Comm inter = MPI_COMM_NULL;
    int errcodes[3] = { -1, -1, -1 };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn("/nonexistent/uzura-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                            MPI_COMM_WORLD, &inter, errcodes);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
    CHECK_EQ(error_class(errcodes[0]), MPI_ERR_SPAWN);
    CHECK_EQ(error_class(errcodes[1]), MPI_ERR_SPAWN);

    /* Two programs, the second missing: nothing starts; the codes of the
     * second program's processes name it, the first's say why they did
     * not start either. */
    char *cmds[2] = { (char *)self, "uzura-no-such-program-either" };
    int maxprocs[2] = { 1, 2 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    for (int i = 0; i < 3; i++)
        errcodes[i] = -1;
    rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &inter, errcodes);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(error_class(errcodes[i]), MPI_ERR_SPAWN);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(errcodes[1], text, &len);
    CHECK(strstr(text, "uzura-no-such-program-either") != NULL, "errcode of the missing program: %s", text);
    MPI_Error_string(errcodes[0], text, &len);
    CHECK(strstr(text, "another program") != NULL, "errcode of the good program: %s", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* wdir, path (the program named without its directory) and host. */
static void spawn_info(const char *self)
{
    char dir[4096], base[4096];
    snprintf(dir, sizeof dir, "%s", self);
    snprintf(base, sizeof base, "%s", self);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wdir", "/");
    MPI_Info_set(info, "path", dirname(dir));
    MPI_Info_set(info, "host", "localhost");
    char *args[] = { "childW", NULL };
    MPI_Comm inter;
    int code = -1;
    CHECK_MPI(MPI_Comm_spawn(basename(base), args, 1, info, 0, MPI_COMM_WORLD, &inter, &code));
    CHECK_EQ(code, MPI_SUCCESS);
    CHECK_MPI(MPI_Barrier(inter));
    CHECK_MPI(MPI_Comm_disconnect(&inter));

    MPI_Info_set(info, "host", "uzura-no-such-host.invalid");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_WORLD, &inter, &code);
    CHECK_EQ(error_class(rc), MPI_ERR_SPAWN);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "uzura-no-such-host.invalid") != NULL, "refused host: %s", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        return child(argv[1]);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "a job nobody spawned has a parent");
    /* Under another process manager (spawn_under_hydra.sh) only the spawns
     * that succeed: Hydra ends the whole job when a program cannot start. */
    int good_only = getenv("DYNPROC_SPAWN_GOOD_ONLY") != NULL;
    spawn_one(argv[0]);
    spawn_two_programs(argv[0]);
    if (!good_only) {
        spawn_missing(argv[0]);
        spawn_info(argv[0]);
    }
    return uzt_finish("dynproc_spawn");
}
