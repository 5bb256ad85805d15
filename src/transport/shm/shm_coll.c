/*
 * shm_coll.c — shared areas for collective algorithms and waking their
 * waiters (shm_coll.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/runtime.h"
#include "transport/shm/shm_coll.h"
#include "transport/shm/shm_state.h"

int shm_rx_pending(void);       /* shm_ring.c */

static void area_name(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/uzura-%s-coll-%s", uz_rt.job_id, tag);
}

void *uz_shm_coll_map(const char *tag, size_t bytes, int create, int *err)
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

void uz_shm_coll_unlink(const char *tag)
{
    char name[192];
    area_name(name, sizeof(name), tag);
    shm_unlink(name);
}

void uz_shm_coll_unmap(void *area, size_t bytes)
{
    if (area)
        munmap(area, bytes);
}

void uz_shm_wake_if_sleeping(int local)
{
    if (atomic_load_explicit(&shm_ctl_of(local)->sleeping, memory_order_seq_cst))
        uz_shm_wake(local);
}

int uz_shm_work_pending(void)
{
    return shm_rx_pending() || uz_shm_bulk_pending();
}
