/*
 * pmi2_conn.h — the client's end of a PMI-2 connection (one per process,
 * on the socket in PMI_FD): sending a command and reading its checked reply.
 */
#ifndef UZ_PMI2_CONN_H
#define UZ_PMI2_CONN_H

#include "pmi/wire_format.h"

void uz_pmi2_conn_open(int fd);
void uz_pmi2_conn_close(void);
/* 1 once framing was lost (EOF, I/O error, a bad length prefix). */
int uz_pmi2_conn_broken(void);

/* The PMI-1 line "cmd=init pmi_version=2 pmi_subversion=0" and its PMI-1
 * reply, which must grant version 2 (else -EPROTONOSUPPORT).  Read byte by
 * byte, so that nothing of what follows is read ahead. */
int uz_pmi2_announce_version(void);

/* Send one command (no reply expected, as for abort). */
int uz_pmi2_send(const char *cmd, const struct uz_pmi_field *pairs, int npairs);

/* Send one command and read its reply, which must be "<cmd>-response" with
 * rc=0 (-EIO quoting errmsg= otherwise); the reply's fields are then in
 * uz_pmi2_reply() until the next command. */
int uz_pmi2_command(const char *cmd, const struct uz_pmi_field *pairs, int npairs);
const struct uz_pmi_line *uz_pmi2_reply(void);
const char *uz_pmi2_reply_excerpt(void);   /* the reply as received, printable */

/* A numeric field of the last reply that must be there: -EPROTO quoting
 * the reply when it is missing or not a number. */
int uz_pmi2_reply_int(const char *what, const char *name, int *out);

#endif /* UZ_PMI2_CONN_H */
