/*
 * io.h — MPI-IO: the file object and what the files of src/io/ offer each
 * other (docs/io.md has the picture).
 *
 * A file is an ordinary POSIX file opened by every rank of the group.  A
 * view (displacement, etype, filetype, data representation) turns a rank's
 * stream of data into (file offset, length) runs: the datatype engine's
 * cursor walks the filetype as if the file were memory at address `disp`
 * (file_view.c).  Independent accesses move those runs with pread/pwrite,
 * through a sieve buffer when the runs are short and close together
 * (file_access.c); collective ones exchange data between ranks and
 * aggregators so that each aggregator writes large contiguous pieces of the
 * file (file_coll.c, two-phase).  Nonblocking operations run on an I/O
 * thread (file_async.c); the shared file pointer lives in a small lock file
 * beside the data, so that it works across hosts (file_shared.c).
 *
 * Offsets in the interface are in etypes relative to the view, as in MPI;
 * "stream" offsets are bytes of the rank's data in the file's
 * representation, and "file" offsets are absolute bytes in the file.
 */
#ifndef UZ_IO_IO_H
#define UZ_IO_IO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <mpi.h>

#include "base/object.h"
#include "core/comm.h"
#include "core/errhandler.h"
#include "core/info.h"
#include "datatype/datatype.h"
#include "datatype/dt_engine.h"

/* ----------------------------------------------------------- representations */

enum uz_io_rep {
    UZ_IO_NATIVE,               /* the bytes of memory */
    UZ_IO_INTERNAL,             /* ours: the same as native */
    UZ_IO_EXTERNAL32,           /* big-endian, the standard's sizes */
    UZ_IO_USER,                 /* MPI_Register_datarep */
};

/* A representation registered with MPI_Register_datarep (file_view.c). */
struct uz_io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn;
    MPI_Datarep_conversion_function *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c;
    MPI_Datarep_conversion_function_c *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
};

/* ----------------------------------------------------------------- the view */

struct uz_io_view {
    MPI_Offset disp;            /* bytes */
    uz_datatype *etype;         /* retained */
    uz_datatype *filetype;      /* retained */
    enum uz_io_rep rep;
    const struct uz_io_datarep *user;       /* UZ_IO_USER */
    char datarep[MPI_MAX_DATAREP_STRING];
    int contiguous;             /* filetype contiguous: file offset = disp + stream offset */
};

/* The file runs of a stream range [from, from + len): iterate with
 * uz_io_runs_next until it returns 0.  Needs no allocation. */
struct uz_io_runs {
    const struct uz_io_view *view;
    MPI_Offset next;            /* contiguous views: next file offset */
    size_t left;                /* stream bytes still to list */
    struct uz_dt_cursor cursor;             /* non-contiguous views */
};
void uz_io_runs_init(struct uz_io_runs *r, const struct uz_io_view *view, MPI_Offset from, size_t len);
/* Up to max runs as (file offset, length) in iov (iov_base holds the
 * offset); returns how many, 0 at the end. */
int uz_io_runs_next(struct uz_io_runs *r, struct iovec *iov, int max);

/* The absolute file offset of stream offset `s` (MPI_File_get_byte_offset). */
MPI_Offset uz_io_view_file_offset(const struct uz_io_view *view, MPI_Offset s);

/* The byte size in the file of `count` elements of `dt` under the view's
 * representation (the same as in memory except for external32 and user
 * representations with other extents). */
int uz_io_rep_size(const struct uz_io_view *view, const uz_datatype *dt, MPI_Count count, MPI_Count *bytes);

void uz_io_view_reset(struct uz_io_view *view);        /* the default view */
void uz_io_view_free(struct uz_io_view *view);

/* -------------------------------------------------------------------- hints */

enum uz_io_switch { UZ_IO_AUTO, UZ_IO_ENABLE, UZ_IO_DISABLE };

struct uz_io_hints {
    size_t cb_buffer_size;      /* collective buffer per aggregator */
    int cb_nodes;               /* aggregators (0: one per host) */
    enum uz_io_switch cb_read, cb_write;    /* romio_cb_read / romio_cb_write */
    enum uz_io_switch ds_read, ds_write;    /* romio_ds_read / romio_ds_write */
    size_t ind_rd_buffer_size;  /* sieve buffer for independent reads */
    size_t ind_wr_buffer_size;  /* sieve buffer for independent writes */
    int striping_factor, striping_unit;     /* accepted, reported, not used on POSIX */
};

/* ---------------------------------------------------------------- the file */

struct uz_io_async;             /* file_async.c */
struct uz_io_shared;            /* file_shared.c */

typedef struct MPI_ABI_File {
    struct uz_object obj;
    uz_comm *comm;              /* private duplicate of the opening communicator */
    int fd;
    char *path;                 /* as given (after a "ufs:" style prefix) */
    int amode;
    int atomic;                 /* MPI_File_set_atomicity */
    struct uz_io_view view;
    MPI_Offset pos;             /* individual file pointer, etypes */
    struct uz_io_shared *shared;            /* shared file pointer, made on first use */
    struct uz_io_hints hints;
    uz_info *info;              /* what the program asked for, for get_info */
    uz_errhandler *errhandler;  /* NULL: the default (MPI_FILE_NULL's) */
    /* Split collective (MPI_File_*_begin/_end): one may be pending. */
    struct {
        int active;             /* 1 read, 2 write */
        void *buf;
        MPI_Status status;
        int err;
    } split;
    struct uz_io_async *async;  /* nonblocking operations, started on first use */
    /* Collective I/O's buffers, kept from call to call: fresh memory for
     * every round costs a page fault per page (file_coll.c). */
    struct uz_io_arena {
        char *block;            /* reused each round */
        size_t cap, used;
        struct uz_io_overflow *extra;       /* what did not fit this round */
        size_t extra_bytes;
    } arena;
    char *cbuf;                 /* the aggregator's window */
    size_t cbuf_cap;
    pthread_mutex_t lock;       /* the file's own state under MPI_THREAD_MULTIPLE and the I/O thread */
} uz_file;

static inline uz_file *uz_file_get(MPI_File h)
{
    if (uz_handle_is_predefined(h))
        return NULL;
    return uz_object_check(h, UZ_MAGIC_FILE);
}

static inline MPI_File uz_file_handle(uz_file *f)
{
    return (MPI_File)f;
}

/* The default error handler of files (MPI_ERRORS_RETURN until the program
 * sets another on MPI_FILE_NULL). */
uz_errhandler *uz_io_default_errhandler(void);

/* -------------------------------------------------------------------- errors */

/* An MPI error code for errno `e` from `what` on the file (a message with
 * the path and strerror): MPI_ERR_NO_SUCH_FILE, ERR_ACCESS, ERR_NO_SPACE,
 * ERR_QUOTA, ERR_READ_ONLY, ERR_FILE_EXISTS, ERR_BAD_FILE, ERR_IO... */
int uz_io_errno(int e, const char *what, const char *path);

/* Check that the access mode allows reading (is_write 0) or writing. */
int uz_io_check_mode(const uz_file *f, int is_write);

/* --------------------------------------------------------------- data access */

/* Independent access of (buf, count, dt) at stream offset `soff` (bytes of
 * the view's stream): conversion for the representation, sieving for
 * short runs, byte-range locks in atomic mode.  *done is the bytes of the
 * user's data moved (a read stops early at the end of the file). */
int uz_io_access(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                 MPI_Count *done);

/* The same, collective over f->comm: every rank calls it (two-phase when it
 * pays, file_coll.c). */
int uz_io_access_all(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                     MPI_Count *done);

/* Give back the buffers collective accesses kept (at close). */
void uz_io_coll_free(uz_file *f);

/* Move the individual pointer past `done` bytes of the user's data of
 * type dt. */
void uz_io_advance(uz_file *f, const uz_datatype *dt, MPI_Count done);

/* The status of an access that moved `bytes` of the user's data. */
void uz_io_status(MPI_Status *status, MPI_Count bytes);

/* Stream offset of an offset in etypes; MPI_ERR_ARG for a negative one. */
int uz_io_stream_offset(const uz_file *f, MPI_Offset etypes, MPI_Offset *soff);

/* Bytes of the stream that (count, dt) occupies in the file's
 * representation, checked against the etype (MPI_ERR_TYPE otherwise). */
int uz_io_stream_bytes(const uz_file *f, MPI_Count count, const uz_datatype *dt, MPI_Count *bytes);

/* ------------------------------------------------------------ shared pointer */

/* Name the pointer's lock file (collective, at open) and drop it (after
 * the closing barrier); reset it to 0 for a new view (collective). */
int uz_io_shared_open(uz_file *f);
int uz_io_shared_reset(uz_file *f);

/* Advance the shared file pointer by `etypes` and return its old value;
 * atomic across all ranks of the file, on every host (file_shared.c). */
int uz_io_shared_fetch_add(uz_file *f, MPI_Offset etypes, MPI_Offset *old);
int uz_io_shared_get(uz_file *f, MPI_Offset *etypes);
int uz_io_shared_set(uz_file *f, MPI_Offset etypes);
void uz_io_shared_close(uz_file *f);

/* The end of the file in etypes of the view (MPI_SEEK_END). */
int uz_io_end_etypes(uz_file *f, MPI_Offset *etypes);

/* Split collectives (kind 1 read, 2 write): MPI_ERR_OTHER when one is
 * pending already; record one whose work is done (err its outcome); and
 * finish it, handing over its status. */
int uz_io_split_free(const uz_file *f);
int uz_io_split_begin(uz_file *f, int kind, void *buf, int err);
int uz_io_split_end(uz_file *f, int kind, const void *buf, MPI_Status *status);

/* Entry points other files of the layer call. */
int uz_mpi_File_get_size(uz_file *f, MPI_Offset *size);
int uz_mpi_File_read_all_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Status *status);
int uz_mpi_File_write_all_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                            MPI_Status *status);
int uz_mpi_File_read_at_all_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *datatype,
                              MPI_Status *status);
int uz_mpi_File_write_at_all_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                               uz_datatype *datatype, MPI_Status *status);

/* ---------------------------------------------------------------- nonblocking */

/* Start an independent access on the I/O thread; *request completes when
 * it is done, its status like the blocking call's (file_async.c). */
int uz_io_start(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                MPI_Request *request);
/* A request already complete with `status` (collective nonblocking
 * operations done at the call, and errors). */
int uz_io_done_request(const MPI_Status *status, MPI_Request *request);
/* Wait for every operation of f started on the I/O thread (close, sync,
 * set_view, set_size want them finished). */
void uz_io_drain(uz_file *f);
void uz_io_async_close(uz_file *f);

#endif /* UZ_IO_IO_H */
