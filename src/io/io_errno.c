/*
 * io_errno.c — what a failed system call on a file means in MPI's error
 * classes, with a message that names the file and the system's reason.
 */
#include <errno.h>
#include <string.h>

#include "base/errors.h"
#include "io/io.h"

static int class_of(int e)
{
    switch (e) {
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT:
        return MPI_ERR_QUOTA;
#endif
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
    case EINVAL:
        return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

int uz_io_errno(int e, const char *what, const char *path)
{
    return uz_err_make(class_of(e), "%s of \"%s\": %s", what, path ? path : "(file)", strerror(e));
}

int uz_io_check_mode(const uz_file *f, int is_write)
{
    int mode = f->amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (is_write && mode == MPI_MODE_RDONLY)
        return uz_err_make(MPI_ERR_READ_ONLY, "\"%s\" was opened MPI_MODE_RDONLY: it cannot be written", f->path);
    if (!is_write && mode == MPI_MODE_WRONLY)
        return uz_err_make(MPI_ERR_ACCESS, "\"%s\" was opened MPI_MODE_WRONLY: it cannot be read", f->path);
    return MPI_SUCCESS;
}
