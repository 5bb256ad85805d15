/*
 * cma_denied.c — an LD_PRELOAD shim for startup_verbose.sh: process_vm_readv
 * and process_vm_writev fail with EPERM, as under a ptrace policy, seccomp
 * filter or container that forbids cross-memory attach, so that the
 * library's fallback (and its start-up report of it) can be tested here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    (void)pid, (void)local, (void)nlocal, (void)remote, (void)nremote, (void)flags;
    errno = EPERM;
    return -1;
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long nlocal,
                          const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    (void)pid, (void)local, (void)nlocal, (void)remote, (void)nremote, (void)flags;
    errno = EPERM;
    return -1;
}
