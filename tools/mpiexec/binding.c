/*
 * binding.c — which CPUs each rank of this host may run on.
 *
 * Before the first rank is forked, mpiexec (or a proxy, for its host's
 * ranks) reads the machine's topology (src/base/hwtopo.h: hwloc when it
 * loads, /sys otherwise), takes its own affinity mask as the CPUs the job
 * may use (a taskset or a Slurm allocation counts that way), and plans one
 * CPU set per rank.  The child applies its set with sched_setaffinity just
 * before exec, so binding works for any program, not only Uzura's.
 *
 * The default binds each rank to a core of its own, round-robin, when the
 * host's ranks fit on the cores mpiexec may use, and binds nothing when
 * they do not: most runs here have more ranks than cores, and ranks pinned
 * two to a core cannot be moved by the scheduler to a core that frees up.
 * Under a Slurm step that bound mpiexec already, the default leaves that
 * binding alone.  Explicit -bind-to always binds, round-robin.
 *
 * Placement (-map-by) says in which order ranks take the objects: by cores
 * or hardware threads in CPU order, or across sockets / NUMA nodes first.
 * docs/binding.md has the rules and examples.
 */
#include "mpiexec.h"

#include "base/hwtopo.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------- words */

struct level_word {
    const char *word;
    int level;
};

/* The hardware levels -bind-to and -map-by both accept (Hydra's and Open
 * MPI's words); -bind-to adds "none", -map-by "slot". */
static const struct level_word level_words[] = {
    {"core", UZ_HWTOPO_CORE}, {"cores", UZ_HWTOPO_CORE},
    {"hwthread", UZ_HWTOPO_HWTHREAD}, {"hwthreads", UZ_HWTOPO_HWTHREAD},
    {"socket", UZ_HWTOPO_SOCKET}, {"sockets", UZ_HWTOPO_SOCKET}, {"package", UZ_HWTOPO_SOCKET},
    {"numa", UZ_HWTOPO_NUMANODE}, {"numanode", UZ_HWTOPO_NUMANODE},
    {"l3cache", UZ_HWTOPO_L3CACHE}, {"l2cache", UZ_HWTOPO_L2CACHE}, {"l1cache", UZ_HWTOPO_L1CACHE},
    {NULL, 0},
};
static const struct level_word bind_only_words[] = { {"none", BIND_NONE}, {NULL, 0} };
static const struct level_word map_only_words[] = { {"slot", MAP_SLOT}, {"slots", MAP_SLOT}, {NULL, 0} };

static int word_find(const struct level_word *words, const char *text, int *out)
{
    for (const struct level_word *w = words; w->word; w++) {
        if (strcasecmp(w->word, text) == 0) {
            *out = w->level;
            return 0;
        }
    }
    return -1;
}

int binding_parse_bind_to(const char *text, int *out)
{
    return word_find(bind_only_words, text, out) == 0 ? 0 : word_find(level_words, text, out);
}

int binding_parse_map_by(const char *text, int *out)
{
    return word_find(map_only_words, text, out) == 0 ? 0 : word_find(level_words, text, out);
}

/* The word for a level in reports and in the proxy's setup. */
const char *binding_level_word(int level)
{
    switch (level) {
    case BIND_NONE: return "none";
    case MAP_SLOT: return "slot";
    case UZ_HWTOPO_CORE: return "core";
    case UZ_HWTOPO_HWTHREAD: return "hwthread";
    case UZ_HWTOPO_SOCKET: return "socket";
    case UZ_HWTOPO_NUMANODE: return "numa";
    case UZ_HWTOPO_L3CACHE: return "l3cache";
    case UZ_HWTOPO_L2CACHE: return "l2cache";
    case UZ_HWTOPO_L1CACHE: return "l1cache";
    }
    return "default";
}

/* -------------------------------------------------------- the objects */

/* The instances of one level that hold at least one CPU mpiexec may use,
 * in CPU order. */
struct objects {
    int n;
    int *instance;      /* [n] */
};

static int objects_list(const struct uz_hwtopo *t, int level, const cpu_set_t *allowed,
                        struct objects *o)
{
    o->n = 0;
    o->instance = malloc((size_t)t->ncpus * sizeof(int));
    if (!o->instance)
        return -1;
    for (int cpu = 0; cpu < t->ncpus; cpu++) {
        int inst = uz_hwtopo_instance(t, level, cpu);
        if (inst < 0 || !CPU_ISSET(cpu, allowed))
            continue;
        int seen = 0;
        for (int i = 0; i < o->n && !seen; i++)
            seen = o->instance[i] == inst;
        if (!seen)
            o->instance[o->n++] = inst;
    }
    return 0;
}

static int first_allowed_cpu(const struct uz_hwtopo *t, int level, int inst, const cpu_set_t *allowed)
{
    for (int cpu = 0; cpu < t->ncpus; cpu++)
        if (uz_hwtopo_instance(t, level, cpu) == inst && CPU_ISSET(cpu, allowed))
            return cpu;
    return -1;
}

/* The object of level `bind` that local rank i takes when ranks go round
 * the objects of level `map`.  A map level with at least as many objects
 * as the bind level is the finer one: rank i takes map object i and is
 * bound to what holds it (-map-by core -bind-to socket fills socket 0
 * first).  A coarser map level deals ranks across its objects, and within
 * one, over the bind objects it holds in turn (-map-by socket -bind-to
 * core: socket 0 core 0, socket 1 core 0, socket 0 core 1, ...). */
static int place_rank(const struct uz_hwtopo *t, const cpu_set_t *allowed, int i, int bind,
                      const struct objects *b, int map, const struct objects *m)
{
    int mo = m->instance[i % m->n];
    if (m->n >= b->n)
        return uz_hwtopo_instance(t, bind, first_allowed_cpu(t, map, mo, allowed));
    int inside = 0, want = i / m->n;
    for (int k = 0; k < b->n; k++) {
        int cpu = first_allowed_cpu(t, bind, b->instance[k], allowed);
        inside += uz_hwtopo_instance(t, map, cpu) == mo;
    }
    want %= inside > 0 ? inside : 1;
    for (int k = 0; k < b->n; k++) {
        int cpu = first_allowed_cpu(t, bind, b->instance[k], allowed);
        if (uz_hwtopo_instance(t, map, cpu) == mo && want-- == 0)
            return b->instance[k];
    }
    return b->instance[i % b->n];   /* not reached: the map object holds a bind object */
}

/* ---------------------------------------------------------- the plan */

static int hwloc_wanted(void)
{
    const char *v = getenv("UZURA_HWLOC");
    if (!v || !*v)
        return 1;
    return !(strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
             strcasecmp(v, "off") == 0);
}

/* A Slurm step that bound its tasks (srun --cpu-bind=...) has bound
 * mpiexec already; by default we leave that alone. */
static const char *slurm_binding(void)
{
    const char *type = getenv("SLURM_CPU_BIND_TYPE");
    if (!getenv("SLURM_JOB_ID") || !type || !*type || strncmp(type, "none", 4) == 0)
        return NULL;
    return type;
}

static void say(const struct job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct job *job, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (job->host)
        fprintf(stderr, "mpiexec on %s: %s\n", job->host, text);
    else
        fprintf(stderr, "mpiexec: %s\n", text);
}

static int count_objects(const struct uz_hwtopo *t, int level, const cpu_set_t *allowed)
{
    struct objects o;
    if (objects_list(t, level, allowed, &o) < 0)
        return 0;
    free(o.instance);
    return o.n;
}

/* Decide the level to bind to (BIND_NONE when not binding) and why. */
static int bind_level_choose(const struct job *job, const struct uz_hwtopo *t, const cpu_set_t *allowed,
                             char *why, size_t len)
{
    const struct mpiexec_options *opt = job->opt;
    if (opt->bind_to != BIND_DEFAULT) {
        snprintf(why, len, "-bind-to %s", binding_level_word(opt->bind_to));
        return opt->bind_to;
    }
    const char *slurm = slurm_binding();
    if (slurm) {
        snprintf(why, len, "not binding by default: Slurm bound this step already "
                 "(SLURM_CPU_BIND_TYPE=%s)", slurm);
        return BIND_NONE;
    }
    if (!t) {
        snprintf(why, len, "not binding by default: the topology is unknown");
        return BIND_NONE;
    }
    int cores = count_objects(t, UZ_HWTOPO_CORE, allowed);
    int level = opt->map_by == UZ_HWTOPO_HWTHREAD ? UZ_HWTOPO_HWTHREAD : UZ_HWTOPO_CORE;
    int objs = level == UZ_HWTOPO_CORE ? cores : count_objects(t, level, allowed);
    const char *word = binding_level_word(level);
    if (job->nranks <= objs) {
        snprintf(why, len, "binding by default: %d %s on this host, %d %s%s available", job->nranks,
                 job->nranks == 1 ? "rank" : "ranks", objs, word, objs == 1 ? "" : "s");
        return level;
    }
    snprintf(why, len, "not binding by default: %d ranks on this host, %d %s%s available "
             "(oversubscribed; -bind-to %s binds anyway)", job->nranks, objs, word,
             objs == 1 ? "" : "s", word);
    return BIND_NONE;
}

void binding_plan_free(struct binding_plan *p)
{
    if (!p)
        return;
    free(p->sets);
    free(p->ordinal);
    free(p);
}

/* Where the default's round-robin starts: at core 0 when the ranks take
 * every core, else at the core mpiexec runs on now.  Two jobs of one rank
 * each (ctest -j2 runs many) then tend to land on different cores rather
 * than both on core 0 with core 1 idle; the scheduler just put mpiexec on a
 * CPU it found free.  Explicit -bind-to always starts at the first object. */
static int default_start(const struct job *job, const struct uz_hwtopo *t, int level,
                         const struct objects *b)
{
    if (job->opt->bind_to != BIND_DEFAULT || job->nranks >= b->n)
        return 0;
    int here = uz_hwtopo_instance(t, level, sched_getcpu());
    for (int k = 0; k < b->n; k++)
        if (b->instance[k] == here)
            return k;
    return 0;
}

/* Fill in each rank's set; -1 (after saying why) when the plan cannot be
 * made, which fails the job. */
static int plan_ranks(struct job *job, const struct uz_hwtopo *t, const cpu_set_t *allowed,
                      struct binding_plan *p)
{
    int map = job->opt->map_by;
    if (map == MAP_DEFAULT || map == MAP_SLOT)
        map = p->level;
    struct objects b, m = {0};
    if (objects_list(t, p->level, allowed, &b) < 0 || objects_list(t, map, allowed, &m) < 0) {
        free(b.instance);
        return -1;
    }
    int err = 0, first = default_start(job, t, p->level, &b);
    if (b.n == 0 || m.n == 0) {
        job_fail(job, EXIT_USAGE, "cannot bind to %s%s%s: the topology (%s) has none among the "
                 "CPUs mpiexec may use", binding_level_word(p->level), map != p->level ? " by " : "",
                 map != p->level ? binding_level_word(map) : "", t->source);
        err = -1;
    }
    for (int i = 0; !err && i < job->nranks; i++) {
        int inst = place_rank(t, allowed, first + i, p->level, &b, map, &m);
        p->ordinal[i] = inst;
        uz_hwtopo_cpus_of(t, p->level, inst, allowed, &p->sets[i]);
    }
    free(b.instance);
    free(m.instance);
    return err;
}

struct binding_plan *binding_plan_make(struct job *job)
{
    const struct mpiexec_options *opt = job->opt;
    struct binding_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->level = BIND_NONE;
    int report = opt->report_bindings || opt->verbose;
    if (sched_getaffinity(0, sizeof p->allowed, &p->allowed) < 0) {
        CPU_ZERO(&p->allowed);
        for (long cpu = 0; cpu < CPU_SETSIZE && cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++)
            CPU_SET((int)cpu, &p->allowed);
    }
    p->allowed_cpus = CPU_COUNT(&p->allowed);
    /* Nothing to read when told not to bind and not asked to tell, nor
     * when the default cannot bind: more ranks than CPUs means more ranks
     * than cores (the common case here, and a cheaper launch). */
    int default_none = opt->bind_to == BIND_DEFAULT &&
                       (job->nranks > p->allowed_cpus || slurm_binding());
    if ((opt->bind_to == BIND_NONE || default_none) && !report)
        return p;
    struct uz_hwtopo topo, *t = NULL;
    if (uz_hwtopo_load(&topo, hwloc_wanted()) == 0)
        t = &topo;
    char why[512], cpus[256];
    p->level = bind_level_choose(job, t, &p->allowed, why, sizeof why);
    if (p->level != BIND_NONE && !t) {
        job_fail(job, EXIT_LAUNCH_FAILED, "cannot bind: neither hwloc nor /sys describes this "
                 "machine's processors");
        binding_plan_free(p);
        return NULL;
    }
    if (report) {
        uz_cpulist_format(&p->allowed, cpus, sizeof cpus);
        int cores = t ? count_objects(t, UZ_HWTOPO_CORE, &p->allowed) : 0;
        char map[64] = "";
        if (p->level != BIND_NONE && opt->map_by != MAP_DEFAULT)
            snprintf(map, sizeof map, ", mapped by %s", binding_level_word(opt->map_by));
        if (!t)
            say(job, "topology: unknown; %s", why);
        else if (t->from_hwloc)
            say(job, "topology from %s; mpiexec may use cpus %s (%d core%s); %s%s", t->source, cpus,
                cores, cores == 1 ? "" : "s", why, map);
        else
            say(job, "topology from /sys, because %s; mpiexec may use cpus %s (%d core%s); %s%s",
                t->why_not_hwloc, cpus, cores, cores == 1 ? "" : "s", why, map);
    }
    if (p->level != BIND_NONE) {
        p->sets = calloc((size_t)job->nranks, sizeof *p->sets);
        p->ordinal = calloc((size_t)job->nranks, sizeof *p->ordinal);
        if (!p->sets || !p->ordinal || plan_ranks(job, t, &p->allowed, p) < 0) {
            if (!job->ending)
                job_fail(job, EXIT_LAUNCH_FAILED, "out of memory planning the binding");
            uz_hwtopo_free(&topo);
            binding_plan_free(p);
            return NULL;
        }
        for (int i = 0; i < job->nranks; i++)
            p->ordinal[i] = uz_hwtopo_ordinal(t, p->level, p->ordinal[i]);
    }
    if (opt->report_bindings)
        for (int i = 0; i < job->nranks; i++)
            binding_report_rank(job, p, i);
    if (t)
        uz_hwtopo_free(&topo);
    return p;
}

void binding_report_rank(const struct job *job, const struct binding_plan *p, int index)
{
    if (p->level == BIND_NONE) {
        fprintf(stderr, "[rank %d] not bound\n", job->ranks[index].rank);
        return;
    }
    char cpus[256];
    uz_cpulist_format(&p->sets[index], cpus, sizeof cpus);
    fprintf(stderr, "[rank %d] bound to %s %d (cpus %s)\n", job->ranks[index].rank,
            binding_level_word(p->level), p->ordinal[index], cpus);
}

/* In the child, before exec: 0 or an errno value. */
int binding_apply(const struct binding_plan *p, int index)
{
    if (!p || p->level == BIND_NONE)
        return 0;
    return sched_setaffinity(0, sizeof p->sets[index], &p->sets[index]) == 0 ? 0 : errno;
}
