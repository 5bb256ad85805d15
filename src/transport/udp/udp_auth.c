/*
 * udp_auth.c — SipHash-2-4 (Aumasson & Bernstein), the keyed MAC that
 * proves a datagram comes from a rank of this job.
 *
 * SipHash is a PRF built for short inputs: a 48-byte header costs about as
 * much as a few cache misses, so every datagram can be checked.  The
 * two-piece form hashes header and payload as one message without copying
 * them together.
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
