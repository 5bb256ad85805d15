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

#include "base/params.h"
#include "base/runtime.h"
#include "pt2pt/path.h"
#include "pt2pt/pt2pt.h"

/* Ranks reached by transports of this reach. */
static int reached_by(enum uz_reach reach)
{
    int n = 0;
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->reach == reach)
            n += uz_paths[i].peers;
    return n;
}

/* The i-th open network that reaches some rank, or NULL. */
static const struct uz_path *network(int i)
{
    for (int k = 0; k < uz_npaths; k++)
        if (uz_paths[k].ops->reach == UZ_REACH_NETWORK && uz_paths[k].peers > 0 && i-- == 0)
            return &uz_paths[k];
    return NULL;
}

static const struct uz_path *host_path(void)
{
    for (int k = 0; k < uz_npaths; k++)
        if (uz_paths[k].ops->reach == UZ_REACH_HOST)
            return &uz_paths[k];
    return NULL;
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
    int shm = reached_by(UZ_REACH_HOST), net = reached_by(UZ_REACH_NETWORK);
    int others_here = uz_rt.local_size - 1;
    int shm_off_here = !uz_config.shm && others_here > 0;
    const struct uz_path *host = host_path();
    snprintf(buf, len, "self");
    if (shm)
        append(buf, len, ", %s to %d %s on this host", host->ops->name, shm, ranks_word(shm));
    for (int i = 0; network(i); i++) {
        const struct uz_path *n = network(i);
        append(buf, len, ", %s to %d %s%s", n->ops->name, n->peers, ranks_word(n->peers),
               shm_off_here ? "" : " on other hosts");
    }
    if (net && shm_off_here)
        append(buf, len, " (%d on this host, because UZURA_SHM=0)", others_here);
    else if (net)
        append(buf, len, " (UZURA_NET=%s)", uz_config.net);
    if (!shm && !net)
        append(buf, len, " only: no other rank");
    return 0;
}

int uz_pt2pt_describe_network(int i, char *buf, size_t len)
{
    const struct uz_path *n = network(i);
    if (!n)
        return -1;
    buf[0] = '\0';
    if (n->ops->describe)
        n->ops->describe(buf, len);
    else
        snprintf(buf, len, "%s (no description)", n->ops->name);
    return 0;
}

int uz_pt2pt_describe_large_messages(char *buf, size_t len)
{
    const struct uz_path *host = host_path();
    if (!reached_by(UZ_REACH_HOST) || !host->ops->describe)
        return -1;
    host->ops->describe(buf, len);
    return 0;
}

int uz_pt2pt_describe_eager(char *buf, size_t len)
{
    int shm = reached_by(UZ_REACH_HOST);
    buf[0] = '\0';
    if (shm)
        append(buf, len, "eager up to %zu bytes through %s (UZURA_EAGER_LIMIT%s), ",
               uz_path_eager_limit(host_path()), host_path()->ops->name,
               uz_config.eager_limit ? ""
               : uz_pt2pt_host_oversubscribed() ? "=0, automatic: this host has more ranks than processors"
                                                : "=0, automatic: every rank has a processor");
    for (int i = 0; network(i); i++)
        append(buf, len, "eager up to %zu bytes through %s (UZURA_NET_EAGER_LIMIT), ", uz_config.net_eager_limit,
               network(i)->ops->name);
    if (shm || network(0))
        append(buf, len, "rendezvous above; ");
    append(buf, len, "to itself always eager");
    return 0;
}
