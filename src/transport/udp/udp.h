/*
 * udp.h — private to the udp transport: the state of the process's one
 * socket and of every peer it talks to, and the functions the files of
 * src/transport/udp/ offer each other.
 *
 *   udp_ops.c     start-up, cards, peers, progress, sleeping, shut-down
 *   udp_window.c  the sender (S1–S6): segmenting records into the window,
 *                 transmitting, ACK / LOST / STOP / GO, retransmission
 *   udp_recv.c    the receiver (R0–R4): checking, in-order acceptance,
 *                 reassembly, ACKs, LOST, STOP / GO
 *   udp_timer.c   the clock, deadlines, backoff, declaring a peer dead
 *   udp_link.c    datagram I/O over a UDP socket (sendmmsg / recvmmsg)
 *   udp_raw.c     the same over raw Ethernet frames (AF_PACKET)
 *   udp_faults.c  loss / duplication / reordering of outgoing datagrams
 *   udp_auth.c    SipHash-2-4
 *
 * Everything runs in the caller's thread, from send() and progress(); no
 * lock is needed beyond the request layer's.  The one exception is the
 * short "linger" at MPI_Finalize (udp_ops.c).
 */
#ifndef UZ_TRANSPORT_UDP_UDP_H
#define UZ_TRANSPORT_UDP_UDP_H

#include <netinet/in.h>
#include <linux/if_packet.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport/net/net.h"
#include "transport/udp/udp_wire.h"

enum {
    UDP_BATCH = 64,             /* datagrams per sendmmsg / recvmmsg */
    UDP_DGRAM_MAX = 65507,      /* largest UDP payload over IPv4 */
    UDP_GSO_SEGS = 64,          /* most segments in one offloaded send (the kernel's limit) */
    UDP_GSO_BYTES = 65000,      /* and their bytes: one IPv4 packet before segmentation */
    UDP_RX_SEGS = 1024,         /* segments one udp_link_recv() may hand over */
    UDP_PLACE_MAX = 64,         /* runs of user memory one record may be placed into */
};

/* Where a peer's datagrams go. */
struct udp_dest {
    struct sockaddr_in in;      /* udp mode */
    struct sockaddr_ll ll;      /* raw Ethernet mode */
    char text[64];              /* "10.77.0.2:40123" or the MAC, for messages */
};

struct udp_peer {
    int world;
    int dead;                   /* declared dead: everything to it fails */
    int gone;                   /* its host said its port is closed; dead at the next safe point */
    struct udp_dest dest;
    size_t dgram;               /* header + segment bytes of one full datagram */
    size_t seg;                 /* record bytes one datagram carries */

    /* ---- sender (S1–S6): segments base .. tail-1 are held in the window;
     * base .. next-1 have been transmitted and wait for their ACK. */
    uint32_t base;              /* i: oldest unacknowledged */
    uint32_t next;              /* MsgIdSent + 1 */
    uint32_t tail;              /* next free slot */
    uint32_t nslots;            /* window N (power of two) */
    unsigned char *slots;       /* nslots × dgram bytes: SBuf(r, i) */
    uint32_t *slot_len;         /* bytes on the wire of each slot */
    const unsigned char **slot_ref; /* payload read from the user's buffer, or NULL: in the slot */
    unsigned char *slot_flags;  /* header flags of each slot (slot_header() makes the header) */
    void **slot_hold;           /* on a held record's last segment: whom to release on its ACK */
    int nheld;                  /* held records in the window */
    unsigned char *slot_brief;  /* segments of records held briefly (copied when idle) */
    int nbrief;                 /* such records in the window */
    void **releasing;           /* nslots / 2: owners being released (release_held) */
    long *stime;                /* STime(r, i) */
    long last_tx_ns;            /* when the kernel last returned from sending to it */
    uint32_t cwnd;              /* segments allowed in flight now (≤ nslots) */
    int stopped;                /* a STOP is in force */
    uint32_t fc_seen;           /* latest STOP/GO generation received (echoed back) */
    long rto_ns;                /* current timeout T, doubled on each expiry */
    int retries;                /* expiries since the last sign of life */
    long alive_ns;              /* last ACK progress, STOP or GO from it */
    long probe_ns;              /* stopped: when to probe again */
    uint32_t rewound_to;        /* last LOST acted on (once per gap) */
    long rewound_ns;
    int icmp_errors;            /* "port unreachable" since its last packet */
    int in_txq;                 /* on the list of peers with segments to transmit */

    /* ---- receiver (R0–R4) */
    uint32_t expected;          /* MsgIdRecv + 1 */
    int unacked;                /* segments accepted since the last ACK we sent */
    int ack_every;              /* UZURA_UDP_ACK_EVERY, at most a quarter of its window */
    long ack_due_ns;            /* when the coalesced ACK must go (0: none owed) */
    int ack_now;                /* a duplicate arrived: the sender missed an ACK */
    int ack_req;                /* a record it waits on is in: ACK at the end of the read batch */
    uint32_t lost_for;          /* LOST already sent for this gap */
    long lost_ns;
    int rx_stopped;             /* we sent STOP and have not sent GO since */
    uint32_t fc_gen;            /* generation of our latest STOP/GO */
    uint32_t fc_echoed;         /* highest generation the peer has echoed */
    long fc_sent_ns;            /* last (re)transmission of STOP/GO */
    long heard_ns;              /* last authenticated packet from it */
    long ping_ns;               /* last keep-alive we sent */

    /* reassembly of the record in progress */
    size_t rec_len, rec_got;
    size_t rec_hdr_len;
    unsigned char *rec_buf;     /* max_record bytes, or NULL while placing */
    unsigned char *rec_store;   /* the buffer itself, allocated on first need */
    unsigned char rec_hdr[256]; /* the header of a placed record */
    struct iovec place[UDP_PLACE_MAX];
    int nplace;
    int placing;

    struct udp_peer *txq_next;
};

/* Tunables, as read at open (UZURA_UDP_*). */
struct udp_conf {
    size_t mtu;                 /* 0: the interface's */
    size_t max_record;
    uint32_t window;            /* segments */
    size_t window_bytes;
    size_t sockbuf;
    long rto_ns, rto_max_ns;
    long peer_timeout_ns;
    int retries;
    long hold_ns;               /* a held record's ACK is awaited this long, then it is copied */
    int ack_every;
    long ack_delay_ns;
    double stop_high, stop_low; /* fractions of the socket's receive buffer */
    int mac_payload;
    int raw;
    int gso;                    /* UZURA_UDP_GSO, and the kernel took it */
};

/* One datagram to send: header + up to two pieces of payload. */
struct udp_out {
    const struct udp_dest *dest;
    struct iovec iov[2];
    int niov;
};

/* One datagram received. */
struct udp_in {
    unsigned char *buf;
    size_t len;
};

struct udp_state {
    int fd;
    int world_rank, world_size;
    int node_id;
    uint8_t key[UZ_NET_KEY_BYTES];
    struct udp_conf conf;
    struct udp_peer **peers;            /* by world rank, NULL until first use */
    struct udp_peer **live;             /* the created ones, for timers */
    int nlive;
    struct udp_peer *txq;               /* peers with segments to transmit */
    int nbrief;                         /* records held briefly, all peers */
    int (*read_card)(const char *transport, int world, struct uz_net_peer_card *card);
    size_t lo_mtu, if_mtu;              /* MTU of the paths to same-host and other-host peers */
    unsigned char *rxbuf;               /* UDP_BATCH receive buffers */
    int rx_more;                        /* the last receive filled its batch: more may wait */
    int gone_pending;                   /* some peer is marked gone, not yet declared dead */
    int gro_refused;                    /* errno of UDP_GRO, which turned offload off; 0 */
    size_t rxbuf_each;
    long next_timer_ns;                 /* earliest deadline of any peer */
    int congested;                      /* receive queue above the high watermark */
    size_t rcvbuf;                      /* the socket's receive buffer, as the kernel sized it */
    const struct uz_upcalls *up;        /* the request layer */
    int lingering;                      /* MPI_Finalize's last fence: records are dropped, nobody told */
    /* raw Ethernet */
    int ifindex;
    unsigned char mac[6];
    /* counters, printed at MPI_Finalize with UZURA_VERBOSE=2 */
    struct {
        unsigned long data_sent, data_resent, data_recv, bytes_sent, bytes_recv, records_sent, records_in_place;
        unsigned long records_held;
        unsigned long trailers, kept_first;     /* headers sent last; kept first for a look-alike payload */
        unsigned long acks_sent, lost_sent, lost_recv, stop_sent, go_sent, stop_recv, go_recv;
        unsigned long timeouts, out_of_order, duplicates, discarded, pings;
        unsigned long icmp_errors, send_eagain, dropped_after_finalize, unheld, copied_idle;
        unsigned long fault_lost, fault_dup, fault_reordered;
    } stats;
};

extern struct udp_state udp;

/* udp_ops.c */
struct udp_peer *udp_peer_get(int world);

/* udp_window.c — the sender */
int udp_window_send(struct udp_peer *p, const void *hdr, size_t hdr_len, const struct uz_payload *pl);
void udp_window_push(struct udp_peer *p);
void udp_window_push_all(void);
int udp_window_copy_when_idle(void);
void udp_window_on_header(struct udp_peer *p, const struct udp_wire *w, long now);
void udp_window_on_timer(struct udp_peer *p, long now);
/* Drop the window; records still held are released with `error`. */
void udp_window_free(struct udp_peer *p, int error);
/* Segments in the window to p (a power of two), allocated or not. */
uint32_t udp_window_slots(const struct udp_peer *p);
/* Fill the header fields every packet to p carries (ack, echo) and seal it. */
void udp_seal(struct udp_peer *p, struct udp_wire *w, const void *payload, size_t len);
/* Send a packet without data (ACK, LOST, STOP, GO, PING) to p now. */
void udp_send_control(struct udp_peer *p, uint8_t flags);

/* udp_recv.c — the receiver */
int udp_recv_poll(void);
void udp_recv_on_timer(struct udp_peer *p, long now);
void udp_recv_free(struct udp_peer *p);

/* udp_timer.c */
long udp_now(void);
void udp_timer_arm(long deadline_ns);
int udp_timer_run(long now);
int udp_timer_poll_ms(long now);
void udp_peer_declare_dead(struct udp_peer *p, const char *why);
void udp_reap_gone(void);

/* udp_link.c / udp_raw.c — datagram I/O */
int udp_link_open(char *card, size_t cardlen, const struct uz_net_addrs *local);
int udp_link_dest(struct udp_dest *d, const char *card, int same_node, size_t *mtu);
int udp_link_send(struct udp_out *out, int n);   /* datagrams sent (≥ 0), stops at a full buffer */
int udp_link_recv(struct udp_in *in, int max);   /* datagrams received (≥ 0) */
void udp_link_errors(void);                       /* read queued ICMP errors; dead peers */
int udp_link_send_run(const struct udp_dest *d, struct iovec *iov, int niov, int nseg, size_t seg);
int udp_raw_open(char *card, size_t cardlen, const struct uz_net_addrs *local);
int udp_raw_dest(struct udp_dest *d, const char *card, int same_node, size_t *mtu);
int udp_raw_send(struct udp_out *out, int n);
int udp_raw_recv(struct udp_in *in, int max);
size_t udp_link_rx_queued(void);                  /* bytes in the socket's receive queue */
int udp_iface_of(const char *addr, char *name, size_t namelen, size_t *mtu);
void udp_link_set_buffers(int fd);

/* udp_faults.c — UZURA_UDP_FAULTS */
int udp_faults_init(const char *spec);
int udp_faults_active(void);
int udp_faults_send(struct udp_out *out, int n);
void udp_faults_flush(void);
void udp_faults_tick(long now);

/* The datagram I/O of the chosen mode, with fault injection if asked for. */
int udp_io_send(struct udp_out *out, int n);

#endif /* UZ_TRANSPORT_UDP_UDP_H */
