/*
 * pt2pt_init.c — wire-up: who shares this host with us, bringing up the
 * shared-memory transport, and choosing a path to every rank.
 *
 * Each rank publishes a business card through PMI (its host's name), and
 * after one fence reads everyone's: ranks with the same host name share a
 * host, numbered by world rank.  mpiexec also tells ranks their local rank,
 * but the cards work under any process manager (Hydra, Slurm).
 */
#include <sched.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/params.h"
#include "core/runtime.h"
#include "pmi/pmi.h"
#include "pt2pt/match.h"
#include "pt2pt/protocol.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/recv.h"
#include "pt2pt/send.h"
#include "pt2pt/stats.h"
#include "pt2pt/path.h"
#include "transport/net/net.h"
#include "transport/shm/shm.h"

struct uz_peer *uz_peers;
extern int uz_shm_active;
void uz_progress_configure(int oversubscribed);

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
    if (uz_config.job_key && key_from_hex(uz_config.job_key, uz_net_job_key) == 0)
        return MPI_SUCCESS;
    if (uz_rt.world_rank != 0)
        return MPI_SUCCESS;
    if (getrandom(uz_net_job_key, UZ_NET_KEY_BYTES, 0) != UZ_NET_KEY_BYTES)
        return uz_err_make(MPI_ERR_OTHER, "wire-up: cannot make a job key (getrandom failed)");
    char hex[2 * UZ_NET_KEY_BYTES + 1];
    key_to_hex(uz_net_job_key, hex);
    return uz_pmi_put("uz-key", hex) == 0 ? MPI_SUCCESS : pmi_fail("publishing the job key");
}

static int job_key_after_fence(void)
{
    if (uz_config.job_key && key_from_hex(uz_config.job_key, uz_net_job_key) == 0)
        return MPI_SUCCESS;
    if (uz_rt.world_rank == 0)
        return MPI_SUCCESS;
    char hex[2 * UZ_NET_KEY_BYTES + 8];
    if (uz_pmi_get("uz-key", hex, sizeof(hex)) != 0 || key_from_hex(hex, uz_net_job_key) != 0)
        return pmi_fail("reading the job key");
    return MPI_SUCCESS;
}

/* The network transport this job uses between hosts.  It is opened only
 * when some peer is on another host (or shared memory is switched off), in
 * a second round of the card exchange, so single-host jobs open no socket. */
const struct uz_net_ops *uz_net;
int uz_net_active;

static int open_net(void)
{
    static char addrs[16][64];
    char key[64], card[UZ_NET_CARD_MAX];
    struct uz_net_setup setup = {
        .world_rank = uz_rt.world_rank, .world_size = uz_rt.world_size,
        .node_id = card_node[uz_rt.world_rank], .job_key = uz_net_job_key, .addrs = addrs,
    };
    setup.naddrs = uz_net_local_addresses(addrs, 16, &setup.loopback_index);
    uz_net = uz_config.net == UZ_NET_UDP ? &uz_udp_ops : &uz_tcp_ops;
    int err = uz_net->open(&setup, card, sizeof(card));
    if (err)
        return err;
    snprintf(key, sizeof(key), "uz-net-%d", uz_rt.world_rank);
    if (uz_pmi_put(key, card) != 0)
        return pmi_fail("publishing this rank's network endpoint");
    if (fence() != 0)
        return pmi_fail("fence after publishing network endpoints");
    return MPI_SUCCESS;
}

/* A peer's network card, read from PMI when the transport first needs it. */
static int read_card(int world, struct uz_net_peer_card *out)
{
    static char buf[UZ_NET_CARD_MAX];
    char key[64];
    if (world < 0 || world >= uz_rt.world_size)
        return -1;
    snprintf(key, sizeof(key), "uz-net-%d", world);
    if (uz_pmi_get(key, buf, sizeof(buf)) != 0)
        return -1;
    out->node_id = card_node[world];
    out->value = buf;
    return 0;
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

static int exchange_cards(int **local_world_ranks, int *nlocal, int *my_local, int *node_id)
{
    char key[64], mine[512];
    int size = uz_rt.world_size, err, nodes = 1;
    node_key(mine, sizeof(mine));
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
    err = !locals || !keys || !card_node ? uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up") : 0;
    int n = 0;
    for (int r = 0; r < size && !err; r++) {
        char theirs[512];
        snprintf(key, sizeof(key), "uz-card-%d", r);
        if (r == uz_rt.world_rank)
            strcpy(theirs, mine);
        else if (uz_pmi_get(key, theirs, sizeof(theirs)) != 0)
            err = pmi_fail("reading a peer's card");
        if (!err && !(keys[r] = strdup(theirs)))
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up");
        if (!err && strcmp(theirs, mine) == 0) {
            if (r == uz_rt.world_rank)
                *my_local = n;
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
    *node_id = card_node[uz_rt.world_rank];
    *local_world_ranks = locals;
    *nlocal = n;
    /* Every rank sees the same cards, so all agree whether to open the
     * network (and so on the number of fences). */
    if (nodes > 1 || (!uz_config.shm && size > 1))
        return open_net();
    return MPI_SUCCESS;
}

static int count_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    return 1;
}

int uz_pt2pt_init(void)
{
    int size = uz_rt.world_size;
    uz_peers = calloc(size, sizeof(*uz_peers));
    if (!uz_peers)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for %d peers", size);

    struct uz_peer *self = &uz_peers[uz_rt.world_rank];
    self->path = UZ_PATH_SELF;
    self->eager_single = SIZE_MAX;
    self->max_record = SIZE_MAX;

    int *locals = NULL, nlocal = 1, my_local = 0, node_id = 0, err;
    if (size > 1) {
        if ((err = exchange_cards(&locals, &nlocal, &my_local, &node_id)))
            return err;
        struct uz_shm_setup setup = {
            .my_local = my_local, .nlocal = nlocal, .local_world_ranks = locals,
            .node_id = node_id, .job_id = uz_rt.job_id, .fence = fence,
            .pollable_wake = uz_net != NULL,
        };
        if (!uz_config.shm) {
            /* Every other rank goes through the network transport. */
            setup.nlocal = 1;
            setup.my_local = 0;
            setup.local_world_ranks = &uz_rt.world_rank;
            setup.node_id = uz_rt.world_rank;   /* a segment of its own, not the host's */
        }
        err = uz_shm_init(&setup);
        if (err) {
            free(locals);
            return err;
        }
        uz_runtime_on_abort(uz_shm_unlink_on_abort);
        uz_shm_active = 1;
        struct uz_shm_bulk_callbacks cb = { uz_send_on_bulk_done, uz_recv_on_bulk_done };
        uz_shm_bulk_set_callbacks(&cb);
        struct uz_transport_caps caps;
        uz_shm_caps(&caps);
        for (int i = 0; i < nlocal && uz_config.shm; i++) {
            struct uz_peer *p = &uz_peers[locals[i]];
            if (locals[i] == uz_rt.world_rank)
                continue;
            p->path = UZ_PATH_SHM;
            p->local = i;
            p->max_record = caps.max_record;
            p->eager_single = caps.max_record - sizeof(struct uz_msg_hdr);
            p->has_bulk = caps.has_bulk;
        }
        if (uz_net) {
            uz_net->set_card_reader(read_card);
            size_t rec = uz_net->max_record();
            for (int r = 0; r < size; r++) {
                struct uz_peer *p = &uz_peers[r];
                if (p->path != UZ_PATH_NONE)
                    continue;
                p->path = UZ_PATH_NET;
                p->max_record = rec;
                p->eager_single = rec - sizeof(struct uz_msg_hdr);
                uz_net_active = 1;
            }
        }
    }
    uz_rt.local_rank = my_local;
    uz_rt.local_size = nlocal;
    uz_rt.node_id = node_id;
    free(locals);
    uz_progress_configure(nlocal > count_cpus());
    return MPI_SUCCESS;
}

int uz_pt2pt_finalize(void)
{
    /* Finish what is still queued to peers, then wait until every rank has
     * done the same: only then may the transports go away. */
    while (uz_send_pending() || uz_shm_bulk_pending() || uz_send_held)
        uz_progress();
    if (uz_config.verbose >= 2)
        uz_pt2pt_stats_print();
    if (uz_net && uz_net->linger)
        uz_net->linger();
    if (fence() != 0)
        return pmi_fail("MPI_Finalize could not synchronise with the other ranks");
    if (uz_shm_active) {
        uz_shm_finalize();
        uz_shm_active = 0;
    }
    if (uz_net) {
        uz_net->close();
        uz_net = NULL;
        uz_net_active = 0;
    }
    free(card_node);
    card_node = NULL;
    uz_match_finalize();
    free(uz_peers);
    uz_peers = NULL;
    return MPI_SUCCESS;
}
