/*
 * wire_conn.h — the client's end of a PMI-1 connection: sending a request
 * line and reading reply lines from a blocking stream socket.
 */
#ifndef UZ_PMI_WIRE_CONN_H
#define UZ_PMI_WIRE_CONN_H

#include "pmi/wire_format.h"

#include <stddef.h>

struct uz_pmi_conn {
    int fd;
    int broken;                  /* framing lost (EOF, I/O error, overlong line) */
    size_t buffered;             /* bytes of buf not yet returned as lines */
    char buf[UZ_PMI_LINE_MAX];   /* may hold the start of the next reply */
};

void uz_pmi_conn_open(struct uz_pmi_conn *conn, int fd);
void uz_pmi_conn_close(struct uz_pmi_conn *conn);

/* Send one whole line (text ends with '\n').  what names the request in
 * error messages. */
int uz_pmi_conn_send(struct uz_pmi_conn *conn, const char *text, const char *what);

/* Read one line into line (UZ_PMI_LINE_MAX bytes), without its '\n'.  Blocks
 * until the line is complete; EOF, an I/O error or a line longer than
 * UZ_PMI_LINE_MAX fail and mark the connection broken. */
int uz_pmi_conn_recv(struct uz_pmi_conn *conn, char *line, const char *what);

#endif /* UZ_PMI_WIRE_CONN_H */
