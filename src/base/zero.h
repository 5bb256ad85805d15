/*
 * zero.h — clearing a small object of known size with plain vector stores.
 *
 * GCC's generic x86-64 tuning clears a known size between 33 bytes and
 * 8 KiB with `rep stos`, whose start-up costs tens of cycles: in a profile
 * of the 8-byte message rate it held 60 % of uz_request_new()'s samples
 * (a request per message on each side); clearing with stores instead,
 * the 8-64 byte message rate measured 1.00-1.07 of before (one series
 * 0.95 at 16 bytes; medians of twelve alternating runs).  Only for the
 * hot paths' objects; elsewhere memset is fine.
 */
#ifndef UZ_BASE_ZERO_H
#define UZ_BASE_ZERO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/compiler.h"

/* n bytes at p (any alignment) become 0; n a multiple of 8.  In line, so
 * that a constant n unrolls. */
static UZ_ALWAYS_INLINE void uz_zero(void *p, size_t n)
{
    unsigned char *b = p;
    size_t i = 0;
#if defined(__SSE2__)
    __m128i z = _mm_setzero_si128();
#pragma GCC unroll 32
    for (; i + 16 <= n; i += 16) {
        _mm_storeu_si128((__m128i *)(b + i), z);
        __asm__("" ::: "memory");   /* else GCC sees a memset and emits rep stos again */
    }
#endif
    for (; i < n; i += 8) {
        uint64_t zero = 0;
        memcpy(b + i, &zero, 8);
        __asm__("" ::: "memory");
    }
}

#endif /* UZ_BASE_ZERO_H */
