/*
 * runtime_start.h — the runtime that the World model (MPI_Init) and the
 * Sessions model (MPI_Session_init) share, started by the first of them and
 * torn down when the last has finalized (runtime_start.c).
 */
#ifndef UZ_CORE_RUNTIME_START_H
#define UZ_CORE_RUNTIME_START_H

/* Count one more user of the runtime (the World model, or one session),
 * starting the runtime when it is not running.  The thread level the
 * runtime provides is raised to `thread_level` if it is lower (it is never
 * lowered while the runtime runs).  MPI_SUCCESS or an error code with its
 * message; a failed start leaves the user uncounted. */
int uz_runtime_acquire(int thread_level);

/* One user less; the last one tears the runtime down, which is collective
 * over the job (every process must finalize its last user alike). */
int uz_runtime_release(void);

/* How many times the runtime has started in this process (1 during the
 * first run): names the generation in keys and shared-memory names. */
unsigned uz_runtime_generation(void);

#endif /* UZ_CORE_RUNTIME_START_H */
