/*
 * p2p_bsend.c — buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Bsend_init) and the
 * buffers they copy into: one per process (MPI_Buffer_attach), one per
 * communicator (MPI_Comm_attach_buffer) and one per session
 * (MPI_Session_attach_buffer, session_buffer.c), or MPI_BUFFER_AUTOMATIC,
 * where the library allocates as needed.  A send uses its communicator's
 * buffer, else that of the session the communicator derives from, else the
 * process's (MPI-4.1 §3.6).
 *
 * A message takes a block of the attached buffer, found first-fit among
 * the gaps between blocks in use; the block is returned when its send
 * completes.  The MPI_BSEND_OVERHEAD each message is charged covers the
 * little bookkeeping kept outside the user's buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/session.h"
#include "datatype/dt_engine.h"
#include "core/p2p_bsend.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/status.h"

struct block {
    size_t offset;
    size_t len;                 /* including MPI_BSEND_OVERHEAD */
};

struct uz_bsend_buffer {
    unsigned char *base;
    size_t size;
    int automatic;
    struct block *blocks;       /* in use, sorted by offset */
    int nblocks, cap;
    int pending;                /* sends still using the buffer */
};

static struct uz_bsend_buffer *process_buffer;

/* Where a send's bytes live until it completes. */
struct bsend_hold {
    struct uz_bsend_buffer *buffer;
    unsigned char *data;
};

static unsigned char *block_alloc(struct uz_bsend_buffer *b, size_t bytes, int *err)
{
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    if (b->automatic) {
        unsigned char *p = malloc(bytes ? bytes : 1);
        if (!p)
            *err = uz_err_make(MPI_ERR_BUFFER, "cannot allocate %zu bytes for a buffered send", bytes);
        return p;
    }
    size_t at = 0;
    int i;
    for (i = 0; i <= b->nblocks; i++) {
        size_t end = i < b->nblocks ? b->blocks[i].offset : b->size;
        if (end >= at && end - at >= need)
            break;
        if (i < b->nblocks)
            at = b->blocks[i].offset + b->blocks[i].len;
    }
    if (i > b->nblocks) {
        size_t used = 0;
        for (int k = 0; k < b->nblocks; k++)
            used += b->blocks[k].len;
        *err = uz_err_make(MPI_ERR_BUFFER, "the attached buffer of %zu bytes has %zu bytes in use; a "
                           "%zu-byte message needs %zu more (message + MPI_BSEND_OVERHEAD)",
                           b->size, used, bytes, need);
        return NULL;
    }
    if (b->nblocks == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        struct block *n = realloc(b->blocks, sizeof(*n) * cap);
        if (!n) {
            *err = uz_err_make(MPI_ERR_NO_MEM, "out of memory tracking buffered sends");
            return NULL;
        }
        b->blocks = n;
        b->cap = cap;
    }
    memmove(&b->blocks[i + 1], &b->blocks[i], sizeof(struct block) * (b->nblocks - i));
    b->blocks[i].offset = at;
    b->blocks[i].len = need;
    b->nblocks++;
    return b->base + at;
}

static void block_free(struct uz_bsend_buffer *b, unsigned char *p)
{
    if (b->automatic) {
        free(p);
        return;
    }
    size_t off = (size_t)(p - b->base);
    for (int i = 0; i < b->nblocks; i++) {
        if (b->blocks[i].offset == off) {
            memmove(&b->blocks[i], &b->blocks[i + 1], sizeof(struct block) * (b->nblocks - i - 1));
            b->nblocks--;
            return;
        }
    }
}

static void send_done(uz_request *inner)
{
    struct bsend_hold *h = inner->hook_arg;
    block_free(h->buffer, h->data);
    h->buffer->pending--;
    free(h);
    inner->hook_arg = NULL;
}

int uz_bsend_start(const void *buf, MPI_Count count, uz_datatype *dt, int dest, int tag, uz_comm *comm,
                   uz_request **out)
{
    struct uz_bsend_buffer *b = comm->bsend;
    if (!b && comm->session)
        b = comm->session->bsend;
    if (!b)
        b = process_buffer;
    if (!b)
        return uz_err_make(MPI_ERR_BUFFER, "buffered send with no buffer attached (MPI_Buffer_attach, "
                           "MPI_Comm_attach_buffer or MPI_Session_attach_buffer)");
    size_t bytes = (size_t)(count * dt->size);
    int err = MPI_SUCCESS;
    struct bsend_hold *h = malloc(sizeof(*h));
    unsigned char *data = h ? block_alloc(b, bytes, &err) : NULL;
    if (!data) {
        free(h);
        return err ? err : uz_err_make(MPI_ERR_NO_MEM, "out of memory for a buffered send");
    }
    uz_dt_pack(buf, count, dt, data);
    uz_request *inner;
    err = uz_pt2pt_send(data, (MPI_Count)bytes, uz_datatype_get(MPI_BYTE), dest, tag, &comm->p2p,
                        UZ_SEND_STANDARD, &inner);
    if (err) {
        block_free(b, data);
        free(h);
        return err;
    }
    h->buffer = b;
    h->data = data;
    b->pending++;
    inner->hook_arg = h;
    if (uz_request_is_complete(inner)) {
        send_done(inner);
        uz_request_release(inner);
    } else {
        inner->on_complete = send_done;
        inner->user_freed = 1;          /* dies when it completes */
    }
    if (out) {
        /* The user's request is complete at once: their buffer is free. */
        uz_request *r = uz_request_new(UZ_REQ_SEND);
        if (!r)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
        r->status.MPI_SOURCE = MPI_ANY_SOURCE;
        r->status.MPI_TAG = MPI_ANY_TAG;
        atomic_store(&r->complete, 1);
        *out = r;
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- attach and detach */

int uz_bsend_attach(struct uz_bsend_buffer **slot, void *buffer, MPI_Count size, const char *what)
{
    if (*slot)
        return uz_err_make(MPI_ERR_BUFFER, "a buffer is already attached to %s", what);
    if (size < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid buffer size %lld", (long long)size);
    struct uz_bsend_buffer *b = calloc(1, sizeof(*b));
    if (!b)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory attaching a buffer");
    b->automatic = buffer == MPI_BUFFER_AUTOMATIC;
    b->base = b->automatic ? NULL : buffer;
    b->size = b->automatic ? 0 : (size_t)size;
    *slot = b;
    return MPI_SUCCESS;
}

static int pending_done(void *arg)
{
    return ((struct uz_bsend_buffer *)arg)->pending == 0;
}

static void drain(struct uz_bsend_buffer *b)
{
    uz_lock();
    uz_progress_wait(pending_done, b);
    uz_unlock();
}

int uz_bsend_detach(struct uz_bsend_buffer **slot, void *buffer_addr, MPI_Count *size, const char *what)
{
    struct uz_bsend_buffer *b = *slot;
    if (!b)
        return uz_err_make(MPI_ERR_BUFFER, "no buffer is attached to %s", what);
    drain(b);
    if (b->automatic)
        *(void **)buffer_addr = MPI_BUFFER_AUTOMATIC;
    else
        *(void **)buffer_addr = b->base;
    *size = (MPI_Count)b->size;
    free(b->blocks);
    free(b);
    *slot = NULL;
    return MPI_SUCCESS;
}

void uz_bsend_buffer_free(struct uz_bsend_buffer **slot)
{
    struct uz_bsend_buffer *b = *slot;
    if (!b)
        return;
    drain(b);
    free(b->blocks);
    free(b);
    *slot = NULL;
}

void uz_bsend_comm_free(uz_comm *comm)
{
    uz_bsend_buffer_free(&comm->bsend);
}

void uz_bsend_flush(struct uz_bsend_buffer *b)
{
    if (b)
        drain(b);
}

int uz_mpi_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return uz_bsend_attach(&process_buffer, buffer, size, "the process");
}

int uz_mpi_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return uz_bsend_detach(&process_buffer, buffer_addr, size, "the process");
}

int uz_mpi_Comm_attach_buffer_c(uz_comm *comm, void *buffer, MPI_Count size)
{
    return uz_bsend_attach(&comm->bsend, buffer, size, "this communicator");
}

int uz_mpi_Comm_detach_buffer_c(uz_comm *comm, void *buffer_addr, MPI_Count *size)
{
    return uz_bsend_detach(&comm->bsend, buffer_addr, size, "this communicator");
}

int uz_mpi_Buffer_flush(void)
{
    if (process_buffer)
        drain(process_buffer);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_flush_buffer(uz_comm *comm)
{
    if (comm->bsend)
        drain(comm->bsend);
    return MPI_SUCCESS;
}

/* An MPI_Buffer_iflush / MPI_Comm_iflush_buffer request completes once the
 * sends that were using the buffer have; it needs no state beyond the
 * buffer, which the program may not detach while the flush is pending. */
static int iflush_poll(uz_request *req)
{
    if (!pending_done(req->ops_state))
        return 0;
    uz_progress_unregister(req);
    uz_request_complete(req);
    return 1;
}

static const struct uz_request_ops iflush_ops = { .poll = iflush_poll };

int uz_bsend_iflush(struct uz_bsend_buffer *b, MPI_Request *request)
{
    uz_lock();
    uz_request *req = uz_request_new(UZ_REQ_OTHER);
    if (!req) {
        uz_unlock();
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a buffer flush");
    }
    uz_status_set_empty(&req->status);
    req->ops = &iflush_ops;
    req->ops_state = b;
    if (!b)
        uz_request_complete(req);
    else if (!iflush_poll(req))
        uz_progress_register(req);
    uz_unlock();
    *request = uz_request_handle(req);
    return MPI_SUCCESS;
}

int uz_mpi_Buffer_iflush(MPI_Request *request)
{
    /* The entry point leaves raising to us (no communicator in sight). */
    int err = uz_bsend_iflush(process_buffer, request);
    return err ? uz_err_raise_comm("MPI_Buffer_iflush", NULL, err) : MPI_SUCCESS;
}

int uz_mpi_Comm_iflush_buffer(uz_comm *comm, MPI_Request *request)
{
    return uz_bsend_iflush(comm->bsend, request);
}

/* ------------------------------------------------------- buffered sends */

int uz_mpi_Bsend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag, uz_comm *comm)
{
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    uz_lock();
    int err = uz_bsend_start(buf, count, datatype, dest, tag, comm, NULL);
    uz_unlock();
    return err;
}

int uz_mpi_Ibsend_c(const void *buf, MPI_Count count, uz_datatype *datatype, int dest, int tag,
                    uz_comm *comm, MPI_Request *request)
{
    uz_request *r;
    int err;
    uz_lock();
    if (dest == MPI_PROC_NULL)
        err = uz_pt2pt_send(buf, 0, datatype, MPI_PROC_NULL, tag, &comm->p2p, UZ_SEND_STANDARD, &r);
    else
        err = uz_bsend_start(buf, count, datatype, dest, tag, comm, &r);
    uz_unlock();
    if (!err)
        *request = uz_request_handle(r);
    return err;
}
