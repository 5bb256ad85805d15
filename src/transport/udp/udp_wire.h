/*
 * udp_wire.h — the packet format of the udp transport (GigaE PM, §3.3 of
 * the paper in shared/seeds/002).
 *
 * Every datagram (UDP payload, or Ethernet payload after Uzura's EtherType
 * in raw mode) carries this 48-byte header, in the sender's byte order
 * (little-endian: Uzura runs on x86-64 and aarch64 Linux), at its start —
 * or at its end (UDP_X_TRAILER), when its payload does not itself begin
 * with the magic and version.  The receiver tells the two apart by those
 * two bytes alone.  Header-last datagrams exist for the sender's sake: in
 * an offloaded run of segments read from the user's buffer, one header-
 * first and the next header-last put two payloads side by side, and that
 * header beside the next one, so the kernel gathers one piece per segment
 * instead of two, and each piece costs it as much as copying a few
 * hundred bytes (docs/performance.md).  One header
 * carries at once everything the paper sends as separate messages: a data
 * segment Msg(s,r,i), a cumulative ACK, LOST(k), STOP(k)/GO(k) and the
 * acknowledgement of STOP/GO.  The `mac` field is SipHash-2-4 of the rest
 * of the header under the job key, so a datagram from anyone who does not
 * know the key is dropped before any field is believed.
 */
#ifndef UZ_TRANSPORT_UDP_UDP_WIRE_H
#define UZ_TRANSPORT_UDP_UDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum {
    UDP_WIRE_MAGIC = 0xB5,      /* also the low byte of our EtherType 0x88B5 */
    UDP_WIRE_VERSION = 2,       /* 2: headers may come last */
    UDP_ETHERTYPE = 0x88B5,     /* IEEE 802 local experimental EtherType 1 */
};

/* flags: which of the header's parts are meaningful. */
enum {
    UDP_F_DATA = 1 << 0,        /* seq + len payload bytes: one segment of a record */
    UDP_F_FIRST = 1 << 1,       /* first segment: rec_len and hdr_len are set */
    UDP_F_LAST = 1 << 2,        /* last segment of its record */
    UDP_F_LOST = 1 << 3,        /* LOST(ack): a gap, resend from `ack` (R3) */
    UDP_F_STOP = 1 << 4,        /* STOP(ack): stop sending, everything < ack received (R2) */
    UDP_F_GO = 1 << 5,          /* GO(ack): resume from ack (R4) */
    UDP_F_PING = 1 << 6,        /* keep-alive: answer with any packet */
    UDP_F_MAC_PAYLOAD = 1 << 7, /* the mac covers the payload too */
};

/* xflags. */
enum {
    UDP_X_ACK_REQ = 1 << 0,     /* LAST of a record its sender reads from user memory: the
                                 * send completes on the ACK, so ACK without waiting */
    UDP_X_TRAILER = 1 << 1,     /* this header is the datagram's last 48 bytes */
};

struct udp_wire {
    uint8_t magic;
    uint8_t version;
    uint8_t flags;
    uint8_t xflags;             /* UDP_X_*: requests that need no field of their own */
    uint32_t src;               /* sender's world rank */
    uint32_t dst;               /* receiver's world rank */
    uint32_t seq;               /* DATA: this segment's number, per (src,dst) */
    uint32_t ack;               /* every segment < ack from dst has arrived (always valid);
                                 * also the k of LOST(k), STOP(k) and GO(k) */
    uint32_t fc_gen;            /* STOP/GO: generation (orders them; repeated until echoed) */
    uint32_t fc_echo;           /* highest STOP/GO generation the sender has seen from dst */
    uint32_t rec_len;           /* FIRST: bytes of the whole record */
    uint16_t hdr_len;           /* FIRST: bytes of the request-layer header at its start */
    uint16_t len;               /* payload bytes in this datagram */
    uint32_t reserved2;         /* zero */
    uint64_t mac;               /* SipHash-2-4(job key, header up to here [+ payload]) */
};

_Static_assert(sizeof(struct udp_wire) == 48, "udp_wire must stay 48 bytes");

enum { UDP_WIRE_MAC_BYTES = offsetof(struct udp_wire, mac) };

/* Whether a datagram of `len` bytes has its header at its start (else it
 * can only be at its end): the magic and version there.  A sender never
 * puts a header last behind a payload that begins like this. */
static inline int udp_wire_at_start(const unsigned char *buf, size_t len)
{
    return len >= 2 && buf[0] == UDP_WIRE_MAGIC && buf[1] == UDP_WIRE_VERSION;
}

/* Sequence numbers wrap: a is before b when (int32_t)(a - b) < 0. */
static inline int udp_seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

/* SipHash-2-4 of `len` bytes under a 16-byte key (udp_auth.c). */
uint64_t udp_siphash(const uint8_t key[16], const void *data, size_t len);
/* The same over two pieces, as if concatenated (header, then payload). */
uint64_t udp_siphash2(const uint8_t key[16], const void *a, size_t alen, const void *b, size_t blen);
/* mac[i] = udp_siphash(key, w[i], UDP_WIRE_MAC_BYTES) for i < n, faster. */
void udp_siphash_headers(const uint8_t key[16], const struct udp_wire *const *w, int n, uint64_t *mac);

#endif /* UZ_TRANSPORT_UDP_UDP_WIRE_H */
