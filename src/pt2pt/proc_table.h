/*
 * proc_table.h — the processes this one can address, as the request layer
 * numbers them: its job's ranks first (the number is the world rank), then
 * processes of other jobs in the order they became known (MPI_Comm_accept,
 * MPI_Comm_connect, MPI_Comm_spawn, MPI_Comm_join).  Groups and
 * communicators name members by this number, so everything above the
 * request layer works unchanged over processes of several jobs
 * (docs/dynamic-processes.md).
 *
 * Two jobs learn of each other's processes by swapping descriptors: one
 * line of text per process naming its job (the job key), its rank there,
 * its host and its card for a network transport.
 */
#ifndef UZ_PT2PT_PROC_TABLE_H
#define UZ_PT2PT_PROC_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Room for one descriptor, terminator included. */
enum { UZ_PROC_DESC_MAX = 1280 };

/* Processes numbered so far (this job's ranks included). */
int uz_proc_count(void);

/* This process's descriptor.  Opens the network it names when wire-up did
 * not (a job on one host has none); MPI error code. */
int uz_proc_describe_self(char *buf, size_t len);

/* The number of the process `desc` describes, adding it (and making it
 * reachable) when it is new; MPI error code. */
int uz_proc_add(const char *desc, int *index);

/* A total order on processes of every job, the same in every process that
 * knows both (by job key, then rank): <0, 0 or >0. */
int uz_proc_order(int a, int b);

/* Does process `index` belong to this job? */
int uz_proc_is_own(int index);

/* Close the connection to process `index` of another job once both sides
 * are done with it (MPI_Comm_disconnect): 0 when closed, -EAGAIN while it
 * takes (progress and ask again), else an MPI error code. */
int uz_proc_close(int index);

/* A receive names process `index` of another job: make sure its death
 * would be noticed (the transport's watch_peer). */
void uz_proc_watch(int index);

/* This host's IPv4 addresses that other jobs may reach, comma-separated,
 * loopback last (for a port's name, core/dpm_port.c). */
void uz_proc_host_addresses(char *buf, size_t len);

/* MPI_Finalize: forget the processes of other jobs. */
void uz_proc_table_finalize(void);

#endif /* UZ_PT2PT_PROC_TABLE_H */
