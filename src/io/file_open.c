/*
 * file_open.c — opening, closing and deleting files, and what a file knows
 * about itself: size, access mode, group, hints, atomicity, sync.
 *
 * Opening is collective: rank 0 creates the file (so that MPI_MODE_EXCL
 * means one creator), the others open it after, and every rank learns
 * whether any failed, so that an open fails everywhere or nowhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "coll/coll.h"
#include "core/group.h"
#include "io/io.h"

/* ------------------------------------------------------------------ hints */

static void hints_default(struct uz_io_hints *h, int nprocs)
{
    h->cb_buffer_size = uz_config.io_cb_buffer >= 4096 ? uz_config.io_cb_buffer : 16u << 20;
    h->cb_nodes = 0;
    h->cb_read = h->cb_write = UZ_IO_AUTO;
    h->ds_read = h->ds_write = UZ_IO_AUTO;
    h->ind_rd_buffer_size = 4u << 20;
    h->ind_wr_buffer_size = 512u << 10;
    h->striping_factor = 0;
    h->striping_unit = 0;
    (void)nprocs;
}

static void parse_switch(const char *v, enum uz_io_switch *out)
{
    if (!v)
        return;
    if (!strcmp(v, "enable") || !strcmp(v, "true"))
        *out = UZ_IO_ENABLE;
    else if (!strcmp(v, "disable") || !strcmp(v, "false"))
        *out = UZ_IO_DISABLE;
    else if (!strcmp(v, "automatic"))
        *out = UZ_IO_AUTO;
}

static void parse_size(const char *v, size_t *out, size_t min)
{
    if (!v)
        return;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end != v && *end == 0 && n >= min && n <= (1ull << 40))
        *out = (size_t)n;
}

static void parse_int(const char *v, int *out)
{
    if (!v)
        return;
    char *end;
    long n = strtol(v, &end, 10);
    if (end != v && *end == 0 && n >= 0 && n <= INT_MAX)
        *out = (int)n;
}

/* Take the hints we know from `info`; others are ignored (MPI-4.1 §14.2.8). */
static void hints_apply(struct uz_io_hints *h, const uz_info *info)
{
    if (!info)
        return;
    size_t cb = h->cb_buffer_size;
    parse_size(uz_info_lookup(info, "cb_buffer_size"), &cb, 4096);
    h->cb_buffer_size = cb;
    parse_int(uz_info_lookup(info, "cb_nodes"), &h->cb_nodes);
    parse_switch(uz_info_lookup(info, "romio_cb_read"), &h->cb_read);
    parse_switch(uz_info_lookup(info, "romio_cb_write"), &h->cb_write);
    parse_switch(uz_info_lookup(info, "romio_ds_read"), &h->ds_read);
    parse_switch(uz_info_lookup(info, "romio_ds_write"), &h->ds_write);
    parse_size(uz_info_lookup(info, "ind_rd_buffer_size"), &h->ind_rd_buffer_size, 4096);
    parse_size(uz_info_lookup(info, "ind_wr_buffer_size"), &h->ind_wr_buffer_size, 4096);
    parse_int(uz_info_lookup(info, "striping_factor"), &h->striping_factor);
    parse_int(uz_info_lookup(info, "striping_unit"), &h->striping_unit);
}

static const char *switch_name(enum uz_io_switch s)
{
    return s == UZ_IO_ENABLE ? "enable" : s == UZ_IO_DISABLE ? "disable" : "automatic";
}

/* The hints in effect, as MPI_File_get_info reports them. */
static int hints_info(const uz_file *f, uz_info **out)
{
    uz_info *info = uz_info_new();
    if (!info)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory making an info object");
    char v[32];
    const struct uz_io_hints *h = &f->hints;
    snprintf(v, sizeof(v), "%zu", h->cb_buffer_size);
    uz_info_set(info, "cb_buffer_size", v);
    snprintf(v, sizeof(v), "%d", h->cb_nodes ? h->cb_nodes : f->comm->size);
    uz_info_set(info, "cb_nodes", v);
    uz_info_set(info, "romio_cb_read", switch_name(h->cb_read));
    uz_info_set(info, "romio_cb_write", switch_name(h->cb_write));
    uz_info_set(info, "romio_ds_read", switch_name(h->ds_read));
    uz_info_set(info, "romio_ds_write", switch_name(h->ds_write));
    snprintf(v, sizeof(v), "%zu", h->ind_rd_buffer_size);
    uz_info_set(info, "ind_rd_buffer_size", v);
    snprintf(v, sizeof(v), "%zu", h->ind_wr_buffer_size);
    uz_info_set(info, "ind_wr_buffer_size", v);
    if (h->striping_factor) {
        snprintf(v, sizeof(v), "%d", h->striping_factor);
        uz_info_set(info, "striping_factor", v);
    }
    if (h->striping_unit) {
        snprintf(v, sizeof(v), "%d", h->striping_unit);
        uz_info_set(info, "striping_unit", v);
    }
    uz_info_set(info, "filename", f->path);
    *out = info;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------- open */

static int check_amode(int amode)
{
    int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (rw != MPI_MODE_RDONLY && rw != MPI_MODE_WRONLY && rw != MPI_MODE_RDWR)
        return uz_err_make(MPI_ERR_AMODE, "invalid amode %#x: exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY "
                           "and MPI_MODE_RDWR is required", amode);
    if (rw == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return uz_err_make(MPI_ERR_AMODE, "invalid amode %#x: MPI_MODE_RDONLY with MPI_MODE_CREATE or "
                           "MPI_MODE_EXCL", amode);
    if (rw == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return uz_err_make(MPI_ERR_AMODE, "invalid amode %#x: MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL", amode);
    int known = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL |
                MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    if (amode & ~known)
        return uz_err_make(MPI_ERR_AMODE, "invalid amode %#x: unknown bits %#x", amode, amode & ~known);
    return MPI_SUCCESS;
}

/* "ufs:/path" and the like name a file system the way ROMIO spells it; the
 * file is the path after the prefix. */
static const char *strip_prefix(const char *name)
{
    static const char *const known[] = { "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "xfs:", "panfs:",
                                         "daos:", "testfs:" };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strncmp(name, known[i], strlen(known[i])))
            return name + strlen(known[i]);
    return name;
}

static int posix_open(const char *path, int amode, int create, int *fd_out)
{
    int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    int flags = O_CLOEXEC | (rw == MPI_MODE_RDONLY ? O_RDONLY : O_RDWR);
    if (create && (amode & MPI_MODE_CREATE))
        flags |= O_CREAT | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
    /* A write-only file is opened for reading too where allowed: writes
     * through a sieve read what they do not overwrite. */
    int fd = open(path, flags, 0666);
    if (fd < 0 && errno == EACCES && rw == MPI_MODE_WRONLY)
        fd = open(path, (flags & ~O_RDWR) | O_WRONLY, 0666);
    if (fd < 0)
        return uz_io_errno(errno, "MPI_File_open: open", path);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return uz_err_make(MPI_ERR_BAD_FILE, "\"%s\" is a directory", path);
    }
    *fd_out = fd;
    return MPI_SUCCESS;
}

/* Agree on an error: the worst class any rank saw (0 when none did), so
 * that a collective call fails everywhere or nowhere. */
static int agree(uz_comm *comm, int err)
{
    int mine = err ? uz_err_class(err) : 0, worst = 0;
    int e = uz_coll_allreduce(&mine, &worst, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), comm);
    if (e)
        return e;
    if (err)
        return err;
    if (worst)
        return uz_err_make(worst, "another rank of the file's group failed");
    return MPI_SUCCESS;
}

static void file_free(uz_file *f)
{
    uz_io_coll_free(f);
    uz_io_view_free(&f->view);
    if (f->fd >= 0)
        close(f->fd);
    if (f->info)
        uz_info_free(f->info);
    if (f->errhandler)
        uz_errhandler_release(f->errhandler);
    if (f->comm)
        uz_comm_release(f->comm);
    pthread_mutex_destroy(&f->lock);
    free(f->path);
    uz_object_destroy(&f->obj);
    uz_object_free(f, sizeof(*f));
}

int uz_mpi_File_open(uz_comm *comm, const char *filename, int amode, uz_info *info, MPI_File *fh)
{
    *fh = MPI_FILE_NULL;
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "files are opened on intracommunicators only");
    if (!filename)
        return uz_err_make(MPI_ERR_BAD_FILE, "invalid file name (NULL)");
    int err = check_amode(amode);
    /* Every rank must give the same amode: compare through a max and min. */
    int mm[2] = { amode, -amode }, agreed[2];
    int e = uz_coll_allreduce(mm, agreed, 2, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), comm);
    if (e)
        return e;
    if (!err && (agreed[0] != amode || -agreed[1] != amode))
        err = uz_err_make(MPI_ERR_NOT_SAME, "the ranks gave different amodes to MPI_File_open");
    if (err)
        return err;
    const char *path = strip_prefix(filename);
    if (!err && !*path)
        err = uz_err_make(MPI_ERR_BAD_FILE, "invalid file name (empty)");
    if (!err && strlen(path) >= PATH_MAX)
        err = uz_err_make(MPI_ERR_BAD_FILE, "file name of %zu characters is longer than PATH_MAX", strlen(path));

    uz_file *f = uz_object_alloc(sizeof(*f));
    if (!f)
        return agree(comm, uz_err_make(MPI_ERR_NO_MEM, "out of memory opening a file"));
    uz_object_init(&f->obj, UZ_MAGIC_FILE);
    f->fd = -1;
    pthread_mutex_init(&f->lock, NULL);
    f->amode = amode;
    /* A file takes the handler of MPI_FILE_NULL at open and keeps it
     * (MPI-4.1 §9.3): changing the default later does not touch it. */
    f->errhandler = uz_io_default_errhandler();
    uz_errhandler_retain(f->errhandler);
    uz_io_view_reset(&f->view);
    hints_default(&f->hints, comm->size);
    hints_apply(&f->hints, info);
    if (!err && !(f->path = strdup(path)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory opening a file");
    if (!err && info && !(f->info = uz_info_dup(info)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory opening a file");
    if (!err)
        err = uz_comm_dup_private(comm, &f->comm);
    if (!err && !f->comm)
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory opening a file");
    if (!err) {
        /* Errors of the file's requests (MPI_Wait on an iwrite) come back
         * as codes, as files' errors do by default. */
        uz_errhandler_retain(&uz_errhandler_return);
        uz_errhandler_release(f->comm->errhandler);
        f->comm->errhandler = &uz_errhandler_return;
    }
    if (err) {
        /* Fail collectively before any rank touches the file system. */
        if (!f->comm) {
            file_free(f);
            return agree(comm, err);
        }
    }
    err = agree(f->comm, err);
    /* Rank 0 creates, then the others open what it made. */
    if (!err && f->comm->rank == 0)
        err = posix_open(f->path, amode, 1, &f->fd);
    int e0 = agree(f->comm, f->comm->rank == 0 ? err : 0);
    if (!err)
        err = e0;
    if (!err && f->comm->rank != 0)
        err = posix_open(f->path, amode, 0, &f->fd);
    err = agree(f->comm, err);
    if (!err && (amode & MPI_MODE_APPEND)) {
        /* Both pointers start at the end (the default view counts bytes). */
        struct stat st;
        if (fstat(f->fd, &st) == 0)
            f->pos = st.st_size;
    }
    if (!err)
        err = uz_io_shared_open(f);
    if (err) {
        file_free(f);
        return err;
    }
    *fh = uz_file_handle(f);
    return MPI_SUCCESS;
}

int uz_mpi_File_close(MPI_File *fh)
{
    uz_file *f = uz_file_get(*fh);
    if (!f)
        return uz_err_make(MPI_ERR_FILE, "invalid file (argument fh)");
    uz_io_drain(f);
    uz_io_async_close(f);
    if (f->split.active)
        return uz_err_make(MPI_ERR_OTHER, "a split collective operation is still pending on the file");
    /* Everyone is done with the file before it may go. */
    int err = uz_coll_barrier(f->comm);
    uz_io_shared_close(f);
    if (!err && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->comm->rank == 0 && unlink(f->path) != 0 &&
        errno != ENOENT)
        err = uz_io_errno(errno, "MPI_File_close: delete", f->path);
    file_free(f);
    *fh = MPI_FILE_NULL;
    return err;
}

int uz_mpi_File_delete(const char *filename, uz_info *info)
{
    (void)info;
    if (!filename)
        return uz_err_make(MPI_ERR_BAD_FILE, "invalid file name (NULL)");
    const char *path = strip_prefix(filename);
    if (!*path)
        return uz_err_make(MPI_ERR_BAD_FILE, "invalid file name (empty)");
    if (unlink(path) != 0)
        return uz_io_errno(errno, "MPI_File_delete", path);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ size */

int uz_mpi_File_set_size(uz_file *f, MPI_Offset size)
{
    if (size < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid size %lld (negative)", (long long)size);
    int err = uz_io_check_mode(f, 1);
    uz_io_drain(f);
    /* Nobody may still be reading the old size when it changes; then one
     * rank resizes, and the others wait for it and learn the outcome. */
    int e = uz_coll_barrier(f->comm);
    if (e)
        return e;
    if (!err && f->comm->rank == 0 && ftruncate(f->fd, size) != 0)
        err = uz_io_errno(errno, "MPI_File_set_size: ftruncate", f->path);
    return agree(f->comm, err);
}

int uz_mpi_File_preallocate(uz_file *f, MPI_Offset size)
{
    if (size < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid size %lld (negative)", (long long)size);
    int err = uz_io_check_mode(f, 1);
    uz_io_drain(f);
    int e = uz_coll_barrier(f->comm);
    if (e)
        return e;
    if (!err && f->comm->rank == 0) {
        struct stat st;
        if (fstat(f->fd, &st) != 0)
            err = uz_io_errno(errno, "MPI_File_preallocate: fstat", f->path);
        else if (st.st_size < size) {
            /* Reserve the blocks; where the file system cannot, extend. */
            int rc = posix_fallocate(f->fd, 0, size);
            if (rc == EOPNOTSUPP || rc == EINVAL)
                rc = ftruncate(f->fd, size) ? errno : 0;
            if (rc)
                err = uz_io_errno(rc, "MPI_File_preallocate", f->path);
        }
    }
    return agree(f->comm, err);
}

int uz_mpi_File_get_size(uz_file *f, MPI_Offset *size)
{
    uz_io_drain(f);
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return uz_io_errno(errno, "MPI_File_get_size: fstat", f->path);
    *size = st.st_size;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------------- queries */

int uz_mpi_File_get_group(uz_file *f, MPI_Group *group)
{
    uz_group_retain(f->comm->local_group);
    *group = uz_group_handle(f->comm->local_group);
    return MPI_SUCCESS;
}

int uz_mpi_File_get_amode(uz_file *f, int *amode)
{
    *amode = f->amode;
    return MPI_SUCCESS;
}

int uz_mpi_File_set_info(uz_file *f, uz_info *info)
{
    hints_apply(&f->hints, info);
    if (info) {
        uz_info *copy = uz_info_dup(info);
        if (!copy)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory keeping the file's info");
        if (f->info)
            uz_info_free(f->info);
        f->info = copy;
    }
    return MPI_SUCCESS;
}

int uz_mpi_File_get_info(uz_file *f, MPI_Info *info_used)
{
    uz_info *info = NULL;
    int err = hints_info(f, &info);
    if (!err)
        *info_used = uz_info_handle(info);
    return err;
}

int uz_mpi_File_set_atomicity(uz_file *f, int flag)
{
    /* Collective, and every rank must give the same flag. */
    int mine = flag ? 1 : 0, all[2], mm[2] = { mine, -mine };
    int err = uz_coll_allreduce(mm, all, 2, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), f->comm);
    if (err)
        return err;
    if (all[0] != -all[1])
        return uz_err_make(MPI_ERR_NOT_SAME, "the ranks gave different flags to MPI_File_set_atomicity");
    uz_io_drain(f);
    f->atomic = mine;
    return MPI_SUCCESS;
}

int uz_mpi_File_get_atomicity(uz_file *f, int *flag)
{
    *flag = f->atomic;
    return MPI_SUCCESS;
}

int uz_mpi_File_sync(uz_file *f)
{
    uz_io_drain(f);
    int err = MPI_SUCCESS;
    if ((f->amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR)) != MPI_MODE_RDONLY &&
        fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS)
        err = uz_io_errno(errno, "MPI_File_sync: fsync", f->path);
    /* Collective: what one rank wrote and synced is visible to the others
     * after it (MPI-4.1 §14.6.1, the sync-barrier-sync construct). */
    return agree(f->comm, err);
}
