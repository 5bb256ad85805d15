/*
 * shm_wait.c — sleeping until a peer has something for us, and waking a
 * sleeping peer: a futex on the doorbell word in the sleeper's control
 * block, which lives in shared memory so that any local rank can ring it.
 *
 * The sleeper announces itself (sleeping = 1, a full fence), then looks for
 * work once more, and only then sleeps on the doorbell value it read before
 * announcing.  A sender publishes its record with a full fence and then
 * reads `sleeping`; by the fences, either the sleeper's last look sees the
 * record or the sender sees the flag and rings, changing the doorbell so
 * that the futex wait returns at once.  No wake-up is lost.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm/shm_state.h"

static long futex(atomic_uint *addr, int op, unsigned val, const struct timespec *ts)
{
    return syscall(SYS_futex, (unsigned *)addr, op, val, ts, NULL, 0);
}

void uz_shm_sleep(long timeout_ns, int (*ready)(void))
{
    struct shm_ctl *me = uz_shm.my_ctl;
    unsigned bell = atomic_load_explicit(&me->doorbell, memory_order_acquire);
    atomic_store_explicit(&me->sleeping, 1, memory_order_seq_cst);
    if (!ready()) {
        struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
        futex(&me->doorbell, FUTEX_WAIT, bell, &ts);
    }
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
}

void uz_shm_wake(int peer)
{
    struct shm_ctl *c = shm_ctl_of(peer);
    atomic_fetch_add_explicit(&c->doorbell, 1, memory_order_seq_cst);
    futex(&c->doorbell, FUTEX_WAKE, INT_MAX, NULL);
}
