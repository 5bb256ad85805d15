/*
 * udp_ops.c — the udp transport as the request layer sees it (struct
 * uz_transport_ops): opening the one socket of the process, learning peers
 * lazily from their cards, driving receive / timers / transmission from
 * progress(), telling a sleeping rank what to wait on, and shutting down.
 *
 * Shutting down needs care that a stream transport does not: a record
 * send() accepted may still need retransmitting after MPI_Finalize has
 * entered its last fence, and a peer may still need our ACK for what we
 * received.  The kernel does neither for us, so from the moment finalize
 * reaches that fence (linger()) until close(), a thread keeps the protocol
 * running: it retransmits, acknowledges and drops whatever new arrives
 * (every receive of the job has completed by then).  The request layer
 * does nothing in between, so nothing else touches the transport.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/udp/udp.h"

struct udp_state udp = { .fd = -1 };

static pthread_t linger_thread;
/* linger_running is only touched by the main thread; linger_stop is read by
 * the linger thread while the main thread sets it. */
static int linger_running;
static atomic_int linger_stop;

/* ------------------------------------------------------------------ peers */

static int peer_path(struct udp_peer *p, const struct uz_net_peer_card *card)
{
    int same_node = card->node_id == udp.node_id;
    size_t mtu = 0;
    int rc = udp.conf.raw ? udp_raw_dest(&p->dest, card->value, same_node, &mtu)
                          : udp_link_dest(&p->dest, card->value, same_node, &mtu);
    if (rc != 0)
        return -1;
    if (udp.conf.mtu)
        mtu = udp.conf.mtu;
    size_t dgram = udp.conf.raw ? mtu : mtu - 28;       /* IPv4 + UDP headers */
    if (dgram > UDP_DGRAM_MAX)
        dgram = UDP_DGRAM_MAX;
    if (dgram < sizeof(struct udp_wire) + 64)
        return -1;
    p->dgram = dgram;
    p->seg = dgram - sizeof(struct udp_wire);
    return 0;
}

struct udp_peer *udp_peer_get(int world)
{
    if (world < 0 || world >= udp.world_size || world == udp.world_rank)
        return NULL;
    if (udp.peers[world])
        return udp.peers[world];
    if (!udp.read_card || linger_running)
        return NULL;            /* no PMI from the linger thread */
    struct uz_net_peer_card card;
    struct udp_peer *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    if (udp.read_card("udp", world, &card) != 0 || peer_path(p, &card) != 0) {
        free(p);
        return NULL;
    }
    p->world = world;
    p->rto_ns = udp.conf.rto_ns;
    /* Its window is as large as ours to it (same datagrams, same settings):
     * it must hear of progress well before that fills. */
    p->ack_every = (int)(udp_window_slots(p) / 4);
    if (p->ack_every > udp.conf.ack_every)
        p->ack_every = udp.conf.ack_every;
    if (p->ack_every < 1)
        p->ack_every = 1;
    p->lost_for = (uint32_t)-1;
    udp.peers[world] = p;
    udp.live[udp.nlive++] = p;
    return p;
}

/* --------------------------------------------------------------- start-up */

static void read_conf(void)
{
    struct udp_conf *c = &udp.conf;
    c->mtu = uz_config.udp_mtu;
    c->max_record = uz_config.udp_record < 4096 ? 4096 : uz_config.udp_record;
    if (c->max_record > (1u << 30))
        c->max_record = 1u << 30;
    c->max_record += UZ_RECORD_HEADER_ROOM;
    c->window = uz_config.udp_window < 16 ? 16 : (uint32_t)uz_config.udp_window;
    c->window_bytes = uz_config.udp_window_bytes;
    c->sockbuf = uz_config.udp_sockbuf;
    c->rto_ns = 1000L * (uz_config.udp_rto_us > 10 ? uz_config.udp_rto_us : 10);
    c->rto_max_ns = 1000L * uz_config.udp_rto_max_us;
    if (c->rto_max_ns < c->rto_ns)
        c->rto_max_ns = c->rto_ns;
    c->peer_timeout_ns = (long)(uz_config.udp_peer_timeout * 1e9);
    c->retries = uz_config.udp_retries;
    c->hold_ns = 1000L * (uz_config.udp_hold_us > 0 ? uz_config.udp_hold_us : 0);
    c->ack_every = uz_config.udp_ack_every > 0 ? uz_config.udp_ack_every : 1;
    c->ack_delay_ns = 1000L * uz_config.udp_ack_delay_us;
    c->stop_high = uz_config.udp_stop_high;
    c->stop_low = uz_config.udp_stop_low;
    c->mac_payload = uz_config.udp_mac_payload;
    c->raw = uz_config.udp_ether;
    c->gso = uz_config.udp_gso && !c->raw;
}

static int udp_open(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card,
                    size_t cardlen)
{
    memset(&udp, 0, sizeof(udp));
    udp.fd = -1;
    udp.up = up;
    udp.read_card = setup->read_card;
    udp.world_rank = setup->world_rank;
    udp.world_size = setup->world_size;
    udp.node_id = setup->node_id;
    memcpy(udp.key, setup->job_key, UZ_NET_KEY_BYTES);
    read_conf();
    int err = udp_faults_init(uz_config.udp_faults);
    if (err)
        return err;
    udp.peers = calloc((size_t)setup->world_size, sizeof(*udp.peers));
    udp.live = calloc((size_t)setup->world_size, sizeof(*udp.live));
    udp.rxbuf_each = 65536;
    udp.rxbuf = malloc(UDP_BATCH * udp.rxbuf_each);
    if (!udp.peers || !udp.live || !udp.rxbuf)
        return uz_err_make(MPI_ERR_NO_MEM, "udp: out of memory at start-up");
    struct uz_net_addrs local;
    uz_net_local_addresses(&local);
    return udp.conf.raw ? udp_raw_open(card, cardlen, &local) : udp_link_open(card, cardlen, &local);
}

/* ------------------------------------------------------ the data path */

static int udp_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *payload)
{
    struct udp_peer *p = udp_peer_get(world);
    if (!p)
        return uz_err_make(MPI_ERR_OTHER, "udp: no usable address for world rank %d in its card", world);
    if (p->dead)
        return uz_err_make(MPI_ERR_PROC_ABORTED, "udp: rank %d was declared dead", world);
    return udp_window_send(p, hdr, hdr_len, payload);
}

static int udp_progress(void)
{
    int work = udp_recv_poll();
    if (!work && udp.nbrief)
        work = udp_window_copy_when_idle();
    long now = udp_now();
    udp_timer_run(now);
    if (udp.txq)
        udp_window_push_all();
    udp_faults_tick(now);
    udp_reap_gone();
    return work;
}

/* Before sleeping: ACKs still owed go now (nothing will come to ride on). */
static void flush_acks(void)
{
    for (int i = 0; i < udp.nlive; i++) {
        struct udp_peer *p = udp.live[i];
        if (p->unacked && !p->dead)
            udp_send_control(p, 0);
    }
    udp_faults_flush();
}

static int udp_pollfds(struct pollfd *fds, int max, int *timeout_ms)
{
    if (max < 1)
        return 0;
    flush_acks();
    fds[0].fd = udp.fd;
    fds[0].events = POLLIN | (udp.txq ? POLLOUT : 0);
    fds[0].revents = 0;
    int ms = udp_timer_poll_ms(udp_now());
    if (ms >= 0 && ms < *timeout_ms)
        *timeout_ms = ms;
    return 1;
}

static void udp_caps(struct uz_transport_caps *caps)
{
    *caps = (struct uz_transport_caps){ .max_record = udp.conf.max_record, .keeps_sent_bytes = 1 };
}

/* --------------------------------------------------------------- shut-down */

static void *linger_main(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&linger_stop, memory_order_acquire)) {
        struct pollfd pfd = { .fd = udp.fd, .events = POLLIN | (udp.txq ? POLLOUT : 0) };
        int ms = udp_timer_poll_ms(udp_now());
        if (ms < 0 || ms > 10)
            ms = 10;
        poll(&pfd, 1, ms);
        udp_recv_poll();
        flush_acks();
        udp_timer_run(udp_now());
        if (udp.txq)
            udp_window_push_all();
        udp_reap_gone();
    }
    return NULL;
}

static void udp_linger(void)
{
    flush_acks();
    udp.lingering = 1;          /* records that still arrive are acknowledged and dropped */
    atomic_store_explicit(&linger_stop, 0, memory_order_relaxed);
    if (pthread_create(&linger_thread, NULL, linger_main, NULL) == 0)
        linger_running = 1;
}

static void print_stats(void)
{
    fprintf(stderr,
            "Uzura rank %d: udp: data sent %lu (resent %lu, %lu bytes; records %lu, sent from the user's buffer %lu, "
            "held until acknowledged %lu; headers last %lu, kept first for a look-alike payload %lu) "
            "received %lu (%lu bytes); "
            "acks/controls sent %lu; LOST sent %lu received %lu; STOP sent %lu received %lu; "
            "GO sent %lu received %lu; timeouts %lu; out-of-order %lu; duplicates %lu; probes %lu; "
            "window full %lu; sends copied for a slow ACK %lu, when idle %lu; rejected %lu; malformed %lu; dropped after finalize %lu; "
            "injected loss %lu dup %lu reorder %lu\n",
            udp.world_rank, udp.stats.data_sent, udp.stats.data_resent, udp.stats.bytes_sent, udp.stats.records_sent, udp.stats.records_in_place,
            udp.stats.records_held, udp.stats.trailers, udp.stats.kept_first,
            udp.stats.data_recv, udp.stats.bytes_recv, udp.stats.acks_sent, udp.stats.lost_sent,
            udp.stats.lost_recv, udp.stats.stop_sent, udp.stats.stop_recv, udp.stats.go_sent,
            udp.stats.go_recv, udp.stats.timeouts, udp.stats.out_of_order, udp.stats.duplicates,
            udp.stats.pings, udp.stats.send_eagain, udp.stats.unheld, udp.stats.copied_idle, uz_net_stats.rejected_datagrams,
            uz_net_stats.malformed, udp.stats.dropped_after_finalize, udp.stats.fault_lost,
            udp.stats.fault_dup, udp.stats.fault_reordered);
}

static void udp_close(void)
{
    if (linger_running) {
        atomic_store_explicit(&linger_stop, 1, memory_order_release);
        pthread_join(linger_thread, NULL);
        linger_running = 0;
    }
    if (uz_config.verbose >= 2)
        print_stats();
    for (int i = 0; i < udp.nlive; i++) {
        udp_window_free(udp.live[i], 0);
        udp_recv_free(udp.live[i]);
        free(udp.live[i]);
    }
    free(udp.peers);
    free(udp.live);
    free(udp.rxbuf);
    if (udp.fd >= 0)
        close(udp.fd);
    memset(&udp, 0, sizeof(udp));
    udp.fd = -1;
}

static void udp_describe(char *buf, size_t len)
{
    if (udp.conf.raw) {
        snprintf(buf, len, "udp protocol in raw Ethernet frames (EtherType 0x88B5, UZURA_UDP_ETHER=1), "
                 "MTU %zu, window %u datagrams", udp.if_mtu, udp.conf.window);
        return;
    }
    struct sockaddr_in sin = { 0 };
    socklen_t slen = sizeof(sin);
    getsockname(udp.fd, (struct sockaddr *)&sin, &slen);
    char offload[160];
    if (udp.conf.gso)
        snprintf(offload, sizeof(offload), "on");
    else if (!uz_config.udp_gso)
        snprintf(offload, sizeof(offload), "off, because UZURA_UDP_GSO=0");
    else
        snprintf(offload, sizeof(offload), "off, because the kernel refused UDP_GRO: %s",
                 strerror(udp.gro_refused));
    snprintf(buf, len, "udp on port %u, path MTU %zu, window %u datagrams; segmentation offload %s",
             ntohs(sin.sin_port), udp.if_mtu, udp.conf.window, offload);
}

/* What MPI_T tools see of the protocol (GigaE PM's S1-S6, R0-R4). */
static const struct uz_transport_counter udp_counters[] = {
    { "datagrams_sent", "udp: data datagrams sent, first sendings and retransmissions", &udp.stats.data_sent },
    { "retransmits", "udp: data datagrams sent again (go-back-N after LOST or a timeout)", &udp.stats.data_resent },
    { "timeouts", "udp: retransmission timers that expired", &udp.stats.timeouts },
    { "lost_sent", "udp: LOST requests sent on a gap in the sequence", &udp.stats.lost_sent },
    { "lost_received", "udp: LOST requests received from peers", &udp.stats.lost_recv },
    { "stop_sent", "udp: STOP sent because the receive queue passed its high watermark", &udp.stats.stop_sent },
    { "stop_received", "udp: STOP received from congested peers", &udp.stats.stop_recv },
    { "go_sent", "udp: GO sent once the receive queue drained below its low watermark", &udp.stats.go_sent },
    { "go_received", "udp: GO received", &udp.stats.go_recv },
    { "duplicates", "udp: datagrams received twice and dropped", &udp.stats.duplicates },
    { "out_of_order", "udp: datagrams received past a gap and dropped", &udp.stats.out_of_order },
    { NULL, NULL, NULL },
};

const struct uz_transport_ops uz_udp_transport = {
    .name = "udp",
    .reach = UZ_REACH_NETWORK,
    .open = udp_open,
    .caps = udp_caps,
    .linger = udp_linger,
    .close = udp_close,
    .describe = udp_describe,
    .send = udp_send,
    .progress = udp_progress,
    .pollfds = udp_pollfds,
    .counters = udp_counters,
};
