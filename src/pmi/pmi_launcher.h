/*
 * pmi_launcher.h — which process-management protocol the environment of
 * this process asks for, or why none fits.
 */
#ifndef UZ_PMI_LAUNCHER_H
#define UZ_PMI_LAUNCHER_H

#include "pmi/pmi_backend.h"

/* Set *backend from what the launcher left in the environment:
 *
 *   PMI_FD + PMI_JOBID under a Slurm step  PMI-2 (srun --mpi=pmi2)
 *   PMI_FD or PMI_PORT                     PMI-1 (mpiexec, Hydra)
 *   PMIX_NAMESPACE / PMIX_RANK /
 *   PMIX_SERVER_URI*                       PMIx (srun --mpi=pmix, PRRTE)
 *   none of these                          singleton
 *
 * A singleton is refused (-EPROTONOSUPPORT, with a message naming the
 * launcher, what is missing and how to fix it) when the environment shows
 * that a launcher started more than one process: otherwise each would run
 * on alone as "rank 0 of 1", silently wrong.  So is PMIx when this build
 * or this machine lacks it, unless the job is known to have one process. */
int uz_pmi_launcher_choose(const struct uz_pmi_backend **backend);

/* 0 when the PMIx backend can be used here (built with its headers, and
 * libpmix.so.2 loads); otherwise a negative errno with the reason recorded.
 * Defined in pmix_backend.c. */
int uz_pmix_load(void);

#endif /* UZ_PMI_LAUNCHER_H */
