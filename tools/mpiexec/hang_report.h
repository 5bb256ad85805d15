/*
 * hang_report.h — the hang diagnosis from the ranks' state pages
 * (hang_report.c); no dependence on the rest of mpiexec, so that a unit
 * test can feed it pages.
 */
#ifndef MPIEXEC_HANG_REPORT_H
#define MPIEXEC_HANG_REPORT_H

#include <stdio.h>

/* What mpiexec itself knows of a rank (flags, or-ed). */
enum {
    HANG_RANK_EXITED = 1,       /* it has ended */
    HANG_RANK_IN_FENCE = 2,     /* it waits in the PMI barrier (MPI_Init, MPI_Finalize) */
    HANG_RANK_FINALIZED = 4,    /* it told the process manager it finalized */
};

/* Print to `out` one line per rank (what it waits in), the collectives
 * some ranks have not entered and the cycles of waits, after a heading
 * that gives `why`.  pages[i]: rank i's page text, NULL when it has none;
 * flags[i] (flags may be NULL): HANG_RANK_*.  Returns how many ranks had
 * a page; with none, nothing is printed (not an Uzura MPI job). */
int hang_report_print(FILE *out, const char *why, int size, const char *const *pages,
                      const int *flags);

#endif /* MPIEXEC_HANG_REPORT_H */
