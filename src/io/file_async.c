/*
 * file_async.c — nonblocking file access: MPI_File_iread/iwrite and their
 * explicit-offset and shared-pointer forms run on an I/O thread, one per
 * process, started on first use, so they progress while the program
 * computes without calling MPI.  The request the program holds is polled
 * by the progress engine (MPI_Wait, MPI_Test) and completes once the
 * thread has finished the access; the thread itself never touches the
 * request layer.
 *
 * The nonblocking collective forms (iread_all, iwrite_at_all, ...) do
 * their work at the call and return a complete request: correct for every
 * program that calls them in the same order on all ranks without waiting
 * on another rank in between (docs/io.md says so).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "io/io.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/request.h"
#include "pt2pt/status.h"

struct job {
    struct job *next;
    uz_file *file;
    MPI_Offset soff;
    void *buf;
    MPI_Count count;
    uz_datatype *dt;            /* retained until the job is freed */
    int is_write;
    int err;
    MPI_Count done;
    atomic_int finished;
    int awake;                  /* holding the rank awake (uz_progress_hold_awake) */
};

/* One thread per process serves every file. */
static struct {
    pthread_mutex_t m;
    pthread_cond_t work, idle;
    struct job *head, *tail;
    int started, stop, busy;
    pthread_t thread;
} io = { .m = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER };

struct uz_io_async {
    int pending;                /* jobs of this file not finished (under io.m) */
};

static void *io_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&io.m);
    for (;;) {
        while (!io.head && !io.stop)
            pthread_cond_wait(&io.work, &io.m);
        if (!io.head)
            break;
        struct job *j = io.head;
        io.head = j->next;
        if (!io.head)
            io.tail = NULL;
        io.busy = 1;
        pthread_mutex_unlock(&io.m);
        j->err = uz_io_access(j->file, j->soff, j->buf, j->count, j->dt, j->is_write, &j->done);
        pthread_mutex_lock(&io.m);
        io.busy = 0;
        j->file->async->pending--;
        atomic_store_explicit(&j->finished, 1, memory_order_release);
        pthread_cond_broadcast(&io.idle);
    }
    pthread_mutex_unlock(&io.m);
    return NULL;
}

static int ensure_thread(void)
{
    if (io.started)
        return MPI_SUCCESS;
    if (pthread_create(&io.thread, NULL, io_main, NULL))
        return uz_err_make(MPI_ERR_OTHER, "could not start the I/O thread for nonblocking file access");
    io.started = 1;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- the request */

static int job_poll(uz_request *r)
{
    struct job *j = r->ops_state;
    if (!atomic_load_explicit(&j->finished, memory_order_acquire))
        return 0;
    if (j->awake) {
        j->awake = 0;
        uz_progress_hold_awake(-1);
    }
    uz_progress_unregister(r);
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->status.MPI_ERROR = j->err;
    uz_status_set_bytes(&r->status, j->err ? 0 : j->done);
    uz_status_set_cancelled(&r->status, 0);
    uz_request_complete(r);
    return 1;
}

static void job_destroy(uz_request *r)
{
    struct job *j = r->ops_state;
    if (j) {
        if (j->awake)
            uz_progress_hold_awake(-1);
        uz_dt_release(j->dt);
        free(j);
    }
}

static const struct uz_request_ops job_ops = { .poll = job_poll, .destroy = job_destroy };

int uz_io_start(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a nonblocking file access");
    j->file = f;
    j->soff = soff;
    j->buf = buf;
    j->count = count;
    j->dt = dt;
    j->is_write = is_write;
    uz_dt_retain(dt);
    pthread_mutex_lock(&io.m);
    int err = ensure_thread();
    if (!err && !f->async && !(f->async = calloc(1, sizeof(*f->async))))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a nonblocking file access");
    if (err) {
        pthread_mutex_unlock(&io.m);
        uz_dt_release(dt);
        free(j);
        return err;
    }
    pthread_mutex_unlock(&io.m);

    uz_lock();
    uz_request *r = uz_request_new(UZ_REQ_OTHER);
    if (!r) {
        uz_unlock();
        uz_dt_release(dt);
        free(j);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
    }
    uz_status_set_empty(&r->status);
    r->ops = &job_ops;
    r->ops_state = j;
    /* MPI_Wait reports a failed access through this communicator, whose
     * handler returns (file_open.c). */
    uz_comm_retain(f->comm);
    r->comm = f->comm;
    j->awake = 1;
    uz_progress_hold_awake(1);
    uz_progress_register(r);
    uz_unlock();

    pthread_mutex_lock(&io.m);
    f->async->pending++;
    if (io.tail)
        io.tail->next = j;
    else
        io.head = j;
    io.tail = j;
    pthread_cond_signal(&io.work);
    pthread_mutex_unlock(&io.m);
    *request = uz_request_handle(r);
    return MPI_SUCCESS;
}

int uz_io_done_request(const MPI_Status *status, MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    uz_lock();
    uz_request *r = uz_request_new(UZ_REQ_OTHER);
    if (!r) {
        uz_unlock();
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a request");
    }
    r->status = *status;
    r->status.MPI_ERROR = MPI_SUCCESS;
    atomic_store_explicit(&r->complete, 1, memory_order_release);
    uz_unlock();
    *request = uz_request_handle(r);
    return MPI_SUCCESS;
}

void uz_io_drain(uz_file *f)
{
    pthread_mutex_lock(&io.m);
    while (f->async && f->async->pending)
        pthread_cond_wait(&io.idle, &io.m);
    pthread_mutex_unlock(&io.m);
}

void uz_io_async_close(uz_file *f)
{
    uz_io_drain(f);
    free(f->async);
    f->async = NULL;
}

/* ---------------------------------------------------------- entry points */

static int start_at(uz_file *f, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                    MPI_Request *request)
{
    MPI_Offset soff;
    MPI_Count bytes;
    *request = MPI_REQUEST_NULL;
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL: only the "
                           "shared file pointer may be used");
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = uz_io_stream_offset(f, offset, &soff);
    if (!err)
        err = uz_io_stream_bytes(f, count, dt, &bytes);
    return err ? err : uz_io_start(f, soff, buf, count, dt, is_write, request);
}

int uz_mpi_File_iread_at_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *datatype,
                           MPI_Request *request)
{
    return start_at(fh, offset, buf, count, datatype, 0, request);
}

int uz_mpi_File_iwrite_at_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            uz_datatype *datatype, MPI_Request *request)
{
    return start_at(fh, offset, (void *)buf, count, datatype, 1, request);
}

/* The individual pointer moves at the call by what was asked for
 * (MPI-4.1 §14.4.3). */
static int start_individual(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                            MPI_Request *request)
{
    MPI_Count bytes = 0;
    int err = uz_io_stream_bytes(f, count, dt, &bytes);
    if (!err)
        err = start_at(f, f->pos, buf, count, dt, is_write, request);
    if (!err)
        f->pos += bytes / f->view.etype->size;
    return err;
}

int uz_mpi_File_iread_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Request *request)
{
    return start_individual(fh, buf, count, datatype, 0, request);
}

int uz_mpi_File_iwrite_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                         MPI_Request *request)
{
    return start_individual(fh, (void *)buf, count, datatype, 1, request);
}

static int start_shared(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                        MPI_Request *request)
{
    MPI_Count bytes = 0;
    MPI_Offset old;
    *request = MPI_REQUEST_NULL;
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = uz_io_stream_bytes(f, count, dt, &bytes);
    if (!err)
        err = uz_io_shared_fetch_add(f, bytes / f->view.etype->size, &old);
    return err ? err : uz_io_start(f, old * f->view.etype->size, buf, count, dt, is_write, request);
}

int uz_mpi_File_iread_shared_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype,
                               MPI_Request *request)
{
    return start_shared(fh, buf, count, datatype, 0, request);
}

int uz_mpi_File_iwrite_shared_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                                MPI_Request *request)
{
    return start_shared(fh, (void *)buf, count, datatype, 1, request);
}

/* Collective: done now, complete request. */
static int coll_now(int err, const MPI_Status *st, MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    return err ? err : uz_io_done_request(st, request);
}

int uz_mpi_File_iread_all_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Request *request)
{
    MPI_Status st;
    return coll_now(uz_mpi_File_read_all_c(fh, buf, count, datatype, &st), &st, request);
}

int uz_mpi_File_iwrite_all_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                             MPI_Request *request)
{
    MPI_Status st;
    return coll_now(uz_mpi_File_write_all_c(fh, buf, count, datatype, &st), &st, request);
}

int uz_mpi_File_iread_at_all_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *datatype,
                               MPI_Request *request)
{
    MPI_Status st;
    return coll_now(uz_mpi_File_read_at_all_c(fh, offset, buf, count, datatype, &st), &st, request);
}

int uz_mpi_File_iwrite_at_all_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                uz_datatype *datatype, MPI_Request *request)
{
    MPI_Status st;
    return coll_now(uz_mpi_File_write_at_all_c(fh, offset, buf, count, datatype, &st), &st, request);
}
