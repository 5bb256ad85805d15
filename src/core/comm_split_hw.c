/*
 * comm_split_hw.c — which hardware resource instance this process runs
 * on, for the hardware-guided forms of MPI_Comm_split_type.
 *
 * A process "uses" one instance of a resource type (a core, an L2 cache,
 * a socket, ...) when every CPU it may run on (sched_getaffinity) belongs
 * to that same instance; otherwise it has no instance of that type and the
 * split gives it MPI_COMM_NULL, as the standard allows.  Instances are
 * read from Linux's /sys: an instance is named by the lowest CPU it
 * contains (caches, cores), its package id (sockets) or its NUMA node
 * number, and the host (uz_rt.node_id) is folded into the colour so that
 * equal instance numbers on different hosts never meet.
 *
 * Levels, coarsest first: machine, board (one per machine here), numanode,
 * socket, L3cache, L2cache, L1cache, core, hwthread.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/runtime.h"
#include "core/comm_split_hw.h"

static const char *const level_names[UZ_HW_LEVELS] = {
    "machine", "board", "numanode", "socket", "L3cache", "L2cache", "L1cache", "core", "hwthread",
};

const char *uz_hw_level_name(int level)
{
    return level >= 0 && level < UZ_HW_LEVELS ? level_names[level] : NULL;
}

int uz_hw_level_of(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < UZ_HW_LEVELS; i++)
        if (strcmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------- /sys */

static int read_int_file(const char *path, int *value)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", value) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* The first CPU of a cpulist file ("0-3,8"), which names the instance. */
static int read_first_cpu(const char *path)
{
    int cpu;
    return read_int_file(path, &cpu) == 0 ? cpu : -1;
}

static int cache_instance(int cpu, int level)
{
    char path[128], type[32];
    for (int idx = 0; idx < 16; idx++) {
        int lv;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
        if (read_int_file(path, &lv) != 0)
            break;
        if (lv != level)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, idx);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%31s", type) != 1) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        if (strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
        return read_first_cpu(path);
    }
    return -1;
}

static int numa_instance(int cpu)
{
    char path[96];
    for (int node = 0; node < 1024; node++) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
        if (access(path, F_OK) == 0)
            return node;
    }
    return 0;       /* no NUMA information: one node */
}

/* The instance of `level` that `cpu` belongs to, or -1 if unknown. */
static int cpu_instance(int cpu, int level)
{
    char path[112];
    int v;
    switch (level) {
    case UZ_HW_MACHINE:
    case UZ_HW_BOARD:
        return 0;
    case UZ_HW_NUMANODE:
        return numa_instance(cpu);
    case UZ_HW_SOCKET:
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 cpu);
        return read_int_file(path, &v) == 0 ? v : 0;
    case UZ_HW_L3CACHE:
        return cache_instance(cpu, 3);
    case UZ_HW_L2CACHE:
        return cache_instance(cpu, 2);
    case UZ_HW_L1CACHE:
        return cache_instance(cpu, 1);
    case UZ_HW_CORE:
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
        if ((v = read_first_cpu(path)) >= 0)
            return v;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpu);
        return read_first_cpu(path);
    case UZ_HW_HWTHREAD:
        return cpu;
    }
    return -1;
}

void uz_hw_colors(int colors[UZ_HW_LEVELS])
{
    cpu_set_t set;
    int have_set = sched_getaffinity(0, sizeof(set), &set) == 0;
    for (int level = 0; level < UZ_HW_LEVELS; level++) {
        int instance = -2;      /* none seen yet */
        if (level == UZ_HW_MACHINE || level == UZ_HW_BOARD) {
            instance = 0;
        } else if (have_set) {
            for (int cpu = 0; cpu < CPU_SETSIZE && instance != -1; cpu++) {
                if (!CPU_ISSET(cpu, &set))
                    continue;
                int i = cpu_instance(cpu, level);
                instance = (instance == -2 || instance == i) ? i : -1;
            }
        }
        colors[level] = instance < 0 ? MPI_UNDEFINED : uz_rt.node_id * 65536 + instance;
    }
}
