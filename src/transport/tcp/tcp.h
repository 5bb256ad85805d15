/*
 * tcp.h — the tcp transport's private header: its wire format, its state
 * and the functions its files share.
 *
 * Each rank listens on one socket (any address, a port the kernel picks)
 * and opens at most one connection per peer, the first time it sends to
 * it.  The connecting side opens with a hello that carries the job key; the
 * accepting side reads nothing else until the key checks out, and answers
 * WELCOME (or RACE_LOST when both sides connected at once and the other
 * connection wins).  After that the stream carries frames, each
 * {record length, header length, kind} followed by one record
 * (request-layer header + payload).
 *
 * Every socket is nonblocking and sits in one epoll set, level-triggered;
 * a sleeping rank polls the epoll descriptor itself.  Records that could
 * not be written whole wait in a per-peer queue of copied bytes, which is
 * flushed when the socket becomes writable.
 *
 * Files: tcp_ops.c (open, close, the ops table), tcp_conn.c (connecting,
 * accepting, the handshake), tcp_send.c, tcp_recv.c, tcp_progress.c,
 * tcp_linger.c (writing what is left while MPI_Finalize waits).
 */
#ifndef UZ_TRANSPORT_TCP_TCP_H
#define UZ_TRANSPORT_TCP_TCP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport/net/net.h"

/* ------------------------------------------------------------ wire format */

enum {
    TCP_MAGIC = 0x43545a55,             /* "UZTC" */
    TCP_VERSION = 1,
};

enum tcp_hello_kind {
    TCP_HELLO = 1,                      /* connector → acceptor: who I am, the key */
    TCP_WELCOME = 2,                    /* acceptor → connector: use this connection */
    TCP_RACE_LOST = 3,                  /* acceptor → connector: use mine, it is being set up */
};

/* The first bytes each way on a connection. */
struct tcp_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t kind;                      /* enum tcp_hello_kind */
    int32_t rank;                       /* sender's world rank */
    uint32_t reserved;
    uint8_t key[UZ_NET_KEY_BYTES];
};

enum {
    TCP_FRAME_RECORD = 1,
    TCP_FRAME_BYE = 2,                  /* nothing follows on this connection (tcp_foreign.c) */
};

/* Precedes every record on an established connection. */
struct tcp_frame {
    uint32_t len;                       /* record bytes: header + payload */
    uint16_t hdr_len;                   /* the request-layer header's bytes */
    uint16_t kind;                      /* TCP_FRAME_RECORD, TCP_FRAME_BYE (len 0) */
};

/* ------------------------------------------------------------ limits */

enum {
    TCP_HDR_MAX = 256,                  /* largest record header a frame may announce */
    TCP_RUNS_MAX = 64,                  /* memory runs one placed payload may use */
    TCP_SEND_RUNS = 64,                 /* memory runs one sendmsg takes from a payload */
    TCP_PACK_MAX = 16384,               /* non-contiguous payloads up to this are packed, not gathered */
    TCP_QUEUE_SMALL = 16384,            /* records up to this are copied to a busy queue;
                                           larger ones wait (no copy) in the request layer */
    TCP_PLACE_MIN = 4096,               /* payloads from this size may be read straight into place */
    TCP_RX_INITIAL = 65536,             /* receive buffer of a connection at first */
    TCP_HANDSHAKE_MS = 2000,            /* a connection must present the key within this */
    TCP_CONNECT_MS = 5000,              /* a connect to one address may take this long */
    TCP_RACE_WAIT_MS = 10000,           /* after RACE_LOST, wait this long for the peer's connection */
    TCP_CONNECT_RETRIES = 5,            /* reconnects after a connection closed during its handshake */
    TCP_INCOMING_MAX = 256,             /* accepted connections still in their handshake */
};

/* ------------------------------------------------------------ state */

/* epoll_data.u64 = tag << 32 | value. */
enum tcp_tag {
    TCP_TAG_LISTEN = 1,
    TCP_TAG_INCOMING,                   /* value: the socket */
    TCP_TAG_OUTGOING,                   /* value: the peer's world rank */
    TCP_TAG_PEER,                       /* value: the peer's world rank */
};

static inline uint64_t tcp_tag(enum tcp_tag tag, uint32_t value)
{
    return (uint64_t)tag << 32 | value;
}

/* Bytes waiting to be written to a peer (frames of whole records, or the
 * unsent rest of one). */
struct tcp_block {
    struct tcp_block *next;
    size_t off, len, cap;
    unsigned char data[];
};

/* Receiving side of an established connection. */
struct tcp_rx {
    unsigned char *buf;                 /* frames read but not yet handled */
    size_t cap, start, end;
    size_t need;                        /* bytes from start needed to make headway */
    int refused;                        /* the placer declined the record at start */
    /* A payload being read straight into the receiver's memory. */
    int placing;
    int nruns, run;
    size_t left;
    size_t payload, hdr_len;
    unsigned char hdr[TCP_HDR_MAX];
    struct iovec runs[TCP_RUNS_MAX];
};

enum tcp_out_state {
    TCP_OUT_NONE,                       /* no connection of ours in the making */
    TCP_OUT_CONNECTING,                 /* connect() in progress to addrs[attempt] */
    TCP_OUT_HELLO_SENT,                 /* waiting for the answer */
    TCP_OUT_WAIT_THEIRS,                /* lost the race: the peer's connection is coming */
};

struct tcp_peer {
    int fd;                             /* the established connection, or -1 */
    int out_fd;                         /* our connection being set up, or -1 */
    uint8_t out_state;                  /* enum tcp_out_state */
    uint8_t reply_got;                  /* bytes of the answer to our hello read so far */
    uint8_t pollout;                    /* EPOLLOUT is registered for fd */
    uint8_t full;                       /* the socket took less than offered; wait for EPOLLOUT */
    uint8_t dead_listed;                /* waiting in the list of peers to report */
    int attempt;                        /* index into addrs */
    int retries;
    int last_error;                     /* errno of the last failed connect */
    long deadline_ns;                   /* of the connect or of the race wait; 0 none */
    int naddrs;                         /* -1 until the card is read */
    struct sockaddr_in *addrs;
    struct tcp_hello reply;
    char where[32];                     /* "a.b.c.d:port" of the peer */
    /* sending */
    struct tcp_block *txq, *txq_tail;
    size_t queued;                      /* bytes in txq */
    /* receiving */
    struct tcp_rx *rx;
    int failed;                         /* MPI error code once the peer is gone */
    /* A process of another job (tcp_foreign.c): who it says it is, and
     * where it listens (its card, kept until its addresses are read). */
    uint8_t foreign;
    uint8_t same_host;
    uint8_t closing;                    /* close_peer: BYE queued; close when theirs comes */
    uint8_t bye_got;                    /* the peer sent BYE: its end of the connection closes */
    int rank_there;
    uint8_t key[UZ_NET_KEY_BYTES];
    char *card;
};

/* An accepted connection that has not yet shown the key. */
struct tcp_incoming {
    int fd;
    int got;                            /* bytes of the hello read */
    long deadline_ns;
    struct tcp_hello hello;
    char where[32];
};

/* What a rank counts (printed at MPI_Finalize with UZURA_VERBOSE=2). */
struct tcp_counters {
    unsigned long connects;             /* connections we opened and kept */
    unsigned long accepts;              /* connections we accepted and kept */
    unsigned long races;                /* connections dropped because both sides connected */
    unsigned long reconnects;           /* connects started over after the peer closed our handshake */
    unsigned long placed_bytes;         /* payload bytes read straight into user memory */
    unsigned long queued_bytes;         /* bytes copied into a send queue */
    unsigned long eagain;               /* sends refused for lack of room */
};

struct tcp_state {
    int rank, node_id;
    int job_size;                       /* this job's ranks: peers 0 .. job_size-1 */
    int size;                           /* peers known: the job's, then other jobs' */
    int cap;                            /* of peers and dead */
    uint8_t key[UZ_NET_KEY_BYTES];      /* the job's */
    int ep;                             /* the epoll set */
    int listen_fd;
    uint16_t port;
    size_t max_record;
    size_t frame_max;                   /* largest record accepted from a peer */
    struct tcp_peer *peers;             /* [size] */
    struct tcp_incoming incoming[TCP_INCOMING_MAX];
    int nincoming;
    int ndeadlines;                     /* peers with a connect or race deadline */
    int nqueued;                        /* peers with bytes in their send queue */
    int *dead;                          /* peers found dead, to report from progress */
    int ndead;
    int in_progress;
    int lingering;                      /* MPI_Finalize is in its last fence */
    int (*read_card)(const char *transport, int world, struct uz_net_peer_card *card);
    const struct uz_upcalls *up;        /* the request layer */
    unsigned char *scratch;             /* for packing small non-contiguous payloads */
    size_t scratch_cap;
    struct tcp_counters count;
};

extern struct tcp_state uz_tcp;

/* ------------------------------------------------------------ between files */

long tcp_now_ns(void);
int tcp_epoll_set(int fd, uint32_t events, uint64_t data, int add);

/* tcp_conn.c */
int tcp_connect_start(int world);
void tcp_on_listen(void);
void tcp_on_incoming(int fd);
void tcp_on_outgoing(int world, uint32_t events);
void tcp_check_deadlines(long now);
int tcp_deadline_ms(long now);
void tcp_incoming_close_all(void);

/* tcp_foreign.c: peers of other jobs */
int tcp_add_peer(int peer, const struct uz_foreign_peer *fp);
int tcp_close_peer(int peer);
void tcp_watch_peer(int peer);
int tcp_peer_of_hello(const struct tcp_hello *h);
int tcp_hello_is_from(const struct tcp_peer *p, int peer, const struct tcp_hello *h);
int tcp_we_are_lower(const struct tcp_peer *p, int peer);
void tcp_on_bye(int peer);
int tcp_on_eof(int peer);

/* tcp_send.c */
int tcp_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *payload);
int tcp_flush(int world);
void tcp_tx_free(struct tcp_peer *p);

/* tcp_recv.c */
int tcp_on_readable(int world);
int tcp_rx_new(struct tcp_peer *p);
void tcp_rx_free(struct tcp_peer *p);

/* tcp_progress.c */
int tcp_progress(void);
int tcp_pollfds(struct pollfd *fds, int max, int *timeout_ms);
void tcp_peer_lost(int world, int err);
void tcp_peer_lost_errno(int world, int error, const char *doing);

/* tcp_linger.c */
void tcp_linger(void);
void tcp_linger_stop(void);

#endif /* UZ_TRANSPORT_TCP_TCP_H */
