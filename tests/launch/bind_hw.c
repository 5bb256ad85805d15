/*
 * bind_hw.c — what the library makes of a rank's binding: for every
 * hardware level, the world ranks of this rank's MPI_COMM_TYPE_HW_GUIDED
 * communicator ("null" for MPI_COMM_NULL) and whether
 * MPI_Get_hw_resource_info lists the level; then the level and group
 * MPI_COMM_TYPE_HW_UNGUIDED chooses, and a RESOURCE_GUIDED split with a
 * key of that info, which must give the same group as HW_GUIDED.  One line
 * per rank and level, "rank R LEVEL group 0,2 info yes", gathered to rank 0
 * and printed in rank order, so that tests/launch/bind_test.sh can check
 * them against the CPUs each rank was bound to, and the hwloc and /sys
 * readings against each other.  Exits non-zero on any MPI error.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const levels[] = {
    "machine", "numanode", "socket", "L3cache", "L2cache", "L1cache", "core", "hwthread",
};
enum { NLEVELS = sizeof levels / sizeof levels[0], LINE = 640 };

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "bind_hw: %s failed (%d)\n", what, err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* "0,2" for the world ranks of c, or "null". */
static void members(MPI_Comm c, char *out, size_t len)
{
    if (c == MPI_COMM_NULL) {
        snprintf(out, len, "null");
        return;
    }
    int n, world = 0;
    MPI_Comm_size(c, &n);
    int *all = malloc(sizeof(int) * (size_t)n);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    check(MPI_Allgather(&world, 1, MPI_INT, all, 1, MPI_INT, c), "MPI_Allgather");
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%d", i ? "," : "", all[i]);
    free(all);
}

static void level_line(int me, const char *level, MPI_Info hw, char *line)
{
    MPI_Info info;
    MPI_Comm c, r;
    char group[128], rgroup[128], value[8];
    int flag = 0;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", level);
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c), "HW_GUIDED");
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, me, info, &r),
          "RESOURCE_GUIDED");
    members(c, group, sizeof group);
    members(r, rgroup, sizeof rgroup);
    int vlen = sizeof value;
    MPI_Info_get_string(hw, level, &vlen, value, &flag);
    snprintf(line, LINE, "rank %d %s group %s info %s%s%s", me, level, group, flag ? "yes" : "no",
             strcmp(group, rgroup) ? " resource_guided_differs " : "", strcmp(group, rgroup) ? rgroup : "");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    if (r != MPI_COMM_NULL)
        MPI_Comm_free(&r);
    MPI_Info_free(&info);
}

static void unguided_line(int me, char *line)
{
    MPI_Info chosen;
    MPI_Comm c;
    char group[128], value[64];
    int flag = 0, vlen = sizeof value;
    MPI_Info_create(&chosen);
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, chosen, &c), "HW_UNGUIDED");
    members(c, group, sizeof group);
    if (c != MPI_COMM_NULL) {
        MPI_Info_get_string(chosen, "mpi_hw_resource_type", &vlen, value, &flag);
        MPI_Comm_free(&c);
    }
    snprintf(line, LINE, "rank %d unguided %s group %s", me, flag ? value : "-", group);
    MPI_Info_free(&chosen);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Info hw;
    check(MPI_Get_hw_resource_info(&hw), "MPI_Get_hw_resource_info");
    char lines[NLEVELS + 1][LINE];
    for (int l = 0; l < NLEVELS; l++)
        level_line(me, levels[l], hw, lines[l]);
    unguided_line(me, lines[NLEVELS]);
    MPI_Info_free(&hw);
    char *all = me == 0 ? malloc((size_t)n * sizeof lines) : NULL;
    MPI_Gather(lines, sizeof lines, MPI_CHAR, all, sizeof lines, MPI_CHAR, 0, MPI_COMM_WORLD);
    for (int r = 0; me == 0 && r < n; r++)
        for (int l = 0; l <= NLEVELS; l++)
            printf("%s\n", all + ((size_t)r * (NLEVELS + 1) + (size_t)l) * LINE);
    free(all);
    MPI_Finalize();
    return 0;
}
