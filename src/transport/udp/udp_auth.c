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

struct sip {
    uint64_t v0, v1, v2, v3;
    uint64_t tail;              /* bytes not yet forming a whole word */
    unsigned ntail;
    uint64_t total;
};

static inline void round_(struct sip *s)
{
    s->v0 += s->v1; s->v1 = rotl(s->v1, 13); s->v1 ^= s->v0; s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3; s->v3 = rotl(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = rotl(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = rotl(s->v1, 17); s->v1 ^= s->v2; s->v2 = rotl(s->v2, 32);
}

static inline void word(struct sip *s, uint64_t m)
{
    s->v3 ^= m;
    round_(s);
    round_(s);
    s->v0 ^= m;
}

static void sip_init(struct sip *s, const uint8_t key[16])
{
    uint64_t k0, k1;
    memcpy(&k0, key, 8);
    memcpy(&k1, key + 8, 8);
    s->v0 = k0 ^ 0x736f6d6570736575ULL;
    s->v1 = k1 ^ 0x646f72616e646f6dULL;
    s->v2 = k0 ^ 0x6c7967656e657261ULL;
    s->v3 = k1 ^ 0x7465646279746573ULL;
    s->tail = 0;
    s->ntail = 0;
    s->total = 0;
}

static void sip_update(struct sip *s, const unsigned char *p, size_t len)
{
    s->total += len;
    while (len && s->ntail) {           /* finish a word begun by the last piece */
        s->tail |= (uint64_t)*p++ << (8 * s->ntail);
        len--;
        if (++s->ntail == 8) {
            word(s, s->tail);
            s->tail = 0;
            s->ntail = 0;
        }
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t m;
        memcpy(&m, p, 8);
        word(s, m);
    }
    while (len--)
        s->tail |= (uint64_t)*p++ << (8 * s->ntail++);
}

static uint64_t sip_final(struct sip *s)
{
    word(s, s->tail | (s->total & 0xff) << 56);
    s->v2 ^= 0xff;
    for (int i = 0; i < 4; i++)
        round_(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

uint64_t udp_siphash2(const uint8_t key[16], const void *a, size_t alen, const void *b, size_t blen)
{
    struct sip s;
    sip_init(&s, key);
    sip_update(&s, a, alen);
    if (blen)
        sip_update(&s, b, blen);
    return sip_final(&s);
}

/* One SipRound on a state the compiler keeps in registers. */
static inline void sipround(uint64_t v[4])
{
    v[0] += v[1]; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32);
    v[2] += v[3]; v[3] = rotl(v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; v[3] = rotl(v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32);
}

/*
 * The common case, a header of whole words and nothing else, with the
 * state in locals: every segment is sealed once and checked once, and the
 * streaming form above (its state in memory, a branch per piece) costs
 * about 15% more per 40-byte header (57 against 50 ns here).
 */
static uint64_t siphash_words(const uint8_t key[16], const unsigned char *p, size_t nwords)
{
    uint64_t k0, k1;
    memcpy(&k0, key, 8);
    memcpy(&k1, key + 8, 8);
    uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                      k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
    for (size_t i = 0; i < nwords; i++) {
        uint64_t m;
        memcpy(&m, p + 8 * i, 8);
        v[3] ^= m;
        sipround(v);
        sipround(v);
        v[0] ^= m;
    }
    uint64_t b = (uint64_t)((8 * nwords) & 0xff) << 56;
    v[3] ^= b;
    sipround(v);
    sipround(v);
    v[0] ^= b;
    v[2] ^= 0xff;
    sipround(v);
    sipround(v);
    sipround(v);
    sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t udp_siphash(const uint8_t key[16], const void *data, size_t len)
{
    if (len % 8 == 0)
        return siphash_words(key, data, len / 8);
    return udp_siphash2(key, data, len, NULL, 0);
}
