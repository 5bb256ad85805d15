/*
 * shm_wait.c — sleeping until a peer has something for us, and waking a
 * sleeping peer.
 *
 * Normally the doorbell is a futex word in the sleeper's control block in
 * shared memory, so any local rank can ring it.  A rank that also talks
 * over the network must sleep in poll() on its sockets, where a futex
 * cannot wake it; such a rank opens a datagram socket in the abstract
 * namespace ("@uzura-<job>-w<rank>") and peers ring it by sending a byte.
 *
 * The sleeper announces itself (sleeping = 1, then its half of the fence
 * of base/wake_fence.h), looks for work once more, and only then sleeps on
 * the doorbell value it read before announcing.  A sender publishes its
 * record, passes its half of the fence and then reads `sleeping`; by the
 * fences, either the sleeper's last look sees the record or the sender
 * sees the flag and rings.  No wake-up is lost.  The sender's half is a
 * compiler barrier where the sleeper's is membarrier(2).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "base/wake_fence.h"
#include "transport/shm/shm_state.h"

static long futex_call(atomic_uint *addr, int op, unsigned val, const struct timespec *ts)
{
    return syscall(SYS_futex, (unsigned *)addr, op, val, ts, NULL, 0);
}

/* Our half of the wake-up fence, after announcing that we sleep. */
static void fence_before_last_look(void)
{
    uz_wake_fence_sleep(uz_wake_fence_one_sided || uz_shm.nlinks);
}

static int sleep_on_futex(long timeout_ns, int (*ready)(void))
{
    int timed_out = 0;
    struct shm_ctl *me = uz_shm.my_ctl;
    unsigned bell = atomic_load_explicit(&me->doorbell, memory_order_acquire);
    atomic_store_explicit(&me->sleeping, 1, memory_order_seq_cst);
    fence_before_last_look();
    if (!ready()) {
        struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
        timed_out = futex_call(&me->doorbell, FUTEX_WAIT, bell, &ts) != 0 && errno == ETIMEDOUT;
    }
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
    return timed_out;
}

/* ------------------------------------------------------------ wake sockets */

/* The wake socket of rank `world_rank` of the job named `job` (another
 * job's, for a process linked from one: shm_link.c). */
socklen_t shm_wake_address_of(const char *job, int world_rank, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "uzura-%s-w%d", job, world_rank);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static socklen_t wake_address(int world_rank, struct sockaddr_un *sa)
{
    return shm_wake_address_of(uz_rt.job_id, world_rank, sa);
}

int shm_wake_socket_open(void)
{
    struct sockaddr_un sa;
    socklen_t len = wake_address(uz_shm.local_world_ranks[uz_shm.my_local], &sa);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return uz_err_make(MPI_ERR_OTHER, "cannot open the wake-up socket @%s: %s", sa.sun_path + 1,
                           strerror(e));
    }
    uz_shm.wake_fd = fd;
    uz_shm.my_ctl->wake_by_socket = 1;
    return MPI_SUCCESS;
}

/* A network opened late (a process of another job): switch the doorbell
 * to the socket.  A peer that read the old setting may still ring the
 * futex once; the sleep's timeout bounds what that costs. */
int shm_sleep_in_poll(void)
{
    return uz_shm.wake_fd >= 0 ? MPI_SUCCESS : shm_wake_socket_open();
}

void shm_wake_socket_close(void)
{
    if (uz_shm.wake_fd >= 0)
        close(uz_shm.wake_fd);
    uz_shm.wake_fd = -1;
}

static void sleep_in_poll(struct pollfd *fds, int nfds, int timeout_ms, int (*ready)(void))
{
    struct shm_ctl *me = uz_shm.my_ctl;
    fds[nfds].fd = uz_shm.wake_fd;
    fds[nfds].events = POLLIN;
    fds[nfds].revents = 0;
    atomic_store_explicit(&me->sleeping, 1, memory_order_seq_cst);
    if (uz_shm.nlinks)
        shm_links_sleeping(1);
    fence_before_last_look();
    if (!ready())
        poll(fds, (nfds_t)nfds + (uz_shm.wake_fd >= 0), timeout_ms);
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
    if (uz_shm.nlinks)
        shm_links_sleeping(0);
    char drain[64];
    while (uz_shm.wake_fd >= 0 && recv(uz_shm.wake_fd, drain, sizeof(drain), 0) > 0)
        ;
}

void uz_shm_wake(int peer)
{
    if (peer >= uz_shm.nlocal) {
        shm_link_wake(peer);
        return;
    }
    struct shm_ctl *c = shm_ctl_of(peer);
    if (c->wake_by_socket) {
        struct sockaddr_un sa;
        socklen_t len = wake_address(uz_shm.local_world_ranks[peer], &sa);
        if (uz_shm.wake_fd < 0) {
            /* We have no socket of our own: send from a throwaway one. */
            int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd >= 0) {
                sendto(fd, "", 1, MSG_DONTWAIT, (struct sockaddr *)&sa, len);
                close(fd);
            }
        } else {
            sendto(uz_shm.wake_fd, "", 1, MSG_DONTWAIT, (struct sockaddr *)&sa, len);
        }
        return;
    }
    atomic_fetch_add_explicit(&c->doorbell, 1, memory_order_seq_cst);
    futex_call(&c->doorbell, FUTEX_WAKE, INT_MAX, NULL);
}

void shm_wake_by_socket(const struct sockaddr_un *sa, socklen_t len)
{
    if (uz_shm.wake_fd >= 0)
        sendto(uz_shm.wake_fd, "", 1, MSG_DONTWAIT, (const struct sockaddr *)sa, len);
}

void uz_shm_wake_if_sleeping(int peer)
{
    if (atomic_load_explicit(&shm_peer_ctl(peer)->sleeping, memory_order_seq_cst))
        uz_shm_wake(peer);
}

/* Peers ring whichever doorbell we announced at start-up: the wake socket
 * when we sleep in poll() with other transports' descriptors, else the
 * futex. */
int uz_shm_sleep(long timeout_ns, struct pollfd *fds, int nfds, int (*ready)(void))
{
    if (uz_shm.wake_fd < 0)
        return sleep_on_futex(timeout_ns, ready);
    sleep_in_poll(fds, nfds, (int)(timeout_ns / 1000000), ready);
    return 0;   /* network timers end these sleeps too: not counted */
}
