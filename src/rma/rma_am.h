/*
 * rma_am.h — one-sided operations carried as messages (active messages),
 * for targets the origin cannot reach by itself: ranks on other hosts, and
 * user memory on this host where cross-memory attach is not usable.
 *
 * The origin sends a request on the window's private communicator: a
 * header, the target datatype in the datatype engine's serialized form,
 * and small data inline; larger data follows as an ordinary message that
 * the target receives straight into its memory with the rebuilt datatype
 * (UZURA §2.1: the layout is interpreted at the target, the origin never
 * packs for it).  The target serves requests from its progress engine (a
 * pollable request registered while the window lives), so an operation
 * completes when the target next calls MPI; docs/one-sided.md says when
 * that matters.  Completion at the target is learnt with a FLUSH request,
 * answered once everything the origin sent before it has been applied.
 */
#ifndef UZ_RMA_RMA_AM_H
#define UZ_RMA_RMA_AM_H

#include "coll/op.h"
#include "pt2pt/request.h"
#include "rma/rma.h"

/* At creation, after the exchange: decide which peers need messages and,
 * if any does (or might reach us that way), start serving; at free, stop. */
int uz_rma_am_open(uz_win *w);
void uz_rma_am_close(uz_win *w);

/* Each operation may hand back in *local (when not NULL) a request whose
 * completion is the operation's local completion, or leave it NULL when
 * the operation is locally complete already. */
int uz_rma_am_put(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype,
                  MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype, uz_request **local);
int uz_rma_am_get(uz_win *w, int target, void *obuf, MPI_Count ocount, uz_datatype *otype, MPI_Aint disp,
                  MPI_Count tcount, uz_datatype *ttype, uz_request **local);
/* Accumulate; with `fetch`, the target's previous data lands in
 * (rbuf, rcount, rtype).  obuf may be NULL for MPI_NO_OP. */
int uz_rma_am_acc(uz_win *w, int target, const void *obuf, MPI_Count ocount, uz_datatype *otype, void *rbuf,
                  MPI_Count rcount, uz_datatype *rtype, MPI_Aint disp, MPI_Count tcount, uz_datatype *ttype,
                  uz_op *op, int fetch, uz_request **local);
int uz_rma_am_cas(uz_win *w, int target, const void *origin, const void *compare, void *result,
                  uz_datatype *dt, MPI_Aint disp, uz_request **local);

/* Passive target. */
int uz_rma_am_lock(uz_win *w, int target, int lock_type);
int uz_rma_am_unlock(uz_win *w, int target, int lock_type);
/* Remote completion of everything issued to `target` (-1: every target). */
int uz_rma_am_flush(uz_win *w, int target);
/* Local completion: origin buffers reusable, results in place. */
int uz_rma_am_flush_local(uz_win *w);

/* Post/start/complete/wait with targets or origins reached by messages. */
int uz_rma_am_post(uz_win *w, int origin);
int uz_rma_am_await_post(uz_win *w, int target);
int uz_rma_am_complete(uz_win *w, int target);
/* Take one origin's completion: blocking, or just try (returns 1 if taken). */
int uz_rma_am_await_complete(uz_win *w, int origin, int blocking, int *taken);

/* The progress thread (async_progress.c), counted by the windows that
 * want it. */
int uz_rma_async_progress_start(void);
void uz_rma_async_progress_stop(void);

#endif /* UZ_RMA_RMA_AM_H */
