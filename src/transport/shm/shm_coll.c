/*
 * shm_coll.c — the shm transport's collective offload (uz_coll_offload in
 * transport.h): shared areas for the collective algorithms of
 * src/coll/coll_shm.c, and waking their waiters.
 *
 * An area is a file under /dev/shm named after the job (so mpiexec's
 * clean-up of uzura-<job>-* catches it after a crash), created by one rank,
 * mapped by the others, and unlinked as soon as all have mapped it.
 * Waiting for a peer in an area uses the transport's doorbell: a rank
 * sleeps through the request layer (it also wakes for point-to-point
 * records) and whoever releases it calls wake_if_sleeping().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "transport/shm/shm_state.h"

static void area_name(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/uzura-%s-coll-%s", uz_rt.job_id, tag);
}

static void *area_map(const char *tag, size_t bytes, int create, int *err)
{
    char name[192];
    area_name(name, sizeof(name), tag);
    int fd = shm_open(name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0) {
        *err = uz_err_make(MPI_ERR_OTHER, "cannot %s shared memory %s for collectives: %s",
                           create ? "create" : "open", name, strerror(errno));
        return NULL;
    }
    if (create) {
        int rc;
        do {
            rc = posix_fallocate(fd, 0, (off_t)bytes);
        } while (rc == EINTR);
        if (rc != 0) {
            close(fd);
            shm_unlink(name);
            *err = uz_err_make(rc == ENOSPC ? MPI_ERR_NO_SPACE : MPI_ERR_OTHER,
                               "cannot reserve %zu bytes of shared memory for collectives: %s", bytes,
                               strerror(rc));
            return NULL;
        }
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        if (create)
            shm_unlink(name);
        *err = uz_err_make(MPI_ERR_OTHER, "cannot map shared memory %s for collectives: %s", name,
                           strerror(errno));
        return NULL;
    }
    return p;
}

static void area_unlink(const char *tag)
{
    char name[192];
    area_name(name, sizeof(name), tag);
    shm_unlink(name);
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
