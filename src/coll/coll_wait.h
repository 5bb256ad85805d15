/*
 * coll_wait.h — how a rank waits inside a blocking collective.
 */
#ifndef UZ_COLL_COLL_WAIT_H
#define UZ_COLL_COLL_WAIT_H

#include <stdatomic.h>

/* Return once done(arg) holds, driving progress meanwhile.  Called with
 * the request layer's lock held.  When `sleepers` is given it counts this
 * rank while it may be asleep, so that wakers can skip looking at each
 * rank's doorbell when nobody sleeps. */
void uz_coll_wait(int (*done)(void *arg), void *arg, atomic_uint *sleepers);

#endif /* UZ_COLL_COLL_WAIT_H */
