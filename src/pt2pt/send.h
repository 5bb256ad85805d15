/*
 * send.h — the sending side's entry points for the rest of the request
 * layer (answers from receivers, progress, control records).
 */
#ifndef UZ_PT2PT_SEND_H
#define UZ_PT2PT_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "pt2pt/request.h"

/* Send a small control record (ACK, CTS, ...) to a world rank, now or
 * queued in order behind earlier records. */
int uz_send_control(int world, const void *rec, size_t len);

/* Point the request at its buffer (contiguous start or a cursor). */
int uz_request_set_buffer(uz_request *r, void *buf, MPI_Count count, uz_datatype *dt);

/* Retry queued records; returns how many peers made headway. */
int uz_send_flush(void);
/* Peers with records still queued. */
extern int uz_send_flush_count;
static inline int uz_send_pending(void)
{
    return uz_send_flush_count;
}

/* DATA records network transports send straight from user buffers, not yet
 * acknowledged: MPI_Finalize waits for them like for queued records. */
extern long uz_send_held;

void uz_send_on_ack(uint64_t cookie);
void uz_send_on_cts(uint64_t send_cookie, uint64_t recv_cookie, uint64_t bytes);
void uz_send_on_bulk_done(void *owner, int error);
void uz_send_on_cancel_reply(uint64_t cookie, int cancelled);

int uz_send_cancel(uz_request *r);

#endif /* UZ_PT2PT_SEND_H */
