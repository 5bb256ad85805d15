/*
 * hwtopo.h — this machine's processors and what groups them (hardware
 * threads, cores, caches, packages, NUMA nodes), read from hwloc when
 * libhwloc.so.15 can be loaded and from Linux's /sys otherwise.
 *
 * Two users: the library (MPI_Comm_split_type's hardware kinds and
 * MPI_Get_hw_resource_info, core/comm_split_hw.c) and mpiexec (binding,
 * tools/mpiexec/binding.c), which compiles these files too.  So they use
 * nothing of the library, not even its tunables: the caller says whether
 * hwloc may be tried (UZURA_HWLOC).
 *
 * Every instance of every level is named by the lowest CPU number it holds,
 * whichever source was read, so that hwloc and /sys give the same names
 * and a name means the same thing on every rank of a host.
 */
#ifndef UZ_BASE_HWTOPO_H
#define UZ_BASE_HWTOPO_H

#include <sched.h>
#include <stddef.h>

/* Levels, coarsest first (the order of core/comm_split_hw.h's levels). */
enum uz_hwtopo_level {
    UZ_HWTOPO_MACHINE, UZ_HWTOPO_BOARD, UZ_HWTOPO_NUMANODE, UZ_HWTOPO_SOCKET, UZ_HWTOPO_L3CACHE,
    UZ_HWTOPO_L2CACHE, UZ_HWTOPO_L1CACHE, UZ_HWTOPO_CORE, UZ_HWTOPO_HWTHREAD,
    UZ_HWTOPO_LEVELS
};

struct uz_hwtopo {
    int ncpus;                          /* highest CPU number present + 1 */
    int *instance[UZ_HWTOPO_LEVELS];      /* [ncpus]: the instance a CPU is in, -1: absent or unknown */
    int from_hwloc;                     /* 1: read from hwloc, 0: from /sys */
    char source[64];                    /* "hwloc 2.9.0" or "/sys" */
    char why_not_hwloc[256];            /* when from /sys: why ("" when not tried) */
};

/* Read the topology: hwloc first when try_hwloc, /sys otherwise or when
 * hwloc cannot be used (t->why_not_hwloc says why).  0, or -1 when no CPU
 * could be found at all (or out of memory). */
int uz_hwtopo_load(struct uz_hwtopo *t, int try_hwloc);
void uz_hwtopo_free(struct uz_hwtopo *t);

/* The instance of `level` that cpu belongs to (its lowest CPU), or -1. */
static inline int uz_hwtopo_instance(const struct uz_hwtopo *t, int level, int cpu)
{
    return cpu >= 0 && cpu < t->ncpus ? t->instance[level][cpu] : -1;
}

/* Its position among the machine's instances of that level in CPU order
 * (core 0, core 1, ...), which is hwloc's logical index; -1 if unknown. */
int uz_hwtopo_ordinal(const struct uz_hwtopo *t, int level, int instance);

/* The CPUs of an instance that are also in `within` (NULL: all). */
void uz_hwtopo_cpus_of(const struct uz_hwtopo *t, int level, int instance, const cpu_set_t *within,
                     cpu_set_t *out);

/* "0-3,8" for a set of CPUs. */
void uz_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/* "hwloc", "/sys": the readers, for hwtopo.c only. */
int uz_hwtopo_read_hwloc(struct uz_hwtopo *t, char *why, size_t whylen);
int uz_hwtopo_read_sysfs(struct uz_hwtopo *t);

/* Word names of the levels ("core", "L2cache", ...) as MPI spells them. */
const char *uz_hwtopo_level_name(int level);

/* How many CPUs this host's ranks of the job may use between them: the
 * launcher's count (UZURA_LOCAL_CPUS, passed in as launcher_cpus; 0 when
 * not set) or, without it, this process's own affinity.  A rank that
 * mpiexec bound to one core still has a core to itself when the host has
 * as many as ranks: its own mask alone would say "oversubscribed". */
int uz_hwtopo_cpus_for_ranks(int launcher_cpus);

#endif /* UZ_BASE_HWTOPO_H */
