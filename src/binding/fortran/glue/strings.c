/*
 * strings.c — CHARACTER arguments to C strings and back.
 *
 * Fortran passes a CHARACTER argument as its address and (after all the
 * other arguments, as a size_t in gfortran 8 and later) its length; there
 * is no terminating NUL and the value is padded with blanks.  An input
 * loses its trailing blanks (as the standard says MPI does with names and
 * keys); an output is copied in and padded with blanks to the full length,
 * or cut at it.
 */
#include <stdlib.h>
#include <string.h>

#include "uzf.h"

char *uzf_str_in(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

void uzf_str_out(char *dst, size_t dst_len, const char *src)
{
    size_t n = strlen(src);
    if (n > dst_len)
        n = dst_len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', dst_len - n);
}
