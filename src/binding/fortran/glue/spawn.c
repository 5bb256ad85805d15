/*
 * spawn.c — MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE: arrays of
 * CHARACTER to NULL-terminated arrays of C strings.
 *
 * A Fortran argv is an array of fixed-length strings that ends with the
 * first blank one; MPI_COMM_SPAWN_MULTIPLE's ARRAY_OF_ARGV(COUNT, *) holds
 * the i-th command's arguments in row i (so consecutive arguments of one
 * command are COUNT strings apart).  The arrays only matter at the root,
 * and elsewhere they are not even read (they need not be terminated there).
 */
#include <stdlib.h>
#include <string.h>

#include "uzf.h"
#include "uzf_core.h"

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ')
            return 0;
    return 1;
}

static void free_argv(char **argv)
{
    if (argv)
        for (char **a = argv; *a; a++)
            free(*a);
    free(argv);
}

/* Strings s, s + stride*len, s + 2*stride*len, ... up to the first blank one. */
static char **argv_in(const char *s, size_t len, size_t stride)
{
    size_t n = 0;
    while (!is_blank(s + n * stride * len, len))
        n++;
    char **argv = calloc(n + 1, sizeof(*argv));
    if (!argv)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(argv[i] = uzf_str_in(s + i * stride * len, len))) {
            free_argv(argv);
            return NULL;
        }
    return argv;
}

static int at_root(const MPI_Fint *comm, const MPI_Fint *root)
{
    int rank = -1;
    PMPI_Comm_rank(PMPI_Comm_f2c(*comm), &rank);
    return rank == *root;
}

int uzf_Comm_spawn(const char *command, size_t command_len, const char *argv, size_t argv_len,
                   const MPI_Fint *maxprocs, const MPI_Fint *info, const MPI_Fint *root,
                   const MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes)
{
    int root_here = at_root(comm, root);
    char *cmd = uzf_str_in(command, command_len);
    char **cargv = NULL;
    if (cmd && root_here && argv != mpi_fortran_argv_null_)
        cargv = argv_in(argv, argv_len, 1);
    if (!cmd || (root_here && argv != mpi_fortran_argv_null_ && !cargv)) {
        free(cmd);
        return uzf_nomem();
    }
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = PMPI_Comm_spawn(cmd, cargv ? cargv : MPI_ARGV_NULL, *maxprocs, PMPI_Info_f2c(*info),
                             *root, PMPI_Comm_f2c(*comm), &inter, uzf_errcodes(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_c2f(inter);
    free(cmd);
    free_argv(cargv);
    return rc;
}

int uzf_Comm_spawn_multiple(const MPI_Fint *count, const char *array_of_commands,
                            size_t array_of_commands_len, const char *array_of_argv,
                            size_t array_of_argv_len, const MPI_Fint *array_of_maxprocs,
                            const MPI_Fint *array_of_info, const MPI_Fint *root,
                            const MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes)
{
    int n = *count > 0 ? *count : 0, rc = MPI_SUCCESS;
    int root_here = at_root(comm, root);
    int with_argv = root_here && array_of_argv != mpi_fortran_argvs_null_;
    char **commands = calloc((size_t)n + 1, sizeof(*commands));
    char ***argvs = with_argv ? calloc((size_t)n + 1, sizeof(*argvs)) : NULL;
    MPI_Info *infos = calloc((size_t)n + 1, sizeof(*infos));
    if (!commands || !infos || (with_argv && !argvs))
        rc = uzf_nomem();
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        infos[i] = PMPI_Info_f2c(array_of_info[i]);
        if (root_here && !(commands[i] = uzf_str_in(array_of_commands + i * array_of_commands_len,
                                                    array_of_commands_len)))
            rc = uzf_nomem();
        if (with_argv && rc == MPI_SUCCESS &&
            !(argvs[i] = argv_in(array_of_argv + i * array_of_argv_len, array_of_argv_len, (size_t)n)))
            rc = uzf_nomem();
    }
    MPI_Comm inter = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_spawn_multiple(*count, commands, argvs ? argvs : MPI_ARGVS_NULL,
                                      array_of_maxprocs, infos, *root, PMPI_Comm_f2c(*comm), &inter,
                                      uzf_errcodes(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_c2f(inter);
    for (int i = 0; i < n; i++) {
        if (commands)
            free(commands[i]);
        if (argvs)
            free_argv(argvs[i]);
    }
    free(commands);
    free(argvs);
    free(infos);
    return rc;
}
