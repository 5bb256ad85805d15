/*
 * pmi_connect.h — finding the process manager from the environment and
 * opening the connection to it.
 */
#ifndef UZ_PMI_CONNECT_H
#define UZ_PMI_CONNECT_H

#include "pmi/wire_conn.h"

struct uz_pmi_identity {
    int singleton;      /* no process manager in the environment */
    int rank;
    int size;
};

/* PMI_FD (+ PMI_RANK, PMI_SIZE): use the inherited socket.  PMI_PORT=host:port
 * (+ PMI_ID): connect over TCP and learn rank and size from the server's
 * initack.  Neither: a singleton, rank 0 of 1, conn left closed. */
int uz_pmi_connect(struct uz_pmi_conn *conn, struct uz_pmi_identity *id);

#endif /* UZ_PMI_CONNECT_H */
