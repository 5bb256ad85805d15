/*
 * info_strings.c — the two procedures whose string length travels in an
 * argument of its own: MPI_INFO_GET_STRING and MPI_SESSION_GET_NTH_PSET.
 * In Fortran the length counts the characters of the value; in C it also
 * counts the terminating NUL.  The value is fetched into a C buffer one
 * longer than the Fortran one and copied out padded with blanks.
 */
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

int uzf_Info_get_string(const MPI_Fint *info, const char *key, size_t key_len, MPI_Fint *buflen,
                        char *value, size_t value_len, MPI_Fint *flag)
{
    int asked = *buflen > 0 ? *buflen : 0;
    if ((size_t)asked > value_len)
        asked = (int)value_len;
    char *ckey = uzf_str_in(key, key_len), *cvalue = malloc((size_t)asked + 1);
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
                    uzf_str_out(value, (size_t)asked, cvalue);
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
            uzf_str_out(pset_name, (size_t)asked, cname);
    }
    free(cname);
    return rc;
}
