/*
 * net_choice.h — which network transport a pair of ranks uses, from each
 * rank's UZURA_NET (net_choice.c).
 */
#ifndef UZ_PT2PT_NET_CHOICE_H
#define UZ_PT2PT_NET_CHOICE_H

#include <stddef.h>

#include "transport/transport.h"

/* A rank's network transports, in its order of preference. */
enum { UZ_NET_LIST_MAX = 8 };
struct uz_net_list {
    const struct uz_transport_ops *t[UZ_NET_LIST_MAX];
    int n;
};

/* Parse a comma-separated list of network transport names.  `strict`
 * (this rank's own UZURA_NET): an unknown or empty name is an error, an
 * MPI error code naming it; otherwise (a peer's list, as it published it)
 * unknown names are skipped.  Repeated names count once. */
int uz_net_list_parse(const char *text, struct uz_net_list *out, int strict);

/* The list as "tcp,udp" (as parsed, for a card). */
void uz_net_list_format(const struct uz_net_list *l, char *buf, size_t len);

/* The network ranks `a` and `b` use between them: the first of the lower
 * rank's list that the other lists too, or NULL when they share none.
 * Both ranks compute the same answer, so each pair uses one network in
 * both directions. */
const struct uz_transport_ops *uz_net_pair_choice(int a, const struct uz_net_list *la, int b,
                                                  const struct uz_net_list *lb);

#endif /* UZ_PT2PT_NET_CHOICE_H */
