/*
 * shm_coll.c — the shm transport's collective offload (uz_coll_offload in
 * transport.h): shared areas for the collective algorithms of
 * src/coll/coll_shm.c, and waking their waiters.
 *
 * An area is created by one rank and attached by the others.  Where
 * cross-memory attach works between the ranks (the same permission lets
 * one process take a copy of another's file descriptor), it is anonymous
 * memory (memfd) that the others take from the creator with
 * pidfd_getfd(2): nothing is ever named in /dev/shm, so a job killed while
 * the ranks attach (srun or prterun ending a job after MPI_Abort) leaves
 * nothing behind.  Otherwise it is a file under /dev/shm named after the
 * job (mpiexec's clean-up of uzura-<job>-* catches it after a crash),
 * unlinked as soon as all have mapped it.  Waiting for a peer in an area
 * uses the transport's doorbell: a rank sleeps through the request layer
 * (it also wakes for point-to-point records) and whoever releases it
 * calls wake_if_sleeping().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "transport/shm/shm_state.h"

/* A memfd area's tag: "fd:<creator pid>:<descriptor>". */
static const char memfd_prefix[] = "fd:";

/* Descriptors of areas we created and others may still be taking. */
enum { HELD_MAX = 16 };
static int held_fds[HELD_MAX];
static int nheld;

static void area_name(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/uzura-%s-coll-%s", uz_rt.job_id, tag);
}

static int reserve(int fd, size_t bytes, int *err)
{
    int rc;
    do {
        rc = posix_fallocate(fd, 0, (off_t)bytes);
    } while (rc == EINTR);
    if (rc == 0)
        return 0;
    *err = uz_err_make(rc == ENOSPC ? MPI_ERR_NO_SPACE : MPI_ERR_OTHER,
                       "cannot reserve %zu bytes of shared memory for collectives: %s", bytes, strerror(rc));
    return -1;
}

static void *map_fd(int fd, size_t bytes, const char *what, int *err)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED)
        return p;
    *err = uz_err_make(MPI_ERR_OTHER, "cannot map shared memory %s for collectives: %s", what, strerror(errno));
    return NULL;
}

/* The creator's side of an anonymous area; -1 (and no error) when the
 * kernel has no memfd or no room is left to hold the descriptor. */
static int memfd_create_area(char *tag, size_t taglen, size_t bytes, void **out, int *err)
{
    if (nheld == HELD_MAX)
        return -1;
    int fd = (int)syscall(SYS_memfd_create, "uzura-coll", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (reserve(fd, bytes, err) != 0 || !(*out = map_fd(fd, bytes, "(memfd)", err))) {
        close(fd);
        return 1;
    }
    snprintf(tag, taglen, "%s%d:%d", memfd_prefix, (int)getpid(), fd);
    held_fds[nheld++] = fd;
    return 0;
}

static void *memfd_attach(const char *tag, size_t bytes, int *err)
{
    int pid, remote_fd;
    if (sscanf(tag + sizeof(memfd_prefix) - 1, "%d:%d", &pid, &remote_fd) != 2) {
        *err = uz_err_make(MPI_ERR_INTERN, "malformed collective area tag '%s'", tag);
        return NULL;
    }
    int fd = -1, pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0) {
        fd = (int)syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0);
        close(pidfd);
    }
    if (fd < 0) {
        *err = uz_err_make(MPI_ERR_OTHER, "cannot take the collective area from process %d: %s", pid,
                           strerror(errno));
        return NULL;
    }
    void *p = map_fd(fd, bytes, "(memfd)", err);
    close(fd);
    return p;
}

static void *named_map(const char *tag, size_t bytes, int create, int *err)
{
    char name[192];
    area_name(name, sizeof(name), tag);
    int fd = shm_open(name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0) {
        *err = uz_err_make(MPI_ERR_OTHER, "cannot %s shared memory %s for collectives: %s",
                           create ? "create" : "open", name, strerror(errno));
        return NULL;
    }
    void *p = NULL;
    if (!create || reserve(fd, bytes, err) == 0)
        p = map_fd(fd, bytes, name, err);
    close(fd);
    if (!p && create)
        shm_unlink(name);
    return p;
}

static void *area_map(char *tag, size_t taglen, size_t bytes, int create, int *err)
{
    if (!create)
        return strncmp(tag, memfd_prefix, sizeof(memfd_prefix) - 1) == 0 ? memfd_attach(tag, bytes, err)
                                                                         : named_map(tag, bytes, 0, err);
    /* The same permission check guards pidfd_getfd and process_vm_readv,
     * so where the transport found cross-memory attach refused (or was
     * told not to use it) the others could not take the descriptor. */
    if (uz_shm.cma) {
        void *p = NULL;
        int rc = memfd_create_area(tag, taglen, bytes, &p, err);
        if (rc <= 0 && p)
            return p;
        if (rc > 0)
            return NULL;
    }
    return named_map(tag, bytes, 1, err);
}

static void area_unlink(const char *tag)
{
    if (strncmp(tag, memfd_prefix, sizeof(memfd_prefix) - 1) != 0) {
        char name[192];
        area_name(name, sizeof(name), tag);
        shm_unlink(name);
        return;
    }
    int pid, fd;
    if (sscanf(tag + sizeof(memfd_prefix) - 1, "%d:%d", &pid, &fd) != 2 || pid != (int)getpid())
        return;
    for (int i = 0; i < nheld; i++) {
        if (held_fds[i] == fd) {
            close(fd);
            held_fds[i] = held_fds[--nheld];
            return;
        }
    }
}

static void area_unmap(void *area, size_t bytes)
{
    if (area)
        munmap(area, bytes);
}

const struct uz_coll_offload uz_shm_coll_offload = {
    .area_map = area_map,
    .area_unlink = area_unlink,
    .area_unmap = area_unmap,
    .wake_if_sleeping = uz_shm_wake_if_sleeping,
};
