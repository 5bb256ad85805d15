/*
 * info_strings.c — the Fortran side of info keys and values, and of the
 * other procedure whose string length travels in an argument of its own
 * (MPI_SESSION_GET_NTH_PSET).
 *
 * MPI-4.1 §10: in Fortran, leading and trailing blanks of a key and of a
 * value are stripped ("  key " names the key "key"), so the info procedures
 * that take a key or a value strip both ends, where other strings lose only
 * their trailing blanks.  A value is returned padded with blanks to the
 * variable's length, and left untouched when the key is not there.  The
 * lengths a Fortran program passes and gets back count the characters of
 * the value; in C they also count the terminating NUL (MPI_Info_get's
 * valuelen excepted, which does not in either).
 */
#include <stdlib.h>
#include <string.h>

#include "uzf.h"
#include "uzf_core.h"

/* A key or value from Fortran: without its leading and trailing blanks. */
static char *info_str_in(const char *s, size_t len)
{
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    return uzf_str_in(s, len);
}

/* Copy at most `max` characters of a value into the Fortran variable and
 * blank the rest of it. */
static void value_out(char *dst, size_t dst_len, const char *src, size_t max)
{
    size_t n = strlen(src);
    if (n > max)
        n = max;
    if (n > dst_len)
        n = dst_len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', dst_len - n);
}

int uzf_Info_set(const MPI_Fint *info, const char *key, size_t key_len, const char *value,
                 size_t value_len)
{
    char *ckey = info_str_in(key, key_len), *cvalue = info_str_in(value, value_len);
    int rc = ckey && cvalue ? PMPI_Info_set(PMPI_Info_f2c(*info), ckey, cvalue) : uzf_nomem();
    free(ckey);
    free(cvalue);
    return rc;
}

int uzf_Info_delete(const MPI_Fint *info, const char *key, size_t key_len)
{
    char *ckey = info_str_in(key, key_len);
    int rc = ckey ? PMPI_Info_delete(PMPI_Info_f2c(*info), ckey) : uzf_nomem();
    free(ckey);
    return rc;
}

int uzf_Info_get_valuelen(const MPI_Fint *info, const char *key, size_t key_len,
                          MPI_Fint *valuelen, MPI_Fint *flag)
{
    char *ckey = info_str_in(key, key_len);
    int cflag = 0;
    int rc = ckey ? PMPI_Info_get_valuelen(PMPI_Info_f2c(*info), ckey, valuelen, &cflag)
                  : uzf_nomem();
    if (rc == MPI_SUCCESS)
        *flag = uzf_to_logical(cflag);
    free(ckey);
    return rc;
}

/* MPI_INFO_GET: at most valuelen characters (and no more than the
 * variable holds). */
int uzf_Info_get(const MPI_Fint *info, const char *key, size_t key_len, const MPI_Fint *valuelen,
                 char *value, size_t value_len, MPI_Fint *flag)
{
    int asked = *valuelen;
    if (asked >= 0 && (size_t)asked > value_len)
        asked = (int)value_len;
    char *ckey = info_str_in(key, key_len), *cvalue = malloc(asked > 0 ? (size_t)asked + 1 : 1);
    int rc, cflag = 0;
    if (!ckey || !cvalue) {
        rc = uzf_nomem();
    } else {
        cvalue[0] = '\0';
        /* A negative valuelen goes to C as it is, for C's error. */
        rc = PMPI_Info_get(PMPI_Info_f2c(*info), ckey, asked, cvalue, &cflag);
        if (rc == MPI_SUCCESS) {
            *flag = uzf_to_logical(cflag);
            if (cflag)
                value_out(value, value_len, cvalue, (size_t)asked);
        }
    }
    free(ckey);
    free(cvalue);
    return rc;
}

/* MPI_INFO_GET_STRING: buflen in, the value's length out; buflen 0 asks
 * for the length only. */
int uzf_Info_get_string(const MPI_Fint *info, const char *key, size_t key_len, MPI_Fint *buflen,
                        char *value, size_t value_len, MPI_Fint *flag)
{
    int asked = *buflen > 0 ? *buflen : 0;
    if ((size_t)asked > value_len)
        asked = (int)value_len;
    char *ckey = info_str_in(key, key_len), *cvalue = malloc((size_t)asked + 1);
    int rc, cflag = 0, clen = asked + 1;
    if (!ckey || !cvalue) {
        rc = uzf_nomem();
    } else {
        rc = PMPI_Info_get_string(PMPI_Info_f2c(*info), ckey, &clen, cvalue, &cflag);
        if (rc == MPI_SUCCESS) {
            *flag = uzf_to_logical(cflag);
            if (cflag) {
                *buflen = clen - 1;
                if (asked > 0)
                    value_out(value, value_len, cvalue, (size_t)asked);
            }
        }
    }
    free(ckey);
    free(cvalue);
    return rc;
}

int uzf_Session_get_nth_pset(const MPI_Fint *session, const MPI_Fint *info, const MPI_Fint *n,
                             MPI_Fint *pset_len, char *pset_name, size_t pset_name_len)
{
    int asked = *pset_len > 0 ? *pset_len : 0;
    if ((size_t)asked > pset_name_len)
        asked = (int)pset_name_len;
    char *cname = malloc((size_t)asked + 1);
    int clen = asked + 1;
    if (!cname)
        return uzf_nomem();
    int rc = PMPI_Session_get_nth_pset(PMPI_Session_f2c(*session), PMPI_Info_f2c(*info), *n, &clen,
                                       cname);
    if (rc == MPI_SUCCESS) {
        *pset_len = clen - 1;
        if (asked > 0)
            value_out(pset_name, pset_name_len, cname, (size_t)asked);
    }
    free(cname);
    return rc;
}
