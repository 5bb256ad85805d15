/*
 * ofi_info.c — choosing the provider, fabric and domain.
 *
 * We ask fi_getinfo for reliable datagram endpoints (FI_EP_RDM) that keep
 * sends in order (FI_ORDER_SAS: a bulk OFFER must arrive before the record
 * naming it, and records before later records), first with tagged
 * messages and RMA reads, then plain messages and reads, then without
 * reads (large messages are then segmented by the request layer).  We
 * accept every memory-registration mode Uzura handles (ofi_mr.c), so the
 * provider tells us which it needs.
 *
 * UZURA_OFI_PROVIDER names the provider ("tcp;ofi_rxm", "verbs;ofi_rxm",
 * "efa", ...); without it libfabric's own order decides, except that
 * "shm" (one host only) is taken only when named.  Among the domains of
 * the chosen provider an IPv4 address that is not loopback is preferred
 * (a job across hosts needs one), and the interfaces UZURA_NET_IF names.
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/ofi/ofi.h"

static char chosen[256];

static const uint64_t want_caps[] = {
    FI_TAGGED | FI_RMA | FI_READ | FI_REMOTE_READ,
    FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ,
    FI_TAGGED,
    FI_MSG,
};

static struct fi_info *make_hints(uint64_t caps, const char *prov)
{
    struct fi_info *h = ofi_lib.dupinfo(NULL);
    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* Is `name` one of UZURA_NET_IF's comma-separated interfaces? */
static int named_interface(const char *name)
{
    const char *list = uz_config.net_if;
    if (!list || !*list || !name)
        return 0;
    size_t n = strlen(name);
    for (const char *c = list; *c;) {
        size_t len = strcspn(c, ",");
        if (len == n && strncmp(c, name, n) == 0)
            return 1;
        c += len + (c[len] == ',');
    }
    return 0;
}

/* How well a domain suits a job across hosts. */
static int score(const struct fi_info *i)
{
    int s = 0;
    if (named_interface(i->domain_attr->name))
        s += 8;
    const struct sockaddr *sa = i->src_addr;
    if (!sa || !i->src_addrlen)
        return s + 3;                   /* not an IP provider: its own addressing */
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = i->src_addr;
        return s + ((ntohl(in->sin_addr.s_addr) >> 24) == 127 ? 1 : 3);
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = i->src_addr;
        if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr))
            return s;
        return s + 2;
    }
    return s + 3;
}

/* The best domain of the first provider in libfabric's order. */
static struct fi_info *pick(struct fi_info *list, int named)
{
    const char *prov = NULL;
    struct fi_info *best = NULL;
    int best_score = -1;
    for (struct fi_info *i = list; i; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        if (!named && name && strcmp(name, "shm") == 0)
            continue;
        if (!prov)
            prov = name;
        if (!name || strcmp(name, prov) != 0)
            continue;
        int s = score(i);
        if (s > best_score) {
            best = i;
            best_score = s;
        }
    }
    return best;
}

int ofi_info_choose(struct fi_info **out)
{
    const char *prov = uz_config.ofi_provider;
    int named = prov && *prov;
    int last = 0;
    for (size_t k = 0; k < sizeof(want_caps) / sizeof(want_caps[0]); k++) {
        struct fi_info *hints = make_hints(want_caps[k], prov);
        struct fi_info *list = NULL;
        if (!hints)
            return uz_err_make(MPI_ERR_NO_MEM, "ofi: out of memory for fi_getinfo's hints");
        last = ofi_lib.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
        ofi_lib.freeinfo(hints);
        if (last != 0 || !list)
            continue;
        struct fi_info *best = pick(list, named);
        if (best) {
            *out = ofi_lib.dupinfo(best);
            ofi_lib.freeinfo(list);
            if (!*out)
                return uz_err_make(MPI_ERR_NO_MEM, "ofi: out of memory copying fi_info");
            snprintf(chosen, sizeof(chosen), "%s, fabric %s, domain %s", (*out)->fabric_attr->prov_name,
                     (*out)->fabric_attr->name, (*out)->domain_attr->name);
            return MPI_SUCCESS;
        }
        ofi_lib.freeinfo(list);
    }
    return uz_err_make(MPI_ERR_OTHER, "ofi: %s%s%s offers no reliable datagram endpoint (FI_EP_RDM) with "
                       "ordered sends (fi_getinfo: %s); `fi_info -l` lists the providers of this host, "
                       "UZURA_OFI_PROVIDER chooses one", named ? "provider \"" : "no provider",
                       named ? prov : "", named ? "\"" : " of libfabric", ofi_lib.strerror(last < 0 ? -last : last));
}

void ofi_info_describe(char *buf, size_t len)
{
    snprintf(buf, len, "%s", chosen);
}

#endif /* UZ_HAVE_LIBFABRIC */
