/*
 * file_shared.c — the shared file pointer and the calls that use it:
 * read/write_shared (each rank takes the next piece, first come first
 * served), read/write_ordered (collective, in rank order), seek_shared and
 * get_position_shared.
 *
 * The pointer is eight bytes in a small lock file beside the data file,
 * read and advanced under a POSIX byte-range lock: it needs nothing but the
 * file system the data is on, so ranks on different hosts share it as
 * surely as they share the file (ROMIO keeps its pointer the same way).
 * Rank 0 names the lock file at open; the file is made on first use and
 * removed at close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "coll/coll.h"
#include "io/io.h"

enum { NAME_MAX_LEN = 4096 + 64 };

struct uz_io_shared {
    char *lockpath;
    int fd;                     /* -1 until first use */
    MPI_Offset initial;         /* the pointer before anyone moved it */
};

int uz_io_shared_open(uz_file *f)
{
    struct uz_io_shared *s = calloc(1, sizeof(*s));
    char *name = calloc(1, NAME_MAX_LEN);
    if (!s || !name) {
        free(s);
        free(name);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory opening a file");
    }
    s->fd = -1;
    s->initial = f->pos;
    if (f->comm->rank == 0) {
        /* Beside the file: ".name.uzura-shfp.<pid>.<n>", unique per open. */
        static unsigned opens;
        const char *slash = strrchr(f->path, '/');
        int dirlen = slash ? (int)(slash - f->path + 1) : 0;
        snprintf(name, NAME_MAX_LEN, "%.*s.%s.uzura-shfp.%ld.%u", dirlen, f->path,
                 slash ? slash + 1 : f->path, (long)getpid(), opens++);
    }
    int err = uz_coll_bcast(name, NAME_MAX_LEN, uz_datatype_get(MPI_CHAR), 0, f->comm);
    if (err) {
        free(s);
        free(name);
        return err;
    }
    s->lockpath = name;
    f->shared = s;
    return MPI_SUCCESS;
}

void uz_io_shared_close(uz_file *f)
{
    struct uz_io_shared *s = f->shared;
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    /* Called after the closing barrier: nobody uses it any more. */
    if (f->comm->rank == 0)
        unlink(s->lockpath);
    free(s->lockpath);
    free(s);
    f->shared = NULL;
}

static int lock_file(uz_file *f, short type)
{
    struct uz_io_shared *s = f->shared;
    if (s->fd < 0) {
        s->fd = open(s->lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (s->fd < 0)
            return uz_io_errno(errno, "the shared file pointer's lock file", s->lockpath);
    }
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = sizeof(MPI_Offset) };
    while (fcntl(s->fd, F_SETLKW, &fl) != 0) {
        if (errno != EINTR)
            return uz_io_errno(errno, "locking the shared file pointer in", s->lockpath);
    }
    return MPI_SUCCESS;
}

static void unlock_file(uz_file *f)
{
    struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = sizeof(MPI_Offset) };
    fcntl(f->shared->fd, F_SETLK, &fl);
}

static int read_value(uz_file *f, MPI_Offset *v)
{
    MPI_Offset x;
    ssize_t n;
    do {
        n = pread(f->shared->fd, &x, sizeof(x), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return uz_io_errno(errno, "reading the shared file pointer from", f->shared->lockpath);
    *v = n == (ssize_t)sizeof(x) ? x : f->shared->initial;
    return MPI_SUCCESS;
}

static int write_value(uz_file *f, MPI_Offset v)
{
    ssize_t n;
    do {
        n = pwrite(f->shared->fd, &v, sizeof(v), 0);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(v))
        return uz_io_errno(n < 0 ? errno : ENOSPC, "writing the shared file pointer to", f->shared->lockpath);
    return MPI_SUCCESS;
}

int uz_io_shared_fetch_add(uz_file *f, MPI_Offset etypes, MPI_Offset *old)
{
    int err = lock_file(f, F_WRLCK);
    if (err)
        return err;
    err = read_value(f, old);
    if (!err && etypes)
        err = write_value(f, *old + etypes);
    unlock_file(f);
    return err;
}

int uz_io_shared_get(uz_file *f, MPI_Offset *etypes)
{
    int err = lock_file(f, F_RDLCK);
    if (err)
        return err;
    err = read_value(f, etypes);
    unlock_file(f);
    return err;
}

int uz_io_shared_set(uz_file *f, MPI_Offset etypes)
{
    int err = lock_file(f, F_WRLCK);
    if (err)
        return err;
    err = write_value(f, etypes);
    unlock_file(f);
    return err;
}

/* Collective: the pointer goes back to 0 (a new view). */
int uz_io_shared_reset(uz_file *f)
{
    int err = uz_coll_barrier(f->comm);
    if (err)
        return err;
    int mine = f->comm->rank == 0 ? uz_io_shared_set(f, 0) : MPI_SUCCESS;
    int cls = mine ? uz_err_class(mine) : 0;
    err = uz_coll_bcast(&cls, 1, uz_datatype_get(MPI_INT), 0, f->comm);
    if (err)
        return err;
    if (mine)
        return mine;
    return cls ? uz_err_make(cls, "rank 0 could not reset the shared file pointer") : MPI_SUCCESS;
}

/* --------------------------------------------------------------- access */

/* The stream etypes that (count, dt) takes. */
static int etypes_of(uz_file *f, MPI_Count count, uz_datatype *dt, MPI_Offset *n)
{
    MPI_Count bytes;
    int err = uz_io_stream_bytes(f, count, dt, &bytes);
    if (!err)
        *n = bytes / f->view.etype->size;
    return err;
}

static int shared_access(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, MPI_Status *status,
                         int is_write)
{
    MPI_Offset n, old;
    MPI_Count done = 0;
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = etypes_of(f, count, dt, &n);
    if (!err)
        err = uz_io_shared_fetch_add(f, n, &old);
    if (!err)
        err = uz_io_access(f, old * f->view.etype->size, buf, count, dt, is_write, &done);
    if (!err)
        uz_io_status(status, done);
    return err;
}

int uz_mpi_File_read_shared_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Status *status)
{
    return shared_access(fh, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_shared_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                               MPI_Status *status)
{
    return shared_access(fh, (void *)buf, count, datatype, status, 1);
}

/* Ordered: every rank's piece follows the pieces of the ranks before it;
 * rank 0 moves the pointer once for all, then the data moves collectively. */
static int ordered(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, MPI_Status *status, int is_write)
{
    MPI_Offset n = 0;
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = etypes_of(f, count, dt, &n);
    long long mine = err ? -1 : (long long)n;
    long long *all = malloc(sizeof(long long) * (size_t)f->comm->size);
    if (!all)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    int e = uz_coll_allgather(&mine, 1, uz_datatype_get(MPI_LONG_LONG), all, 1, uz_datatype_get(MPI_LONG_LONG),
                              f->comm);
    long long before = 0, total = 0;
    int bad = 0;
    for (int r = 0; !e && r < f->comm->size; r++) {
        if (all[r] < 0)
            bad = 1;
        if (r < f->comm->rank)
            before += all[r];
        total += all[r];
    }
    free(all);
    if (e)
        return e;
    if (err)
        return err;
    if (bad)
        return uz_err_make(MPI_ERR_OTHER, "another rank's part of the ordered access was invalid");
    /* Rank 0 advances the pointer by everyone's total and tells the rest. */
    long long start[2] = { 0, 0 };
    if (f->comm->rank == 0) {
        MPI_Offset old = 0;
        int e0 = uz_io_shared_fetch_add(f, total, &old);
        start[0] = old;
        start[1] = e0 ? uz_err_class(e0) : 0;
    }
    if ((e = uz_coll_bcast(start, 2, uz_datatype_get(MPI_LONG_LONG), 0, f->comm)))
        return e;
    if (start[1])
        return uz_err_make((int)start[1], "the shared file pointer could not be moved");
    MPI_Count done = 0;
    err = uz_io_access_all(f, (MPI_Offset)(start[0] + before) * f->view.etype->size, buf, count, dt, is_write,
                           &done);
    if (!err)
        uz_io_status(status, done);
    return err;
}

int uz_mpi_File_read_ordered_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype,
                               MPI_Status *status)
{
    return ordered(fh, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_ordered_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                                MPI_Status *status)
{
    return ordered(fh, (void *)buf, count, datatype, status, 1);
}

/* ----------------------------------------------------- split, ordered */

int uz_mpi_File_read_ordered_begin_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 1, buf,
                             ordered(fh, buf, count, datatype, &fh->split.status, 0));
}

int uz_mpi_File_read_ordered_end(uz_file *fh, void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 1, buf, status);
}

int uz_mpi_File_write_ordered_begin_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 2, (void *)buf,
                             ordered(fh, (void *)buf, count, datatype, &fh->split.status, 1));
}

int uz_mpi_File_write_ordered_end(uz_file *fh, const void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 2, buf, status);
}

/* ------------------------------------------------------------- position */

/* A sequential file's shared pointer only moves forward by accesses
 * (ROMIO refuses these two as well). */
static int not_sequential(const uz_file *f, const char *what)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL: its shared "
                           "file pointer cannot be %s", what);
    return MPI_SUCCESS;
}

int uz_mpi_File_seek_shared(uz_file *fh, MPI_Offset offset, int whence)
{
    int serr = not_sequential(fh, "moved");
    if (serr)
        return serr;
    /* Collective: rank 0 moves the pointer, everyone learns the outcome. */
    int err = MPI_SUCCESS;
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        err = uz_err_make(MPI_ERR_ARG, "invalid whence %d", whence);
    int e = uz_coll_barrier(fh->comm);
    if (e)
        return e;
    int cls = 0;
    if (fh->comm->rank == 0 && !err) {
        MPI_Offset base = 0;
        if (whence == MPI_SEEK_CUR)
            err = uz_io_shared_get(fh, &base);
        else if (whence == MPI_SEEK_END)
            err = uz_io_end_etypes(fh, &base);
        if (!err && base + offset < 0)
            err = uz_err_make(MPI_ERR_ARG, "the new shared position %lld would be negative",
                              (long long)(base + offset));
        if (!err)
            err = uz_io_shared_set(fh, base + offset);
        cls = err ? uz_err_class(err) : 0;
    }
    if ((e = uz_coll_bcast(&cls, 1, uz_datatype_get(MPI_INT), 0, fh->comm)))
        return e;
    if (err)
        return err;
    return cls ? uz_err_make(cls, "rank 0 could not move the shared file pointer") : MPI_SUCCESS;
}

int uz_mpi_File_get_position_shared(uz_file *fh, MPI_Offset *offset)
{
    int serr = not_sequential(fh, "queried");
    if (serr)
        return serr;
    return uz_io_shared_get(fh, offset);
}
