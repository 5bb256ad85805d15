/*
 * p2p_partitioned.h — partitioned point-to-point communication (MPI 4.1
 * §4.2): the state that p2p_partitioned.c (creating, starting and
 * progressing the requests) and p2p_partitioned_ready.c (MPI_Pready*,
 * MPI_Parrived) share.
 *
 * The protocol, on the request layer's ordinary messages (docs/point-to-
 * point.md, "Partitioned communication"):
 *   - hello: when the request is made, the sender sends (total bytes, its
 *     partition count, its private context) on the communicator's
 *     partitioned-handshake context with the user's tag, and the receiver
 *     posts a receive for it, so that pairs match in the order of their
 *     initialization calls.  The pair stays bound for every start.
 *   - reply: the receiver answers on the sender's private context with its
 *     own private context (or a size mismatch).
 *   - data: a run of ready send partitions i..i+k-1 is one message on the
 *     receiver's private context with tag i, sent as soon as they are
 *     ready and the pair is bound; the receiver posts one receive per send
 *     partition at each start, straight into its buffer (or into a packed
 *     copy when its datatype is not contiguous) with room to the buffer's
 *     end, and withdraws the receives of a run's other partitions when the
 *     run is matched (not when it lands: the next round's messages may be
 *     matched before that); each message takes whatever path the request layer chooses by
 *     size (eager, rendezvous, one-copy pull).
 * A private context is a process-local number above every communicator's
 * context ids: matching needs it unique only at the process that receives.
 */
#ifndef UZ_CORE_P2P_PARTITIONED_H
#define UZ_CORE_P2P_PARTITIONED_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pt2pt/pt2pt.h"

/* Context ids of partitioned traffic: communicators use 0 .. 4095
 * (core/comm_impl.h). */
#define UZ_PART_HELLO_CTX_BASE   0x20000000u     /* | the communicator's context id */
#define UZ_PART_PRIVATE_CTX_BASE 0x40000000u     /* + a process-local number */

/* What the sender's first start tells the receiver. */
struct uz_part_hello {
    uint64_t bytes;             /* the whole message */
    uint64_t part_bytes;        /* bytes of one send partition */
    int32_t partitions;
    uint32_t reply_ctx;         /* the sender's private context */
};

/* The receiver's answer. */
struct uz_part_reply {
    uint32_t data_ctx;          /* the receiver's private context */
    int32_t mismatch;           /* 1: the sizes differ, nothing will flow */
    uint64_t bytes;             /* the receiver's size, for the sender's message */
};

/* A send partition in a round: MPI_Pready claims it, puts its bytes in
 * place (packing), then marks it ready for whoever sends it. */
enum uz_part_ready { UZ_PART_NOT_READY, UZ_PART_CLAIMED, UZ_PART_READY };

struct uz_part {
    uz_request *req;            /* the user's request (not retained: it owns this) */
    int is_recv;
    int peer;                   /* rank in comm, or MPI_PROC_NULL */
    int tag;
    int partitions;             /* this side's */
    size_t part_bytes;          /* packed bytes of one of this side's partitions */
    size_t total;
    MPI_Count elements;         /* of the datatype, all partitions together */
    unsigned char *base;        /* the bytes the messages move: user buffer or staging */
    unsigned char *staging;     /* packed copy for a non-contiguous datatype, else NULL */
    uint32_t own_ctx;           /* sender: replies arrive here; receiver: data */
    struct uz_p2p_comm hello_pc;
    struct uz_p2p_comm own_pc;
    struct uz_p2p_comm data_pc; /* sender, once bound: the receiver's private context */

    /* Binding (begun at initialization, finished in the first round). */
    uint8_t hello_started;
    uint8_t bound;
    int bind_error;             /* sticky: sizes differed or the handshake failed */
    uz_request *hello_req;      /* sender: the hello send; receiver: its receive */
    uz_request *reply_req;      /* sender: the reply receive; receiver: the reply send */
    struct uz_part_hello hello;
    struct uz_part_reply reply;

    /* The data messages of a round: the sender's partitions (a receiver
     * learns them from the hello). */
    int msgs;
    size_t msg_bytes;           /* bytes of each */

    /* The running round (NULL when inactive). */
    uz_request *round;
    uz_request **inner;         /* per data message: its send or receive */
    atomic_uchar *ready;        /* sender: enum uz_part_ready, per partition */
    uint8_t *started;           /* sender: its send has started */
    uint8_t *arrived;           /* receiver: per data message, in place */
    uint8_t *covered;           /* receiver: per data message, in a run matched this round */
    int nstarted;
    int narrived;
    int outstanding;            /* inner requests not complete yet */
    int round_error;
    uint8_t flush;              /* sender: bound with partitions readied before: send them */
};

/* The partitioned state of a user request, or NULL if it is not one. */
struct uz_part *uz_part_of(uz_request *r);

/* Send partition i now, with its ready unsent neighbours as one run, if
 * the pair is bound (else binding sends it); library lock held. */
void uz_part_send_ready(struct uz_part *p, int i);

/* Has receive partition j arrived this round?  Lock held. */
int uz_part_arrived(struct uz_part *p, int j);

#endif /* UZ_CORE_P2P_PARTITIONED_H */
