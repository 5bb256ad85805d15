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

/* Host identity: the host name, plus the boot id so that two containers
 * with the same name but separate kernels are not taken for one host. */
static void host_card(char *buf, size_t len)
{
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
        if (*c == ' ' || *c == '=')
            *c = '_';
}

static int exchange_cards(int **local_world_ranks, int *nlocal, int *my_local, int *node_id)
{
    char key[64], mine[512], theirs[512];
    int size = uz_rt.world_size;
    host_card(mine, sizeof(mine));
    snprintf(key, sizeof(key), "uz-host-%d", uz_rt.world_rank);
    if (uz_pmi_put(key, mine) != 0)
        return pmi_fail("publishing this rank's card");
    if (fence() != 0)
        return pmi_fail("fence after publishing cards");

    int *locals = malloc(sizeof(int) * size);
    char **hosts = calloc(size, sizeof(char *));
    if (!locals || !hosts) {
        free(locals);
        free(hosts);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory during wire-up");
    }
    int n = 0, err = MPI_SUCCESS;
    for (int r = 0; r < size && !err; r++) {
        if (r == uz_rt.world_rank) {
            strcpy(theirs, mine);
        } else {
            snprintf(key, sizeof(key), "uz-host-%d", r);
            if (uz_pmi_get(key, theirs, sizeof(theirs)) != 0) {
                err = pmi_fail("reading a peer's card");
                break;
            }
        }
        hosts[r] = strdup(theirs);
        if (strcmp(theirs, mine) == 0) {
            if (r == uz_rt.world_rank)
                *my_local = n;
            locals[n++] = r;
        }
    }
    /* Hosts are numbered in order of their first rank. */
    int node = 0;
    for (int r = 0; r < size && !err; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(hosts[q], hosts[r]) != 0;
        if (strcmp(hosts[r], mine) == 0) {
            *node_id = node;
            break;
        }
        node += first;
    }
    for (int r = 0; r < size; r++)
        free(hosts[r]);
    free(hosts);
    *local_world_ranks = locals;
    *nlocal = n;
    return err;
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
        };
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
        for (int i = 0; i < nlocal; i++) {
            struct uz_peer *p = &uz_peers[locals[i]];
            if (locals[i] == uz_rt.world_rank)
                continue;
            p->path = UZ_PATH_SHM;
            p->local = i;
            p->max_record = caps.max_record;
            p->eager_single = caps.max_record - sizeof(struct uz_msg_hdr);
            p->has_bulk = caps.has_bulk;
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
    while (uz_send_pending() || uz_shm_bulk_pending())
        uz_progress();
    if (uz_config.verbose >= 2)
        uz_pt2pt_stats_print();
    if (fence() != 0)
        return pmi_fail("MPI_Finalize could not synchronise with the other ranks");
    if (uz_shm_active) {
        uz_shm_finalize();
        uz_shm_active = 0;
    }
    uz_match_finalize();
    free(uz_peers);
    uz_peers = NULL;
    return MPI_SUCCESS;
}
