/*
 * shm_ops.c — the shm transport as the request layer sees it: its
 * uz_transport_ops table, and the few members that are not one call into
 * the files that do the work (shm_segment.c, shm_ring.c, shm_bulk.c,
 * shm_rma.c, shm_wait.c, shm_coll.c).
 */
#include "transport/shm/shm_state.h"

static int shm_transport_open(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card,
                              size_t cardlen)
{
    return uz_shm_init(setup, up);
}

/* A sleeper's last look: a record on a ring, or a bulk transfer that
 * progress can move forward now (one waiting for the peer is not: the
 * peer rings us). */
static int shm_work_pending(void)
{
    return shm_rx_pending() || shm_bulk_ready();
}

static int shm_bulk_pending_count(void)
{
    return uz_shm_bulk_pending();
}

const struct uz_transport_ops uz_shm_transport = {
    .name = "shm",
    .reach = UZ_REACH_HOST,
    .open = shm_transport_open,
    .caps = uz_shm_caps,
    .close = uz_shm_finalize,
    .describe = uz_shm_describe,
    .send = uz_shm_send,
    .send_traced = uz_shm_send_traced,
    .progress = uz_shm_progress,
    .work_pending = shm_work_pending,
    .sleep = uz_shm_sleep,
    .sleep_in_poll = shm_sleep_in_poll,
    .bulk_offer = uz_shm_bulk_offer,
    .bulk_pull = uz_shm_bulk_pull,
    .bulk_withdraw = uz_shm_bulk_withdraw,
    .bulk_pending = shm_bulk_pending_count,
    .put = uz_shm_put,
    .get = uz_shm_get,
    .add_peer = uz_shm_add_peer,
    .close_peer = uz_shm_close_peer,
    .host_card = uz_shm_card,
    .coll = &uz_shm_coll_offload,
    .counters = uz_shm_counters,
};
