/*
 * file_access.c — independent data access: a rank's data, converted to the
 * file's representation, moved to or from the file runs of its view
 * (file_view.c), and the calls that take an explicit offset or the
 * individual file pointer.
 *
 * Runs that are long or alone go straight to pread/pwrite.  Runs that are
 * short and close together go through a sieve buffer (ROMIO's data
 * sieving): one read of the extent that covers them, then the copies, then
 * for a write one write of the whole extent back; the extent is locked
 * with a POSIX byte-range lock while it is read, modified and written, so
 * that the holes it rewrites cannot lose another rank's data.  In atomic
 * mode the whole access is locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "io/io.h"
#include "pt2pt/status.h"

enum {
    STAGE = 4 << 20,            /* bytes converted or packed at a time */
    RUN_BATCH = 256,            /* file runs asked of the view at a time */
};

/* ------------------------------------------------------------ the system */

/* Write all of [buf, buf+len) at off, or an MPI error. */
static int pwrite_all(uz_file *f, const char *buf, size_t len, MPI_Offset off)
{
    while (len) {
        ssize_t n = pwrite(f->fd, buf, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return uz_io_errno(errno, "write", f->path);
        if (n == 0)
            return uz_io_errno(ENOSPC, "write", f->path);
        buf += n;
        len -= (size_t)n;
        off += n;
    }
    return MPI_SUCCESS;
}

/* Read up to len bytes at off; *got less than len only at the end of file. */
static int pread_all(uz_file *f, char *buf, size_t len, MPI_Offset off, size_t *got)
{
    *got = 0;
    while (len) {
        ssize_t n = pread(f->fd, buf, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return uz_io_errno(errno, "read", f->path);
        if (n == 0)
            break;
        buf += n;
        len -= (size_t)n;
        off += n;
        *got += (size_t)n;
    }
    return MPI_SUCCESS;
}

/* A POSIX byte-range lock on [lo, hi) (type F_WRLCK, F_RDLCK or F_UNLCK). */
static int range_lock(uz_file *f, MPI_Offset lo, MPI_Offset hi, short type)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = lo, .l_len = hi - lo };
    if (hi <= lo)
        return MPI_SUCCESS;
    while (fcntl(f->fd, F_SETLKW, &fl) != 0) {
        if (errno == EINTR)
            continue;
        /* A file system without locks: say so, do not pretend. */
        return uz_io_errno(errno, type == F_UNLCK ? "unlock" : "byte-range lock", f->path);
    }
    return MPI_SUCCESS;
}

/* --------------------------------------------------- the file side: runs */

/* Sieving: worth it when the runs are shorter than this on average and
 * several fit in one buffer.  A sieve moves the holes too (P times the
 * data for P ranks' interleaved blocks), so from a page or two per run one
 * system call per run is faster (bench/io_bench read_strided and
 * write_strided, docs/performance.md); a write sieves up to longer runs,
 * since each direct write of a short run also dirties a whole page. */
enum { SIEVE_READ_RUN_MAX = 4096, SIEVE_WRITE_RUN_MAX = 8192 };

struct window {
    MPI_Offset lo, hi;          /* file extent covered */
    int first, n;               /* runs [first, first+n) of the batch */
};

/* Move the stream bytes `data` to (is_write) or from the runs of one
 * window: straight when alone or long, through a sieve buffer otherwise.
 * *got: stream bytes read before the end of the file (reads). */
static int move_window(uz_file *f, const struct iovec *runs, const struct window *w, char *data, int is_write,
                       char **sieve, size_t *sieve_size, size_t *got, int locked)
{
    size_t bytes = 0;
    for (int i = 0; i < w->n; i++)
        bytes += runs[w->first + i].iov_len;
    enum uz_io_switch ds = is_write ? f->hints.ds_write : f->hints.ds_read;
    size_t limit = is_write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    int sieve_it = w->n > 1 && ds != UZ_IO_DISABLE && (size_t)(w->hi - w->lo) <= limit &&
                   bytes / (size_t)w->n < (size_t)(is_write ? SIEVE_WRITE_RUN_MAX : SIEVE_READ_RUN_MAX);
    *got = 0;
    if (!sieve_it) {
        for (int i = 0; i < w->n; i++) {
            const struct iovec *r = &runs[w->first + i];
            MPI_Offset off = (MPI_Offset)(uintptr_t)r->iov_base;
            int err;
            if (is_write) {
                err = pwrite_all(f, data, r->iov_len, off);
            } else {
                size_t n;
                err = pread_all(f, data, r->iov_len, off, &n);
                *got += n;
                if (!err && n < r->iov_len)
                    return MPI_SUCCESS;         /* end of file */
            }
            if (err)
                return err;
            data += r->iov_len;
        }
        if (is_write)
            *got = bytes;
        return MPI_SUCCESS;
    }
    size_t ext = (size_t)(w->hi - w->lo);
    if (*sieve_size < ext) {
        char *p = realloc(*sieve, ext);
        if (!p)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory for a sieve buffer of %zu bytes", ext);
        *sieve = p;
        *sieve_size = ext;
    }
    /* A write rewrites the holes too: nobody may write them meanwhile. */
    int err = is_write && !locked ? range_lock(f, w->lo, w->hi, F_WRLCK) : MPI_SUCCESS;
    size_t have = 0;
    if (!err)
        err = pread_all(f, *sieve, ext, w->lo, &have);
    if (!err && is_write) {
        /* Past the end of the file the holes read as zeros. */
        if (have < ext)
            memset(*sieve + have, 0, ext - have);
        for (int i = 0; i < w->n; i++) {
            const struct iovec *r = &runs[w->first + i];
            memcpy(*sieve + ((MPI_Offset)(uintptr_t)r->iov_base - w->lo), data, r->iov_len);
            data += r->iov_len;
        }
        /* Do not extend the file beyond the last run written. */
        err = pwrite_all(f, *sieve, ext, w->lo);
        *got = bytes;
    } else if (!err) {
        for (int i = 0; i < w->n; i++) {
            const struct iovec *r = &runs[w->first + i];
            size_t at = (size_t)((MPI_Offset)(uintptr_t)r->iov_base - w->lo);
            size_t n = at >= have ? 0 : have - at < r->iov_len ? have - at : r->iov_len;
            memcpy(data, *sieve + at, n);
            data += n;
            *got += n;
            if (n < r->iov_len)
                break;                          /* end of file */
        }
    }
    if (is_write && !locked) {
        int e2 = range_lock(f, w->lo, w->hi, F_UNLCK);
        if (!err)
            err = e2;
    }
    return err;
}

/* Move `len` stream bytes starting at stream offset `soff` between `data`
 * and the file.  *moved: the bytes moved (short only for a read at the end
 * of the file). */
static int file_move(uz_file *f, MPI_Offset soff, char *data, size_t len, int is_write, size_t *moved,
                     int locked)
{
    struct uz_io_runs it;
    struct iovec runs[RUN_BATCH];
    char *sieve = NULL;
    size_t sieve_size = 0;
    int err = MPI_SUCCESS, n;
    *moved = 0;
    uz_io_runs_init(&it, &f->view, soff, len);
    size_t limit = is_write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    while (!err && (n = uz_io_runs_next(&it, runs, RUN_BATCH)) > 0) {
        /* Cut the batch into windows that a sieve buffer covers. */
        for (int i = 0; i < n && !err;) {
            struct window w = { (MPI_Offset)(uintptr_t)runs[i].iov_base, 0, i, 0 };
            w.hi = w.lo + (MPI_Offset)runs[i].iov_len;
            w.n = 1;
            while (i + w.n < n) {
                const struct iovec *r = &runs[i + w.n];
                MPI_Offset end = (MPI_Offset)(uintptr_t)r->iov_base + (MPI_Offset)r->iov_len;
                if ((MPI_Offset)(uintptr_t)r->iov_base < w.hi || (size_t)(end - w.lo) > limit)
                    break;
                w.hi = end;
                w.n++;
            }
            size_t got, want = 0;
            for (int k = 0; k < w.n; k++)
                want += runs[i + k].iov_len;
            err = move_window(f, runs, &w, data, is_write, &sieve, &sieve_size, &got, locked);
            *moved += got;
            data += got;
            if (!err && got < want) {
                free(sieve);
                return MPI_SUCCESS;             /* end of file */
            }
            i += w.n;
        }
    }
    free(sieve);
    return err;
}

/* ------------------------------------------------- the memory side: data */

/* Fill `stage` with stream bytes [s, s+n) of (buf, count, dt) converted to
 * the file's representation; n is a whole number of dt elements for the
 * converting representations. */
static int to_stream(uz_file *f, const void *buf, MPI_Count count, uz_datatype *dt, struct uz_dt_cursor *mem,
                     char *stage, MPI_Count s, size_t n, MPI_Count esize)
{
    switch (f->view.rep) {
    case UZ_IO_EXTERNAL32:
        uz_dt_ext32_pack((const char *)buf + (s / esize) * dt->extent, (MPI_Count)n / esize, dt, stage);
        return MPI_SUCCESS;
    case UZ_IO_USER: {
        const struct uz_io_datarep *d = f->view.user;
        MPI_Datatype h = uz_datatype_handle(dt);
        int rc = d->write_fn_c ? d->write_fn_c((void *)buf, h, (MPI_Count)n / esize, stage, s / esize,
                                               d->extra_state)
                 : d->write_fn ? d->write_fn((void *)buf, h, (int)((MPI_Count)n / esize), stage,
                                             (MPI_Offset)(s / esize), d->extra_state)
                               : MPI_SUCCESS;
        if (!d->write_fn && !d->write_fn_c)
            uz_dt_pack((const char *)buf + (s / esize) * dt->extent, (MPI_Count)n / esize, dt, stage);
        return rc ? uz_err_make(MPI_ERR_CONVERSION, "the write conversion of \"%s\" returned %d", d->name, rc)
                  : MPI_SUCCESS;
    }
    default:
        (void)count;
        uz_dt_cursor_pack(mem, stage, n);
        return MPI_SUCCESS;
    }
}

/* The inverse: `n` stream bytes in `stage` (stream offset s) into memory. */
static int from_stream(uz_file *f, void *buf, uz_datatype *dt, struct uz_dt_cursor *mem, const char *stage,
                       MPI_Count s, size_t n, MPI_Count esize)
{
    switch (f->view.rep) {
    case UZ_IO_EXTERNAL32:
        uz_dt_ext32_unpack((char *)buf + (s / esize) * dt->extent, (MPI_Count)n / esize, dt, stage);
        return MPI_SUCCESS;
    case UZ_IO_USER: {
        const struct uz_io_datarep *d = f->view.user;
        MPI_Datatype h = uz_datatype_handle(dt);
        if (!d->read_fn && !d->read_fn_c) {
            uz_dt_unpack((char *)buf + (s / esize) * dt->extent, (MPI_Count)n / esize, dt, stage, n);
            return MPI_SUCCESS;
        }
        int rc = d->read_fn_c ? d->read_fn_c(buf, h, (MPI_Count)n / esize, (void *)stage, s / esize,
                                             d->extra_state)
                              : d->read_fn(buf, h, (int)((MPI_Count)n / esize), (void *)stage,
                                           (MPI_Offset)(s / esize), d->extra_state);
        return rc ? uz_err_make(MPI_ERR_CONVERSION, "the read conversion of \"%s\" returned %d", d->name, rc)
                  : MPI_SUCCESS;
    }
    default:
        uz_dt_cursor_unpack(mem, stage, n);
        return MPI_SUCCESS;
    }
}

/* The file extent [lo, hi) that stream bytes [soff, soff+len) touch
 * (filetypes are monotonic: MPI-4.1 §14.3). */
static void access_extent(const uz_file *f, MPI_Offset soff, MPI_Count len, MPI_Offset *lo, MPI_Offset *hi)
{
    *lo = uz_io_view_file_offset(&f->view, soff);
    *hi = uz_io_view_file_offset(&f->view, soff + len - 1) + 1;
}

static int access_locked(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt,
                         int is_write, MPI_Count *done)
{
    MPI_Count total;
    *done = 0;
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = uz_io_stream_bytes(f, count, dt, &total);
    if (err || total == 0)
        return err;
    MPI_Offset lo = 0, hi = 0;
    if (f->atomic) {
        access_extent(f, soff, total, &lo, &hi);
        if ((err = range_lock(f, lo, hi, is_write ? F_WRLCK : F_RDLCK)))
            return err;
    }
    int native = f->view.rep == UZ_IO_NATIVE || f->view.rep == UZ_IO_INTERNAL;
    size_t moved = 0;
    if (native && uz_dt_is_contig(dt, count)) {
        /* The stream is the user's buffer. */
        err = file_move(f, soff, (char *)buf + dt->true_lb, (size_t)total, is_write, &moved, f->atomic);
        *done = (MPI_Count)moved;
    } else {
        /* Through a staging buffer, converted or packed a piece at a time:
         * whole elements of dt when converting. */
        MPI_Count esize = 1;
        if (!native && (err = uz_io_rep_size(&f->view, dt, 1, &esize)) == MPI_SUCCESS && esize == 0)
            esize = 1;
        size_t piece = native ? STAGE : (size_t)(esize > STAGE ? esize : (STAGE / esize) * esize);
        char *stage = err ? NULL : malloc(piece < (size_t)total ? piece : (size_t)total);
        if (!err && !stage)
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for a staging buffer");
        struct uz_dt_cursor mem;
        if (native)
            uz_dt_cursor_init(&mem, buf, count, dt);
        for (MPI_Count s = 0; !err && s < total;) {
            size_t n = (size_t)(total - s) < piece ? (size_t)(total - s) : piece;
            if (is_write) {
                err = to_stream(f, buf, count, dt, &mem, stage, s, n, esize);
                if (!err)
                    err = file_move(f, soff + s, stage, n, 1, &moved, f->atomic);
            } else {
                err = file_move(f, soff + s, stage, n, 0, &moved, f->atomic);
                size_t whole = native ? moved : moved / (size_t)esize * (size_t)esize;
                if (!err && whole)
                    err = from_stream(f, buf, dt, &mem, stage, s, whole, esize);
                if (!err && moved < n) {
                    s += (MPI_Count)whole;
                    break;
                }
            }
            if (!err)
                s += (MPI_Count)n;
            *done = s;
        }
        if (!err && !native && *done) {
            /* In the user's terms: elements of dt times their size. */
            *done = *done / esize * dt->size;
        }
        free(stage);
    }
    if (f->atomic) {
        int e2 = range_lock(f, lo, hi, F_UNLCK);
        if (!err)
            err = e2;
    }
    return err;
}

/* Accesses of one file from this process go one at a time: the I/O
 * thread's and the program's threads', whose byte-range locks (per
 * process) would not keep them apart. */
int uz_io_access(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                 MPI_Count *done)
{
    pthread_mutex_lock(&f->lock);
    int err = access_locked(f, soff, buf, count, dt, is_write, done);
    pthread_mutex_unlock(&f->lock);
    return err;
}

void uz_io_advance(uz_file *f, const uz_datatype *dt, MPI_Count done)
{
    /* The pointer counts stream etypes: the user's bytes in the file's
     * representation (a partial element at the end of the file is native
     * bytes). */
    MPI_Count elems = dt->size ? done / dt->size : 0, sbytes = 0;
    uz_io_rep_size(&f->view, dt, elems, &sbytes);
    if (dt->size)
        sbytes += done % dt->size;
    f->pos += sbytes / f->view.etype->size;
}

void uz_io_status(MPI_Status *status, MPI_Count bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    uz_status_set_bytes(status, bytes);
    uz_status_set_cancelled(status, 0);
}

/* ----------------------------------------------------------- positioning */

/* Explicit offsets are not allowed on a sequential file (MPI-4.1 §14.4.2). */
static int not_sequential(const uz_file *f)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL: only the "
                           "shared file pointer may be used");
    return MPI_SUCCESS;
}

static int at(uz_file *f, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *dt, MPI_Status *status,
              int is_write)
{
    MPI_Offset soff;
    MPI_Count done = 0;
    int err = not_sequential(f);
    if (!err)
        err = uz_io_stream_offset(f, offset, &soff);
    if (!err)
        err = uz_io_access(f, soff, buf, count, dt, is_write, &done);
    if (!err)
        uz_io_status(status, done);
    return err;
}

/* Through the individual pointer, which moves by what was accessed (in
 * etypes of the stream). */
static int individual(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, MPI_Status *status,
                      int is_write)
{
    MPI_Offset soff;
    MPI_Count done = 0;
    int err = not_sequential(f);
    if (!err)
        err = uz_io_stream_offset(f, f->pos, &soff);
    if (!err)
        err = uz_io_access(f, soff, buf, count, dt, is_write, &done);
    if (!err) {
        uz_io_advance(f, dt, done);
        uz_io_status(status, done);
    }
    return err;
}

int uz_mpi_File_read_at_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *datatype,
                          MPI_Status *status)
{
    return at(fh, offset, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_at_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                           uz_datatype *datatype, MPI_Status *status)
{
    return at(fh, offset, (void *)buf, count, datatype, status, 1);
}

int uz_mpi_File_read_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Status *status)
{
    return individual(fh, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype, MPI_Status *status)
{
    return individual(fh, (void *)buf, count, datatype, status, 1);
}

/* The end of the file in etypes of the view: the first stream offset
 * whose byte lies at or past the end. */
int uz_io_end_etypes(uz_file *f, MPI_Offset *etypes)
{
    MPI_Offset size;
    int err = uz_mpi_File_get_size(f, &size);
    if (err)
        return err;
    const struct uz_io_view *v = &f->view;
    MPI_Offset esize = v->etype->size;
    if (size <= v->disp) {
        *etypes = 0;
        return MPI_SUCCESS;
    }
    if (v->contiguous) {
        *etypes = (size - v->disp + esize - 1) / esize;
        return MPI_SUCCESS;
    }
    /* Whole tiles before the end, then the data bytes of the last tile
     * that lie before it. */
    MPI_Offset ext = v->filetype->extent, tiles = (size - v->disp) / ext;
    MPI_Offset s = tiles * v->filetype->size;
    struct uz_io_runs r;
    struct iovec iov[RUN_BATCH];
    int n;
    uz_io_runs_init(&r, v, s, (size_t)v->filetype->size);
    while ((n = uz_io_runs_next(&r, iov, RUN_BATCH)) > 0) {
        for (int i = 0; i < n; i++) {
            MPI_Offset off = (MPI_Offset)(uintptr_t)iov[i].iov_base;
            if (off >= size)
                goto out;
            MPI_Offset in = size - off < (MPI_Offset)iov[i].iov_len ? size - off : (MPI_Offset)iov[i].iov_len;
            s += in;
            if (in < (MPI_Offset)iov[i].iov_len)
                goto out;
        }
    }
out:
    *etypes = (s + esize - 1) / esize;
    return MPI_SUCCESS;
}

int uz_mpi_File_seek(uz_file *fh, MPI_Offset offset, int whence)
{
    int err = not_sequential(fh);
    if (err)
        return err;
    MPI_Offset base;
    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = fh->pos;
        break;
    case MPI_SEEK_END:
        if ((err = uz_io_end_etypes(fh, &base)))
            return err;
        break;
    default:
        return uz_err_make(MPI_ERR_ARG, "invalid whence %d", whence);
    }
    if (base + offset < 0)
        return uz_err_make(MPI_ERR_ARG, "the new position %lld would be negative", (long long)(base + offset));
    fh->pos = base + offset;
    return MPI_SUCCESS;
}

int uz_mpi_File_get_position(uz_file *fh, MPI_Offset *offset)
{
    *offset = fh->pos;
    return MPI_SUCCESS;
}
