/*
 * p2p_partitioned_ready.c — MPI_Pready, MPI_Pready_range, MPI_Pready_list
 * and MPI_Parrived (MPI 4.1 §4.2).
 *
 * Threads of one process mark partitions of one request concurrently
 * (that is what partitioned communication is for), so the part of
 * MPI_Pready that touches the partition alone — claiming its ready flag,
 * packing it when the datatype is not contiguous — runs without the
 * library lock; only starting its message takes the lock, for as long as
 * the request layer needs it.  A partition readied before the pair is
 * bound is sent by the round's poll when the receiver's reply arrives
 * (p2p_partitioned.c).
 */
#include "base/lock.h"
#include "core/comm.h"
#include "core/error_raise.h"
#include "core/p2p_partitioned.h"
#include "datatype/dt_engine.h"

static int raise(const char *fn, uz_request *r, int err)
{
    return uz_err_raise_comm(fn, r ? r->comm : NULL, err);
}

/* The active partitioned send behind `handle`, or an error raised. */
static int active_send(const char *fn, MPI_Request handle, uz_request **rp, struct uz_part **pp)
{
    uz_request *r = handle == MPI_REQUEST_NULL ? NULL : uz_request_get(handle);
    struct uz_part *p = uz_part_of(r);
    if (!r)
        return raise(fn, NULL, uz_err_make(MPI_ERR_REQUEST, "invalid request handle"));
    if (!p || p->is_recv)
        return raise(fn, r, uz_err_make(MPI_ERR_REQUEST, "request is not a partitioned send (MPI_Psend_init)"));
    if (!r->child)
        return raise(fn, r, uz_err_make(MPI_ERR_REQUEST, "partitioned send is not active (MPI_Start it first)"));
    *rp = r;
    *pp = p;
    return MPI_SUCCESS;
}

static int check_partition(const char *fn, uz_request *r, const struct uz_part *p, int i, const char *arg)
{
    if (i >= 0 && i < p->partitions)
        return MPI_SUCCESS;
    return raise(fn, r, uz_err_make(MPI_ERR_ARG, "invalid %s %d: the request has %d partitions", arg, i,
                                    p->partitions));
}

/* Claim partition i for this round and put its bytes where its message
 * reads them; no lock.  The flag says "ready" only once the bytes are in
 * place, because the round's poll may send the partition as soon as it
 * sees that. */
static int claim(const char *fn, uz_request *r, struct uz_part *p, int i)
{
    unsigned char was = UZ_PART_NOT_READY;
    if (!atomic_compare_exchange_strong_explicit(&p->ready[i], &was, UZ_PART_CLAIMED, memory_order_acq_rel,
                                                 memory_order_acquire))
        return raise(fn, r, uz_err_make(MPI_ERR_ARG, "partition %d is already ready in this round", i));
    if (p->staging && p->part_bytes) {
        struct uz_dt_cursor c;
        size_t off = (size_t)i * p->part_bytes;
        uz_dt_cursor_init(&c, r->buf, p->elements, r->datatype);
        uz_dt_cursor_seek(&c, off);
        uz_dt_cursor_pack(&c, p->staging + off, p->part_bytes);
    }
    atomic_store_explicit(&p->ready[i], UZ_PART_READY, memory_order_release);
    return MPI_SUCCESS;
}

/* Start the messages of claimed partitions [lo, hi] or list[0..n). */
static void push(struct uz_part *p, int lo, int hi, const int *list)
{
    uz_lock();
    for (int k = lo; k <= hi; k++)
        uz_part_send_ready(p, list ? list[k] : k);
    /* Before the pair is bound nothing can go; see whether the reply is in. */
    if (!p->bound)
        uz_progress();
    uz_unlock();
}

int uz_mpi_Pready(int partition, MPI_Request request)
{
    uz_request *r;
    struct uz_part *p;
    int err = active_send("MPI_Pready", request, &r, &p);
    if (!err)
        err = check_partition("MPI_Pready", r, p, partition, "partition");
    if (!err)
        err = claim("MPI_Pready", r, p, partition);
    if (!err && p->peer != MPI_PROC_NULL)
        push(p, partition, partition, NULL);
    return err;
}

int uz_mpi_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    static const char fn[] = "MPI_Pready_range";
    uz_request *r;
    struct uz_part *p;
    int err = active_send(fn, request, &r, &p);
    if (!err)
        err = check_partition(fn, r, p, partition_low, "partition_low");
    if (!err)
        err = check_partition(fn, r, p, partition_high, "partition_high");
    if (!err && partition_high < partition_low)
        err = raise(fn, r, uz_err_make(MPI_ERR_ARG, "invalid partition_high %d: below partition_low %d",
                                       partition_high, partition_low));
    int last = partition_low - 1;
    for (int i = partition_low; !err && i <= partition_high; i++) {
        err = claim(fn, r, p, i);
        if (!err)
            last = i;
    }
    if (last >= partition_low && p->peer != MPI_PROC_NULL)
        push(p, partition_low, last, NULL);
    return err;
}

int uz_mpi_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    static const char fn[] = "MPI_Pready_list";
    uz_request *r;
    struct uz_part *p;
    int err = active_send(fn, request, &r, &p);
    if (!err && length < 0)
        err = raise(fn, r, uz_err_make(MPI_ERR_ARG, "invalid length %d", length));
    if (!err && length > 0 && !array_of_partitions)
        err = raise(fn, r, uz_err_make(MPI_ERR_ARG, "array_of_partitions is NULL"));
    for (int k = 0; !err && k < length; k++)
        err = check_partition(fn, r, p, array_of_partitions[k], "array_of_partitions entry");
    int claimed = 0;
    while (!err && claimed < length)
        if (!(err = claim(fn, r, p, array_of_partitions[claimed])))
            claimed++;
    if (claimed > 0 && p->peer != MPI_PROC_NULL)
        push(p, 0, claimed - 1, array_of_partitions);
    return err;
}

int uz_mpi_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char fn[] = "MPI_Parrived";
    /* A null or inactive request has nothing outstanding: flag true (MPI
     * 4.1 §4.2), as MPI_Test says of it. */
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    uz_request *r = uz_request_get(request);
    struct uz_part *p = uz_part_of(r);
    if (!r)
        return raise(fn, NULL, uz_err_make(MPI_ERR_REQUEST, "invalid request handle"));
    if (!p || !p->is_recv)
        return raise(fn, r, uz_err_make(MPI_ERR_REQUEST, "request is not a partitioned receive (MPI_Precv_init)"));
    int err = check_partition(fn, r, p, partition, "partition");
    if (err)
        return err;
    uz_lock();
    int got = !r->child || uz_request_is_complete(r->child) || uz_part_arrived(p, partition);
    if (!got) {
        uz_progress();
        got = uz_request_is_complete(r->child) || uz_part_arrived(p, partition);
    }
    uz_unlock();
    *flag = got;
    return MPI_SUCCESS;
}
