/*
 * file_coll.c — collective data access: MPI_File_read_all/write_all and
 * their explicit-offset and split forms, with two-phase collective
 * buffering.
 *
 * When the ranks' accesses interleave in the file (each a strided view of
 * one array, say), each host's aggregators take a contiguous file domain
 * of the accessed range, aligned, and the data moves in rounds of
 * cb_buffer_size: in a write every rank sends each aggregator the pieces
 * of its data that fall in the aggregator's current window, with their
 * offsets, and the aggregator writes the window in large contiguous pieces;
 * a read is the same backwards.  The messages are the request layer's
 * ordinary point-to-point ones on the file's private communicator (I/O
 * never talks to a transport).  Accesses that do not interleave (each rank
 * its own block) gain nothing from an exchange and go independently.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "coll/coll.h"
#include "io/io.h"
#include "pt2pt/pt2pt.h"
#include "pt2pt/request.h"
#include "pt2pt/status.h"

enum { TAG_PIECES = 1, RUN_BATCH = 256 };

/* One contiguous run of this rank's access: file offset, length, and
 * where its bytes are in the rank's stream. */
struct run {
    MPI_Offset off;
    MPI_Offset len;
    MPI_Offset spos;
};

/* A piece as it travels: the file range [off, off+len). */
struct piece {
    long long off, len;
};

/* ----------------------------------------------------------- the runs */

static int list_runs(uz_file *f, MPI_Offset soff, size_t len, struct run **out, size_t *nout)
{
    struct uz_io_runs it;
    struct iovec iov[RUN_BATCH];
    size_t n = 0, cap = 64;
    struct run *r = malloc(cap * sizeof(*r));
    MPI_Offset spos = 0;
    int k;
    if (!r)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory listing file runs");
    uz_io_runs_init(&it, &f->view, soff, len);
    while ((k = uz_io_runs_next(&it, iov, RUN_BATCH)) > 0) {
        for (int i = 0; i < k; i++) {
            MPI_Offset off = (MPI_Offset)(uintptr_t)iov[i].iov_base;
            if (n && r[n - 1].off + r[n - 1].len == off) {
                r[n - 1].len += (MPI_Offset)iov[i].iov_len;
            } else {
                if (n == cap) {
                    struct run *p = realloc(r, 2 * cap * sizeof(*r));
                    if (!p) {
                        free(r);
                        return uz_err_make(MPI_ERR_NO_MEM, "out of memory listing file runs");
                    }
                    r = p;
                    cap *= 2;
                }
                r[n++] = (struct run){ off, (MPI_Offset)iov[i].iov_len, spos };
            }
            spos += (MPI_Offset)iov[i].iov_len;
        }
    }
    *out = r;
    *nout = n;
    return MPI_SUCCESS;
}

/* The first run that ends after `lo` (runs are in file order). */
static size_t first_run_after(const struct run *r, size_t n, MPI_Offset lo)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (r[m].off + r[m].len <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* ------------------------------------------------------ the exchange */

struct xfer {
    void *buf;
    size_t bytes;
    int peer;
};

/* Post every send and receive, then wait for all, under the request
 * layer's lock (the progress engine is shared with other threads). */
static int exchange(uz_comm *comm, struct xfer *sends, int nsend, struct xfer *recvs, int nrecv)
{
    uz_request **reqs = calloc((size_t)(nsend + nrecv) + 1, sizeof(*reqs));
    if (!reqs)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for the collective I/O exchange");
    uz_datatype *byte = uz_datatype_get(MPI_BYTE);
    int err = MPI_SUCCESS, n = 0;
    uz_lock();
    for (int i = 0; !err && i < nrecv; i++)
        err = uz_pt2pt_recv(recvs[i].buf, (MPI_Count)recvs[i].bytes, byte, recvs[i].peer, TAG_PIECES, &comm->p2p,
                            MPI_STATUS_IGNORE, &reqs[n++]);
    for (int i = 0; !err && i < nsend; i++)
        err = uz_pt2pt_send(sends[i].buf, (MPI_Count)sends[i].bytes, byte, sends[i].peer, TAG_PIECES, &comm->p2p,
                            UZ_SEND_STANDARD, &reqs[n++]);
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        uz_request_wait(reqs[i]);
        if (!err && reqs[i]->status.MPI_ERROR)
            err = reqs[i]->status.MPI_ERROR;
        uz_request_release(reqs[i]);
    }
    uz_unlock();
    free(reqs);
    return err;
}

/* ------------------------------------------------------ the aggregators */

struct plan {
    int naggs;
    int *aggs;                  /* comm ranks of the aggregators */
    MPI_Offset lo, hi;          /* the whole accessed range */
    MPI_Offset *fd_lo, *fd_hi;  /* each aggregator's file domain */
    MPI_Offset cb;              /* bytes per aggregator per round */
    int rounds;
};

struct slot {
    int key, rank;
};

static int cmp_slot(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Per host, as many aggregators as the host has cores and ranks (the
 * cb_nodes hint overrides), in rank order within the host. */
static int choose_aggregators(uz_file *f, struct plan *p)
{
    int size = f->comm->size;
    int *node = malloc(sizeof(int) * (size_t)size);
    p->aggs = malloc(sizeof(int) * (size_t)size);
    if (!node || !p->aggs) {
        free(node);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory choosing aggregators");
    }
    int mine = uz_rt.node_id;
    int err = uz_coll_allgather(&mine, 1, uz_datatype_get(MPI_INT), node, 1, uz_datatype_get(MPI_INT), f->comm);
    if (err) {
        free(node);
        return err;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1)
        cores = 1;
    int per_host = f->hints.cb_nodes > 0 ? size : uz_config.io_aggregators > 0 ? uz_config.io_aggregators : (int)cores;
    /* Each rank's place among the ranks of its host, then the aggregators
     * in order of that place (the first of every host, then the second,
     * ...) so that a cb_nodes limit spreads them over the hosts. */
    struct slot *sl = malloc(sizeof(*sl) * (size_t)size);
    if (!sl) {
        free(node);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory choosing aggregators");
    }
    for (int r = 0; r < size; r++)
        sl[r] = (struct slot){ node[r], r };
    qsort(sl, (size_t)size, sizeof(*sl), cmp_slot);
    for (int i = 0, place = 0, prev = 0; i < size; i++) {
        int host = sl[i].key;
        place = i > 0 && host == prev ? place + 1 : 0;
        prev = host;
        sl[i].key = place;
    }
    qsort(sl, (size_t)size, sizeof(*sl), cmp_slot);
    p->naggs = 0;
    for (int i = 0; i < size && sl[i].key < per_host; i++)
        p->aggs[p->naggs++] = sl[i].rank;
    free(sl);
    if (f->hints.cb_nodes > 0 && p->naggs > f->hints.cb_nodes)
        p->naggs = f->hints.cb_nodes;
    free(node);
    return MPI_SUCCESS;
}

/* Split [lo, hi) into naggs domains whose boundaries fall on `align`. */
static void file_domains(struct plan *p, MPI_Offset align)
{
    MPI_Offset span = p->hi - p->lo, each = (span + p->naggs - 1) / p->naggs;
    if (align > 1)
        each = (each + align - 1) / align * align;
    MPI_Offset at = p->lo;
    for (int a = 0; a < p->naggs; a++) {
        /* The first boundary is moved to an aligned offset too. */
        MPI_Offset end = a == p->naggs - 1 ? p->hi : ((at - p->lo + each) + p->lo);
        if (align > 1 && a < p->naggs - 1)
            end = (end / align) * align;
        if (end > p->hi)
            end = p->hi;
        if (end < at)
            end = at;
        p->fd_lo[a] = at;
        p->fd_hi[a] = end;
        at = end;
    }
}

/* ------------------------------------------------------------ two-phase */

struct tp {
    uz_file *f;
    struct plan p;
    struct run *runs;           /* this rank's */
    size_t nruns;
    char *stream;               /* this rank's data, in the file's representation */
    int me_agg;                 /* my index among the aggregators, or -1 */
    char *cbuf;                 /* the aggregator's window */
};

/* The pieces of my runs inside [lo, hi): how many and how many bytes, and
 * (when `pieces` is not NULL) the pieces themselves, their data gathered
 * into `data` (a write) or their stream positions into `spos` (a read). */
static void my_pieces(const struct tp *t, MPI_Offset lo, MPI_Offset hi, long long *np, long long *nb,
                      struct piece *pieces, char *data, MPI_Offset *spos)
{
    long long n = 0, b = 0;
    for (size_t i = first_run_after(t->runs, t->nruns, lo); i < t->nruns && t->runs[i].off < hi; i++) {
        const struct run *r = &t->runs[i];
        MPI_Offset a = r->off > lo ? r->off : lo, e = r->off + r->len < hi ? r->off + r->len : hi;
        if (e <= a)
            continue;
        if (pieces) {
            pieces[n] = (struct piece){ a, e - a };
            if (data)
                memcpy(data + b, t->stream + r->spos + (a - r->off), (size_t)(e - a));
            if (spos)
                spos[n] = r->spos + (a - r->off);
        }
        n++;
        b += e - a;
    }
    *np = n;
    *nb = b;
}

/* A piece an aggregator received: its file range and where its bytes are. */
struct gpiece {
    MPI_Offset off, len;
    const char *data;
};

static int cmp_gpiece(const void *a, const void *b)
{
    const struct gpiece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Write the pieces straight from the buffers they arrived in: sorted by
 * offset, each run of adjacent pieces is one pwritev (no copy into a
 * window first); the bytes nobody wrote in this call stay as they are. */
static int write_gathered(uz_file *f, struct gpiece *g, long long n)
{
    enum { BATCH = 1024 };      /* IOV_MAX on Linux */
    struct iovec iov[BATCH];
    qsort(g, (size_t)n, sizeof(*g), cmp_gpiece);
    for (long long i = 0; i < n;) {
        MPI_Offset at = g[i].off, end = at;
        int k = 0;
        while (i < n && k < BATCH && g[i].off == end) {
            iov[k].iov_base = (void *)g[i].data;
            iov[k].iov_len = (size_t)g[i].len;
            end += g[i].len;
            k++;
            i++;
        }
        if (k == 0) {
            /* Overlapping pieces (an erroneous program): one at a time. */
            iov[0].iov_base = (void *)g[i].data;
            iov[0].iov_len = (size_t)g[i].len;
            at = g[i].off;
            k = 1;
            i++;
        }
        struct iovec *v = iov;
        while (k > 0) {
            ssize_t w = pwritev(f->fd, v, k, at);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return uz_io_errno(w < 0 ? errno : ENOSPC, "write", f->path);
            at += w;
            while (k > 0 && (size_t)w >= v->iov_len) {
                w -= (ssize_t)v->iov_len;
                v++;
                k--;
            }
            if (k > 0) {
                v->iov_base = (char *)v->iov_base + w;
                v->iov_len -= (size_t)w;
            }
        }
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- buffers */

/* A round's message buffers come from one block kept in the file; what
 * does not fit goes to overflow blocks, and the next round starts with
 * one block large enough for everything. */
struct uz_io_overflow {
    struct uz_io_overflow *next;
    char data[];
};

static void arena_reset(struct uz_io_arena *a)
{
    if (a->extra) {
        size_t want = a->cap + a->extra_bytes;
        while (a->extra) {
            struct uz_io_overflow *o = a->extra;
            a->extra = o->next;
            free(o);
        }
        char *b = malloc(want);
        if (b) {
            free(a->block);
            a->block = b;
            a->cap = want;
        }
        a->extra_bytes = 0;
    }
    a->used = 0;
}

static void *arena_alloc(struct uz_io_arena *a, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (a->used + bytes <= a->cap) {
        void *p = a->block + a->used;
        a->used += bytes;
        return p;
    }
    struct uz_io_overflow *o = malloc(sizeof(*o) + bytes);
    if (!o)
        return NULL;
    o->next = a->extra;
    a->extra = o;
    a->extra_bytes += bytes;
    return o->data;
}

void uz_io_coll_free(uz_file *f)
{
    arena_reset(&f->arena);
    free(f->arena.block);
    f->arena.block = NULL;
    f->arena.cap = 0;
    free(f->cbuf);
    f->cbuf = NULL;
    f->cbuf_cap = 0;
}

/* One round: window `round` of every aggregator. */
static int tp_round(struct tp *t, int round, int is_write, MPI_Offset *got_total)
{
    uz_file *f = t->f;
    int size = f->comm->size, naggs = t->p.naggs;
    int err = MPI_SUCCESS, nsend = 0, nrecv = 0;
    long long *mine = calloc((size_t)size * 2, sizeof(long long));
    long long *theirs = calloc((size_t)size * 2, sizeof(long long));
    struct xfer *sends = calloc((size_t)naggs + (size_t)size, sizeof(*sends));
    struct xfer *recvs = calloc((size_t)naggs + (size_t)size, sizeof(*recvs));
    char **sbufs = calloc((size_t)naggs + (size_t)size, sizeof(char *));
    MPI_Offset **sposs = calloc((size_t)naggs, sizeof(MPI_Offset *));
    arena_reset(&f->arena);
    if (!mine || !theirs || !sends || !recvs || !sbufs || !sposs) {
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
        goto out;
    }
    /* What I have for each aggregator's window this round. */
    for (int a = 0; a < naggs; a++) {
        MPI_Offset lo = t->p.fd_lo[a] + (MPI_Offset)round * t->p.cb, hi = lo + t->p.cb;
        if (hi > t->p.fd_hi[a])
            hi = t->p.fd_hi[a];
        if (lo >= hi)
            continue;
        my_pieces(t, lo, hi, &mine[2 * t->p.aggs[a]], &mine[2 * t->p.aggs[a] + 1], NULL, NULL, NULL);
    }
    err = uz_coll_alltoall(mine, 2, uz_datatype_get(MPI_LONG_LONG), theirs, 2, uz_datatype_get(MPI_LONG_LONG),
                           f->comm);
    if (err)
        goto out;
    MPI_Offset wlo = 0, whi = 0;
    if (t->me_agg >= 0) {
        wlo = t->p.fd_lo[t->me_agg] + (MPI_Offset)round * t->p.cb;
        whi = wlo + t->p.cb < t->p.fd_hi[t->me_agg] ? wlo + t->p.cb : t->p.fd_hi[t->me_agg];
    }
    if (is_write) {
        /* Ranks send pieces + data; aggregators receive them. */
        for (int a = 0; a < naggs; a++) {
            int peer = t->p.aggs[a];
            long long np = mine[2 * peer], nb = mine[2 * peer + 1];
            if (!np)
                continue;
            MPI_Offset lo = t->p.fd_lo[a] + (MPI_Offset)round * t->p.cb, hi = lo + t->p.cb;
            if (hi > t->p.fd_hi[a])
                hi = t->p.fd_hi[a];
            size_t bytes = (size_t)np * sizeof(struct piece) + (size_t)nb;
            char *m = arena_alloc(&f->arena, bytes);
            if (!m) {
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                goto out;
            }
            long long n2, b2;
            my_pieces(t, lo, hi, &n2, &b2, (struct piece *)m, m + (size_t)np * sizeof(struct piece), NULL);
            sbufs[nsend] = m;
            sends[nsend++] = (struct xfer){ m, bytes, peer };
        }
        long long total_pieces = 0;
        if (t->me_agg >= 0) {
            for (int r = 0; r < size; r++) {
                if (!theirs[2 * r])
                    continue;
                size_t bytes = (size_t)theirs[2 * r] * sizeof(struct piece) + (size_t)theirs[2 * r + 1];
                char *m = arena_alloc(&f->arena, bytes);
                if (!m) {
                    err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                    goto out;
                }
                recvs[nrecv++] = (struct xfer){ m, bytes, r };
                total_pieces += theirs[2 * r];
            }
        }
        err = exchange(f->comm, sends, nsend, recvs, nrecv);
        if (!err && t->me_agg >= 0 && nrecv) {
            struct gpiece *all = arena_alloc(&f->arena, sizeof(*all) * (size_t)total_pieces);
            if (!all) {
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
            } else {
                long long k = 0;
                for (int i = 0; i < nrecv; i++) {
                    int r = recvs[i].peer;
                    struct piece *ps = recvs[i].buf;
                    const char *d = (const char *)recvs[i].buf + (size_t)theirs[2 * r] * sizeof(struct piece);
                    for (long long j = 0; j < theirs[2 * r]; j++) {
                        all[k++] = (struct gpiece){ ps[j].off, ps[j].len, d };
                        d += ps[j].len;
                    }
                }
                err = write_gathered(f, all, k);
            }
        }
        nrecv = 0;
    } else {
        /* Ranks send their pieces' ranges; aggregators read the window
         * and send the bytes back; ranks place them in their stream. */
        for (int a = 0; a < naggs; a++) {
            int peer = t->p.aggs[a];
            long long np = mine[2 * peer];
            if (!np)
                continue;
            MPI_Offset lo = t->p.fd_lo[a] + (MPI_Offset)round * t->p.cb, hi = lo + t->p.cb;
            if (hi > t->p.fd_hi[a])
                hi = t->p.fd_hi[a];
            char *m = arena_alloc(&f->arena, (size_t)np * sizeof(struct piece));
            sposs[a] = arena_alloc(&f->arena, (size_t)np * sizeof(MPI_Offset));
            if (!m || !sposs[a]) {
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                goto out;
            }
            long long n2, b2;
            my_pieces(t, lo, hi, &n2, &b2, (struct piece *)m, NULL, sposs[a]);
            sbufs[nsend] = m;
            sends[nsend++] = (struct xfer){ m, (size_t)np * sizeof(struct piece), peer };
        }
        if (t->me_agg >= 0)
            for (int r = 0; r < size; r++) {
                if (!theirs[2 * r])
                    continue;
                char *m = arena_alloc(&f->arena, (size_t)theirs[2 * r] * sizeof(struct piece));
                if (!m) {
                    err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                    goto out;
                }
                recvs[nrecv++] = (struct xfer){ m, (size_t)theirs[2 * r] * sizeof(struct piece), r };
            }
        err = exchange(f->comm, sends, nsend, recvs, nrecv);
        /* The aggregator reads the part of its window anyone asked for. */
        size_t have = 0;
        MPI_Offset rlo = whi, rhi = wlo;
        for (int i = 0; !err && i < nrecv; i++) {
            struct piece *ps = recvs[i].buf;
            for (long long j = 0; j < theirs[2 * recvs[i].peer]; j++) {
                if (ps[j].off < rlo)
                    rlo = ps[j].off;
                if (ps[j].off + ps[j].len > rhi)
                    rhi = ps[j].off + ps[j].len;
            }
        }
        if (!err && nrecv && rhi > rlo) {
            char *p = t->cbuf + (rlo - wlo);
            size_t len = (size_t)(rhi - rlo);
            MPI_Offset at = rlo;
            while (len) {
                ssize_t n = pread(f->fd, p, len, at);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0) {
                    err = uz_io_errno(errno, "read", f->path);
                    break;
                }
                if (n == 0)
                    break;
                p += n;
                at += n;
                len -= (size_t)n;
                have += (size_t)n;
            }
            /* Beyond the end of the file: marked by a zero-length answer
             * below (the bytes after `have` are not data). */
        }
        /* Answers: per piece, the bytes that exist (a length header, then
         * the data). */
        struct xfer *answers = calloc((size_t)nrecv + 1, sizeof(*answers));
        struct xfer *gets = calloc((size_t)nsend + 1, sizeof(*gets));
        int nans = 0, ngets = 0;
        if (!answers || !gets) {
            free(answers);
            free(gets);
            if (!err)
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
            goto out;
        }
        MPI_Offset eof = rlo + (MPI_Offset)have;
        for (int i = 0; !err && i < nrecv; i++) {
            int r = recvs[i].peer;
            struct piece *ps = recvs[i].buf;
            long long np = theirs[2 * r];
            size_t bytes = sizeof(long long) * (size_t)np + (size_t)theirs[2 * r + 1];
            char *m = arena_alloc(&f->arena, bytes);
            if (!m) {
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                break;
            }
            long long *lens = (long long *)m;
            char *d = m + sizeof(long long) * (size_t)np;
            for (long long j = 0; j < np; j++) {
                MPI_Offset e = ps[j].off + ps[j].len < eof ? ps[j].off + ps[j].len : eof;
                lens[j] = e > ps[j].off ? e - ps[j].off : 0;
                memcpy(d, t->cbuf + (ps[j].off - wlo), (size_t)lens[j]);
                d += ps[j].len;
            }
            answers[nans++] = (struct xfer){ m, bytes, r };
        }
        for (int a = 0; !err && a < naggs; a++) {
            int peer = t->p.aggs[a];
            long long np = mine[2 * peer];
            if (!np)
                continue;
            size_t bytes = sizeof(long long) * (size_t)np + (size_t)mine[2 * peer + 1];
            char *m = arena_alloc(&f->arena, bytes);
            if (!m) {
                err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
                break;
            }
            gets[ngets++] = (struct xfer){ m, bytes, peer };
        }
        if (!err)
            err = exchange(f->comm, answers, nans, gets, ngets);
        for (int g = 0, a = 0; !err && a < naggs; a++) {
            int peer = t->p.aggs[a];
            long long np = mine[2 * peer];
            if (!np)
                continue;
            const long long *lens = gets[g].buf;
            const char *d = (const char *)gets[g].buf + sizeof(long long) * (size_t)np;
            /* The pieces I asked for, in the order I listed them. */
            const struct piece *ps = (const struct piece *)sbufs[g];
            for (long long j = 0; j < np; j++) {
                memcpy(t->stream + sposs[a][j], d, (size_t)lens[j]);
                if (lens[j] > 0) {
                    MPI_Offset end = sposs[a][j] + lens[j];
                    if (end > *got_total)
                        *got_total = end;
                }
                d += ps[j].len;
            }
            g++;
        }
        free(answers);
        free(gets);
        nrecv = 0;
    }
out:
    free(sposs);
    free(sbufs);
    free(mine);
    free(theirs);
    free(sends);
    free(recvs);
    return err;
}

/* ---------------------------------------------------------- the calls */

/* Per rank, four numbers: file extent [lo, hi), bytes, contiguous pieces. */

/* Do the ranks' file extents interleave (so that an exchange pays)?
 * Sorted by start, some extent begins before the ones before it end. */
static int cmp_extent(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int interleaved(const long long *all, int size)
{
    long long *e = malloc(sizeof(long long) * 2 * (size_t)size);
    if (!e)
        return 1;
    int n = 0;
    for (int r = 0; r < size; r++)
        if (all[4 * r] < all[4 * r + 1]) {
            e[2 * n] = all[4 * r];
            e[2 * n + 1] = all[4 * r + 1];
            n++;
        }
    qsort(e, (size_t)n, 2 * sizeof(long long), cmp_extent);
    int overlap = 0;
    long long reach = n ? e[1] : 0;
    for (int i = 1; i < n && !overlap; i++) {
        overlap = e[2 * i] < reach;
        if (e[2 * i + 1] > reach)
            reach = e[2 * i + 1];
    }
    free(e);
    return overlap;
}

/* Are the pieces short enough, on average over all ranks, that gathering
 * them into long runs pays for the exchange?  Long pieces cost a system
 * call each when written in place, which is less than moving every byte
 * once more through an aggregator (on this host's page cache the
 * crossover lies near 8-16 KiB; docs/performance.md, MPI-IO). */
static int short_pieces(const long long *all, int size)
{
    long long bytes = 0, pieces = 0;
    for (int r = 0; r < size; r++) {
        bytes += all[4 * r + 2];
        pieces += all[4 * r + 3];
    }
    return pieces > 0 && (unsigned long long)(bytes / pieces) < (unsigned long long)uz_config.io_cb_min_run;
}

/* About how many contiguous pieces in the file `total` stream bytes
 * make: one for a contiguous view, else the bytes over the filetype's
 * mean run. */
static long long file_pieces(const struct uz_io_view *view, MPI_Count total)
{
    if (view->contiguous)
        return 1;
    size_t run = uz_dt_mean_run(view->filetype);
    return run ? ((long long)total + (long long)run - 1) / (long long)run : 1;
}

/* Each rank's stream in the file's representation, for the exchange:
 * the user's buffer itself when it already is. */
static int stream_of(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, MPI_Count total, int is_write,
                     char **stream, int *owned)
{
    int native = f->view.rep == UZ_IO_NATIVE || f->view.rep == UZ_IO_INTERNAL;
    *owned = 0;
    if (native && uz_dt_is_contig(dt, count)) {
        *stream = (char *)buf + dt->true_lb;
        return MPI_SUCCESS;
    }
    *stream = malloc(total ? (size_t)total : 1);
    if (!*stream)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory staging %lld bytes for collective I/O",
                           (long long)total);
    *owned = 1;
    if (is_write) {
        if (f->view.rep == UZ_IO_EXTERNAL32)
            uz_dt_ext32_pack(buf, count, dt, *stream);
        else if (native)
            uz_dt_pack(buf, count, dt, *stream);
        else
            return MPI_ERR_UNSUPPORTED_DATAREP;     /* the caller goes independent */
    }
    return MPI_SUCCESS;
}

int uz_io_access_all(uz_file *f, MPI_Offset soff, void *buf, MPI_Count count, uz_datatype *dt, int is_write,
                     MPI_Count *done)
{
    int size = f->comm->size;
    MPI_Count total = 0;
    *done = 0;
    int err = uz_io_check_mode(f, is_write);
    if (!err)
        err = uz_io_stream_bytes(f, count, dt, &total);
    /* Everyone's extent (an empty one for a rank with nothing, or an
     * error: lo = -1), bytes and contiguous pieces in the file. */
    long long ext[4] = { 0, 0, 0, 0 };
    if (err)
        ext[0] = -1;
    else if (total > 0) {
        ext[0] = uz_io_view_file_offset(&f->view, soff);
        ext[1] = uz_io_view_file_offset(&f->view, soff + total - 1) + 1;
        ext[2] = total;
        ext[3] = file_pieces(&f->view, total);
    }
    long long *all = malloc(sizeof(long long) * 4 * (size_t)size);
    if (!all)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
    int e = uz_coll_allgather(ext, 4, uz_datatype_get(MPI_LONG_LONG), all, 4, uz_datatype_get(MPI_LONG_LONG),
                              f->comm);
    int failed = 0;
    for (int r = 0; !e && r < size; r++)
        failed |= all[4 * r] < 0;
    if (e || err || failed) {
        free(all);
        return e ? e : err ? err : uz_err_make(MPI_ERR_OTHER, "another rank's part of the collective access "
                                               "was invalid");
    }
    enum uz_io_switch sw = is_write ? f->hints.cb_write : f->hints.cb_read;
    int user_rep = f->view.rep == UZ_IO_USER;
    int two_phase = !f->atomic && !user_rep && sw != UZ_IO_DISABLE &&
                    (sw == UZ_IO_ENABLE || (short_pieces(all, size) && interleaved(all, size)));
    if (!two_phase) {
        free(all);
        return uz_io_access(f, soff, buf, count, dt, is_write, done);
    }
    struct tp t = { .f = f, .me_agg = -1 };
    t.p.lo = INT64_MAX;
    t.p.hi = 0;
    for (int r = 0; r < size; r++)
        if (all[4 * r] < all[4 * r + 1]) {
            if (all[4 * r] < t.p.lo)
                t.p.lo = all[4 * r];
            if (all[4 * r + 1] > t.p.hi)
                t.p.hi = all[4 * r + 1];
        }
    free(all);
    if (t.p.hi <= t.p.lo)
        return MPI_SUCCESS;                     /* nobody has data */
    int owned = 0;
    err = choose_aggregators(f, &t.p);
    if (!err) {
        t.p.fd_lo = malloc(sizeof(MPI_Offset) * (size_t)t.p.naggs);
        t.p.fd_hi = malloc(sizeof(MPI_Offset) * (size_t)t.p.naggs);
        if (!t.p.fd_lo || !t.p.fd_hi)
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for collective I/O");
    }
    if (!err) {
        MPI_Offset align = f->hints.striping_unit > 0 ? f->hints.striping_unit : 4096;
        file_domains(&t.p, align);
        t.p.cb = (MPI_Offset)f->hints.cb_buffer_size;
        MPI_Offset widest = 0;
        for (int a = 0; a < t.p.naggs; a++) {
            if (t.p.fd_hi[a] - t.p.fd_lo[a] > widest)
                widest = t.p.fd_hi[a] - t.p.fd_lo[a];
            if (t.p.aggs[a] == f->comm->rank)
                t.me_agg = a;
        }
        if (widest < t.p.cb)
            t.p.cb = widest > 0 ? widest : 1;
        t.p.rounds = (int)((widest + t.p.cb - 1) / t.p.cb);
    }
    if (!err && total > 0)
        err = list_runs(f, soff, (size_t)total, &t.runs, &t.nruns);
    if (!err && total > 0)
        err = stream_of(f, buf, count, dt, total, is_write, &t.stream, &owned);
    if (!err && !is_write && t.me_agg >= 0 && f->cbuf_cap < (size_t)t.p.cb) {
        free(f->cbuf);
        f->cbuf_cap = (f->cbuf = malloc((size_t)t.p.cb)) ? (size_t)t.p.cb : 0;
    }
    t.cbuf = f->cbuf;
    if (!err && !is_write && t.me_agg >= 0 && !t.cbuf)
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory for a collective buffer of %lld bytes",
                          (long long)t.p.cb);
    /* From here every rank takes part in every round, errors or not, so
     * that nobody waits for a message that never comes; the error is
     * agreed at the end. */
    int mine_err = err ? uz_err_class(err) : 0, worst = 0;
    e = uz_coll_allreduce(&mine_err, &worst, 1, uz_datatype_get(MPI_INT), uz_op_get(MPI_MAX), f->comm);
    MPI_Offset got = 0;
    if (!e && !worst)
        for (int round = 0; !err && round < t.p.rounds; round++)
            err = tp_round(&t, round, is_write, &got);
    if (!err && !e && !worst) {
        if (is_write) {
            *done = total;
        } else {
            /* The data that exists (a read at the end of the file is
             * short), unpacked into the user's buffer. */
            MPI_Count have = got;
            if (owned) {
                if (f->view.rep == UZ_IO_EXTERNAL32) {
                    MPI_Count esize = 1;
                    uz_io_rep_size(&f->view, dt, 1, &esize);
                    MPI_Count whole = esize ? have / esize : 0;
                    uz_dt_ext32_unpack(buf, whole, dt, t.stream);
                    have = whole * dt->size;
                } else {
                    uz_dt_unpack(buf, count, dt, t.stream, (size_t)have);
                }
            }
            *done = have;
        }
    }
    if (owned)
        free(t.stream);
    free(t.runs);
    free(t.p.aggs);
    free(t.p.fd_lo);
    free(t.p.fd_hi);
    if (e)
        return e;
    if (err)
        return err;
    if (worst)
        return uz_err_make(worst, "another rank could not take part in the collective access");
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- entry points */

static int coll_at(uz_file *f, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *dt,
                   MPI_Status *status, int is_write)
{
    MPI_Offset soff = 0;
    MPI_Count done = 0;
    int err = (f->amode & MPI_MODE_SEQUENTIAL)
                  ? uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL")
                  : uz_io_stream_offset(f, offset, &soff);
    if (err) {
        /* Still take part, with nothing, so that the others are not left
         * waiting: an empty access. */
        MPI_Count d;
        uz_io_access_all(f, 0, NULL, 0, uz_datatype_get(MPI_BYTE), is_write, &d);
        return err;
    }
    err = uz_io_access_all(f, soff, buf, count, dt, is_write, &done);
    if (!err)
        uz_io_status(status, done);
    return err;
}

static int coll_individual(uz_file *f, void *buf, MPI_Count count, uz_datatype *dt, MPI_Status *status,
                           int is_write)
{
    MPI_Status st;
    int err = coll_at(f, f->pos, buf, count, dt, &st, is_write);
    if (!err) {
        MPI_Count done = uz_status_bytes(&st);
        uz_io_advance(f, dt, done);
        if (status != MPI_STATUS_IGNORE)
            *status = st;
    }
    return err;
}

int uz_mpi_File_read_at_all_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count, uz_datatype *datatype,
                              MPI_Status *status)
{
    return coll_at(fh, offset, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_at_all_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                               uz_datatype *datatype, MPI_Status *status)
{
    return coll_at(fh, offset, (void *)buf, count, datatype, status, 1);
}

int uz_mpi_File_read_all_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype, MPI_Status *status)
{
    return coll_individual(fh, buf, count, datatype, status, 0);
}

int uz_mpi_File_write_all_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype,
                            MPI_Status *status)
{
    return coll_individual(fh, (void *)buf, count, datatype, status, 1);
}

/* Split collectives: the work is done at _begin (MPI-4.1 allows it: the
 * buffer may not be touched until _end), _end hands over the status.  One
 * may be pending per file. */
int uz_io_split_free(const uz_file *f)
{
    if (f->split.active)
        return uz_err_make(MPI_ERR_OTHER, "a split collective operation is already pending on the file");
    return MPI_SUCCESS;
}

int uz_io_split_begin(uz_file *f, int kind, void *buf, int err)
{
    f->split.active = kind;
    f->split.buf = buf;
    f->split.err = err;
    return MPI_SUCCESS;
}

int uz_io_split_end(uz_file *f, int kind, const void *buf, MPI_Status *status)
{
    if (f->split.active != kind)
        return uz_err_make(MPI_ERR_OTHER, "no matching split collective %s was begun on the file",
                           kind == 1 ? "read" : "write");
    if (buf != f->split.buf)
        return uz_err_make(MPI_ERR_ARG, "buf differs from the one given to the _begin call");
    f->split.active = 0;
    if (f->split.err)
        return f->split.err;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split.status;
    return MPI_SUCCESS;
}

int uz_mpi_File_read_all_begin_c(uz_file *fh, void *buf, MPI_Count count, uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 1, buf,
                             coll_individual(fh, buf, count, datatype, &fh->split.status, 0));
}

int uz_mpi_File_read_all_end(uz_file *fh, void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 1, buf, status);
}

int uz_mpi_File_write_all_begin_c(uz_file *fh, const void *buf, MPI_Count count, uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 2, (void *)buf,
                             coll_individual(fh, (void *)buf, count, datatype, &fh->split.status, 1));
}

int uz_mpi_File_write_all_end(uz_file *fh, const void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 2, buf, status);
}

int uz_mpi_File_read_at_all_begin_c(uz_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                                    uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 1, buf,
                             coll_at(fh, offset, buf, count, datatype, &fh->split.status, 0));
}

int uz_mpi_File_read_at_all_end(uz_file *fh, void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 1, buf, status);
}

int uz_mpi_File_write_at_all_begin_c(uz_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                     uz_datatype *datatype)
{
    int err = uz_io_split_free(fh);
    if (err)
        return err;
    return uz_io_split_begin(fh, 2, (void *)buf,
                             coll_at(fh, offset, (void *)buf, count, datatype, &fh->split.status, 1));
}

int uz_mpi_File_write_at_all_end(uz_file *fh, const void *buf, MPI_Status *status)
{
    return uz_io_split_end(fh, 2, buf, status);
}
