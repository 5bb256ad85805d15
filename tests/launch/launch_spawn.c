/*
 * launch_spawn.c — MPI_Comm_spawn under other launchers (tests/launch/slurm:
 * srun --mpi=pmi2, Open MPI's prterun; srun --mpi=pmix refuses).
 *
 *   launch_spawn ok        the last rank spawns NCHILD children, which
 *                          compute a value each and reduce it to it over the
 *                          intercommunicator, get a bcast and answer it;
 *                          merge + allreduce; disconnect
 *   launch_spawn refused   the launcher offers no spawn: MPI_ERR_SPAWN with a
 *                          message naming it (argv[2])
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uztest.h"

enum { NCHILD = 2 };

static int rank, size;

static int child(MPI_Comm parent)
{
    int nparents, root;
    MPI_Comm_remote_size(parent, &nparents);
    root = nparents - 1;
    CHECK_EQ(size, NCHILD);
    long long mine = (rank + 1) * 1000LL + 7;
    CHECK_MPI(MPI_Reduce(&mine, NULL, 1, MPI_LONG_LONG, MPI_SUM, root, parent));
    int token = -1;
    CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, root, parent));
    CHECK_EQ(token, 4242);
    token += rank;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, root, 3, parent));
    MPI_Comm all;
    CHECK_MPI(MPI_Intercomm_merge(parent, 1, &all));
    int one = 1, n = 0;
    CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, all));
    CHECK_EQ(n, nparents + NCHILD);
    CHECK_MPI(MPI_Comm_free(&all));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    return uzt_finish("launch_spawn child");
}

static void spawn_ok(const char *self)
{
    int root = size - 1, codes[NCHILD];
    MPI_Comm inter;
    char *args[] = { "child", NULL };
    CHECK_MPI(MPI_Comm_spawn(self, args, NCHILD, MPI_INFO_NULL, root, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < NCHILD; i++)
        CHECK_EQ(codes[i], MPI_SUCCESS);
    int is_root = rank == root;
    long long sum = -1;
    CHECK_MPI(MPI_Reduce(NULL, &sum, 1, MPI_LONG_LONG, MPI_SUM, is_root ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (is_root)
        CHECK_EQ(sum, 1000LL * NCHILD * (NCHILD + 1) / 2 + 7 * NCHILD);
    int token = 4242;
    CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, is_root ? MPI_ROOT : MPI_PROC_NULL, inter));
    for (int c = 0; is_root && c < NCHILD; c++) {
        int got = -1;
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, c, 3, inter, MPI_STATUS_IGNORE));
        CHECK_EQ(got, 4242 + c);
    }
    MPI_Comm all;
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &all));
    int one = 1, n = 0;
    CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, all));
    CHECK_EQ(n, size + NCHILD);
    CHECK_MPI(MPI_Comm_free(&all));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static void spawn_refused(const char *self, const char *launcher)
{
    MPI_Comm inter = MPI_COMM_NULL;
    int codes[NCHILD] = { -1, -1 }, cls = -1, len;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a refused spawn returned a communicator");
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, launcher) != NULL, "the refusal does not name %s: %s", launcher, text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child(parent);
    if (argc > 1 && strcmp(argv[1], "refused") == 0)
        spawn_refused(argv[0], argc > 2 ? argv[2] : "");
    else
        spawn_ok(argv[0]);
    return uzt_finish("launch_spawn");
}
