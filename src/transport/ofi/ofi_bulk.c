/*
 * ofi_bulk.c — large messages by RDMA read: the receiver PULLs from the
 * sender's registered memory (the seed paper's PULL; DIMMnet's
 * sender-first protocol).
 *
 *   sender                                   receiver
 *   bulk_offer: register the runs' span,
 *     OFFER{slot, generation, key, runs} ──▶ kept per (peer, slot)
 *   (request layer) RTS naming the slot ──▶ bulk_pull: fi_read each run
 *                                            into the receiver's runs,
 *                                            OFI_READS_PER_PULL at a time
 *   bulk_done, slot free ◀── PULLED{slot} ── bulk_done
 *
 * Messages stay in order per pair, so the OFFER is always there when the
 * RTS that names it arrives.  An offer the receiver does not take (it
 * answered CTS, or the send was cancelled) is withdrawn by the sender; the
 * receiver's copy is replaced when the slot is offered again.  Staged
 * sides (runs too short to describe) are not taken: caps.bulk_staged_max
 * is 0, and the request layer carries such messages by CTS/DATA.
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "transport/ofi/ofi.h"

static uint32_t next_generation = 1;

/* ------------------------------------------------------------ sender */

static void span_of(const struct iovec *iov, int n, uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < n; i++) {
        if (!iov[i].iov_len)
            continue;
        uintptr_t a = (uintptr_t)iov[i].iov_base;
        if (a < *lo)
            *lo = a;
        if (a + iov[i].iov_len > *hi)
            *hi = a + iov[i].iov_len;
    }
    if (*hi <= *lo)
        *lo = *hi = 0;
}

static int free_slot(void)
{
    for (int i = 0; i < OFI_OFFERS; i++)
        if (!uz_ofi.offers[i].owner)
            return i;
    return -1;
}

static void offer_free(struct ofi_offer_out *o)
{
    ofi_mr_put(o->mr);
    memset(o, 0, sizeof(*o));
    o->peer = -1;
    uz_ofi.noffers--;
}

int ofi_bulk_offer(int peer, const struct uz_bulk_mem *mem, size_t total, void *owner, struct uz_bulk_desc *desc)
{
    if (mem->ctx || !mem->niov || uz_ofi.peers[peer].failed)
        return -EAGAIN;                 /* staged: the CTS/DATA path carries it */
    size_t body = sizeof(struct ofi_offer_msg) + (size_t)mem->niov * sizeof(struct ofi_remote_run);
    if (sizeof(struct ofi_wire) + body > uz_ofi.buf_size)
        return -EAGAIN;                 /* too many runs to describe in one message */
    int slot = free_slot();
    if (slot < 0)
        return -EAGAIN;
    uintptr_t lo, hi;
    span_of(mem->iov, mem->niov, &lo, &hi);
    if (hi == lo || hi - lo > 4 * total + (1u << 20))
        return -EAGAIN;                 /* runs scattered far apart: not worth registering (pinning) the span */
    int err = 0;
    struct ofi_mr *mr = ofi_mr_get((void *)lo, hi - lo, &err);
    if (!mr)
        return -EAGAIN;                 /* cannot register: carry it in records */
    struct ofi_offer_msg *m = malloc(body);
    if (!m) {
        ofi_mr_put(mr);
        return -EAGAIN;
    }
    uint32_t gen = next_generation++;
    *m = (struct ofi_offer_msg){ .slot = (uint32_t)slot, .generation = gen, .key = mr->key, .total = total,
                                 .nruns = (uint32_t)mem->niov };
    for (int i = 0; i < mem->niov; i++)
        m->runs[i] = (struct ofi_remote_run){ ofi_mr_remote_addr(mr, mem->iov[i].iov_base), mem->iov[i].iov_len };
    int rc = ofi_send_control(peer, OFI_OFFER, m, body);
    free(m);
    if (rc) {
        ofi_mr_put(mr);
        return rc == -EAGAIN ? -EAGAIN : rc;
    }
    uz_ofi.offers[slot] = (struct ofi_offer_out){ .peer = peer, .generation = gen, .owner = owner, .mr = mr };
    uz_ofi.noffers++;
    uz_ofi.count.offers++;
    *desc = (struct uz_bulk_desc){ .record = (uint32_t)slot, .generation = gen };
    return 0;
}

static struct ofi_offer_out *offer_named(int peer, uint32_t slot, uint32_t gen)
{
    if (slot >= OFI_OFFERS)
        return NULL;
    struct ofi_offer_out *o = &uz_ofi.offers[slot];
    return o->owner && o->peer == peer && o->generation == gen ? o : NULL;
}

/* The receiver pulls only after the RTS, and withdraw is called only when
 * it answered otherwise (CTS, cancel) or never got the RTS: always ours. */
int ofi_bulk_withdraw(int peer, const struct uz_bulk_desc *desc)
{
    struct ofi_offer_out *o = offer_named(peer, desc->record, desc->generation);
    if (!o)
        return -EBUSY;
    offer_free(o);
    return 0;
}

void ofi_bulk_on_pulled(int src, const void *body, size_t len)
{
    struct ofi_pulled_msg m;
    if (len < sizeof(m)) {
        uz_net_stats.malformed++;
        return;
    }
    memcpy(&m, body, sizeof(m));
    struct ofi_offer_out *o = offer_named(src, m.slot, m.generation);
    if (!o) {
        uz_net_stats.malformed++;
        return;
    }
    void *owner = o->owner;
    offer_free(o);
    uz_ofi.up->bulk_done(owner, m.error);
}

/* ------------------------------------------------------------ receiver */

void ofi_bulk_on_offer(int src, const void *body, size_t len)
{
    struct ofi_offer_msg m;
    if (len < sizeof(m)) {
        uz_net_stats.malformed++;
        return;
    }
    memcpy(&m, body, sizeof(m));
    if (m.slot >= OFI_OFFERS || m.nruns == 0 || (len - sizeof(m)) / sizeof(struct ofi_remote_run) < m.nruns) {
        uz_net_stats.malformed++;
        return;
    }
    struct ofi_peer *p = &uz_ofi.peers[src];
    if (!p->offers && !(p->offers = calloc(OFI_OFFERS, sizeof(*p->offers))))
        return;                         /* the pull will fail and the receiver answer CTS */
    size_t runs = (size_t)m.nruns * sizeof(struct ofi_remote_run);
    struct ofi_offer_in *in = malloc(sizeof(*in) + runs);
    if (!in)
        return;
    *in = (struct ofi_offer_in){ .generation = m.generation, .key = m.key, .total = m.total, .nruns = m.nruns };
    memcpy(in->runs, (const unsigned char *)body + sizeof(m), runs);
    free(p->offers[m.slot]);
    p->offers[m.slot] = in;
}

int ofi_bulk_pull(int peer, const struct uz_bulk_desc *desc, const struct uz_bulk_mem *mem, size_t total, void *owner)
{
    struct ofi_peer *p = &uz_ofi.peers[peer];
    struct ofi_offer_in *in = p->offers && desc->record < OFI_OFFERS ? p->offers[desc->record] : NULL;
    if (!in || in->generation != desc->generation)
        return uz_err_make(MPI_ERR_OTHER, "ofi: rank %d's bulk offer %u is not known here", peer, desc->record);
    if (mem->ctx || (!mem->niov && total))
        return uz_err_make(MPI_ERR_OTHER, "ofi: a staged receive side is not pulled (caps.bulk_staged_max is 0)");
    if (total > in->total)
        total = in->total;
    struct ofi_pull *pl = calloc(1, sizeof(*pl));
    struct iovec *local = malloc((size_t)(mem->niov ? mem->niov : 1) * sizeof(*local));
    if (!pl || !local) {
        free(pl);
        free(local);
        return uz_err_make(MPI_ERR_NO_MEM, "ofi: out of memory for a pull");
    }
    memcpy(local, mem->iov, (size_t)mem->niov * sizeof(*local));
    if (uz_ofi.mr_mode & FI_MR_LOCAL) {
        uintptr_t lo, hi;
        span_of(local, mem->niov, &lo, &hi);
        int err = 0;
        if (hi > lo && !(pl->local_mr = ofi_mr_get((void *)lo, hi - lo, &err))) {
            free(pl);
            free(local);
            return err;
        }
    }
    p->offers[desc->record] = NULL;     /* taken: a later offer of the slot is another message */
    pl->peer = peer;
    pl->slot = desc->record;
    pl->generation = desc->generation;
    pl->owner = owner;
    pl->offer = in;
    pl->local = local;
    pl->nlocal = mem->niov;
    pl->total = total;
    pl->answer_due = total == 0;
    pl->next = uz_ofi.pulls;
    uz_ofi.pulls = pl;
    uz_ofi.npulls++;
    uz_ofi.count.pulls++;
    return MPI_SUCCESS;
}

/* Post the next fi_reads of one pull; -EAGAIN when the provider is full. */
static int post_reads(struct ofi_pull *pl)
{
    fi_addr_t from = uz_ofi.peers[pl->peer].addr;
    if (from == FI_ADDR_NOTAVAIL && ofi_peer_address(pl->peer, &from) != 0) {
        pl->error = EHOSTUNREACH;
        pl->posted = pl->total;
        return 0;
    }
    while (pl->posted < pl->total && pl->in_flight < OFI_READS_PER_PULL && !pl->error) {
        const struct iovec *l = &pl->local[pl->li];
        const struct ofi_remote_run *r = &pl->offer->runs[pl->ri];
        size_t n = l->iov_len - pl->loff;
        if (r->len - pl->roff < n)
            n = r->len - pl->roff;
        if (pl->total - pl->posted < n)
            n = pl->total - pl->posted;
        if (n > OFI_READ_CHUNK)
            n = OFI_READ_CHUNK;
        if (n) {
            struct ofi_op *op = calloc(1, sizeof(*op));
            if (!op)
                return -EAGAIN;
            op->kind = OFI_OP_READ;
            op->peer = pl->peer;
            op->pull = pl;
            ssize_t rc = fi_read(uz_ofi.ep, (char *)l->iov_base + pl->loff, n,
                                 pl->local_mr ? pl->local_mr->desc : NULL, from, r->addr + pl->roff, pl->offer->key, op);
            if (rc == -FI_EAGAIN) {
                free(op);
                return -EAGAIN;
            }
            if (rc) {
                free(op);
                pl->error = EIO;
                break;
            }
            pl->in_flight++;
            pl->posted += n;
            pl->loff += n;
            pl->roff += n;
        }
        if (pl->loff == l->iov_len) {
            pl->li++;
            pl->loff = 0;
        }
        if (pl->roff == r->len) {
            pl->ri++;
            pl->roff = 0;
        }
        if ((pl->li >= pl->nlocal || pl->ri >= (int)pl->offer->nruns) && pl->posted < pl->total) {
            pl->error = EMSGSIZE;       /* the runs hold fewer bytes than promised */
            break;
        }
    }
    return 0;
}

void ofi_read_done(struct ofi_op *op, int error)
{
    struct ofi_pull *pl = op->pull;
    free(op);
    pl->in_flight--;
    if (error && !pl->error)
        pl->error = error;
    if (!error)
        pl->done++;
}

static void pull_free(struct ofi_pull *pl)
{
    struct ofi_pull **at = &uz_ofi.pulls;
    while (*at != pl)
        at = &(*at)->next;
    *at = pl->next;
    uz_ofi.npulls--;
    ofi_mr_put(pl->local_mr);
    free(pl->offer);
    free(pl->local);
    free(pl);
}

/* Advance every pull: post reads, and finish those whose reads are all in. */
int ofi_bulk_step(void)
{
    int events = 0;
    struct ofi_pull *next;
    for (struct ofi_pull *pl = uz_ofi.pulls; pl; pl = next) {
        next = pl->next;
        if (uz_ofi.peers[pl->peer].failed && !pl->in_flight) {
            void *owner = pl->owner;
            pull_free(pl);
            uz_ofi.up->bulk_done(owner, EPIPE);
            events++;
            continue;
        }
        if (!pl->error && pl->posted < pl->total && post_reads(pl) == 0)
            events++;
        if (pl->in_flight || (!pl->error && pl->posted < pl->total))
            continue;
        struct ofi_pulled_msg m = { .slot = pl->slot, .generation = pl->generation, .error = pl->error };
        if (ofi_send_control(pl->peer, OFI_PULLED, &m, sizeof(m)) == -EAGAIN)
            continue;                   /* no send buffer now: next time */
        uz_ofi.count.read_bytes += pl->error ? 0 : pl->total;
        void *owner = pl->owner;
        int error = pl->error;
        pull_free(pl);
        uz_ofi.up->bulk_done(owner, error);
        events++;
    }
    return events;
}

int ofi_bulk_pending(void)
{
    return uz_ofi.npulls + uz_ofi.noffers;
}

/* A dead peer: its offers here are void, ours to it are never answered. */
void ofi_bulk_peer_lost(int world)
{
    for (int i = 0; i < OFI_OFFERS; i++)
        if (uz_ofi.offers[i].owner && uz_ofi.offers[i].peer == world)
            offer_free(&uz_ofi.offers[i]);
    struct ofi_peer *p = &uz_ofi.peers[world];
    for (int i = 0; p->offers && i < OFI_OFFERS; i++) {
        free(p->offers[i]);
        p->offers[i] = NULL;
    }
}

void ofi_bulk_free_all(void)
{
    while (uz_ofi.pulls)
        pull_free(uz_ofi.pulls);
    for (int i = 0; i < OFI_OFFERS; i++)
        if (uz_ofi.offers[i].owner)
            offer_free(&uz_ofi.offers[i]);
    for (int r = 0; uz_ofi.peers && r < uz_ofi.size; r++) {
        struct ofi_peer *p = &uz_ofi.peers[r];
        for (int i = 0; p->offers && i < OFI_OFFERS; i++)
            free(p->offers[i]);
        free(p->offers);
        p->offers = NULL;
    }
}

#endif /* UZ_HAVE_LIBFABRIC */
