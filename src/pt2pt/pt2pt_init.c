/*
 * pt2pt_init.c — wire-up: who shares this host with us, which transport
 * reaches every rank, opening the transports and closing them.
 *
 * Each rank publishes a business card through PMI (its host's key and its
 * UZURA_NET list), and after one fence reads everyone's: ranks with the
 * same host key share a host, numbered by world rank.  mpiexec also tells
 * ranks their local rank, but the cards work under any process manager
 * (Hydra, Slurm).  Then the transports open, in the order of their reach:
 *
 *   self      this process (the UZ_REACH_SELF entry of transport_list.h);
 *   host      the ranks on this host (shm), when UZURA_SHM allows; it opens
 *             even when no other rank shares the host or UZURA_SHM=0, with
 *             a segment of its own, because its doorbell is how a waiting
 *             rank sleeps;
 *   networks  each pair of ranks not on one host uses the network
 *             net_choice.c picks from their UZURA_NET lists; a rank opens
 *             the networks some pair chose and publishes their cards in a
 *             second round, so single-host jobs open no socket.
 *
 * uz_peers[r] then names the transport that reaches r (path.h).
 */
#include <sched.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/hwtopo.h"
#include "base/params.h"
#include "base/trace_stages.h"
#include "base/runtime.h"
#include "pmi/pmi.h"
#include "pt2pt/eager_limit.h"
#include "pt2pt/match.h"
#include "pt2pt/net_choice.h"
#include "pt2pt/path.h"
#include "pt2pt/proc_table.h"
#include "pt2pt/progress.h"
#include "pt2pt/protocol.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/recv.h"
#include "pt2pt/send.h"
#include "pt2pt/stats.h"
#include "transport/transport_registry.h"

struct uz_peer *uz_peers;
struct uz_path uz_paths[UZ_MAX_PATHS];
int uz_npaths;

/* A bulk transfer's owner is the send or receive request that started it. */
static void bulk_done(void *owner, int error)
{
    uz_request *r = owner;
    if (r->kind == UZ_REQ_SEND)
        uz_send_on_bulk_done(r, error);
    else
        uz_recv_on_bulk_done(r, error);
}

const struct uz_upcalls uz_pt2pt_upcalls = {
    .on_record = uz_pt2pt_on_record,
    .place = uz_pt2pt_place,
    .placed = uz_pt2pt_placed,
    .released = uz_pt2pt_released,
    .bulk_done = bulk_done,
    .peer_failed = uz_pt2pt_peer_failed,
};

/* The job's key (from mpiexec's UZURA_JOB_KEY, or agreed through PMI):
 * network transports drop whatever does not carry it. */
static uint8_t job_key[UZ_NET_KEY_BYTES];

const uint8_t *uz_pt2pt_job_key(void)
{
    return job_key;
}

static int fence(void)
{
    return uz_pmi_fence();
}

static int pmi_fail(const char *what)
{
    return uz_err_make(MPI_ERR_OTHER, "wire-up: %s: %s", what, uz_pmi_last_error());
}

/* Which host a rank is on.  mpiexec says (UZURA_NODE_ID: ranks started by
 * the same proxy share a host, even when network namespaces make several
 * hosts of one machine); otherwise the host name plus the boot id, so that
 * two containers with the same name but separate kernels are not taken for
 * one host. */
static void node_key(char *buf, size_t len)
{
    if (uz_config.node_id >= 0) {
        snprintf(buf, len, "node%d", uz_config.node_id);
        return;
    }
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    snprintf(buf, len, "%s/%s", uz_rt.processor_name, boot);
    for (char *c = buf; *c; c++)
        if (*c == ' ' || *c == '=' || *c == ';')
            *c = '_';
}

/* Every rank's host, numbered in order of the host's first rank, and how
 * many hosts there are. */
static int *card_node;
static int num_hosts = 1;

int uz_pt2pt_num_hosts(void)
{
    return num_hosts;
}

int uz_pt2pt_host_of(int world_rank)
{
    return card_node && world_rank >= 0 && world_rank < uz_rt.world_size ? card_node[world_rank] : 0;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void key_to_hex(const uint8_t *key, char *hex)
{
    for (int i = 0; i < UZ_NET_KEY_BYTES; i++)
        sprintf(hex + 2 * i, "%02x", key[i]);
}

static int key_from_hex(const char *hex, uint8_t *key)
{
    if (strlen(hex) < 2 * UZ_NET_KEY_BYTES)
        return -1;
    for (int i = 0; i < UZ_NET_KEY_BYTES; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        key[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* The job key: mpiexec hands one to every rank; under another process
 * manager rank 0 makes one and publishes it with its card. */
static int job_key_before_fence(void)
{
    if (uz_config.job_key && key_from_hex(uz_config.job_key, job_key) == 0)
        return MPI_SUCCESS;
    if (uz_rt.world_rank != 0)
        return MPI_SUCCESS;
    if (getrandom(job_key, UZ_NET_KEY_BYTES, 0) != UZ_NET_KEY_BYTES)
        return uz_err_make(MPI_ERR_OTHER, "wire-up: cannot make a job key (getrandom failed)");
    char hex[2 * UZ_NET_KEY_BYTES + 1];
    key_to_hex(job_key, hex);
    return uz_pmi_put("uz-key", hex) == 0 ? MPI_SUCCESS : pmi_fail("publishing the job key");
}

static int job_key_after_fence(void)
{
    if (uz_config.job_key && key_from_hex(uz_config.job_key, job_key) == 0)
        return MPI_SUCCESS;
    if (uz_rt.world_rank == 0)
        return MPI_SUCCESS;
    char hex[2 * UZ_NET_KEY_BYTES + 8];
    if (uz_pmi_get("uz-key", hex, sizeof(hex)) != 0 || key_from_hex(hex, job_key) != 0)
        return pmi_fail("reading the job key");
    return MPI_SUCCESS;
}

/* Number the hosts: ranks with the same node key share one; hosts are
 * numbered in order of their first rank. */
static void number_hosts(char **keys, int size, int *nodes)
{
    *nodes = 0;
    for (int r = 0; r < size; r++) {
        int first = -1;
        for (int q = 0; q < r && first < 0; q++)
            if (strcmp(keys[q], keys[r]) == 0)
                first = q;
        card_node[r] = first < 0 ? (*nodes)++ : card_node[first];
    }
}

/* What wire-up learns from the cards. */
struct wireup {
    int *locals;                        /* world ranks on this host, in local order */
    int nlocal, my_local, node_id;
    int networks_needed;                /* some pair of ranks needs a network (all ranks agree) */
    struct uz_net_list mine;            /* this rank's UZURA_NET */
    struct uz_net_list *nets;           /* every rank's, [world size] */
};

/* A card is "<host key>;net=<UZURA_NET as parsed>" (the host key has no
 * ';'): the host part says who shares a host, the rest which networks a
 * rank may use. */
static void split_card(char *card, struct uz_net_list *nets)
{
    char *semi = strchr(card, ';');
    nets->n = 0;
    if (!semi)
        return;
    *semi = '\0';
    if (strncmp(semi + 1, "net=", 4) == 0)
        uz_net_list_parse(semi + 5, nets, 0);
}

static int exchange_cards(struct wireup *w)
{
    char key[64], mine[512], host[400], list[100];
    int size = uz_rt.world_size, err, nodes = 1;
    node_key(host, sizeof(host));
    uz_net_list_format(&w->mine, list, sizeof(list));
    snprintf(mine, sizeof(mine), "%s;net=%s", host, list);
    if ((err = job_key_before_fence()))
        return err;
    snprintf(key, sizeof(key), "uz-card-%d", uz_rt.world_rank);
    if (uz_pmi_put(key, mine) != 0)
        return pmi_fail("publishing this rank's card");
    if (fence() != 0)
        return pmi_fail("fence after publishing cards");
    if ((err = job_key_after_fence()))
        return err;

    int *locals = malloc(sizeof(int) * size);
    char **keys = calloc(size, sizeof(char *));
    card_node = calloc(size, sizeof(int));
    w->nets = calloc(size, sizeof(*w->nets));
    err = !locals || !keys || !card_node || !w->nets ? uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up")
                                                     : 0;
    int n = 0;
    for (int r = 0; r < size && !err; r++) {
        char theirs[512];
        snprintf(key, sizeof(key), "uz-card-%d", r);
        if (r == uz_rt.world_rank)
            strcpy(theirs, mine);
        else if (uz_pmi_get(key, theirs, sizeof(theirs)) != 0)
            err = pmi_fail("reading a peer's card");
        if (err)
            break;
        split_card(theirs, &w->nets[r]);
        if (!(keys[r] = strdup(theirs)))
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up");
        if (!err && strcmp(theirs, host) == 0) {
            if (r == uz_rt.world_rank)
                w->my_local = n;
            locals[n++] = r;
        }
    }
    if (!err)
        number_hosts(keys, size, &nodes);
    num_hosts = nodes;
    for (int r = 0; keys && r < size; r++)
        free(keys[r]);
    free(keys);
    if (err) {
        free(locals);
        return err;
    }
    w->node_id = card_node[uz_rt.world_rank];
    w->locals = locals;
    w->nlocal = n;
    /* Every rank sees the same cards, so all agree whether networks open
     * (and so on the number of fences). */
    w->networks_needed = nodes > 1 || !uz_config.shm;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------------- opening */

/* Open one transport and add it to the paths. */
static int open_path(const struct uz_transport_ops *t, const struct uz_transport_setup *setup, char *card,
                     size_t cardlen, struct uz_path **out)
{
    if (uz_npaths == UZ_MAX_PATHS)
        return uz_err_make(MPI_ERR_INTERN, "wire-up: more than %d transports to open", UZ_MAX_PATHS);
    int err = t->open(setup, &uz_pt2pt_upcalls, card, cardlen);
    if (err)
        return err;
    struct uz_path *path = &uz_paths[uz_npaths++];
    path->ops = t;
    t->caps(&path->caps);
    path->peers = 0;
    *out = path;
    return MPI_SUCCESS;
}

/* The first built-in transport of this reach (self, host). */
static const struct uz_transport_ops *transport_of_reach(enum uz_reach reach)
{
    for (int i = 0; i < uz_ntransports; i++)
        if (uz_transport_table[i]->reach == reach)
            return uz_transport_table[i];
    return NULL;
}

static int read_card(const char *transport, int world, struct uz_net_peer_card *out);
static struct uz_transport_setup base_setup(void)
{
    return (struct uz_transport_setup){
        .world_rank = uz_rt.world_rank, .world_size = uz_rt.world_size, .node_id = uz_rt.node_id,
        .job_id = uz_rt.job_id, .job_key = job_key, .fence = fence,
        .my_local = 0, .nlocal = 1, .local_world_ranks = &uz_rt.world_rank, .segment_id = uz_rt.world_rank,
    };
}

/* Where messages through transport `t` are counted (stats.h). */
static int traffic_slot(const struct uz_transport_ops *t)
{
    for (int i = 0; i < uz_ntransports && i < UZ_TRAFFIC_SLOTS; i++)
        if (uz_transport_table[i] == t)
            return i;
    return UZ_TRAFFIC_SLOTS - 1;
}

/* This host has more ranks than processors: decided once wire-up knows
 * how many ranks it has (wire_up), 0 before and for a job of one. */
static int host_oversubscribed;

int uz_pt2pt_host_oversubscribed(void)
{
    return host_oversubscribed;
}


size_t uz_path_eager_limit(const struct uz_path *path)
{
    /* Between hosts a rendezvous costs a network round trip, so networks
     * keep their own, larger limit; to itself a message is always eager. */
    if (path->ops->reach == UZ_REACH_SELF)
        return SIZE_MAX;
    if (path->ops->reach == UZ_REACH_NETWORK)
        return uz_config.net_eager_limit;
    return uz_host_eager_limit(host_oversubscribed);
}

/* A rank reached by `path`, as the transport names it. */
void uz_path_reach(int world, struct uz_path *path, int addr)
{
    struct uz_peer *p = &uz_peers[world];
    const struct uz_transport_caps *c = &path->caps;
    /* Stage tracing is switched on before wire-up and off only at
     * Finalize, so the choice holds for the peer's lifetime. */
    p->send = uz_trace_stages && path->ops->send_traced ? path->ops->send_traced : path->ops->send;
    p->addr = addr;
    p->path = path;
    p->max_record = c->max_record;
    p->eager_single = c->max_record - sizeof(struct uz_msg_hdr);
    p->eager_limit = uz_path_eager_limit(path);
    p->has_bulk = (uint8_t)(c->has_bulk && path->ops->bulk_offer);
    p->lends = (uint8_t)c->keeps_sent_bytes;
    p->traffic = (uint8_t)traffic_slot(path->ops);
    path->peers++;
}

/* A network opened after wire-up, for processes of other jobs
 * (proc_table.c): its card stays with the path, as nobody reads it from
 * PMI. */
int uz_path_open_network(const struct uz_transport_ops *t, struct uz_path **out)
{
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops == t) {
            *out = &uz_paths[i];
            return MPI_SUCCESS;
        }
    char card[UZ_NET_CARD_MAX] = "";
    struct uz_transport_setup setup = base_setup();
    setup.read_card = read_card;
    int err = open_path(t, &setup, card, sizeof(card), out);
    if (!err && !((*out)->card = strdup(card)))
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory opening %s", t->name);
    for (int i = 0; i < uz_npaths && !err && t->pollfds; i++)
        if (uz_paths[i].ops->sleep_in_poll)
            err = uz_paths[i].ops->sleep_in_poll();
    uz_progress_paths_changed();
    return err;
}

static int no_fence(void)
{
    return 0;
}

/* The host transport of a job of one rank, which wire-up does not open,
 * for processes of other jobs on this host (proc_table.c): a segment of
 * its own, nobody to fence with.  Before any network opens, so that the
 * network's opening switches its doorbell to a socket. */
int uz_path_open_host(struct uz_path **out)
{
    *out = NULL;
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->reach == UZ_REACH_HOST) {
            *out = &uz_paths[i];
            return MPI_SUCCESS;
        }
    const struct uz_transport_ops *t = transport_of_reach(UZ_REACH_HOST);
    if (!t || !uz_config.shm || uz_rt.world_size != 1)
        return MPI_SUCCESS;
    struct uz_transport_setup setup = base_setup();
    setup.fence = no_fence;
    for (int i = 0; i < uz_npaths; i++)
        setup.sleeps_in_poll |= uz_paths[i].ops->pollfds != NULL;
    int err = open_path(t, &setup, NULL, 0, out);
    uz_progress_paths_changed();
    return err;
}

static int unreachable_send(int world, const void *hdr, size_t hdr_len, const struct uz_payload *payload)
{
    return uz_err_make(MPI_ERR_OTHER, "no transport reaches world rank %d (it is on another host and it "
                       "shares no network transport with this rank: compare their UZURA_NET)", world);
}

static int open_self(void)
{
    const struct uz_transport_ops *t = transport_of_reach(UZ_REACH_SELF);
    struct uz_transport_setup setup = base_setup();
    struct uz_path *path;
    int err = t ? open_path(t, &setup, NULL, 0, &path)
                : uz_err_make(MPI_ERR_INTERN, "this build has no transport to reach a rank's own process");
    if (!err)
        uz_path_reach(uz_rt.world_rank, path, uz_rt.world_rank);
    return err;
}

/* The network each other rank is reached by (NULL: none, or not needed). */
static void choose_networks(const struct wireup *w, const struct uz_transport_ops **net_of)
{
    int me = uz_rt.world_rank;
    for (int r = 0; r < uz_rt.world_size; r++) {
        int same_host = card_node[r] == card_node[me];
        net_of[r] = r == me || (same_host && uz_config.shm) ? NULL
                  : uz_net_pair_choice(me, &w->nets[me], r, &w->nets[r]);
    }
}

static int chosen(const struct uz_transport_ops *t, const struct uz_transport_ops *const *net_of)
{
    for (int r = 0; r < uz_rt.world_size; r++)
        if (net_of[r] == t)
            return 1;
    return 0;
}

/* The host transport: this host's ranks (or, with UZURA_SHM=0, this rank
 * alone: a segment of its own, not the host's, for its doorbell). */
static int open_host(const struct wireup *w, const struct uz_transport_ops *const *net_of)
{
    const struct uz_transport_ops *t = transport_of_reach(UZ_REACH_HOST);
    if (!t)
        return MPI_SUCCESS;
    struct uz_transport_setup setup = base_setup();
    if (uz_config.shm) {
        setup.my_local = w->my_local;
        setup.nlocal = w->nlocal;
        setup.local_world_ranks = w->locals;
        setup.segment_id = w->node_id;
    }
    for (int i = 0; i < uz_ntransports; i++)
        if (uz_transport_table[i]->pollfds && chosen(uz_transport_table[i], net_of))
            setup.sleeps_in_poll = 1;
    struct uz_path *path;
    int err = open_path(t, &setup, NULL, 0, &path);
    if (err)
        return err;
    for (int i = 0; i < setup.nlocal; i++)
        if (setup.local_world_ranks[i] != uz_rt.world_rank)
            uz_path_reach(setup.local_world_ranks[i], path, i);
    return MPI_SUCCESS;
}

/* A peer's card for network `transport`, read from PMI when it first
 * needs it. */
static int read_card(const char *transport, int world, struct uz_net_peer_card *out)
{
    static char buf[UZ_NET_CARD_MAX];
    char key[64];
    if (world < 0 || world >= uz_rt.world_size)
        return -1;
    snprintf(key, sizeof(key), "uz-net-%s-%d", transport, world);
    if (uz_pmi_get(key, buf, sizeof(buf)) != 0)
        return -1;
    out->node_id = card_node[world];
    out->value = buf;
    return 0;
}

/* Open the networks some pair chose, in this rank's order of preference,
 * publish their cards, and wait for everyone's. */
static int open_networks(const struct wireup *w, const struct uz_transport_ops *const *net_of)
{
    char key[64], card[UZ_NET_CARD_MAX];
    struct uz_transport_setup setup = base_setup();
    setup.read_card = read_card;
    for (int i = 0; i < w->mine.n; i++) {
        const struct uz_transport_ops *t = w->mine.t[i];
        if (!chosen(t, net_of))
            continue;
        struct uz_path *path;
        card[0] = '\0';
        int err = open_path(t, &setup, card, sizeof(card), &path);
        if (err)
            return err;
        snprintf(key, sizeof(key), "uz-net-%s-%d", t->name, uz_rt.world_rank);
        if (uz_pmi_put(key, card) != 0)
            return pmi_fail("publishing this rank's network endpoint");
        for (int r = 0; r < uz_rt.world_size; r++)
            if (net_of[r] == t)
                uz_path_reach(r, path, r);
        path->card = strdup(card);
    }
    if (fence() != 0)
        return pmi_fail("fence after publishing network endpoints");
    return MPI_SUCCESS;
}

/* Not this rank's own mask: a rank mpiexec bound to a core has it alone. */
static int count_cpus(void)
{
    return uz_hwtopo_cpus_for_ranks(uz_config.local_cpus);
}

static int wire_up(struct wireup *w)
{
    int err = exchange_cards(w);
    if (err)
        return err;
    uz_rt.local_rank = w->my_local;
    uz_rt.local_size = w->nlocal;
    host_oversubscribed = uz_rt.local_size > count_cpus();
    uz_rt.node_id = w->node_id;
    const struct uz_transport_ops **net_of = calloc(uz_rt.world_size, sizeof(*net_of));
    if (!net_of)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up");
    choose_networks(w, net_of);
    err = open_host(w, net_of);
    if (!err && w->networks_needed)
        err = open_networks(w, net_of);
    free(net_of);
    return err;
}

struct uz_pt2pt_comm_refs uz_pt2pt_comm_refs;

int uz_pt2pt_init(const struct uz_pt2pt_comm_refs *refs)
{
    uz_pt2pt_comm_refs = *refs;
    int size = uz_rt.world_size;
    struct wireup w = { .nlocal = 1 };
    int err = uz_net_list_parse(uz_config.net, &w.mine, 1);
    if (!err)
        err = uz_trace_stages_init();   /* UZURA_TRACE=stages: before the first message */
    if (err)
        return err;
    uz_peers = calloc(size, sizeof(*uz_peers));
    if (!uz_peers)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for %d peers", size);
    for (int r = 0; r < size; r++) {
        uz_peers[r].send = unreachable_send;
        uz_peers[r].addr = r;
    }
    uz_rt.local_rank = 0;
    uz_rt.local_size = 1;
    host_oversubscribed = 0;
    uz_rt.node_id = 0;
    if ((err = open_self()))
        return err;
    if (size > 1)
        err = wire_up(&w);
    else
        err = job_key_before_fence();   /* a job of one rank has a key too: other jobs tell it by it */
    free(w.locals);
    free(w.nets);
    if (err)
        return err;
    uz_progress_configure(host_oversubscribed);
    return MPI_SUCCESS;
}

/* One-copy transfers in flight on any transport. */
static int bulk_pending(void)
{
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->bulk_pending && uz_paths[i].ops->bulk_pending())
            return 1;
    return 0;
}

int uz_pt2pt_finalize(void)
{
    /* Finish what is still queued to peers, then wait until every rank has
     * done the same: only then may the transports go away. */
    while (uz_send_pending() || bulk_pending() || uz_send_held)
        uz_progress();
    if (uz_config.verbose >= 2)
        uz_pt2pt_stats_print();
    for (int i = 0; i < uz_npaths; i++)
        if (uz_paths[i].ops->linger)
            uz_paths[i].ops->linger();
    if (fence() != 0)
        return pmi_fail("MPI_Finalize could not synchronise with the other ranks");
    for (int i = uz_npaths - 1; i >= 0; i--) {
        uz_paths[i].ops->close();
        free(uz_paths[i].card);
        uz_paths[i].card = NULL;
    }
    uz_npaths = 0;
    uz_proc_table_finalize();
    uz_progress_configure(0);
    free(card_node);
    card_node = NULL;
    uz_match_finalize();
    free(uz_peers);
    uz_peers = NULL;
    uz_trace_stages_finalize();
    return MPI_SUCCESS;
}
