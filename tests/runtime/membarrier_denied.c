/*
 * membarrier_denied.c — an LD_PRELOAD shim for startup_verbose.sh:
 * membarrier(2) fails with ENOSYS, as on an old kernel or under a seccomp
 * filter, so that the wake-up fence's fallback (every record fenced,
 * base/wake_fence.h) and its start-up report can be tested here.  Every
 * other system call made through syscall(3) goes on to libc's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...)
{
    if (number == SYS_membarrier) {
        errno = ENOSYS;
        return -1;
    }
    static long (*next)(long, ...);
    if (!next)
        next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    /* syscall(3) takes at most six arguments; reading all six is what
     * libc's own wrapper does. */
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
