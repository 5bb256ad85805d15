/*
 * net_addr.c — the local addresses a rank publishes for network transports.
 *
 * Every IPv4 address of an interface that is up, in interface order, or
 * only those of the interfaces named in UZURA_NET_IF.  Loopback comes last
 * and is marked, because only peers on the same host may use it: it is
 * never what a rank on another host should try.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "base/params.h"
#include "transport/net/net.h"

struct uz_net_stats uz_net_stats;

static int wanted(const char *ifname)
{
    const char *list = uz_config.net_if;
    if (!list || !*list)
        return 1;
    size_t n = strlen(ifname);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, ifname, n) == 0)
            return 1;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

void uz_net_local_addresses(struct uz_net_addrs *a)
{
    struct ifaddrs *list, *ifa;
    int n = 0, max = UZ_NET_ADDRS_MAX;
    char (*addrs)[64] = a->addr;
    int *loopback_index = &a->loopback_index;
    *loopback_index = -1;
    a->n = 0;
    if (getifaddrs(&list) != 0)
        return;
    for (int pass = 0; pass < 2; pass++) {          /* real interfaces first, loopback last */
        for (ifa = list; ifa && n < max; ifa = ifa->ifa_next) {
            if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET || !(ifa->ifa_flags & IFF_UP))
                continue;
            int loop = (ifa->ifa_flags & IFF_LOOPBACK) != 0;
            if (loop != pass)
                continue;
            if (!loop && !wanted(ifa->ifa_name))
                continue;
            const struct sockaddr_in *sin = (const struct sockaddr_in *)ifa->ifa_addr;
            inet_ntop(AF_INET, &sin->sin_addr, addrs[n], 64);
            if (loop) {
                if (*loopback_index >= 0)
                    continue;           /* one loopback address is enough */
                *loopback_index = n;
            }
            n++;
        }
    }
    freeifaddrs(list);
    a->n = n;
}
