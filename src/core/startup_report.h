/*
 * startup_report.h — UZURA_VERBOSE's account of what MPI_Init chose
 * (startup_report.c).
 */
#ifndef UZ_CORE_STARTUP_REPORT_H
#define UZ_CORE_STARTUP_REPORT_H

/* Print the start-up decisions on stderr, if UZURA_VERBOSE asks this rank
 * to (1: world rank 0, 2 and more: every rank).  Call once the
 * communication layers are up. */
void uz_startup_report(void);

#endif /* UZ_CORE_STARTUP_REPORT_H */
