/*
 * memory.c — MPI_Alloc_mem and MPI_Free_mem.  Every transport Uzura has
 * works on ordinary memory (shared-memory rendezvous reads the sender's pages
 * with process_vm_readv), so no registration is needed: the memory is
 * malloc's, aligned for any type and for cache lines.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "core/info.h"

int uz_mpi_Alloc_mem(MPI_Aint size, uz_info *info, void *baseptr)
{
    (void)info;  /* no hint changes where the memory comes from */
    if (size < 0)
        return uz_err_make(MPI_ERR_SIZE, "invalid size %ld", (long)size);
    void *p = NULL;
    /* A zero-byte request still returns a unique pointer that MPI_Free_mem
     * accepts, as malloc(0) may return NULL. */
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return uz_err_make(MPI_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int uz_mpi_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
