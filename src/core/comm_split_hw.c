/*
 * comm_split_hw.c — which hardware resource instance this process runs
 * on, for the hardware-guided forms of MPI_Comm_split_type and for
 * MPI_Get_hw_resource_info.
 *
 * A process "uses" one instance of a resource type (a core, an L2 cache,
 * a socket, ...) when every CPU it may run on (sched_getaffinity) belongs
 * to that same instance; otherwise it has no instance of that type and the
 * split gives it MPI_COMM_NULL, as the standard allows.  So a rank that
 * mpiexec bound to one core is in one "core" instance, and an unbound rank
 * on a 2-core host is in none (docs/binding.md).
 *
 * The instances come from base/hwtopo.h: hwloc when it loads (and
 * UZURA_HWLOC is not 0), /sys otherwise; both name an instance after its
 * lowest CPU.  The host (uz_rt.node_id) is folded into the colour so that
 * equal instance names on different hosts never meet.  The topology is read
 * once per process, at the first call that needs it; the affinity mask is
 * read at every call, since a program may change it.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/params.h"
#include "base/runtime.h"
#include "core/comm_split_hw.h"

const char *uz_hw_level_name(int level)
{
    return uz_hwtopo_level_name(level);
}

int uz_hw_level_of(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < UZ_HW_LEVELS; i++)
        if (strcmp(name, uz_hw_level_name(i)) == 0)
            return i;
    return -1;
}

static struct uz_hwtopo topo;
static int topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

/* UZURA_VERBOSE: where the topology came from, once. */
static void topo_report(void)
{
    if (uz_config.verbose <= 0 || (uz_config.verbose == 1 && uz_rt.world_rank != 0))
        return;
    if (!topo_ok)
        fprintf(stderr, "Uzura rank %d: topology: none, because neither hwloc nor /sys describes this "
                "machine's processors; hardware splits give MPI_COMM_NULL\n", uz_rt.world_rank);
    else if (topo.from_hwloc)
        fprintf(stderr, "Uzura rank %d: topology: read with %s\n", uz_rt.world_rank, topo.source);
    else
        fprintf(stderr, "Uzura rank %d: topology: read from /sys, because %s\n", uz_rt.world_rank,
                topo.why_not_hwloc);
}

static void topo_read(void)
{
    topo_ok = uz_hwtopo_load(&topo, uz_config.hwloc) == 0;
    topo_report();
}

const struct uz_hwtopo *uz_hw_topology(void)
{
    pthread_once(&topo_once, topo_read);
    return topo_ok ? &topo : NULL;
}

void uz_hw_colors(int colors[UZ_HW_LEVELS])
{
    const struct uz_hwtopo *t = uz_hw_topology();
    cpu_set_t set;
    int have_set = sched_getaffinity(0, sizeof(set), &set) == 0;
    for (int level = 0; level < UZ_HW_LEVELS; level++) {
        int instance = -2;      /* none seen yet */
        if (!t && (level == UZ_HW_MACHINE || level == UZ_HW_BOARD))
            instance = 0;       /* without a topology the host is still one machine */
        for (int cpu = 0; t && have_set && cpu < CPU_SETSIZE && instance != -1; cpu++) {
            if (!CPU_ISSET(cpu, &set))
                continue;
            int i = uz_hwtopo_instance(t, level, cpu);
            instance = (instance == -2 || instance == i) ? i : -1;
        }
        colors[level] = instance < 0 ? MPI_UNDEFINED : uz_rt.node_id * 65536 + instance;
    }
}
