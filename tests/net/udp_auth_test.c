/*
 * udp_auth_test.c — the udp transport's MAC (src/transport/udp/udp_auth.c)
 * is SipHash-2-4: the reference vectors of the SipHash paper (key 00..0f,
 * message 00 01 .. n-1), and the fast whole-word path, the two-piece
 * streaming form and the batch form for headers (four in vector lanes)
 * agree with each other for every length, split and batch size.
 */
#include <stdint.h>
#include <stdio.h>

#include "transport/udp/udp_wire.h"

static const struct {
    size_t len;
    uint64_t mac;
} reference[] = {
    { 0, 0x726fdb47dd0e0e31ULL }, { 1, 0x74f839c593dc67fdULL },  { 2, 0x0d6c8009d9a94f5aULL },
    { 3, 0x85676696d7fb7e2dULL }, { 4, 0xcf2794e0277187b7ULL },  { 8, 0x93f5f5799a932462ULL },
    { 15, 0xa129ca6149be45e5ULL }, { 16, 0x3f2acc7f57c29bdbULL },
};

int main(void)
{
    uint8_t key[16];
    unsigned char msg[80];
    for (int i = 0; i < 16; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 80; i++)
        msg[i] = (unsigned char)i;
    int failures = 0;
    for (size_t i = 0; i < sizeof(reference) / sizeof(reference[0]); i++) {
        size_t n = reference[i].len;
        uint64_t one = udp_siphash(key, msg, n);
        uint64_t two = udp_siphash2(key, msg, n / 2, msg + n / 2, n - n / 2);
        if (one != reference[i].mac || two != reference[i].mac) {
            fprintf(stderr, "length %zu: %016llx / %016llx, expected %016llx\n", n, (unsigned long long)one,
                    (unsigned long long)two, (unsigned long long)reference[i].mac);
            failures++;
        }
    }
    /* Every length up to 80 and every split point: one message, one MAC. */
    for (size_t n = 0; n <= 80; n++) {
        uint64_t want = udp_siphash(key, msg, n);
        for (size_t split = 0; split <= n; split++) {
            if (udp_siphash2(key, msg, split, msg + split, n - split) != want) {
                fprintf(stderr, "length %zu split at %zu: MACs differ\n", n, split);
                failures++;
            }
        }
    }
    /* Batches of 0..13 headers, each different, unaligned in memory. */
    static unsigned char pool[16 * sizeof(struct udp_wire) + 1];
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < sizeof(pool); i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pool[i] = (unsigned char)x;
    }
    for (int n = 0; n <= 13; n++) {
        const struct udp_wire *w[13];
        uint64_t mac[13];
        for (int i = 0; i < n; i++)
            w[i] = (const struct udp_wire *)(pool + 1 + (size_t)i * sizeof(struct udp_wire));
        udp_siphash_headers(key, w, n, mac);
        for (int i = 0; i < n; i++) {
            if (mac[i] != udp_siphash(key, w[i], UDP_WIRE_MAC_BYTES)) {
                fprintf(stderr, "batch of %d, header %d: MAC differs\n", n, i);
                failures++;
            }
        }
    }
    printf("udp_auth_test: %s\n", failures ? "FAILED" : "SipHash-2-4 reference vectors, splits and batches agree");
    return failures != 0;
}
