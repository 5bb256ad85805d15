/*
 * hwtopo_sysfs.c — the topology from Linux's /sys, the reader used when
 * hwloc is missing or turned off.
 *
 * Keys (hwtopo.c renames them after their lowest CPU): the NUMA node
 * number (cpuN/nodeM; one node when the kernel has no NUMA), the package
 * id, the first CPU of each cache's shared_cpu_list (data and unified
 * caches only, as hwloc's L1 level), and the first CPU of the core's
 * core_cpus_list (thread_siblings_list on older kernels).  The CPUs are
 * the online ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hwtopo.h"

static int read_int_file(const char *path, int *value)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", value) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* "0-3,8" into set; -1 if the file cannot be read or parsed. */
static int read_cpulist(const char *path, cpu_set_t *set)
{
    char text[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(text, sizeof(text), f) != NULL;
    fclose(f);
    CPU_ZERO(set);
    for (char *p = text; ok && *p && *p != '\n';) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p)
            return -1;
        if (*end == '-')
            last = strtol(end + 1, &end, 10);
        for (long cpu = first; cpu <= last && cpu < CPU_SETSIZE; cpu++)
            CPU_SET((int)cpu, set);
        p = *end == ',' ? end + 1 : end;
    }
    return ok ? 0 : -1;
}

static int read_first_cpu(const char *path)
{
    int cpu;
    return read_int_file(path, &cpu) == 0 ? cpu : -1;
}

static int cache_key(int cpu, int level)
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
        int got = f && fscanf(f, "%31s", type) == 1;
        if (f)
            fclose(f);
        if (!got || strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
                 cpu, idx);
        return read_first_cpu(path);
    }
    return -1;
}

static int numa_key(int cpu)
{
    char path[96];
    for (int node = 0; node < 1024; node++) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
        if (access(path, F_OK) == 0)
            return node;
    }
    return 0;       /* no NUMA information: one node */
}

static int core_key(int cpu)
{
    char path[112];
    int v;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
    if ((v = read_first_cpu(path)) >= 0)
        return v;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    if ((v = read_first_cpu(path)) >= 0)
        return v;
    return cpu;     /* no topology at all: a CPU is a core */
}

static int socket_key(int cpu)
{
    char path[112];
    int v;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    return read_int_file(path, &v) == 0 && v >= 0 ? v : 0;
}

int uz_hwtopo_read_sysfs(struct uz_hwtopo *t)
{
    cpu_set_t online;
    if (read_cpulist("/sys/devices/system/cpu/online", &online) < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        CPU_ZERO(&online);
        for (long cpu = 0; cpu < n && cpu < CPU_SETSIZE; cpu++)
            CPU_SET((int)cpu, &online);
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &online))
            continue;
        t->ncpus = cpu + 1;
        t->instance[UZ_HWTOPO_HWTHREAD][cpu] = cpu;
        t->instance[UZ_HWTOPO_CORE][cpu] = core_key(cpu);
        t->instance[UZ_HWTOPO_L1CACHE][cpu] = cache_key(cpu, 1);
        t->instance[UZ_HWTOPO_L2CACHE][cpu] = cache_key(cpu, 2);
        t->instance[UZ_HWTOPO_L3CACHE][cpu] = cache_key(cpu, 3);
        t->instance[UZ_HWTOPO_SOCKET][cpu] = socket_key(cpu);
        t->instance[UZ_HWTOPO_NUMANODE][cpu] = numa_key(cpu);
    }
    return 0;
}
