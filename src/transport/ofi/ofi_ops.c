/*
 * ofi_ops.c — the ofi transport's entry points: opening libfabric's
 * fabric, domain, endpoint, address vector and completion queue and
 * describing the endpoint in the rank's card (its name, in hex), closing
 * them at MPI_Finalize, and the uz_transport_ops table.
 *
 * Built without rdma/fabric.h, only the table is here and opening says
 * that this build has no libfabric support: UZURA_NET=ofi is then a clear
 * error, never a silent fallback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/params.h"
#include "transport/ofi/ofi.h"
#include "transport/transport.h"

#ifdef UZ_HAVE_LIBFABRIC

struct ofi_state uz_ofi = { .wait_fd = -1 };

/* ------------------------------------------------------------------ open */

static int open_objects(void)
{
    struct fi_info *info = uz_ofi.info;
    int rc;
    if ((rc = ofi_lib.fabric(info->fabric_attr, &uz_ofi.fabric, NULL)))
        return ofi_error("fi_fabric", rc);
    if ((rc = fi_domain(uz_ofi.fabric, info, &uz_ofi.domain, NULL)))
        return ofi_error("fi_domain", rc);
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD };
    if (fi_cq_open(uz_ofi.domain, &cq_attr, &uz_ofi.cq, NULL) != 0) {
        cq_attr.wait_obj = FI_WAIT_NONE;    /* no descriptor: waiting naps instead */
        if ((rc = fi_cq_open(uz_ofi.domain, &cq_attr, &uz_ofi.cq, NULL)))
            return ofi_error("fi_cq_open", rc);
    }
    struct fi_av_attr av_attr = { .type = info->domain_attr->av_type == FI_AV_UNSPEC ? FI_AV_TABLE
                                                                                      : info->domain_attr->av_type,
                                  .count = (size_t)uz_ofi.size };
    if ((rc = fi_av_open(uz_ofi.domain, &av_attr, &uz_ofi.av, NULL)))
        return ofi_error("fi_av_open", rc);
    if ((rc = fi_endpoint(uz_ofi.domain, info, &uz_ofi.ep, NULL)))
        return ofi_error("fi_endpoint", rc);
    if ((rc = fi_ep_bind(uz_ofi.ep, &uz_ofi.av->fid, 0)) ||
        (rc = fi_ep_bind(uz_ofi.ep, &uz_ofi.cq->fid, FI_TRANSMIT | FI_RECV)))
        return ofi_error("fi_ep_bind", rc);
    if ((rc = fi_enable(uz_ofi.ep)))
        return ofi_error("fi_enable", rc);
    int fd = -1;
    if (cq_attr.wait_obj == FI_WAIT_FD && fi_control(&uz_ofi.cq->fid, FI_GETWAIT, &fd) == 0)
        uz_ofi.wait_fd = fd;
    return MPI_SUCCESS;
}

/* The send and receive buffers, in one slab registered once if need be. */
static int make_buffers(void)
{
    int nops = OFI_RX_BUFS + OFI_TX_BUFS;
    size_t bytes = (size_t)nops * uz_ofi.buf_size;
    if (posix_memalign((void **)&uz_ofi.slab, 4096, bytes) != 0 ||
        !(uz_ofi.ops = calloc((size_t)nops, sizeof(*uz_ofi.ops))))
        return uz_err_make(MPI_ERR_NO_MEM, "ofi: out of memory for %zu bytes of buffers", bytes);
    if (uz_ofi.mr_mode & FI_MR_LOCAL) {
        int err = 0;
        if (!(uz_ofi.slab_mr = ofi_mr_get(uz_ofi.slab, bytes, &err)))
            return err;
    }
    for (int i = 0; i < nops; i++) {
        struct ofi_op *op = &uz_ofi.ops[i];
        op->buf = uz_ofi.slab + (size_t)i * uz_ofi.buf_size;
        op->peer = -1;
        if (i < OFI_RX_BUFS) {
            op->kind = OFI_OP_RX;
            int err = ofi_rx_post(op);
            if (err)
                return err;
        } else {
            op->kind = OFI_OP_TX;
            op->next_free = uz_ofi.tx_free;
            uz_ofi.tx_free = op;
        }
    }
    return MPI_SUCCESS;
}

static int write_card(char *card, size_t cardlen)
{
    unsigned char name[UZ_NET_CARD_MAX / 2];
    size_t len = sizeof(name);
    int rc = fi_getname(&uz_ofi.ep->fid, name, &len);
    if (rc)
        return ofi_error("fi_getname", rc);
    if (2 * len + 1 > cardlen)
        return uz_err_make(MPI_ERR_OTHER, "ofi: an endpoint name of %zu bytes does not fit in a card", len);
    for (size_t i = 0; i < len; i++)
        snprintf(card + 2 * i, 3, "%02x", name[i]);
    return MPI_SUCCESS;
}

static int ofi_open(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card, size_t cardlen)
{
    int err = ofi_dl_load();
    if (err)
        return err;
    uz_ofi.up = up;
    uz_ofi.read_card = setup->read_card;
    uz_ofi.rank = setup->world_rank;
    uz_ofi.size = setup->world_size;
    memcpy(&uz_ofi.token, setup->job_key, sizeof(uz_ofi.token));
    uz_ofi.peers = calloc((size_t)setup->world_size, sizeof(*uz_ofi.peers));
    uz_ofi.dead = calloc((size_t)setup->world_size, sizeof(int));
    if (!uz_ofi.peers || !uz_ofi.dead)
        return uz_err_make(MPI_ERR_NO_MEM, "ofi: out of memory for %d peers", setup->world_size);
    for (int r = 0; r < setup->world_size; r++)
        uz_ofi.peers[r].addr = FI_ADDR_NOTAVAIL;
    for (int i = 0; i < OFI_OFFERS; i++)
        uz_ofi.offers[i].peer = -1;
    if ((err = ofi_info_choose(&uz_ofi.info)))
        return err;
    const struct fi_info *info = uz_ofi.info;
    uz_ofi.tagged = (info->caps & FI_TAGGED) != 0;
    uz_ofi.rma = (info->caps & FI_RMA) && (info->caps & FI_READ);
    uz_ofi.mr_mode = (uint64_t)info->domain_attr->mr_mode;
    uz_ofi.inject_size = info->tx_attr->inject_size;
    uz_ofi.max_record = OFI_RECORD_PAYLOAD + UZ_RECORD_HEADER_ROOM;
    uz_ofi.buf_size = sizeof(struct ofi_wire) + uz_ofi.max_record;
    if (info->ep_attr->max_msg_size && info->ep_attr->max_msg_size < uz_ofi.buf_size) {
        if (info->ep_attr->max_msg_size < 4096)
            return uz_err_make(MPI_ERR_OTHER, "ofi: provider %s sends at most %zu bytes per message",
                               info->fabric_attr->prov_name, info->ep_attr->max_msg_size);
        uz_ofi.buf_size = info->ep_attr->max_msg_size;
        uz_ofi.max_record = uz_ofi.buf_size - sizeof(struct ofi_wire);
    }
    if ((err = open_objects()) || (err = make_buffers()))
        return err;
    return write_card(card, cardlen);
}

/* ------------------------------------------------------------------ close */

static void print_counters(void)
{
    const struct ofi_counters *c = &uz_ofi.count;
    fprintf(stderr, "Uzura rank %d: ofi records sent %lu (injected %lu, from user memory %lu), received %lu; "
            "offers %lu, pulls %lu (%lu bytes read); registrations: %lu hits, %lu misses, %lu evicted; "
            "refused sends %lu; dropped %lu malformed, %lu strangers\n", uz_ofi.rank, c->records_sent, c->injected,
            c->zcopy_sends, c->records_received, c->offers, c->pulls, c->read_bytes, c->mr_hits, c->mr_misses,
            c->mr_evictions, c->eagain, uz_net_stats.malformed, uz_net_stats.rejected_datagrams);
}

static void close_fid(struct fid *f)
{
    if (f)
        fi_close(f);
}

/* Called after the job-wide fence of MPI_Finalize. */
static void ofi_close(void)
{
    ofi_linger_stop();
    if (uz_config.verbose >= 2 && uz_ofi.ep)
        print_counters();
    close_fid(uz_ofi.ep ? &uz_ofi.ep->fid : NULL);
    ofi_bulk_free_all();
    ofi_mr_close_all();
    close_fid(uz_ofi.av ? &uz_ofi.av->fid : NULL);
    close_fid(uz_ofi.cq ? &uz_ofi.cq->fid : NULL);
    close_fid(uz_ofi.domain ? &uz_ofi.domain->fid : NULL);
    close_fid(uz_ofi.fabric ? &uz_ofi.fabric->fid : NULL);
    if (uz_ofi.info)
        ofi_lib.freeinfo(uz_ofi.info);
    free(uz_ofi.slab);
    free(uz_ofi.ops);
    free(uz_ofi.peers);
    free(uz_ofi.dead);
    memset(&uz_ofi, 0, sizeof(uz_ofi));
    uz_ofi.wait_fd = -1;
}

/* ------------------------------------------------------------------ the rest */

static void ofi_caps(struct uz_transport_caps *caps)
{
    /* An RDMA read pays per run: runs shorter than a few pages go staged
     * by the request layer's CTS/DATA path instead (bulk_staged_max 0). */
    *caps = (struct uz_transport_caps){
        .max_record = uz_ofi.max_record,
        .has_bulk = uz_ofi.rma,
        .bulk_min_run_remote = 8192,
        .bulk_min_run_local = 8192,
        .bulk_staged_max = 0,
    };
}

static void ofi_describe(char *buf, size_t len)
{
    char where[256];
    ofi_info_describe(where, sizeof(where));
    snprintf(buf, len, "ofi over %s: %s messages, large messages %s, memory registration %s%s%s%s%s, "
             "waiting %s", where, uz_ofi.tagged ? "tagged" : "plain",
             uz_ofi.rma ? "pulled by fi_read" : "in records (the provider has no FI_RMA)",
             uz_ofi.mr_mode & (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ENDPOINT) ? "" : "scalable",
             uz_ofi.mr_mode & FI_MR_LOCAL ? "local " : "", uz_ofi.mr_mode & FI_MR_VIRT_ADDR ? "virt-addr " : "",
             uz_ofi.mr_mode & FI_MR_PROV_KEY ? "prov-key " : "", uz_ofi.mr_mode & FI_MR_ENDPOINT ? "endpoint " : "",
             uz_ofi.wait_fd >= 0 ? "on the completion queue's descriptor" : "in 1 ms naps (no wait descriptor)");
}

const struct uz_transport_ops uz_ofi_transport = {
    .name = "ofi",
    .reach = UZ_REACH_NETWORK,
    .open = ofi_open,
    .caps = ofi_caps,
    .linger = ofi_linger,
    .close = ofi_close,
    .describe = ofi_describe,
    .send = ofi_send,
    .progress = ofi_progress,
    .pollfds = ofi_pollfds,
    .work_pending = ofi_work_pending,
    .bulk_offer = ofi_bulk_offer,
    .bulk_pull = ofi_bulk_pull,
    .bulk_withdraw = ofi_bulk_withdraw,
    .bulk_pending = ofi_bulk_pending,
};

#else /* !UZ_HAVE_LIBFABRIC */

static int ofi_open(const struct uz_transport_setup *setup, const struct uz_upcalls *up, char *card, size_t cardlen)
{
    return uz_err_make(MPI_ERR_OTHER, "ofi: this build of Uzura has no libfabric support (rdma/fabric.h was not "
                       "found when it was configured: install libfabric-dev and configure again)");
}

static void ofi_caps(struct uz_transport_caps *caps)
{
    *caps = (struct uz_transport_caps){ 0 };
}

static void ofi_close(void)
{
}

static int ofi_send(int peer, const void *hdr, size_t hdr_len, const struct uz_payload *payload)
{
    return uz_err_make(MPI_ERR_OTHER, "ofi: not built");
}

/* Never opened, so never anything to do; there all the same because every
 * network transport has one (tests/mpi/transport_table.c). */
static int ofi_progress(void)
{
    return 0;
}

const struct uz_transport_ops uz_ofi_transport = {
    .name = "ofi",
    .reach = UZ_REACH_NETWORK,
    .open = ofi_open,
    .caps = ofi_caps,
    .close = ofi_close,
    .send = ofi_send,
    .progress = ofi_progress,
};

#endif /* UZ_HAVE_LIBFABRIC */
