/*
 * file_view.c — file views (MPI_File_set_view and its queries), the data
 * representations, and the one thing everything else needs from a view:
 * the file runs that a range of a rank's data stream lands on.
 *
 * The runs come from the datatype engine: a cursor over `filetype` tiled
 * from address `disp` lists (address, length) runs of "memory", and those
 * addresses are file offsets.  Seeking is a binary search per level of the
 * type, so a large offset into a large file costs nothing to find.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "coll/coll.h"
#include "io/io.h"

/* ------------------------------------------------------------------ runs */

void uz_io_runs_init(struct uz_io_runs *r, const struct uz_io_view *view, MPI_Offset from, size_t len)
{
    r->view = view;
    r->left = len;
    if (view->contiguous) {
        r->next = view->disp + from;
        return;
    }
    MPI_Count fsize = view->filetype->size;
    MPI_Count tiles = (from + (MPI_Offset)len + fsize - 1) / fsize + 1;
    uz_dt_cursor_init(&r->cursor, (const void *)(uintptr_t)view->disp, tiles, view->filetype);
    uz_dt_cursor_seek(&r->cursor, (size_t)from);
}

int uz_io_runs_next(struct uz_io_runs *r, struct iovec *iov, int max)
{
    if (r->left == 0 || max <= 0)
        return 0;
    if (r->view->contiguous) {
        iov[0].iov_base = (void *)(uintptr_t)r->next;
        iov[0].iov_len = r->left;
        r->next += (MPI_Offset)r->left;
        r->left = 0;
        return 1;
    }
    size_t got = 0;
    int n = uz_dt_cursor_iov(&r->cursor, iov, max, r->left, &got);
    r->left -= got;
    return n;
}

MPI_Offset uz_io_view_file_offset(const struct uz_io_view *view, MPI_Offset s)
{
    if (view->contiguous)
        return view->disp + s;
    struct uz_io_runs r;
    struct iovec iov;
    uz_io_runs_init(&r, view, s, 1);
    if (uz_io_runs_next(&r, &iov, 1) != 1)
        return view->disp;
    return (MPI_Offset)(uintptr_t)iov.iov_base;
}

/* ------------------------------------------------------- representations */

/* Registered representations live as long as the library. */
enum { MAX_DATAREPS = 64 };
static struct uz_io_datarep datareps[MAX_DATAREPS];
static int ndatareps;

static const struct uz_io_datarep *find_datarep(const char *name)
{
    for (int i = 0; i < ndatareps; i++)
        if (!strcmp(datareps[i].name, name))
            return &datareps[i];
    return NULL;
}

static int register_datarep(const char *name, MPI_Datarep_conversion_function *rd,
                            MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rd_c,
                            MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *extent,
                            void *extra)
{
    if (!name || !*name || strlen(name) >= MPI_MAX_DATAREP_STRING)
        return uz_err_make(MPI_ERR_ARG, "invalid datarep name (empty, or of %d characters or more)",
                           MPI_MAX_DATAREP_STRING);
    if (!strcmp(name, "native") || !strcmp(name, "internal") || !strcmp(name, "external32") ||
        find_datarep(name))
        return uz_err_make(MPI_ERR_DUP_DATAREP, "data representation \"%s\" is already defined", name);
    if (!extent)
        return uz_err_make(MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
    if (ndatareps == MAX_DATAREPS)
        return uz_err_make(MPI_ERR_NO_MEM, "no room for more than %d data representations", MAX_DATAREPS);
    struct uz_io_datarep *d = &datareps[ndatareps++];
    strcpy(d->name, name);
    d->read_fn = rd;
    d->write_fn = wr;
    d->read_fn_c = rd_c;
    d->write_fn_c = wr_c;
    d->extent_fn = extent;
    d->extra_state = extra;
    return MPI_SUCCESS;
}

int uz_mpi_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                            MPI_Datarep_conversion_function *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL, dtype_file_extent_fn,
                            extra_state);
}

int uz_mpi_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                              MPI_Datarep_conversion_function_c *write_conversion_fn,
                              MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
                            extra_state);
}

/* The file layout of a view is computed with the types' memory sizes, so
 * a representation may be used with types whose size it keeps. */
static int same_size_in_file(enum uz_io_rep rep, const struct uz_io_datarep *user, uz_datatype *dt,
                             const char *what)
{
    if (rep == UZ_IO_EXTERNAL32) {
        MPI_Count b;
        if (uz_dt_ext32_size(dt, 1, &b) || b != dt->size)
            return uz_err_make(MPI_ERR_UNSUPPORTED_DATAREP, "the %s holds types whose external32 size differs "
                               "from their size in memory, which external32 views do not support yet", what);
    }
    if (rep == UZ_IO_USER) {
        const uz_datatype *basic = uz_dt_homogeneous_basic(dt);
        MPI_Aint ext = 0;
        if (!basic || user->extent_fn(uz_datatype_handle((uz_datatype *)basic), &ext, user->extra_state) ||
            ext != basic->size)
            return uz_err_make(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"%s\": the %s must be of one "
                               "basic type whose file extent equals its size in memory", user->name, what);
    }
    return MPI_SUCCESS;
}

int uz_io_rep_size(const struct uz_io_view *view, const uz_datatype *dt, MPI_Count count, MPI_Count *bytes)
{
    if (count < 0)
        return uz_err_make(MPI_ERR_COUNT, "invalid count %lld (negative)", (long long)count);
    if (view->rep == UZ_IO_EXTERNAL32)
        return uz_dt_ext32_size(dt, count, bytes);
    if (__builtin_mul_overflow(count, (MPI_Count)dt->size, bytes))
        return uz_err_make(MPI_ERR_COUNT, "count %lld of %lld-byte elements overflows", (long long)count,
                           (long long)dt->size);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ views */

void uz_io_view_reset(struct uz_io_view *view)
{
    view->disp = 0;
    view->etype = uz_datatype_get(MPI_BYTE);
    view->filetype = uz_datatype_get(MPI_BYTE);
    view->rep = UZ_IO_NATIVE;
    view->user = NULL;
    strcpy(view->datarep, "native");
    view->contiguous = 1;
}

void uz_io_view_free(struct uz_io_view *view)
{
    if (view->etype)
        uz_dt_release(view->etype);
    if (view->filetype)
        uz_dt_release(view->filetype);
    view->etype = view->filetype = NULL;
}

int uz_io_stream_offset(const uz_file *f, MPI_Offset etypes, MPI_Offset *soff)
{
    if (etypes < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid offset %lld (negative)", (long long)etypes);
    if (__builtin_mul_overflow(etypes, (MPI_Offset)f->view.etype->size, soff))
        return uz_err_make(MPI_ERR_ARG, "offset %lld overflows", (long long)etypes);
    return MPI_SUCCESS;
}

int uz_io_stream_bytes(const uz_file *f, MPI_Count count, const uz_datatype *dt, MPI_Count *bytes)
{
    int err = uz_io_rep_size(&f->view, dt, count, bytes);
    if (err)
        return err;
    MPI_Count esize = f->view.etype->size;
    if (esize > 0 && *bytes % esize)
        return uz_err_make(MPI_ERR_TYPE, "the data (%lld bytes) is not a whole number of etypes of %lld bytes",
                           (long long)*bytes, (long long)esize);
    return MPI_SUCCESS;
}

int uz_mpi_File_set_view(uz_file *f, MPI_Offset disp, uz_datatype *etype, uz_datatype *filetype,
                         const char *datarep, uz_info *info)
{
    int err = MPI_SUCCESS;
    enum uz_io_rep rep = UZ_IO_NATIVE;
    const struct uz_io_datarep *user = NULL;
    if (!datarep)
        err = uz_err_make(MPI_ERR_UNSUPPORTED_DATAREP, "datarep is NULL");
    else if (!strcmp(datarep, "native"))
        rep = UZ_IO_NATIVE;
    else if (!strcmp(datarep, "internal"))
        rep = UZ_IO_INTERNAL;
    else if (!strcmp(datarep, "external32"))
        rep = UZ_IO_EXTERNAL32;
    else if ((user = find_datarep(datarep)))
        rep = UZ_IO_USER;
    else
        err = uz_err_make(MPI_ERR_UNSUPPORTED_DATAREP, "unknown data representation \"%s\"", datarep);
    if (!err && (!etype->committed || !filetype->committed))
        err = uz_err_make(MPI_ERR_TYPE, "the %s has not been committed", etype->committed ? "filetype" : "etype");
    if (!err && etype->size == 0)
        err = uz_err_make(MPI_ERR_TYPE, "the etype is empty");
    if (!err && (filetype->size == 0 || filetype->size % etype->size))
        err = uz_err_make(MPI_ERR_TYPE, "the filetype (%lld bytes) is not made of whole etypes (%lld bytes)",
                          (long long)filetype->size, (long long)etype->size);
    if (!err && filetype->true_lb < 0)
        err = uz_err_make(MPI_ERR_TYPE, "the filetype has a negative displacement");
    if (!err)
        err = same_size_in_file(rep, user, etype, "etype");
    if (!err)
        err = same_size_in_file(rep, user, filetype, "filetype");
    if (!err && disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            err = uz_err_make(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
        else {
            /* The shared pointer's place in bytes, under the old view. */
            MPI_Offset cur = 0;
            err = uz_io_shared_get(f, &cur);
            if (!err)
                disp = uz_io_view_file_offset(&f->view, cur * f->view.etype->size);
        }
    } else if (!err && disp < 0)
        err = uz_err_make(MPI_ERR_ARG, "invalid disp %lld (negative)", (long long)disp);
    (void)info;
    /* Collective: every rank's view changes, or none does. */
    int mine = err ? uz_err_class(err) : 0, worst = 0;
    int e = uz_coll_allreduce(&mine, &worst, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), f->comm);
    if (e)
        return e;
    if (err)
        return err;
    if (worst)
        return uz_err_make(worst, "another rank's MPI_File_set_view failed");
    uz_io_drain(f);
    uz_dt_retain(etype);
    uz_dt_retain(filetype);
    uz_io_view_free(&f->view);
    f->view.disp = disp;
    f->view.etype = etype;
    f->view.filetype = filetype;
    f->view.rep = rep;
    f->view.user = user;
    snprintf(f->view.datarep, sizeof(f->view.datarep), "%s", datarep);
    f->view.contiguous = uz_dt_is_contig(filetype, 2) && filetype->true_lb == 0;
    f->pos = 0;
    return uz_io_shared_reset(f);
}

int uz_mpi_File_get_view(uz_file *f, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                         char *datarep)
{
    *disp = f->view.disp;
    /* Derived types come back as new types, the caller's to free (as
     * MPICH's do); predefined ones as themselves. */
    uz_datatype *e = f->view.etype, *t = f->view.filetype;
    int err = MPI_SUCCESS;
    if (!e->obj.builtin)
        err = uz_dt_dup(f->view.etype, &e);
    if (!err && !t->obj.builtin && (err = uz_dt_dup(f->view.filetype, &t)) && e != f->view.etype)
        uz_dt_release(e);
    if (err)
        return err;
    *etype = uz_datatype_handle(e);
    *filetype = uz_datatype_handle(t);
    strcpy(datarep, f->view.datarep);
    return MPI_SUCCESS;
}

int uz_mpi_File_get_type_extent(uz_file *f, uz_datatype *datatype, MPI_Aint *extent)
{
    if (f->view.rep == UZ_IO_EXTERNAL32) {
        /* The extent in the file: external32 sizes, the memory layout's
         * gaps kept (what ROMIO reports too). */
        MPI_Count b = 0;
        int err = uz_dt_ext32_size(datatype, 1, &b);
        if (err)
            return err;
        *extent = datatype->extent + (MPI_Aint)(b - datatype->size);
        return MPI_SUCCESS;
    }
    if (f->view.rep == UZ_IO_USER) {
        const uz_datatype *basic = uz_dt_homogeneous_basic(datatype);
        if (basic && basic->size == datatype->extent) {
            MPI_Aint e = 0;
            int rc = f->view.user->extent_fn(uz_datatype_handle((uz_datatype *)basic), &e,
                                             f->view.user->extra_state);
            if (rc)
                return rc;
            *extent = e * (datatype->size / basic->size);
            return MPI_SUCCESS;
        }
    }
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int uz_mpi_File_get_byte_offset(uz_file *f, MPI_Offset offset, MPI_Offset *disp)
{
    MPI_Offset s = 0;
    int err = uz_io_stream_offset(f, offset, &s);
    if (!err)
        *disp = uz_io_view_file_offset(&f->view, s);
    return err;
}

int uz_mpi_File_get_type_extent_c(uz_file *f, uz_datatype *datatype, MPI_Count *extent)
{
    MPI_Aint e = 0;
    int err = uz_mpi_File_get_type_extent(f, datatype, &e);
    if (!err)
        *extent = e;
    return err;
}
