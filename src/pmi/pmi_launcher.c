/*
 * pmi_launcher.c — reading the launcher's traces in the environment (see
 * pmi_launcher.h).
 *
 * A launcher that gives its processes no usable process manager is the
 * dangerous case: `srun --mpi=none -n 4` or an mpirun whose PMIx we cannot
 * speak would start four singletons that each believe they are the whole
 * job, compute, and print plausible nonsense.  So before falling back to a
 * singleton, every variable a launcher is known to set is consulted for the
 * size of the job; more than one process without a server is an error.
 */
#include "pmi/pmi_launcher.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* A positive whole number from the environment, or 0 when unset or not one. */
static long env_count(const char *name)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return 0;
    char *end;
    long v = strtol(text, &end, 10);
    return *end || v < 0 || v > INT_MAX ? 0 : v;
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *text = getenv(name);
    return text && *text ? text : fallback;
}

static int env_prefix_set(const char *prefix)
{
    size_t n = strlen(prefix);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, prefix, n) == 0)
            return 1;
    return 0;
}

/* The environment of a Slurm step (srun), as opposed to a batch script or
 * salloc shell, which also carry SLURM_JOB_ID but are one process. */
static int slurm_step(void)
{
    return getenv("SLURM_STEP_ID") || getenv("SLURM_STEPID");
}

static long slurm_step_tasks(void)
{
    long n = env_count("SLURM_STEP_NUM_TASKS");
    return n ? n : env_count("SLURM_NTASKS");
}

static int pmix_named(void)
{
    return getenv("PMIX_NAMESPACE") || getenv("PMIX_RANK") || env_prefix_set("PMIX_SERVER_URI");
}

/* How many processes the launcher says the job has, 0 when none says. */
static long launcher_job_size(void)
{
    long n;
    if (slurm_step() && (n = slurm_step_tasks()))
        return n;
    if ((n = env_count("OMPI_COMM_WORLD_SIZE")) || (n = env_count("PMI_SIZE")))
        return n;
    return 0;
}

static int refuse_slurm(void)
{
    return uz_pmi_fail(-EPROTONOSUPPORT,
                       "PMI: launched by Slurm (job %s step %s, task %s of %ld) with "
                       "--mpi=none: srun gave the tasks no PMI server, so each would run "
                       "alone as rank 0 of 1; use srun --mpi=pmi2 or srun --mpi=pmix "
                       "(or MpiDefault=pmi2 in slurm.conf; srun --mpi=list shows the choices)",
                       env_or("SLURM_JOB_ID", "?"), env_or("SLURM_STEP_ID",
                       env_or("SLURM_STEPID", "?")), env_or("SLURM_PROCID", "?"),
                       slurm_step_tasks());
}

static int refuse_other(long size)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || env_prefix_set("PRTE_"))
        return uz_pmi_fail(-EPROTONOSUPPORT,
                           "PMI: launched by Open MPI's mpirun/PRRTE (OMPI_COMM_WORLD_SIZE=%ld) "
                           "but no PMIx server is named (PMIX_NAMESPACE, PMIX_SERVER_URI* "
                           "unset), so each process would run alone as rank 0 of 1; run "
                           "under Open MPI 5's mpirun/prterun, srun --mpi=pmi2, or Uzura's "
                           "mpiexec", size);
    return uz_pmi_fail(-EPROTONOSUPPORT,
                       "PMI: PMI_SIZE=%ld but neither PMI_FD nor PMI_PORT names the PMI "
                       "server, so each process would run alone as rank 0 of 1; start "
                       "the job with a launcher that serves PMI (Uzura's mpiexec, "
                       "Hydra, srun --mpi=pmi2)", size);
}

/* PMIx is named but cannot be used: fine for a job of one, else an error
 * that keeps uz_pmix_load's reason and adds the way out. */
static int pmix_unusable(const struct uz_pmi_backend **backend)
{
    long size = launcher_job_size();
    if (size == 1) {
        *backend = &uz_singleton_backend;
        return 0;
    }
    char why[400];
    strncpy(why, uz_pmi_last_error(), sizeof why - 1);
    why[sizeof why - 1] = '\0';
    return uz_pmi_fail(-EPROTONOSUPPORT,
                       "PMI: launched by a PMIx server (PMIX_NAMESPACE=%s) that this process "
                       "cannot use: %s; without it each process would run alone as rank 0 "
                       "of 1 (under Slurm, srun --mpi=pmi2 needs no library)",
                       env_or("PMIX_NAMESPACE", "?"), why);
}

int uz_pmi_launcher_choose(const struct uz_pmi_backend **backend)
{
    if (getenv("PMI_FD")) {
        /* Slurm's pmi2 plugin sets PMI_JOBID; Hydra and Uzura's mpiexec do not. */
        *backend = getenv("PMI_JOBID") && slurm_step() ? &uz_pmi2_backend : &uz_pmi1_backend;
        return 0;
    }
    if (getenv("PMI_PORT")) {
        *backend = &uz_pmi1_backend;
        return 0;
    }
    if (pmix_named()) {
        *backend = &uz_pmix_backend;
        return uz_pmix_load() ? pmix_unusable(backend) : 0;
    }
    if (slurm_step() && slurm_step_tasks() > 1)
        return refuse_slurm();
    long size = launcher_job_size();
    if (size > 1)
        return refuse_other(size);
    *backend = &uz_singleton_backend;
    return 0;
}

int uz_pmi_env_rank(void)
{
    static const char *const names[] = {"PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
                                        "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *text = getenv(names[i]);
        char *end;
        long v = text && *text ? strtol(text, &end, 10) : -1;
        if (text && *text && !*end && v >= 0 && v <= INT_MAX)
            return (int)v;
    }
    return -1;
}
