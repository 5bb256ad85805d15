/*
 * proc_table.c — numbering processes of other jobs after this job's ranks,
 * and making them reachable (proc_table.h, docs/dynamic-processes.md).
 *
 * MPICH calls such numbers "lpids" and Open MPI keeps a proc per
 * (jobid, vpid); here the number is simply the next index of uz_peers, so
 * that the request layer's table by world rank becomes a table by process
 * and nothing that indexes it changes.  A process of another job is known
 * by (job key, rank in its job): the same process reached through two
 * meetings (connect, then a spawn by the other side) gets one number.
 *
 * Which network reaches it: the one its descriptor names, which is the
 * first in its UZURA_NET that can take processes of other jobs (a
 * transport with add_peer); this process must list it too.  Processes of
 * other jobs on this host are reached through the host transport (shm)
 * when both descriptors carry its card, else over that network's loopback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/runtime.h"
#include "pt2pt/net_choice.h"
#include "pt2pt/path.h"
#include "pt2pt/proc_table.h"
#include "transport/net/net.h"
#include "transport/transport_registry.h"

/* A process of another job. */
struct foreign_proc {
    uint8_t key[UZ_NET_KEY_BYTES];
    int rank;
    const struct uz_path *path;
};

static struct foreign_proc *foreign;    /* [nforeign]: process world_size + i */
static int nforeign, foreign_cap;

int uz_proc_count(void)
{
    return uz_rt.world_size + nforeign;
}

int uz_proc_is_own(int index)
{
    return index >= 0 && index < uz_rt.world_size;
}

/* ------------------------------------------------------------ text */

static void hex_of(const uint8_t *key, char *hex)
{
    for (int i = 0; i < UZ_NET_KEY_BYTES; i++)
        sprintf(hex + 2 * i, "%02x", key[i]);
}

static int key_of(const char *hex, uint8_t *key)
{
    for (int i = 0; i < UZ_NET_KEY_BYTES; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        key[i] = (uint8_t)v;
    }
    return 0;
}

/* This host as any job sees it: its name, its boot and its network
 * namespace (test "hosts" on one machine are namespaces). */
static void host_key(char *buf, size_t len)
{
    char boot[64] = "", ns[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
    ns[n > 0 ? n : 0] = '\0';
    snprintf(buf, len, "%s/%s/%s", uz_rt.processor_name, boot, ns);
    for (char *c = buf; *c; c++)
        if (*c == ' ' || *c == '\n')
            *c = '_';
}

/* The network this process offers to other jobs. */
static const struct uz_transport_ops *offered_network(void)
{
    struct uz_net_list mine;
    if (uz_net_list_parse(uz_config.net, &mine, 0) != 0)
        return NULL;
    for (int i = 0; i < mine.n; i++)
        if (mine.t[i]->add_peer)
            return mine.t[i];
    return NULL;
}

/* The host transport, when it can take processes of other jobs. */
static struct uz_path *host_path(void)
{
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->reach == UZ_REACH_HOST && uz_paths[i].ops->add_peer && uz_paths[i].ops->host_card)
            return &uz_paths[i];
    return NULL;
}

/* This process's card for the host transport, "-" when none. */
static void host_card(char *buf, size_t len)
{
    struct uz_path *h = host_path();
    if (!h || h->ops->host_card(buf, len) != 0 || !buf[0] || strchr(buf, ' '))
        snprintf(buf, len, "-");
}

int uz_proc_describe_self(char *buf, size_t len)
{
    const struct uz_transport_ops *t = offered_network();
    if (!t)
        return uz_err_make(MPI_ERR_OTHER, "processes of other jobs are reached over tcp for now, and "
                           "UZURA_NET=%s does not list it", uz_config.net);
    struct uz_path *path;
    int err = uz_path_open_host(&path);
    if (!err)
        err = uz_path_open_network(t, &path);
    if (err)
        return err;
    char hex[2 * UZ_NET_KEY_BYTES + 1], host[512], hcard[200];
    hex_of(uz_pt2pt_job_key(), hex);
    host_key(host, sizeof(host));
    host_card(hcard, sizeof(hcard));
    int n = snprintf(buf, len, "uzp1 %s %d %s %s %s %s", hex, uz_rt.world_rank, host, hcard, t->name,
                     path->card ? path->card : "");
    if (n < 0 || (size_t)n >= len)
        return uz_err_make(MPI_ERR_INTERN, "this process's descriptor does not fit in %zu bytes", len);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ adding */

struct parsed {
    uint8_t key[UZ_NET_KEY_BYTES];
    int rank;
    char host[512], hcard[200], net[32], card[UZ_NET_CARD_MAX];
};

static int parse(const char *desc, struct parsed *p)
{
    char hex[40];
    p->card[0] = '\0';
    if (sscanf(desc, "uzp1 %39s %d %511s %199s %31s %899s", hex, &p->rank, p->host, p->hcard, p->net,
               p->card) < 5
        || strlen(hex) != 2 * UZ_NET_KEY_BYTES || key_of(hex, p->key) != 0 || p->rank < 0)
        return uz_err_make(MPI_ERR_OTHER, "a process of another job sent a malformed descriptor "
                           "\"%.80s\"", desc);
    return MPI_SUCCESS;
}

static int find(const struct parsed *p)
{
    if (memcmp(p->key, uz_pt2pt_job_key(), UZ_NET_KEY_BYTES) == 0)
        return p->rank < uz_rt.world_size ? p->rank : -2;
    for (int i = 0; i < nforeign; i++)
        if (foreign[i].rank == p->rank && memcmp(foreign[i].key, p->key, UZ_NET_KEY_BYTES) == 0)
            return uz_rt.world_size + i;
    return -1;
}

static int grow(void)
{
    if (nforeign == foreign_cap) {
        int cap = foreign_cap ? 2 * foreign_cap : 16;
        struct foreign_proc *f = realloc(foreign, sizeof(*f) * (size_t)cap);
        if (!f)
            return -1;
        foreign = f;
        foreign_cap = cap;
    }
    struct uz_peer *peers = realloc(uz_peers, sizeof(*peers) * (size_t)(uz_proc_count() + 1));
    if (!peers)
        return -1;
    uz_peers = peers;
    return 0;
}

/* Number the process `p` describes and make `path` reach it. */
static int add_through(struct uz_path *path, const struct parsed *p, const char *card, int *index)
{
    if (grow() != 0)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory adding a process of another job");
    int idx = uz_proc_count(), addr = idx;
    char host[512];
    host_key(host, sizeof(host));
    struct uz_foreign_peer fp = { .key = p->key, .rank = p->rank, .same_host = strcmp(host, p->host) == 0,
                                  .card = card, .addr = &addr };
    int err = path->ops->add_peer(idx, &fp);
    if (err)
        return err;
    struct foreign_proc *f = &foreign[nforeign++];
    memcpy(f->key, p->key, UZ_NET_KEY_BYTES);
    f->rank = p->rank;
    f->path = path;
    memset(&uz_peers[idx], 0, sizeof(uz_peers[idx]));
    uz_path_reach(idx, path, addr);
    *index = idx;
    return MPI_SUCCESS;
}

int uz_proc_add(const char *desc, int *index)
{
    struct parsed p;
    int err = parse(desc, &p);
    if (err)
        return err;
    int found = find(&p);
    if (found == -2)
        return uz_err_make(MPI_ERR_OTHER, "a process claims rank %d of this job, which has %d", p.rank,
                           uz_rt.world_size);
    if (found >= 0) {
        *index = found;
        return MPI_SUCCESS;
    }
    char host[512], mine_h[200];
    host_key(host, sizeof(host));
    host_card(mine_h, sizeof(mine_h));
    /* Both sides see both descriptors, so both choose shm or both not. */
    if (strcmp(host, p.host) == 0 && strcmp(p.hcard, "-") != 0 && strcmp(mine_h, "-") != 0)
        return add_through(host_path(), &p, p.hcard, index);
    const struct uz_transport_ops *t = uz_transport_find(p.net, strlen(p.net));
    struct uz_net_list mine;
    uz_net_list_parse(uz_config.net, &mine, 0);
    int listed = 0;
    for (int i = 0; i < mine.n; i++)
        listed |= mine.t[i] == t;
    if (!t || !t->add_peer || !listed)
        return uz_err_make(MPI_ERR_OTHER, "a process of another job is reached over \"%s\", which "
                           "UZURA_NET=%s here does not list", p.net, uz_config.net);
    struct uz_path *path;
    if ((err = uz_path_open_network(t, &path)))
        return err;
    return add_through(path, &p, p.card, index);
}

/* ------------------------------------------------------------ order */

static void identity(int index, const uint8_t **key, int *rank)
{
    if (uz_proc_is_own(index)) {
        *key = uz_pt2pt_job_key();
        *rank = index;
    } else {
        *key = foreign[index - uz_rt.world_size].key;
        *rank = foreign[index - uz_rt.world_size].rank;
    }
}

int uz_proc_order(int a, int b)
{
    const uint8_t *ka, *kb;
    int ra, rb;
    identity(a, &ka, &ra);
    identity(b, &kb, &rb);
    int c = memcmp(ka, kb, UZ_NET_KEY_BYTES);
    return c ? c : (ra > rb) - (ra < rb);
}

int uz_proc_close(int index)
{
    if (uz_proc_is_own(index) || index >= uz_proc_count())
        return MPI_SUCCESS;
    const struct uz_path *path = foreign[index - uz_rt.world_size].path;
    if (uz_peers[index].failed || !path->ops->close_peer)
        return MPI_SUCCESS;
    return path->ops->close_peer(uz_peers[index].addr);
}

void uz_proc_watch(int index)
{
    if (uz_proc_is_own(index) || index >= uz_proc_count() || uz_peers[index].failed)
        return;
    const struct uz_path *path = foreign[index - uz_rt.world_size].path;
    if (path->ops->watch_peer)
        path->ops->watch_peer(uz_peers[index].addr);
}

void uz_proc_table_finalize(void)
{
    free(foreign);
    foreign = NULL;
    nforeign = foreign_cap = 0;
}

void uz_proc_host_addresses(char *buf, size_t len)
{
    struct uz_net_addrs a;
    uz_net_local_addresses(&a);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < a.n && used + 1 < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", a.addr[i]);
        used += n > 0 ? (size_t)n : 0;
    }
}
