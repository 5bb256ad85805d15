/*
 * new_comm_check.h — is a freshly made communicator usable and apart from
 * its parent?  Shared by the tests of concurrent communicator creation
 * (comm_agree_threads.c, comm_agree_order.c), which make many
 * communicators at once and must show that none of them got a context id
 * another one (in this process or a peer) also uses.
 */
#ifndef NEW_COMM_CHECK_H
#define NEW_COMM_CHECK_H

#include "uztest.h"

enum { NCC_BYTES = 24 };

/* Check `c`, made from `parent` over the parent ranks `members` (NULL: all
 * of the parent, in its order), on the process with parent rank `prank`:
 * its size, rank and comparison with the parent; an allreduce over it;
 * and a ring exchange on c and on the parent at once, with the same
 * source and tag on both, that each must receive its own message.  `salt`
 * (below 32000) makes the data and tag of one call differ from every
 * other's, so that threads may run this at once, even on one parent. */
static void ncc_check(MPI_Comm c, MPI_Comm parent, int nmembers, const int *members, int salt)
{
    int psize, prank, size = -1, rank = -1, cmp = -1;
    MPI_Comm_size(parent, &psize);
    MPI_Comm_rank(parent, &prank);
    int expect_rank = -1;
    for (int i = 0; i < nmembers; i++)
        if ((members ? members[i] : i) == prank)
            expect_rank = i;
    CHECK(c != MPI_COMM_NULL, "salt %d: no communicator", salt);
    if (c == MPI_COMM_NULL)
        return;
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK_MPI(MPI_Comm_rank(c, &rank));
    CHECK(size == nmembers && rank == expect_rank, "salt %d: size %d rank %d, expected %d and %d",
          salt, size, rank, nmembers, expect_rank);
    CHECK_MPI(MPI_Comm_compare(c, parent, &cmp));
    int same = nmembers == psize;
    for (int i = 0; same && members && i < nmembers; i++)
        same = members[i] == i;
    CHECK(cmp == (same ? MPI_CONGRUENT : MPI_UNEQUAL), "salt %d: compare with the parent gave %d",
          salt, cmp);

    long long v = 1000LL * salt + rank, sum = -1;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG_LONG, MPI_SUM, c));
    CHECK(sum == 1000LL * salt * size + (long long)size * (size - 1) / 2,
          "salt %d: allreduce gave %lld", salt, sum);

    /* The ring in c's order, and the same pairs of processes on the
     * parent: a message on one must never match the receive on the other. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int pright = members ? members[right] : right, pleft = members ? members[left] : left;
    int tag = salt % 32000;
    unsigned char out[2][NCC_BYTES], in[2][NCC_BYTES];
    MPI_Request r[4];
    memset(in, 0, sizeof(in));
    CHECK_MPI(MPI_Irecv(in[0], NCC_BYTES, MPI_BYTE, left, tag, c, &r[0]));
    CHECK_MPI(MPI_Irecv(in[1], NCC_BYTES, MPI_BYTE, pleft, tag, parent, &r[1]));
    uzt_fill(out[1], NCC_BYTES, prank, 2 * salt + 1);
    uzt_fill(out[0], NCC_BYTES, prank, 2 * salt);
    CHECK_MPI(MPI_Isend(out[1], NCC_BYTES, MPI_BYTE, pright, tag, parent, &r[2]));
    CHECK_MPI(MPI_Isend(out[0], NCC_BYTES, MPI_BYTE, right, tag, c, &r[3]));
    MPI_Status st[4];
    CHECK_MPI(MPI_Waitall(4, r, st));
    for (int k = 0; k < 2; k++) {
        long bad = uzt_verify(in[k], NCC_BYTES, pleft, 2 * salt + k);
        CHECK(bad < 0, "salt %d: %s message wrong at byte %ld", salt, k ? "parent's" : "new one's",
              bad);
        int count = -1;
        MPI_Get_count(&st[k], MPI_BYTE, &count);
        CHECK(count == NCC_BYTES && st[k].MPI_TAG == tag, "salt %d: count %d tag %d", salt,
              count, st[k].MPI_TAG);
    }
    CHECK(st[0].MPI_SOURCE == left && st[1].MPI_SOURCE == pleft, "salt %d: sources %d %d", salt,
          st[0].MPI_SOURCE, st[1].MPI_SOURCE);
}

/* The same for a communicator over every rank of the parent. */
static inline void ncc_check_dup(MPI_Comm c, MPI_Comm parent, int salt)
{
    int psize;
    MPI_Comm_size(parent, &psize);
    ncc_check(c, parent, psize, NULL, salt);
}

#endif /* NEW_COMM_CHECK_H */
