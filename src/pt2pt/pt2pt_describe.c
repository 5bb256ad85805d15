/*
 * pt2pt_describe.c — what wire-up chose, in words, for UZURA_VERBOSE: the
 * transport to each kind of peer, the network endpoint, how large messages
 * travel on this host, and where eager sending ends.
 *
 * Each sentence is built from the state the choices left behind (the peers'
 * paths, the transports' own descriptions), not from a second copy of the
 * rules, so what is printed is what happens.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/params.h"
#include "core/runtime.h"
#include "pt2pt/path.h"
#include "pt2pt/pt2pt.h"
#include "transport/net/net.h"
#include "transport/shm/shm.h"

struct path_counts {
    int shm, net;
};

static struct path_counts count_paths(void)
{
    struct path_counts n = { 0, 0 };
    for (int r = 0; r < uz_rt.world_size; r++) {
        n.shm += uz_peers[r].path == UZ_PATH_SHM;
        n.net += uz_peers[r].path == UZ_PATH_NET;
    }
    return n;
}

/* Add to the sentence in buf (cut short if it does not fit). */
static void __attribute__((format(printf, 3, 4))) append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static const char *ranks_word(int n)
{
    return n == 1 ? "rank" : "ranks";
}

int uz_pt2pt_describe_transports(char *buf, size_t len)
{
    struct path_counts n = count_paths();
    int others_here = uz_rt.local_size - 1;
    snprintf(buf, len, "self");
    if (n.shm)
        append(buf, len, ", shm to %d %s on this host", n.shm, ranks_word(n.shm));
    if (n.net && !uz_config.shm && others_here > 0)
        append(buf, len, ", %s to %d %s (%d on this host, because UZURA_SHM=0)", uz_net->name, n.net,
               ranks_word(n.net), others_here);
    else if (n.net)
        append(buf, len, ", %s to %d %s on other hosts (UZURA_NET=%s)", uz_net->name, n.net,
               ranks_word(n.net), uz_net->name);
    if (!n.shm && !n.net)
        append(buf, len, " only: no other rank");
    return 0;
}

int uz_pt2pt_describe_network(char *buf, size_t len)
{
    if (!uz_net || !uz_net->describe)
        return -1;
    uz_net->describe(buf, len);
    return 0;
}

int uz_pt2pt_describe_large_messages(char *buf, size_t len)
{
    if (!count_paths().shm)
        return -1;
    snprintf(buf, len, "%s", uz_shm_large_message_path());
    return 0;
}

int uz_pt2pt_describe_eager(char *buf, size_t len)
{
    struct path_counts n = count_paths();
    buf[0] = '\0';
    if (n.shm)
        append(buf, len, "eager up to %zu bytes through shm (UZURA_EAGER_LIMIT), ", uz_config.eager_limit);
    if (n.net)
        append(buf, len, "eager up to %zu bytes through %s (UZURA_NET_EAGER_LIMIT), ", uz_config.net_eager_limit,
               uz_net->name);
    if (n.shm || n.net)
        append(buf, len, "rendezvous above; ");
    append(buf, len, "to itself always eager");
    return 0;
}
