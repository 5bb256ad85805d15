/*
 * recv.h — the receiving side's entry points for the rest of the request
 * layer.
 */
#ifndef UZ_PT2PT_RECV_H
#define UZ_PT2PT_RECV_H

#include "pt2pt/match.h"
#include "pt2pt/request.h"

/* Receive `r` takes message `u`, already off the queues. */
void uz_recv_take(uz_request *r, struct uz_unexpected *u);

void uz_recv_on_bulk_done(void *owner, int error);
int uz_recv_cancel(uz_request *r);

/* Records dropped because they made no sense. */
unsigned long uz_recv_dropped_records(void);

#endif /* UZ_PT2PT_RECV_H */
