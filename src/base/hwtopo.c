/*
 * hwtopo.c — the machine's topology as one table: for every CPU, the
 * instance it belongs to at every level (see hwtopo.h).
 *
 * A reader (hwtopo_hwloc.c, hwtopo_sysfs.c) fills the table with keys
 * of its own (hwloc's object index, a package id, a NUMA node number, ...);
 * this file then renames every instance after the lowest CPU it holds.
 * That makes the two readers' answers comparable one for one, which is how
 * the tests check the /sys fallback against hwloc.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hwtopo.h"

static const char *const level_names[UZ_HWTOPO_LEVELS] = {
    "machine", "board", "numanode", "socket", "L3cache", "L2cache", "L1cache", "core", "hwthread",
};

const char *uz_hwtopo_level_name(int level)
{
    return level >= 0 && level < UZ_HWTOPO_LEVELS ? level_names[level] : NULL;
}

void uz_hwtopo_free(struct uz_hwtopo *t)
{
    for (int level = 0; level < UZ_HWTOPO_LEVELS; level++) {
        free(t->instance[level]);
        t->instance[level] = NULL;
    }
    t->ncpus = 0;
}

static int topo_alloc(struct uz_hwtopo *t)
{
    for (int level = 0; level < UZ_HWTOPO_LEVELS; level++) {
        free(t->instance[level]);
        t->instance[level] = malloc(CPU_SETSIZE * sizeof(int));
        if (!t->instance[level])
            return -1;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            t->instance[level][cpu] = -1;
    }
    t->ncpus = 0;
    return 0;
}

/* Rename the instances of one level after their lowest CPU.  Keys are
 * small integers in practice, but a reader may use any non-negative int,
 * so this pairs keys by search rather than by a table indexed by key. */
static void level_normalize(struct uz_hwtopo *t, int level)
{
    int *key = t->instance[level];
    int renamed[CPU_SETSIZE];
    for (int cpu = 0; cpu < t->ncpus; cpu++) {
        renamed[cpu] = -1;
        if (key[cpu] < 0 || t->instance[UZ_HWTOPO_HWTHREAD][cpu] < 0)
            continue;
        for (int first = 0; first <= cpu; first++) {
            if (key[first] == key[cpu] && t->instance[UZ_HWTOPO_HWTHREAD][first] >= 0) {
                renamed[cpu] = first;
                break;
            }
        }
    }
    memcpy(key, renamed, (size_t)t->ncpus * sizeof(int));
}

static void topo_finish(struct uz_hwtopo *t)
{
    for (int cpu = 0; cpu < t->ncpus; cpu++) {
        int present = t->instance[UZ_HWTOPO_HWTHREAD][cpu] >= 0;
        t->instance[UZ_HWTOPO_HWTHREAD][cpu] = present ? cpu : -1;
        /* One machine and one board per host: hwloc has no board level. */
        t->instance[UZ_HWTOPO_MACHINE][cpu] = present ? 0 : -1;
        t->instance[UZ_HWTOPO_BOARD][cpu] = present ? 0 : -1;
    }
    for (int level = 0; level < UZ_HWTOPO_LEVELS; level++)
        if (level != UZ_HWTOPO_HWTHREAD)
            level_normalize(t, level);
}

int uz_hwtopo_load(struct uz_hwtopo *t, int try_hwloc)
{
    memset(t, 0, sizeof(*t));
    if (topo_alloc(t) < 0)
        return -1;
    if (try_hwloc) {
        if (uz_hwtopo_read_hwloc(t, t->why_not_hwloc, sizeof(t->why_not_hwloc)) == 0 && t->ncpus > 0) {
            t->from_hwloc = 1;
            topo_finish(t);
            return 0;
        }
        if (topo_alloc(t) < 0)      /* start again from a clean table */
            return -1;
    } else {
        snprintf(t->why_not_hwloc, sizeof(t->why_not_hwloc), "hwloc is turned off (UZURA_HWLOC=0)");
    }
    snprintf(t->source, sizeof(t->source), "/sys");
    if (uz_hwtopo_read_sysfs(t) < 0 || t->ncpus == 0) {
        uz_hwtopo_free(t);
        return -1;
    }
    topo_finish(t);
    return 0;
}

int uz_hwtopo_ordinal(const struct uz_hwtopo *t, int level, int instance)
{
    if (instance < 0 || instance >= t->ncpus)
        return -1;
    int n = 0;
    for (int cpu = 0; cpu < instance; cpu++)
        n += t->instance[level][cpu] == cpu;     /* cpu opens an instance */
    return t->instance[level][instance] == instance ? n : -1;
}

void uz_hwtopo_cpus_of(const struct uz_hwtopo *t, int level, int instance, const cpu_set_t *within,
                     cpu_set_t *out)
{
    CPU_ZERO(out);
    for (int cpu = 0; cpu < t->ncpus; cpu++)
        if (instance >= 0 && t->instance[level][cpu] == instance && (!within || CPU_ISSET(cpu, within)))
            CPU_SET(cpu, out);
}

void uz_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last == cpu ? snprintf(buf + used, len - used, "%s%d", used ? "," : "", cpu)
                            : snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", cpu, last);
        if (n < 0 || (size_t)n >= len - used)
            return;         /* cut short; the caller's buffer is full */
        used += (size_t)n;
        cpu = last;
    }
}

int uz_hwtopo_cpus_for_ranks(int launcher_cpus)
{
    cpu_set_t set;
    int own = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    return launcher_cpus > own ? launcher_cpus : own;
}
