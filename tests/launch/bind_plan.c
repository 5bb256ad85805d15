/*
 * bind_plan.c — mpiexec's placement rules (tools/mpiexec/binding.c) on
 * machines this one is not: hwloc's synthetic topologies
 * (HWLOC_SYNTHETIC) of 2 packages (a NUMA node each) x 2 cores (an L2
 * each) x 2 hardware threads, every one of its 8 CPUs allowed.  The real
 * binding tests (bind_test.sh) cannot tell -map-by socket from -map-by
 * core on 2 CPUs.
 *
 * Links binding.c and the topology reader with two stand-ins: job_fail
 * (the job's end, job.c) and sched_getaffinity, which this program defines
 * so that binding.c sees 8 allowed CPUs.  Nothing is bound: only the plan
 * is checked.  Needs hwloc (exit 77 without it).
 */
#include "mpiexec.h"

#include "base/hwtopo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

void job_fail(struct job *job, int exit_code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("job_fail: ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    job->ending = 1;
    job->exit_code = exit_code;
}

/* The CPUs mpiexec may use, as binding.c asks for them. */
int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    (void)pid;
    memset(set, 0, size);
    for (int cpu = 0; cpu < 8; cpu++)
        CPU_SET(cpu, set);
    return 0;
}

/* Plan nranks ranks with these options; compare "cpus|cpus|..." */
static void expect(const char *bind, const char *map, int nranks, const char *want)
{
    struct mpiexec_options opt = {.bind_to = BIND_DEFAULT, .map_by = MAP_DEFAULT};
    if (bind && binding_parse_bind_to(bind, &opt.bind_to) < 0)
        abort();
    if (map && binding_parse_map_by(map, &opt.map_by) < 0)
        abort();
    struct rank ranks[16];
    for (int i = 0; i < nranks; i++)
        ranks[i].rank = i;
    struct job job = {.opt = &opt, .nranks = nranks, .size = nranks, .ranks = ranks};
    struct binding_plan *p = binding_plan_make(&job);
    char got[512] = "", one[64];
    if (!p) {
        snprintf(got, sizeof got, "failed");
    } else if (p->level == BIND_NONE) {
        snprintf(got, sizeof got, "none");
    } else {
        for (int i = 0; i < nranks; i++) {
            uz_cpulist_format(&p->sets[i], one, sizeof one);
            strcat(got, i ? "|" : "");
            strcat(got, one);
        }
    }
    binding_plan_free(p);
    int ok = strcmp(got, want) == 0;
    failures += !ok;
    printf("%s -bind-to %s -map-by %s -n %d: %s%s%s\n", ok ? "ok  " : "FAIL", bind ? bind : "(default)",
           map ? map : "(default)", nranks, got, ok ? "" : ", expected ", ok ? "" : want);
}

int main(void)
{
    setenv("HWLOC_SYNTHETIC", "pack:2 numa:1 l2:2 core:1 pu:2", 1);
    unsetenv("SLURM_JOB_ID");
    struct uz_hwtopo t;
    if (uz_hwtopo_load(&t, 1) < 0 || !t.from_hwloc) {
        printf("SKIPPED: hwloc is needed for synthetic topologies (%s)\n", t.why_not_hwloc);
        return 77;
    }
    uz_hwtopo_free(&t);
    /* Cores in CPU order; across packages first with -map-by socket. */
    expect("core", NULL, 4, "0-1|2-3|4-5|6-7");
    expect("core", "socket", 4, "0-1|4-5|2-3|6-7");
    expect("core", "socket", 6, "0-1|4-5|2-3|6-7|0-1|4-5");
    expect("core", "slot", 5, "0-1|2-3|4-5|6-7|0-1");
    /* Hardware threads: filled in order, or dealt across packages / cores. */
    expect("hwthread", NULL, 3, "0|1|2");
    expect("hwthread", "socket", 4, "0|4|1|5");
    expect("hwthread", "core", 4, "0|2|4|6");
    /* Coarse binding, fine mapping: package 0 fills first. */
    expect("socket", "core", 4, "0-3|0-3|4-7|4-7");
    expect("socket", NULL, 3, "0-3|4-7|0-3");
    expect("numa", NULL, 2, "0-3|4-7");
    expect("l2cache", NULL, 2, "0-1|2-3");
    expect("none", NULL, 2, "none");
    expect("l3cache", NULL, 1, "failed");       /* this machine has none */
    /* The default: a core each while they fit (4 cores), else nothing;
     * -map-by hwthread makes it a thread each (8). */
    expect(NULL, NULL, 4, "0-1|2-3|4-5|6-7");
    expect(NULL, NULL, 5, "none");
    expect(NULL, "socket", 4, "0-1|4-5|2-3|6-7");
    expect(NULL, "hwthread", 8, "0|1|2|3|4|5|6|7");
    expect(NULL, "hwthread", 9, "none");
    /* Under a Slurm step that bound mpiexec the default stays off. */
    setenv("SLURM_JOB_ID", "7", 1);
    setenv("SLURM_CPU_BIND_TYPE", "mask_cpu:", 1);
    expect(NULL, NULL, 2, "none");
    expect("core", NULL, 2, "0-1|2-3");
    return failures ? 1 : 0;
}
