/*
 * self.c — the self transport: messages a process sends to itself.
 *
 * The record is assembled in contiguous memory and handed up at once,
 * inside send(), so the receive side matches it against posted receives
 * or queues it as unexpected before send() returns.  It has no size limit
 * (caps.max_record is SIZE_MAX), so every self message is a single eager
 * record and a standard-mode send to self never blocks; having nothing
 * in flight, it needs no progress().  Put and get are memcpy: the
 * "remote" runs are this process's own memory.
 *
 * Besides being needed, it is the smallest transport there is: one file,
 * one line in transport_list.h (docs/writing-a-transport.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/trace_stages.h"
#include "transport/transport.h"

static const struct uz_upcalls *up;

static int self_open(const struct uz_transport_setup *setup, const struct uz_upcalls *upcalls, char *card,
                     size_t cardlen)
{
    up = upcalls;
    return MPI_SUCCESS;
}

static void self_caps(struct uz_transport_caps *caps)
{
    *caps = (struct uz_transport_caps){ .max_record = SIZE_MAX, .has_put_get = 1 };
}

static void self_close(void)
{
    up = NULL;
}

static int self_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    unsigned char stackbuf[256];
    size_t len = hdr_len + pl->len;
    unsigned char *rec = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
    if (!rec)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory sending %zu bytes to self", pl->len);
    memcpy(rec, hdr, hdr_len);
    /* The payload says how to get its bytes by which of `pack` and
     * `contig` it sets; a NULL `contig` does not mean "packed" (data at
     * address NULL once made this call a NULL packer).  A payload with
     * neither is refused rather than followed. */
    if (pl->len && pl->pack) {
        pl->pack(pl->pack_ctx, rec + hdr_len, pl->len);
    } else if (pl->len && pl->contig) {
        memcpy(rec + hdr_len, pl->contig, pl->len);
    } else if (pl->len) {
        if (rec != stackbuf)
            free(rec);
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %zu bytes to send to self from address NULL",
                           pl->len);
    }
    uz_trace_enqueued();            /* delivered inside send: out and in at once */
    uz_trace_arrived();
    up->on_record(world, rec, len, 0);
    if (rec != stackbuf)
        free(rec);
    return 0;
}

/* Copy between two lists of runs of this process, the same bytes in each. */
static int copy_runs(const struct iovec *to, int nto, const struct iovec *from, int nfrom)
{
    size_t at_to = 0, at_from = 0;
    int i = 0, j = 0;
    while (i < nto && j < nfrom) {
        size_t n = to[i].iov_len - at_to;
        if (n > from[j].iov_len - at_from)
            n = from[j].iov_len - at_from;
        memmove((char *)to[i].iov_base + at_to, (const char *)from[j].iov_base + at_from, n);
        at_to += n;
        at_from += n;
        if (at_to == to[i].iov_len) {
            i++;
            at_to = 0;
        }
        if (at_from == from[j].iov_len) {
            j++;
            at_from = 0;
        }
    }
    for (; i < nto; i++, at_to = 0)
        if (to[i].iov_len > at_to)
            return uz_err_make(MPI_ERR_ARG, "self: put/get runs of different lengths");
    for (; j < nfrom; j++, at_from = 0)
        if (from[j].iov_len > at_from)
            return uz_err_make(MPI_ERR_ARG, "self: put/get runs of different lengths");
    return 0;
}

static int self_put(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                    struct uz_rma_completion *comp)
{
    return copy_runs(remote, nremote, local, nlocal);
}

static int self_get(int world, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                    struct uz_rma_completion *comp)
{
    return copy_runs(local, nlocal, remote, nremote);
}

const struct uz_transport_ops uz_self_transport = {
    .name = "self",
    .reach = UZ_REACH_SELF,
    .open = self_open,
    .caps = self_caps,
    .close = self_close,
    .send = self_send,
    .put = self_put,
    .get = self_get,
};
