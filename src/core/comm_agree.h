/*
 * comm_agree.h — the one small collective that creating a communicator
 * needs: over an ordered list of members, AND together a bitmap (the free
 * context ids), gather a few ints from every member (MPI_Comm_split's
 * colour and key), and for intercommunicators swap the result with the
 * other group's leader, so that every member ends with the same answer.
 *
 * It is a binomial gather to the first member, an optional exchange
 * between the two leaders, and a binomial broadcast back: 2 log2(n)
 * message steps, the same as one allreduce.  It runs over point-to-point
 * on a context and tag the caller chooses (the parent's collective context
 * with a negative tag, see comm_impl.h), on any subset of a communicator's
 * ranks: that is what MPI_Comm_create_group needs and why this is not
 * built on src/coll/.  It is nonblocking underneath (MPI_Comm_idup), and
 * blocking on top for every other constructor.
 *
 * The caller holds the request layer's lock (base/lock.h) around every
 * call here.
 */
#ifndef UZ_CORE_COMM_AGREE_H
#define UZ_CORE_COMM_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"

struct uz_agree_spec {
    uz_comm *comm;          /* members are ranks of comm's local group */
    uint32_t ctx;           /* context the messages travel on */
    int tag;
    int n;                  /* number of members */
    const int *members;     /* their ranks in comm, the root first (copied);
                             * NULL: ranks 0 .. n-1 in order */
    int me;                 /* this process's index in members */
    int nwords;             /* 64-bit words to AND */
    int entry_ints;         /* ints every member contributes (0: none) */
    /* Exchange between the two leaders of an intercommunicator, done by
     * the root between the gather and the broadcast; xcomm NULL: none.
     * The root sends xsend (or, when xsend_entries is set, the gathered
     * entries) to rank xpeer of xcomm on context xctx with tag xtag, and
     * every member receives what the other leader sent (uz_agree_blob). */
    uz_comm *xcomm;
    uint32_t xctx;
    int xtag, xpeer;
    const void *xsend;      /* copied */
    size_t xsend_bytes;
    int xsend_entries;
    /* A number the root sends the other leader with its words; the other
     * leader's reaches every member of this group (uz_agree_xkey), also
     * those that do not know xcomm (comm_context.c names agreements by
     * it). */
    uint64_t xkey;
};

struct uz_agree;

/* Start: `words` (nwords) and `entry` (entry_ints) are this member's
 * contribution.  On success *out is running; free it with uz_agree_free. */
int uz_agree_start(const struct uz_agree_spec *spec, const uint64_t *words, const int *entry,
                   struct uz_agree **out);

/* Run to completion (blocking); returns the agreement's error, if any. */
int uz_agree_wait(struct uz_agree *a);

/* Nonblocking use: `done(a, arg)` is called once, from the progress
 * engine, when the agreement finishes (it may start another one). */
void uz_agree_on_done(struct uz_agree *a, void (*done)(struct uz_agree *a, void *arg), void *arg);

/* Results, valid once finished. */
int uz_agree_error(const struct uz_agree *a);
const uint64_t *uz_agree_words(const struct uz_agree *a);      /* the AND, both groups */
const int *uz_agree_entries(const struct uz_agree *a);         /* n * entry_ints, by index */
const void *uz_agree_blob(const struct uz_agree *a, size_t *bytes);  /* from the other leader */
uint64_t uz_agree_xkey(const struct uz_agree *a);   /* the other leader's xkey (0: no exchange) */

/* Call with the request layer's lock held (base/lock.h), like every
 * other function here: the agreement's requests go back to the shared
 * pool, and its driving request may still be on the progress list. */
void uz_agree_free(struct uz_agree *a);

/* The same from code that does not hold the lock: the constructors that
 * read an agreement's results after leaving the request layer. */
void uz_agree_free_unlocked(struct uz_agree *a);

/* Blocking one-shot: start, wait, and hand the agreement back for reading
 * (*out is NULL on error). */
int uz_agree_run(const struct uz_agree_spec *spec, const uint64_t *words, const int *entry,
                 struct uz_agree **out);

#endif /* UZ_CORE_COMM_AGREE_H */
