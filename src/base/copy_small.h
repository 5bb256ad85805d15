/*
 * copy_small.h — memcpy with the sizes most messages have copied in line.
 *
 * A record's 16-byte header and the payloads of small messages have a size
 * known only at run time, so GCC calls the C library's copy for them; the
 * call and its size dispatch were a fifth of the ring send's instructions
 * per 8-byte message.  Up to 16 bytes this copies with two moves of the
 * largest power of two not above the size, overlapping where the size is
 * not one; anything larger goes to memcpy as before.
 */
#ifndef UZ_BASE_COPY_SMALL_H
#define UZ_BASE_COPY_SMALL_H

#include <stddef.h>
#include <string.h>

static inline void uz_copy_small(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n == 16) {
        memcpy(d, s, 16);       /* the request layer's header */
    } else if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n >= 2) {
        memcpy(d, s, 2);
        memcpy(d + n - 2, s + n - 2, 2);
    } else if (n == 1) {
        *d = *s;
    }
}

#endif /* UZ_BASE_COPY_SMALL_H */
