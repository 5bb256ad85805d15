/*
 * runtime.c — the process-wide state and the job-wide abort.
 *
 * Ending every rank of the job is the process manager's business, which
 * lives above this layer: MPI_Init hands its abort in through
 * uz_runtime_set_job_abort().  Until then (or without one) an abort ends
 * this process alone, saying so on stderr as the PMI client would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/runtime.h"

struct uz_runtime uz_rt = { .world_size = 1, .thread_level = MPI_THREAD_SINGLE };

/* Cleanup steps that must run even when the job is aborted (shared-memory
 * segments to unlink), registered by the layers that own them. */
enum { MAX_ABORT_HOOKS = 8 };
static void (*abort_hooks[MAX_ABORT_HOOKS])(void);
static int nabort_hooks;
static void (*job_abort)(int exit_code, const char *message);

void uz_runtime_set_job_abort(void (*abort_job)(int exit_code, const char *message))
{
    job_abort = abort_job;
}

void uz_runtime_on_abort(void (*hook)(void))
{
    if (nabort_hooks < MAX_ABORT_HOOKS)
        abort_hooks[nabort_hooks++] = hook;
}

void uz_runtime_abort(int exit_code, const char *message)
{
    for (int i = 0; i < nabort_hooks; i++)
        abort_hooks[i]();
    /* Ask the process manager to end every rank (it, or the PMI client
     * when there is none, prints the message); without one we can only end
     * ourselves. */
    char line[1024];
    snprintf(line, sizeof(line), "rank %d: %s", uz_rt.world_rank, message);
    fflush(stdout);
    if (job_abort)
        job_abort(exit_code, line);
    fprintf(stderr, "uzura: rank %d: aborting with code %d: %s\n", uz_rt.world_rank, exit_code, line);
    fflush(NULL);
    _exit((exit_code & 255) || exit_code == 0 ? exit_code & 255 : 1);
}
