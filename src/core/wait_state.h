/*
 * wait_state.h — this rank's state page for mpiexec's hang diagnosis
 * (wait_state.c).
 */
#ifndef UZ_CORE_WAIT_STATE_H
#define UZ_CORE_WAIT_STATE_H

/* At each start of the runtime: map the page (once per process, only
 * under Uzura's mpiexec) and let waits publish into it. */
void uz_wait_state_open(void);

#endif /* UZ_CORE_WAIT_STATE_H */
