/*
 * dpm.h — dynamic process management inside the MPI core: ports, the
 * meeting of two jobs' roots, and turning what they swapped into an
 * intercommunicator (docs/dynamic-processes.md).  Shared by the dpm_*.c
 * files and nothing else.
 */
#ifndef UZ_CORE_DPM_H
#define UZ_CORE_DPM_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"

enum { UZ_PORT_SECRET_BYTES = 16 };

/* A port name taken apart: "uzport1:<secret hex>@<addr:port>,<addr:port>...". */
struct uz_port_addr {
    uint8_t secret[UZ_PORT_SECRET_BYTES];
    char addrs[MPI_MAX_PORT_NAME];      /* "a.b.c.d:port,..." */
};
int uz_port_parse(const char *name, struct uz_port_addr *out);

/* The listening socket of a port this process opened (MPI_Open_port), or
 * -1; *secret is its secret. */
int uz_port_listener(const char *name, const uint8_t **secret);

/* One side's processes as the meeting carries them: n descriptors of
 * UZ_PROC_DESC_MAX bytes each (pt2pt/proc_table.h). */
struct uz_meet_side {
    int n;
    char *descs;
    int root;                   /* index of the side's root in descs */
};

/* The roots meet over a socket: the connecting one proves it knows the
 * port's secret and both swap their sides; `tag` is the number both use
 * for the rest of the meeting (the acceptor draws it).  Each returns an
 * MPI error code; on success *theirs holds the other side (free descs). */
int uz_meet_accept(int listen_fd, const uint8_t *secret, const struct uz_meet_side *mine,
                   struct uz_meet_side *theirs, int *tag);
/* The same with a deadline (CLOCK_MONOTONIC ns; 0: none), for spawned
 * children that may die before they connect: MPI_ERR_SPAWN after it. */
int uz_meet_accept_until(int listen_fd, const uint8_t *secret, const struct uz_meet_side *mine,
                         struct uz_meet_side *theirs, int *tag, long deadline);
int uz_meet_connect(const struct uz_port_addr *port, const struct uz_meet_side *mine,
                    struct uz_meet_side *theirs, int *tag);
/* The same over a socket both already hold (MPI_Comm_join): no secret;
 * the side with the lower descriptor draws the tag. */
int uz_meet_join(int fd, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag);

/* How a meeting's root reaches the other root: a function of the root
 * (accept, connect, join) that fills *theirs and *tag. */
typedef int (*uz_meet_fn)(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag);

/* Collective over `comm` (an intracommunicator): gather every member's
 * descriptor to `root`, let the root meet the other side through
 * meet(arg, ...), hand the outcome to every member, number the other
 * side's processes and make the intercommunicator. */
int uz_dpm_meet_collective(uz_comm *comm, int root, uz_meet_fn meet, void *arg, MPI_Comm *newcomm);

/* MPI_Comm_connect from inside the library (a spawned child in MPI_Init). */
int uz_dpm_connect(const char *port_name, uz_comm *comm, int root, MPI_Comm *newcomm);

/* Ports as the spawning root uses them (dpm_port.c): open one, and close
 * it by name. */
int uz_port_open(char *port_name);
int uz_port_close(const char *port_name);

/* The parent of a spawned job (dpm_spawn.c): connected at MPI_Init, NULL
 * for a job nobody spawned or once the program freed or disconnected it. */
extern uz_comm *uz_dpm_parent;
int uz_dpm_init_parent(void);
void uz_dpm_forget(uz_comm *c);

#endif /* UZ_CORE_DPM_H */
