/*
 * profile.h — the traffic profile (UZURA_PROFILE=DIR, `mpiexec --profile`):
 * per MPI procedure the calls, time inside and bytes sent; per destination
 * rank the messages and bytes; a histogram of message sizes.  Each rank
 * writes its counts to DIR/rank-<world rank>.prof when the runtime stops;
 * mpiexec merges them into a report (tools/mpiexec/profile_*.c,
 * docs/profile.md).
 *
 * When the profile is off the hooks cost one load and one predictable
 * branch on uz_profile_on at a procedure's entry, a test of a local at its
 * exit, and one branch per message handed to the request layer: no clock is
 * read and nothing is counted.
 */
#ifndef UZ_BASE_PROFILE_H
#define UZ_BASE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

/* How many procedures can be told apart; the generated entry points number
 * theirs from 0 and check that they fit (tools/gen/gen_c_bindings.py). */
enum { UZ_PROFILE_CALL_SLOTS = 1024 };

/* Set while the runtime runs with UZURA_PROFILE set. */
extern int uz_profile_on;

/* Out of line: the profile is on. */
uint64_t uz_profile_begin(int call);
void uz_profile_end(uint64_t t0, const char *name);
void uz_profile_count_send(int world, size_t bytes, int collective);

/* At a procedure's entry (the generated bindings): returns the start time,
 * or 0 when not profiling or already inside a profiled procedure (an MPI
 * call made from a callback counts toward the outer one). */
static inline uint64_t uz_profile_enter(int call)
{
    if (UZ_LIKELY(!uz_profile_on))
        return 0;
    return uz_profile_begin(call);
}

/* At its exit, with what uz_profile_enter returned and its name. */
static inline void uz_profile_leave(uint64_t t0, const char *name)
{
    if (UZ_UNLIKELY(t0 != 0))
        uz_profile_end(t0, name);
}

/* A message of `bytes` to world rank `world` handed to the request layer;
 * `collective`: on a collective context (collective algorithms, communicator
 * construction) rather than a point-to-point one. */
static inline void uz_profile_send(int world, size_t bytes, int collective)
{
    if (UZ_UNLIKELY(uz_profile_on))
        uz_profile_count_send(world, bytes, collective);
}

/* When the runtime starts (after its own start-up traffic) and stops
 * (before its shutdown traffic): start counting if UZURA_PROFILE names a
 * directory; write this rank's file.  A job started by MPI_Comm_spawn
 * (`spawned_job`: its job id, else NULL) writes into DIR/job-<id>/, so
 * that its ranks do not overwrite the files of the parents' ranks of the
 * same numbers.  A failure to write is reported on stderr and does not
 * fail MPI_Finalize. */
void uz_profile_start(int world_rank, int world_size, const char *spawned_job);
void uz_profile_stop(void);

/* MPI_Pcontrol(level): 0 pauses counting, any other level resumes it (the
 * time paused is left out of the rank's elapsed time).  Nothing when the
 * profile is off. */
void uz_profile_control(int level);

#endif /* UZ_BASE_PROFILE_H */
