/*
 * ofi_progress.c — driving the ofi transport: reading the completion
 * queue (which, with the providers' manual data progress, is also what
 * moves their bytes), waiting without burning the core, reporting peers
 * that are gone, and lingering through MPI_Finalize's last fence.
 *
 * Waiting: a rank with nothing to do sleeps in poll() on the CQ's wait
 * descriptor (FI_WAIT_FD, fi_control FI_GETWAIT), after fi_trywait says
 * nothing is pending; with a provider that has no descriptor it sleeps in
 * naps of OFI_NAP_MS.  Sleeps are capped at OFI_NAP_MAX_MS as well:
 * a provider's own timers (retransmission in ofi_rxd) do not show on the
 * descriptor.
 *
 * A peer is found dead by an error completion of a send or a read to it
 * (the provider lost its connection, or its retransmissions went
 * unanswered); the request layer is told from the top of the next
 * progress call, as tcp does.  A rank that only waits — for a receive, or
 * for the PULLED of an offer whose messages the provider had already
 * handed to the kernel — has nothing in flight to fail, so every
 * OFI_PROBE_MS a rank sends a PING to each peer it has addressed that has
 * sent it nothing for a whole period (up to 16 peers per period, in turn): the provider's attempt to deliver
 * it fails when the peer is gone.  That is one small message per silent
 * peer per period, and none while traffic flows.  ofi_rxm, whose new
 * connection to a dead process is refused, reports no error but answers
 * FI_EAGAIN to every send: a silent peer that refuses every PING for
 * UZURA_OFI_PEER_TIMEOUT seconds is declared dead too, and so is one that
 * leaves a PING uncompleted that long (ofi_rxd retransmits forever).
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/compiler.h"
#include "base/errors.h"
#include "base/params.h"
#include "transport/ofi/ofi.h"

enum { OFI_NAP_MS = 1, OFI_NAP_MAX_MS = 50, OFI_LINGER_POLL_MS = 10, OFI_PROBE_MS = 1000,
       OFI_PROBES_PER_PERIOD = 16 };

long ofi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* ------------------------------------------------------------ dead peers */

void ofi_peer_lost(int world, int err)
{
    if (world < 0 || world >= uz_ofi.size)
        return;
    struct ofi_peer *p = &uz_ofi.peers[world];
    if (p->failed)
        return;
    p->failed = err;
    if (!p->dead_listed) {
        p->dead_listed = 1;
        uz_ofi.dead[uz_ofi.ndead++] = world;
    }
}

int ofi_error(const char *doing, ssize_t rc)
{
    return uz_err_make(MPI_ERR_OTHER, "ofi: %s failed: %s", doing, ofi_lib.strerror((int)(rc < 0 ? -rc : rc)));
}

static int reap(void)
{
    int n = 0;
    while (uz_ofi.ndead) {
        int world = uz_ofi.dead[--uz_ofi.ndead];
        ofi_bulk_peer_lost(world);
        uz_ofi.up->peer_failed(world, uz_ofi.peers[world].failed);
        n++;
    }
    return n;
}

static void declare_dead(int world, const char *why, double secs)
{
    ofi_peer_lost(world, uz_err_make(MPI_ERR_PROC_ABORTED, "ofi: rank %d %s for %.0f s (the provider cannot "
                                     "reach it: the process ended or its host is unreachable; "
                                     "UZURA_OFI_PEER_TIMEOUT)", world, why, secs));
}

/* PING one silent peer, or find it dead: it refused every PING (ofi_rxm
 * cannot connect), or left the last one uncompleted (ofi_rxd, which
 * completes a send when the peer acknowledges it, retransmits forever),
 * for UZURA_OFI_PEER_TIMEOUT. */
static void probe_peer(int r, long now)
{
    struct ofi_peer *p = &uz_ofi.peers[r];
    double timeout = uz_config.ofi_peer_timeout;
    if (p->ping_since_ns) {
        double secs = (double)(now - p->ping_since_ns) / 1e9;
        if (secs >= timeout)
            declare_dead(r, "has not taken a message", secs);
        return;
    }
    int rc = ofi_send_control(r, OFI_PING, NULL, 0);
    if (rc == 0) {
        p->refused_since_ns = 0;
        p->ping_since_ns = now;
        return;
    }
    if (rc != -EAGAIN || uz_ofi.tx_busy == OFI_TX_BUFS)
        return;                         /* refused by us (no buffer free), not by the provider */
    if (!p->refused_since_ns)
        p->refused_since_ns = now;
    double secs = (double)(now - p->refused_since_ns) / 1e9;
    if (secs >= timeout)
        declare_dead(r, "has refused every message", secs);
}

/* Every OFI_PROBE_MS (or a quarter of the timeout): the silent peers, at
 * most OFI_PROBES_PER_PERIOD of them, taking turns (a job of thousands
 * sends no storm of PINGs). */
static void probe(void)
{
    static int next;
    long now = ofi_now_ns();
    if (now < uz_ofi.next_probe_ns)
        return;
    long period = OFI_PROBE_MS * 1000000L, quarter = (long)(uz_config.ofi_peer_timeout * 0.25e9);
    uz_ofi.next_probe_ns = now + (quarter > 0 && quarter < period ? quarter : period);
    uz_ofi.period++;
    int probed = 0;
    if (next >= uz_ofi.size)
        next = 0;
    for (int k = 0; k < uz_ofi.size && probed < OFI_PROBES_PER_PERIOD; k++) {
        int r = next;
        next = (next + 1) % uz_ofi.size;
        struct ofi_peer *p = &uz_ofi.peers[r];
        if (r != uz_ofi.rank && !p->failed && p->addr != FI_ADDR_NOTAVAIL && uz_ofi.period - p->heard >= 2) {
            probe_peer(r, now);
            probed++;
        }
    }
}

/* ------------------------------------------------------------ completions */

static void on_error(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof(e));
    if (fi_cq_readerr(uz_ofi.cq, &e, 0) != 1)
        return;
    struct ofi_op *op = e.op_context;
    if (!op)
        return;
    char detail[160];
    const char *why = fi_cq_strerror(uz_ofi.cq, e.prov_errno, e.err_data, detail, sizeof(detail));
    int code = uz_ofi.lingering ? MPI_ERR_PROC_ABORTED
        : uz_err_make(MPI_ERR_PROC_ABORTED, "ofi: %s rank %d failed: %s (%s; the process ended or its host is "
                      "unreachable)", op->kind == OFI_OP_READ ? "reading a message from" : "sending to", op->peer,
                      ofi_lib.strerror(e.err), why ? why : "no detail");
    switch (op->kind) {
    case OFI_OP_TX:
        ofi_peer_lost(op->peer, code);
        ofi_tx_done(op, code);
        return;
    case OFI_OP_READ:
        ofi_peer_lost(op->peer, code);
        ofi_read_done(op, e.err ? e.err : EIO);
        return;
    case OFI_OP_RX:
        if (e.err != FI_ECANCELED) {
            uz_net_stats.malformed++;   /* truncated: longer than any record */
            ofi_rx_post(op);
        }
        return;
    }
}

/* Read what the CQ has; returns the completions handled. */
static int drain(void)
{
    struct fi_cq_msg_entry ev[OFI_CQ_BATCH];
    int events = 0;
    for (;;) {
        ssize_t n = fi_cq_read(uz_ofi.cq, ev, OFI_CQ_BATCH);
        if (n == -FI_EAVAIL) {
            on_error();
            events++;
            continue;
        }
        if (n <= 0)
            return events;
        for (ssize_t i = 0; i < n; i++) {
            struct ofi_op *op = ev[i].op_context;
            if (!op)
                continue;
            switch (op->kind) {
            case OFI_OP_TX:
                ofi_tx_done(op, 0);
                break;
            case OFI_OP_RX:
                ofi_rx_done(op, ev[i].len);
                break;
            case OFI_OP_READ:
                ofi_read_done(op, 0);
                break;
            }
        }
        events += (int)n;
        if (n < OFI_CQ_BATCH)
            return events;
    }
}

int ofi_progress(void)
{
    if (uz_ofi.in_progress)
        return 0;                       /* a handler called back into progress */
    uz_ofi.in_progress = 1;
    int events = drain();
    ofi_rx_post_all();
    if (uz_ofi.npulls)
        events += ofi_bulk_step();
    if ((++uz_ofi.calls & 255) == 0)
        probe();
    uz_ofi.in_progress = 0;
    if (UZ_UNLIKELY(uz_ofi.ndead))
        events += reap();
    return events;
}

/* ------------------------------------------------------------ waiting */

static int nothing_pending(void)
{
    struct fid *fids[1] = { &uz_ofi.cq->fid };
    return fi_trywait(uz_ofi.fabric, fids, 1) == FI_SUCCESS;
}

int ofi_pollfds(struct pollfd *fds, int max, int *timeout_ms)
{
    if (*timeout_ms > OFI_NAP_MAX_MS)
        *timeout_ms = OFI_NAP_MAX_MS;
    probe();                            /* a sleeper probes too */
    if (uz_ofi.ndead || uz_ofi.npulls) {
        *timeout_ms = 0;
        return 0;
    }
    if (uz_ofi.wait_fd < 0 || max < 1) {
        if (*timeout_ms > OFI_NAP_MS)
            *timeout_ms = OFI_NAP_MS;
        return 0;
    }
    if (!nothing_pending())
        *timeout_ms = 0;
    fds[0] = (struct pollfd){ .fd = uz_ofi.wait_fd, .events = POLLIN };
    return 1;
}

int ofi_work_pending(void)
{
    if (uz_ofi.ndead || uz_ofi.npulls)
        return 1;
    return uz_ofi.wait_fd >= 0 && !nothing_pending();
}

/* ------------------------------------------------------------ lingering */

/* After MPI_Finalize's last fence begins the request layer calls nothing
 * until close(), but peers may still need our provider to move bytes they
 * are owed (manual progress): a thread keeps reading the CQ, making no
 * upcalls (uz_ofi.lingering). */
static void *linger_main(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&uz_ofi.linger_stop, memory_order_acquire)) {
        if (drain())
            continue;
        if (uz_ofi.wait_fd >= 0 && nothing_pending()) {
            struct pollfd pfd = { .fd = uz_ofi.wait_fd, .events = POLLIN };
            poll(&pfd, 1, OFI_LINGER_POLL_MS);
        } else {
            struct timespec ts = { 0, OFI_NAP_MS * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

void ofi_linger(void)
{
    if (uz_ofi.lingering || !uz_ofi.ep)
        return;
    uz_ofi.lingering = 1;
    atomic_store_explicit(&uz_ofi.linger_stop, 0, memory_order_relaxed);
    if (pthread_create(&uz_ofi.linger_thread, NULL, linger_main, NULL) != 0)
        uz_ofi.lingering = 2;           /* no thread: close() drains what it can */
}

void ofi_linger_stop(void)
{
    if (uz_ofi.lingering == 1) {
        atomic_store_explicit(&uz_ofi.linger_stop, 1, memory_order_release);
        pthread_join(uz_ofi.linger_thread, NULL);
    }
    uz_ofi.lingering = 2;
}

#endif /* UZ_HAVE_LIBFABRIC */
