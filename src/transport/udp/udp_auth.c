/*
 * udp_auth.c — SipHash-2-4 (Aumasson & Bernstein), the keyed MAC that
 * proves a datagram comes from a rank of this job.
 *
 * SipHash is a PRF built for short inputs: a 48-byte header costs about as
 * much as a few cache misses, so every datagram can be checked.  The
 * two-piece form hashes header and payload as one message without copying
 * them together; the batch form MACs the headers of a whole run of
 * segments four at a time in vector lanes.
 */
#include <string.h>

#include "transport/udp/udp_wire.h"

static inline uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

/* ----------------------------------------- the state and its four steps */

static inline void sip_key(uint64_t v[4], const uint8_t key[16])
{
    uint64_t k0, k1;
    memcpy(&k0, key, 8);
    memcpy(&k1, key + 8, 8);
    v[0] = k0 ^ 0x736f6d6570736575ULL;
    v[1] = k1 ^ 0x646f72616e646f6dULL;
    v[2] = k0 ^ 0x6c7967656e657261ULL;
    v[3] = k1 ^ 0x7465646279746573ULL;
}

static inline void sipround(uint64_t v[4])
{
    v[0] += v[1]; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32);
    v[2] += v[3]; v[3] = rotl(v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; v[3] = rotl(v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32);
}

/* Absorb one 8-byte word (two compression rounds). */
static inline void sip_word(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sipround(v);
    sipround(v);
    v[0] ^= m;
}

/* Absorb the last word (the leftover bytes and the length) and finish. */
static inline uint64_t sip_finish(uint64_t v[4], uint64_t last)
{
    sip_word(v, last);
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++)
        sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* ---------------------------------------------- any bytes, in pieces */

struct sip {
    uint64_t v[4];
    uint64_t tail;              /* bytes not yet forming a whole word */
    unsigned ntail;
    uint64_t total;
};

static void sip_update(struct sip *s, const unsigned char *p, size_t len)
{
    s->total += len;
    while (len && s->ntail) {           /* finish a word begun by the last piece */
        s->tail |= (uint64_t)*p++ << (8 * s->ntail);
        len--;
        if (++s->ntail == 8) {
            sip_word(s->v, s->tail);
            s->tail = 0;
            s->ntail = 0;
        }
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t m;
        memcpy(&m, p, 8);
        sip_word(s->v, m);
    }
    while (len--)
        s->tail |= (uint64_t)*p++ << (8 * s->ntail++);
}

uint64_t udp_siphash2(const uint8_t key[16], const void *a, size_t alen, const void *b, size_t blen)
{
    struct sip s = { .tail = 0, .ntail = 0, .total = 0 };
    sip_key(s.v, key);
    sip_update(&s, a, alen);
    if (blen)
        sip_update(&s, b, blen);
    return sip_finish(s.v, s.tail | (s.total & 0xff) << 56);
}

/*
 * The common case, a header of whole words and nothing else, with the
 * state in locals: every segment is sealed once and checked once, and the
 * streaming form above (its state in memory, a branch per piece) costs
 * about 15% more per 40-byte header (57 against 50 ns here).
 */
uint64_t udp_siphash(const uint8_t key[16], const void *data, size_t len)
{
    if (len % 8)
        return udp_siphash2(key, data, len, NULL, 0);
    const unsigned char *p = data;
    uint64_t v[4];
    sip_key(v, key);
    for (size_t i = 0; i < len; i += 8) {
        uint64_t m;
        memcpy(&m, p + i, 8);
        sip_word(v, m);
    }
    return sip_finish(v, (uint64_t)(len & 0xff) << 56);
}

/* ------------------------------------------- four headers at a time */

/*
 * One SipHash round is a chain of dependent adds, rotations and xors, so a
 * single hash leaves most of the core idle and interleaving several in
 * scalar code gains nothing (the registers run out).  Four hashes in the
 * four 64-bit lanes of a vector do the same work in one chain: with
 * AVX-512's rotate instruction a header costs a third of the scalar time,
 * with AVX2 a little over half.  The kernel is written with GCC vector
 * types, so it compiles for any target; target_clones picks the best
 * version for the CPU at load time.
 */
typedef uint64_t sip_lanes __attribute__((vector_size(32)));

/* In place, as vectors returned by value would cross the ABI differently
 * in the clones built for different vector widths. */
static inline __attribute__((always_inline)) void lanes_rotl(sip_lanes *x, int b)
{
    *x = (*x << b) | (*x >> (64 - b));
}

static inline __attribute__((always_inline)) void lanes_round(sip_lanes v[4])
{
    v[0] += v[1]; lanes_rotl(&v[1], 13); v[1] ^= v[0]; lanes_rotl(&v[0], 32);
    v[2] += v[3]; lanes_rotl(&v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; lanes_rotl(&v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; lanes_rotl(&v[1], 17); v[1] ^= v[2]; lanes_rotl(&v[2], 32);
}

static inline __attribute__((always_inline)) void lanes_word(sip_lanes v[4], const sip_lanes *m)
{
    v[3] ^= *m;
    lanes_round(v);
    lanes_round(v);
    v[0] ^= *m;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define UDP_AUTH_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define UDP_AUTH_CLONES
#endif

/* The MACs of four UDP_WIRE_MAC_BYTES-long headers. */
UDP_AUTH_CLONES static void siphash_header_x4(const uint8_t key[16], const struct udp_wire *const w[4],
                                               uint64_t mac[4])
{
    uint64_t s[4];
    sip_key(s, key);
    sip_lanes v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (sip_lanes){ s[i], s[i], s[i], s[i] };
    for (size_t off = 0; off < UDP_WIRE_MAC_BYTES; off += 8) {
        sip_lanes m;
        for (int l = 0; l < 4; l++) {
            uint64_t x;
            memcpy(&x, (const unsigned char *)w[l] + off, 8);
            m[l] = x;
        }
        lanes_word(v, &m);
    }
    uint64_t last = (uint64_t)UDP_WIRE_MAC_BYTES << 56;
    sip_lanes m = { last, last, last, last };
    lanes_word(v, &m);
    v[2] ^= (sip_lanes){ 0xff, 0xff, 0xff, 0xff };
    for (int i = 0; i < 4; i++)
        lanes_round(v);
    sip_lanes r = v[0] ^ v[1] ^ v[2] ^ v[3];
    for (int l = 0; l < 4; l++)
        mac[l] = r[l];
}

_Static_assert(UDP_WIRE_MAC_BYTES % 8 == 0, "the batch MAC reads the header in whole words");

void udp_siphash_headers(const uint8_t key[16], const struct udp_wire *const *w, int n, uint64_t *mac)
{
    int i = 0;
    for (; i + 4 <= n; i += 4)
        siphash_header_x4(key, w + i, mac + i);
    if (i < n) {                /* the rest: the first again fills the lanes */
        const struct udp_wire *rest[4];
        uint64_t out[4];
        for (int l = 0; l < 4; l++)
            rest[l] = w[i + l < n ? i + l : i];
        siphash_header_x4(key, rest, out);
        for (int l = 0; i + l < n; l++)
            mac[i + l] = out[l];
    }
}
