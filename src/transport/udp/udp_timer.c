/*
 * udp_timer.c — time in the udp transport: the clock, the one earliest
 * deadline that tells progress() whether to look at the peers' timers and
 * tells a sleeping rank how long it may sleep, and the end of the road for
 * a peer that stopped answering.
 *
 * Each peer has at most a few deadlines (retransmission, coalesced ACK,
 * STOP/GO repetition, probe while stopped); rather than a timer wheel, the
 * transport keeps the earliest of all of them and, when it passes, walks
 * the peers it talks to, each of which re-arms what it still needs.  The
 * walk happens at most once per expiry, so its cost is paid per event, not
 * per progress call.
 */
#include <stdio.h>
#include <time.h>

#include "base/errors.h"
#include "transport/udp/udp.h"

long udp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

void udp_timer_arm(long deadline_ns)
{
    if (!udp.next_timer_ns || deadline_ns < udp.next_timer_ns)
        udp.next_timer_ns = deadline_ns;
}

int udp_timer_run(long now)
{
    if (!udp.next_timer_ns || now < udp.next_timer_ns)
        return 0;
    udp.next_timer_ns = 0;
    for (int i = 0; i < udp.nlive; i++) {
        struct udp_peer *p = udp.live[i];
        udp_window_on_timer(p, now);
        udp_recv_on_timer(p, now);
    }
    return 1;
}

/* Milliseconds until the earliest deadline (rounded up), or -1 for none. */
int udp_timer_poll_ms(long now)
{
    if (!udp.next_timer_ns)
        return -1;
    long ns = udp.next_timer_ns - now;
    if (ns <= 0)
        return 0;
    long ms = (ns + 999999) / 1000000;
    return ms > 1000000 ? 1000000 : (int)ms;
}

void udp_peer_declare_dead(struct udp_peer *p, const char *why)
{
    if (p->dead)
        return;
    p->dead = 1;
    int err = uz_err_make(MPI_ERR_PROC_ABORTED, "rank %d at %s %s; declared dead", p->world,
                          p->dest.text, why);
    udp_window_free(p, err);
    p->stopped = 0;
    if (!udp.lingering)         /* nobody to tell in MPI_Finalize's last fence */
        udp.up->peer_failed(p->world, err);
}

/* Declare dead the peers udp_link_errors() found gone.  Called where no
 * window is being walked and no timer is running: the end of a progress
 * call.  What a gone peer sent before it died may still be queued behind
 * the ICMP error (our datagram to its closed port left after its last one
 * to us), so the socket is read first and that is delivered, as it would
 * be from a peer that exited cleanly. */
void udp_reap_gone(void)
{
    if (!udp.gone_pending)
        return;
    for (int i = 0; i < 16 && udp_link_rx_queued() > 0; i++)
        udp_recv_poll();
    udp.gone_pending = 0;
    for (int i = 0; i < udp.nlive; i++) {
        struct udp_peer *p = udp.live[i];
        if (p->gone && !p->dead)
            udp_peer_declare_dead(p, "is gone: its port is closed (ICMP port unreachable)");
    }
}
