/*
 * dpm_name.c — MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name over
 * a directory of files: one file per service name, holding the port name.
 *
 * The directory is UZURA_NAME_DIR, else $XDG_RUNTIME_DIR/uzura-names, else
 * /tmp/uzura-names-<uid>.  It is made private to the user (0700) and
 * refused when it is not the user's own directory (a symbolic link, or one
 * someone else made in /tmp first): another user could otherwise read the
 * port names, with their secrets, or plant names of his own.  Every job of
 * the user on hosts that share the directory sees the same names; that is
 * the scope of this name service (docs/dynamic-processes.md).
 *
 * A file is made with O_EXCL under a temporary name and linked into place,
 * so a reader never sees half a port name and two publishers of one name
 * cannot both win.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "core/info.h"

static int name_dir(char *dir, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (uz_config.name_dir && *uz_config.name_dir)
        snprintf(dir, len, "%s", uz_config.name_dir);
    else if (xdg && *xdg)
        snprintf(dir, len, "%s/uzura-names", xdg);
    else
        snprintf(dir, len, "/tmp/uzura-names-%u", (unsigned)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return uz_err_make(MPI_ERR_OTHER, "cannot make the name directory %s: %s", dir, strerror(errno));
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return uz_err_make(MPI_ERR_OTHER, "the name directory %s is not a directory private to this "
                           "user (mode 0700); set UZURA_NAME_DIR to one", dir);
    return MPI_SUCCESS;
}

/* The file of a service: its name with every byte that is not a letter,
 * a digit, '-' or '_' written as %xx (a service name may hold '/'). */
static int service_file(const char *service, char *path, size_t len)
{
    if (!service || !*service)
        return uz_err_make(MPI_ERR_ARG, "empty service_name");
    int err = name_dir(path, len);
    if (err)
        return err;
    size_t used = strlen(path);
    used += (size_t)snprintf(path + used, len - used, "/s-");
    for (const unsigned char *c = (const unsigned char *)service; *c && used + 4 < len; c++) {
        int plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')
                 || *c == '-' || *c == '_';
        used += (size_t)(plain ? snprintf(path + used, len - used, "%c", *c)
                               : snprintf(path + used, len - used, "%%%02x", *c));
    }
    if (used + 4 >= len)
        return uz_err_make(MPI_ERR_ARG, "service_name is too long");
    return MPI_SUCCESS;
}

static int read_port(const char *path, char *port)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, port, MPI_MAX_PORT_NAME - 1);
    close(fd);
    if (n <= 0)
        return -1;
    port[n] = '\0';
    return 0;
}

int uz_mpi_Publish_name(const char *service_name, uz_info *info, const char *port_name)
{
    (void)info;
    char path[4096], tmp[4200];
    int err = service_file(service_name, path, sizeof(path));
    if (err)
        return err;
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "cannot write %s: %s", tmp, strerror(errno));
    size_t len = strlen(port_name);
    ssize_t n = write(fd, port_name, len);
    close(fd);
    if (n != (ssize_t)len) {
        unlink(tmp);
        return uz_err_make(MPI_ERR_OTHER, "cannot write %s", tmp);
    }
    int linked = link(tmp, path);
    int e = errno;
    unlink(tmp);
    if (linked != 0 && e == EEXIST)
        return uz_err_make(MPI_ERR_SERVICE, "service \"%s\" is already published", service_name);
    if (linked != 0)
        return uz_err_make(MPI_ERR_OTHER, "cannot publish %s: %s", path, strerror(e));
    return MPI_SUCCESS;
}

int uz_mpi_Lookup_name(const char *service_name, uz_info *info, char *port_name)
{
    (void)info;
    char path[4096];
    int err = service_file(service_name, path, sizeof(path));
    if (err)
        return err;
    if (read_port(path, port_name) != 0)
        return uz_err_make(MPI_ERR_NAME, "no service \"%s\" is published", service_name);
    return MPI_SUCCESS;
}

int uz_mpi_Unpublish_name(const char *service_name, uz_info *info, const char *port_name)
{
    (void)info;
    char path[4096], port[MPI_MAX_PORT_NAME];
    int err = service_file(service_name, path, sizeof(path));
    if (err)
        return err;
    if (read_port(path, port) != 0)
        return uz_err_make(MPI_ERR_SERVICE, "service \"%s\" is not published", service_name);
    if (strcmp(port, port_name) != 0)
        return uz_err_make(MPI_ERR_SERVICE, "service \"%s\" is published with another port",
                           service_name);
    if (unlink(path) != 0)
        return uz_err_make(MPI_ERR_SERVICE, "cannot unpublish \"%s\": %s", service_name, strerror(errno));
    return MPI_SUCCESS;
}
