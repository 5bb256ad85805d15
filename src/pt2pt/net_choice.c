/*
 * net_choice.c — which network transport reaches which rank.
 *
 * UZURA_NET lists the network transports a rank may use, in its order of
 * preference ("tcp", "udp", "udp,tcp" ...).  Every rank publishes its list
 * with its card at wire-up, so each rank knows every other's.  A pair of
 * ranks that needs a network (on different hosts, or UZURA_SHM=0) uses the
 * first network of the lower rank's list that the higher rank lists too.
 * The rule looks only at what both ranks see, so both choose the same:
 * each pair talks over one network in both directions, and a network is
 * opened only by ranks that some pair chose it for.  With the same
 * UZURA_NET everywhere (the usual case) every pair uses its first entry;
 * different lists per rank let some pairs use one network and others
 * another (a fast fabric where it reaches, tcp elsewhere).
 */
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "pt2pt/net_choice.h"
#include "transport/transport_registry.h"

/* The network transports this build has, for messages: "tcp, udp". */
static void networks_built(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < uz_ntransports && used + 1 < len; i++) {
        if (uz_transport_table[i]->reach != UZ_REACH_NETWORK)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", uz_transport_table[i]->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

static int contains(const struct uz_net_list *l, const struct uz_transport_ops *t)
{
    for (int i = 0; i < l->n; i++)
        if (l->t[i] == t)
            return 1;
    return 0;
}

int uz_net_list_parse(const char *text, struct uz_net_list *out, int strict)
{
    char built[128];
    out->n = 0;
    for (const char *c = text ? text : ""; *c;) {
        size_t len = strcspn(c, ",");
        const struct uz_transport_ops *t = uz_transport_find(c, len);
        if (t && t->reach == UZ_REACH_NETWORK) {
            if (!contains(out, t) && out->n < UZ_NET_LIST_MAX)
                out->t[out->n++] = t;
        } else if (strict) {
            networks_built(built, sizeof(built));
            return uz_err_make(MPI_ERR_OTHER, "UZURA_NET=%s: \"%.*s\" is not a network transport of this "
                               "build (it has %s; uzura_info lists the transports)", text, (int)len, c, built);
        }
        c += len;
        if (*c == ',')
            c++;
    }
    if (strict && out->n == 0) {
        networks_built(built, sizeof(built));
        return uz_err_make(MPI_ERR_OTHER, "UZURA_NET is empty: name the network transports to use between "
                           "hosts, in order of preference (this build has %s)", built);
    }
    return MPI_SUCCESS;
}

void uz_net_list_format(const struct uz_net_list *l, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && used + 1 < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? "," : "", l->t[i]->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

const struct uz_transport_ops *uz_net_pair_choice(int a, const struct uz_net_list *la, int b,
                                                  const struct uz_net_list *lb)
{
    const struct uz_net_list *lower = a < b ? la : lb, *higher = a < b ? lb : la;
    for (int i = 0; i < lower->n; i++)
        if (contains(higher, lower->t[i]))
            return lower->t[i];
    return NULL;
}
