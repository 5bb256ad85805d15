/*
 * shm_bulk.c — large messages by cross-memory attach, copied by both ends.
 *
 * The sender describes its memory in one of its records in the segment
 * (DIMMnet-1's sender-first protocol: the receiver PULLs).  When the
 * receive is matched, the receiver describes its memory in the same record
 * and both processes claim chunks of the byte stream with one shared
 * counter: the receiver pulls chunks with process_vm_readv from the front
 * while the sender, which would otherwise sit idle in MPI_Wait, pushes
 * chunks with process_vm_writev.  Each byte is copied once, by whichever
 * core was free.  When the sender is busy elsewhere the receiver simply
 * copies everything.  Into memory the receiver has never written, the
 * kernel takes a page fault per page for whichever end copies; the
 * receiver makes its chunks' pages present first, which costs less
 * (shm_prefault.c).
 *
 * Memory runs that do not fit in the record are read from the other
 * process with process_vm_readv too, so any layout can be described.
 *
 * A side whose memory is a derived datatype of short runs (an 8-byte
 * vector, say) cannot be described by runs: one iovec per run would cost
 * more in the kernel than the bytes.  Such a side is "staged": it moves its
 * bytes through a small private buffer with its own pack or unpack
 * function, and it alone copies, against the other side's runs.  A staged
 * receiver reads a piece of the sender's memory into the buffer and unpacks
 * it; a staged sender packs a piece and writes it into the receiver's
 * memory.  The other side only waits.  Compared with packing through the
 * ring, each byte then crosses between cores once, as a clean line read by
 * the kernel's copy, instead of being written into the ring by one core and
 * read back by the other.
 *
 * A record's life: FREE -> OFFERED (sender) -> ACCEPTED (receiver) ->
 * copied == total (either) -> the receiver sets generation-checked "done"
 * by returning the record to FREE.  The sender's send completes as soon as
 * every byte is copied; it reuses the record only once it is FREE again.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/hwtopo.h"
#include "base/params.h"
#include "transport/shm/shm_state.h"

enum { SLICE_MAX = 512 };       /* runs per system call (IOV_MAX is 1024) */

/* Bytes staged at a time.  Each piece costs a system call (about 0.8 us
 * with its page pinning); 128 KiB pieces stay in the second-level cache
 * between the copy and the pack or unpack, and measured faster than 32 or
 * 64 KiB ones (fewer calls) for 256 KiB - 1 MiB messages. */
enum { STAGE_PIECE = 128 * 1024 };

/* A list of memory runs with prefix sums, to find an offset quickly.  A
 * list of a few runs (every contiguous message) lives in the list itself:
 * four allocations and frees per message cost as much as copying 4 KiB. */
struct run_list {
    struct iovec *iov;
    size_t *start;              /* start[i]: stream offset of iov[i] */
    int n;
    int owned;                  /* iov was allocated here */
    struct iovec few_iov[SHM_BULK_INLINE_IOV];
    size_t few_start[SHM_BULK_INLINE_IOV + 1];
};

/* What this process knows about a transfer it takes part in. */
struct bulk_op {
    int in_use;
    int is_sender;
    int peer;                   /* local index of the other process */
    pid_t peer_pid;
    struct shm_bulk_record *rec;
    uint32_t generation;
    void *owner;
    struct run_list mine;       /* our memory */
    struct run_list theirs;     /* the other's memory (fetched when needed) */
    struct uz_bulk_mem stage;   /* our memory when staged (stage.ctx != NULL): pack or unpack */
    int theirs_fetched;
    int sender_copies;          /* receiver: the sender is staged and copies everything */
    int prefault;               /* receiver: our memory is cold, populate each chunk first */
    int reported;               /* the owner was told of completion */
    int handed_back;            /* receiver: the record is FREE again; only the report is left */
    int err;                    /* receiver: what the copy ended with, read before handing back */
};

static struct bulk_op *sender_ops;  /* indexed by our record number */
/* Offers to processes of other jobs live in the link's segment
 * (shm_link.c): link i's ops, indexed by record number there, made on the
 * first offer. */
static struct bulk_op **link_sender_ops;
static int link_ops_cap;
static struct bulk_op *receiver_ops;
static int nreceiver_ops, receiver_ops_cap;
int uz_shm_bulk_active_ops;      /* transfers in flight (read inline) */
static int nsender_ops;          /* of them, ours as sender: stops the scan of sender_ops early */
static int *offers_to;           /* [peers]: our offers to each peer not yet copied */
static int offers_cap;
static int sender_helps;         /* UZURA_SHM_BULK_HELP, and every local rank has a processor */
static size_t read_alone_max;    /* largest transfer a receiver that reads it next copies alone */

void shm_bulk_init(void)
{
    sender_ops = calloc(uz_shm.hdr->bulk_records_per_rank, sizeof(*sender_ops));
    offers_to = calloc(uz_shm.nlocal, sizeof(*offers_to));
    offers_cap = uz_shm.nlocal;
    /* A helper that claims a chunk and is then descheduled holds the
     * receiver until it runs again: with more ranks than processors a
     * 32 KiB Exscan chain took 200 us instead of 10.  There the receiver
     * copies alone. */
    sender_helps = uz_config.shm_bulk_help && uz_shm.nlocal <= uz_hwtopo_cpus_for_ranks(uz_config.local_cpus);
    /* Bytes our own core copied are in its cache when the reduction reads
     * them, as long as they stay there; past about half the second-level
     * cache they come from memory either way and two cores copy faster.
     * Reduce between two ranks, 2 MiB L2: 1 MiB 47 us alone vs 60 helped,
     * 4 MiB 324 vs 287. */
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    read_alone_max = (l2 > 0 ? (size_t)l2 : (size_t)2 << 20) / 2;
}

static void run_list_free(struct run_list *r)
{
    if (r->owned)
        free(r->iov);
    if (r->start != r->few_start)
        free(r->start);
    r->iov = NULL;
    r->start = NULL;
    r->n = r->owned = 0;
}

/* A list copied to another place keeps pointing at its own inline arrays. */
static void run_list_moved(struct run_list *to, const struct run_list *from)
{
    if (from->iov == from->few_iov)
        to->iov = to->few_iov;
    if (from->start == from->few_start)
        to->start = to->few_start;
}

int shm_bulk_grow(int peers)
{
    int *o = realloc(offers_to, sizeof(*o) * (size_t)peers);
    if (o) {
        memset(o + offers_cap, 0, sizeof(*o) * (size_t)(peers - offers_cap));
        offers_to = o;
        offers_cap = peers;
    }
    int links = peers - uz_shm.nlocal;
    struct bulk_op **l = o ? realloc(link_sender_ops, sizeof(*l) * (size_t)links) : NULL;
    if (!l)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory adding a process of another job to shm");
    memset(l + link_ops_cap, 0, sizeof(*l) * (size_t)(links - link_ops_cap));
    link_sender_ops = l;
    link_ops_cap = links;
    return MPI_SUCCESS;
}

/* Our offers to `peer`: their ops and records, and how many there are
 * (NULL ops: none yet, out of memory). */
static struct bulk_op *offer_ops(int peer, uint32_t *n)
{
    if (peer < uz_shm.nlocal) {
        *n = (uint32_t)uz_shm.hdr->bulk_records_per_rank;
        return sender_ops;
    }
    int k = peer - uz_shm.nlocal;
    *n = shm_link_bulk_records(peer);
    if (!link_sender_ops[k] && *n)
        link_sender_ops[k] = calloc(*n, sizeof(struct bulk_op));
    return link_sender_ops[k];
}

static struct shm_bulk_record *my_record(int peer, uint32_t i)
{
    return peer < uz_shm.nlocal ? shm_bulk_record_of(uz_shm.my_local, i) : shm_link_bulk_record(peer, 0, i);
}

static struct shm_bulk_record *their_record(int peer, uint32_t i)
{
    return peer < uz_shm.nlocal ? shm_bulk_record_of(peer, i) : shm_link_bulk_record(peer, 1, i);
}

static void ops_free(struct bulk_op *ops, uint64_t n)
{
    for (uint64_t i = 0; ops && i < n; i++) {
        run_list_free(&ops[i].mine);
        run_list_free(&ops[i].theirs);
    }
}

void shm_bulk_finalize(void)
{
    for (int k = 0; k < link_ops_cap; k++) {
        if (link_sender_ops[k])
            ops_free(link_sender_ops[k], shm_link_bulk_records(uz_shm.nlocal + k));
        free(link_sender_ops[k]);
    }
    free(link_sender_ops);
    link_sender_ops = NULL;
    link_ops_cap = offers_cap = 0;
    for (uint64_t i = 0; sender_ops && i < uz_shm.hdr->bulk_records_per_rank; i++) {
        run_list_free(&sender_ops[i].mine);
        run_list_free(&sender_ops[i].theirs);
    }
    for (int i = 0; i < nreceiver_ops; i++) {
        run_list_free(&receiver_ops[i].mine);
        run_list_free(&receiver_ops[i].theirs);
    }
    free(sender_ops);
    free(receiver_ops);
    free(offers_to);
    offers_to = NULL;
    sender_ops = receiver_ops = NULL;
    nreceiver_ops = receiver_ops_cap = uz_shm_bulk_active_ops = nsender_ops = 0;
}

static int run_list_index(struct run_list *r, const struct iovec *iov, int n, int copy)
{
    int few = n <= SHM_BULK_INLINE_IOV;
    r->n = n;
    r->owned = copy && !few;
    r->iov = (struct iovec *)iov;
    r->start = few ? r->few_start : malloc(sizeof(size_t) * (n + 1));
    if (copy) {
        r->iov = few ? r->few_iov : malloc(sizeof(struct iovec) * (n ? n : 1));
        if (r->iov)
            memcpy(r->iov, iov, sizeof(struct iovec) * n);
    }
    if (!r->start || !r->iov)
        return -1;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        r->start[i] = at;
        at += r->iov[i].iov_len;
    }
    r->start[n] = at;
    return 0;
}

/* Read the other process's run list (inline in the record, or in its
 * memory). */
static int fetch_runs(struct run_list *r, pid_t pid, const struct iovec *inl, uint64_t addr, uint32_t n)
{
    if (n <= SHM_BULK_INLINE_IOV)
        return run_list_index(r, inl, (int)n, 1);
    struct iovec *v = malloc(sizeof(*v) * n);
    if (!v)
        return -1;
    struct iovec local = { v, sizeof(*v) * n };
    struct iovec remote = { (void *)(uintptr_t)addr, sizeof(*v) * n };
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)(sizeof(*v) * n)) {
        free(v);
        return -1;
    }
    int rc = run_list_index(r, v, (int)n, 0);
    r->owned = 1;                       /* n > SHM_BULK_INLINE_IOV: v is the list's own */
    return rc;
}

/* Runs covering at most `len` bytes from stream offset `off`. */
static int slice(const struct run_list *r, size_t off, size_t len, struct iovec *out, size_t *covered)
{
    int lo = 0, hi = r->n - 1;
    while (lo < hi) {                   /* last run starting at or before off */
        int mid = (lo + hi + 1) / 2;
        if (r->start[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    int k = 0;
    size_t got = 0;
    for (int i = lo; i < r->n && got < len && k < SLICE_MAX; i++) {
        size_t skip = off + got > r->start[i] ? off + got - r->start[i] : 0;
        if (skip >= r->iov[i].iov_len)
            continue;
        size_t n = r->iov[i].iov_len - skip;
        if (n > len - got)
            n = len - got;
        out[k].iov_base = (char *)r->iov[i].iov_base + skip;
        out[k].iov_len = n;
        got += n;
        k++;
    }
    *covered = got;
    return k;
}

/* ------------------------------------------------------------ staging */

static _Alignas(64) unsigned char stage_buf[STAGE_PIECE];

/* Move the staging buffer's `len` bytes to or from their stream bytes at
 * `off` (their runs may need several calls). */
static int stage_transfer(struct bulk_op *op, size_t off, size_t len)
{
    struct iovec rv[SLICE_MAX];
    size_t done = 0;
    while (done < len) {
        size_t rcov;
        int rn = slice(&op->theirs, off + done, len - done, rv, &rcov);
        if (rcov == 0)
            return EFAULT;
        struct iovec lv = { stage_buf + done, rcov };
        ssize_t n = op->is_sender ? process_vm_writev(op->peer_pid, &lv, 1, rv, rn, 0)
                                  : process_vm_readv(op->peer_pid, &lv, 1, rv, rn, 0);
        if (n <= 0)
            return n < 0 ? errno : EFAULT;
        done += (size_t)n;
    }
    return 0;
}

/* Copy stream bytes [off, off+len) for a staged side, a piece at a time. */
static int copy_range_staged(struct bulk_op *op, size_t off, size_t len)
{
    while (len) {
        size_t piece = len < STAGE_PIECE ? len : STAGE_PIECE;
        if (op->is_sender)
            op->stage.pack(op->stage.ctx, off, stage_buf, piece);
        int err = stage_transfer(op, off, piece);
        if (err)
            return err;
        if (!op->is_sender)
            op->stage.unpack(op->stage.ctx, off, stage_buf, piece);
        off += piece;
        len -= piece;
    }
    return 0;
}

/* ---------------------------------------------------------------- copying */

/* Copy stream bytes [off, off+len) between our memory and theirs. */
static int copy_range(struct bulk_op *op, size_t off, size_t len)
{
    if (op->stage.ctx)
        return copy_range_staged(op, off, len);
    struct iovec lv[SLICE_MAX], rv[SLICE_MAX];
    while (len) {
        size_t lcov, rcov;
        int ln = slice(&op->mine, off, len, lv, &lcov);
        int rn = slice(&op->theirs, off, lcov, rv, &rcov);
        if (rcov < lcov)
            ln = slice(&op->mine, off, rcov, lv, &lcov);
        if (lcov == 0)
            return EFAULT;
        if (op->prefault)
            shm_prefault(lv, ln);
        ssize_t n = op->is_sender ? process_vm_writev(op->peer_pid, lv, ln, rv, rn, 0)
                                  : process_vm_readv(op->peer_pid, lv, ln, rv, rn, 0);
        if (n <= 0)
            return n < 0 ? errno : EFAULT;
        off += (size_t)n;
        len -= (size_t)n;
    }
    return 0;
}

/* Claim and copy chunks until none are left.  Returns chunks copied. */
static int copy_chunks(struct bulk_op *op)
{
    struct shm_bulk_record *rec = op->rec;
    int done = 0;
    for (;;) {
        uint64_t off = atomic_fetch_add_explicit(&rec->next, rec->chunk, memory_order_relaxed);
        if (off >= rec->total)
            break;
        uint64_t len = rec->total - off < rec->chunk ? rec->total - off : rec->chunk;
        int err = copy_range(op, off, len);
        if (err)
            atomic_store(&rec->failed, err);
        /* The other side may sleep waiting for the last byte.  Ringing
         * only a sleeper saves a futex call per message; the sleeper
         * announces itself before its last look (shm_wait.c), and both
         * sides' seq_cst operations order the flag against this count. */
        uint64_t now = atomic_fetch_add_explicit(&rec->copied, len, memory_order_seq_cst) + len;
        if (now == rec->total)
            uz_shm_wake_if_sleeping(op->peer);
        done++;
    }
    return done;
}

/* ------------------------------------------------------------------ sender */

/* Bytes claimed at a time.  Both ends copy only when there are at least
 * two chunks, so a message shorter than two chunks is cut in halves (of
 * at least 16 KiB): for 64 KiB, two 32 KiB chunks copied at once by sender
 * and receiver measured 12-15 GB/s against 8.5-9.7 for one 128 KiB chunk
 * (bench/dtype_pingpong contig rows, ranks pinned). */
static uint64_t chunk_for(size_t total)
{
    enum { HALF_MIN = 16 * 1024, PAGE = 4096 };
    uint64_t chunk = uz_config.shm_bulk_chunk ? uz_config.shm_bulk_chunk : total;
    uint64_t half = (total / 2 + PAGE - 1) / PAGE * PAGE;
    if (total < 2 * chunk && half >= HALF_MIN && half < chunk)
        chunk = half;
    return chunk ? chunk : 1;
}

/* Our record is FREE again: forget the transfer. */
static void sender_op_end(struct bulk_op *op)
{
    run_list_free(&op->mine);
    run_list_free(&op->theirs);
    op->in_use = 0;
    uz_shm_bulk_active_ops--;
    nsender_ops--;
    if (!op->reported)
        offers_to[op->peer]--;
}

/* Every byte of our offer is copied: the send may complete. */
static void sender_report(struct bulk_op *op)
{
    op->reported = 1;
    offers_to[op->peer]--;
    uz_shm.up->bulk_done(op->owner, 0);
}

/* Offer our memory: its runs, or (staged) our pack function. */
int uz_shm_bulk_offer(int peer, const struct uz_bulk_mem *mem, size_t total, void *owner,
                      struct uz_bulk_desc *desc)
{
    const struct uz_bulk_mem *stage = mem->ctx ? mem : NULL;
    const struct iovec *iov = stage ? NULL : mem->iov;
    int niov = stage ? 0 : mem->niov;
    uint32_t nrec;
    /* Without cross-memory attach to a process of another job, its large
     * messages stream through the ring (CTS/DATA).  Until both sides of a
     * new link have probed it, the request layer asks again (-EBUSY) rather
     * than send the message by the slower path for good. */
    int link_cma = peer >= uz_shm.nlocal ? shm_link_cma(peer) : 1;
    if (link_cma <= 0)
        return link_cma < 0 ? -EBUSY : -EAGAIN;
    struct bulk_op *ops = offer_ops(peer, &nrec);
    if (!ops)
        return -EAGAIN;
    int finishing = 0;
    for (uint32_t i = 0; i < nrec; i++) {
        struct bulk_op *op = &ops[i];
        struct shm_bulk_record *rec = my_record(peer, i);
        unsigned state = atomic_load_explicit(&rec->state, memory_order_acquire);
        /* A record whose transfer was reported and handed back is free even
         * if progress has not looked at it yet: a stream of sends reuses
         * the records of the previous window at once. */
        if (op->in_use && op->reported && state == SHM_BULK_FREE)
            sender_op_end(op);
        if (op->in_use || state != SHM_BULK_FREE) {
            finishing += state == SHM_BULK_ACCEPTED || (op->in_use && state == SHM_BULK_FREE);
            continue;
        }
        memset(op, 0, sizeof(*op));
        if (stage)
            op->stage = *stage;
        else if (run_list_index(&op->mine, iov, niov, 0) != 0)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory describing a large message");
        op->in_use = 1;
        op->is_sender = 1;
        op->peer = peer;
        op->peer_pid = shm_pid_of(peer);
        op->rec = rec;
        op->owner = owner;
        rec->total = total;
        rec->src_pid = uz_shm.my_ctl->pid;   /* as published: getpid() is a system call */
        rec->src_niov = (uint32_t)niov;
        rec->src_staged = stage != NULL;
        if (niov <= SHM_BULK_INLINE_IOV) {
            if (niov)
                memcpy(rec->src_inline, iov, sizeof(*iov) * niov);
            rec->src_iov_addr = 0;
        } else {
            rec->src_iov_addr = (uint64_t)(uintptr_t)iov;
        }
        rec->dst_niov = 0;
        rec->chunk = chunk_for(total);
        atomic_store_explicit(&rec->next, 0, memory_order_relaxed);
        atomic_store_explicit(&rec->copied, 0, memory_order_relaxed);
        atomic_store_explicit(&rec->failed, 0, memory_order_relaxed);
        op->generation = atomic_load_explicit(&rec->generation, memory_order_relaxed) + 1;
        atomic_store_explicit(&rec->generation, op->generation, memory_order_relaxed);
        atomic_store_explicit(&rec->state, SHM_BULK_OFFERED, memory_order_release);
        desc->record = (uint32_t)i;
        desc->generation = op->generation;
        uz_shm_bulk_active_ops++;
        nsender_ops++;
        offers_to[peer]++;
        uz_shm_link_bulk += peer >= uz_shm.nlocal;
        return 0;
    }
    /* Records the receivers already matched come back without anything
     * more from us than progress: waiting for one keeps this message on
     * the one-copy path.  Only when every record waits for a receive that
     * may never come (or come after this message) is the ring the way. */
    return finishing ? -EBUSY : -EAGAIN;
}

int uz_shm_bulk_withdraw(int peer, const struct uz_bulk_desc *desc)
{
    uint32_t nrec;
    struct bulk_op *ops = offer_ops(peer, &nrec);
    if (!ops || desc->record >= nrec)
        return -EINVAL;
    struct bulk_op *op = &ops[desc->record];
    unsigned expect = SHM_BULK_OFFERED;
    if (!op->in_use || op->peer != peer || op->generation != desc->generation)
        return -EINVAL;
    if (!atomic_compare_exchange_strong(&op->rec->state, &expect, SHM_BULK_FREE))
        return -EBUSY;
    sender_op_end(op);
    return 0;
}

/* Help copy, report completion, and recycle records the receiver is done with. */
static int progress_sender(struct bulk_op *op)
{
    struct shm_bulk_record *rec = op->rec;
    unsigned state = atomic_load_explicit(&rec->state, memory_order_acquire);
    int work = 0;
    if (!op->reported && state == SHM_BULK_FREE) {
        /* The receiver finished and handed the record back before we looked. */
        sender_report(op);
        work++;
    } else if (!op->reported && state == SHM_BULK_ACCEPTED) {
        /* A staged sender is the only one who can copy; otherwise helping
         * is optional, and impossible when the receiver is staged. */
        if ((sender_helps || op->stage.ctx) && rec->dst_niov > 0 &&
            atomic_load_explicit(&rec->next, memory_order_relaxed) < rec->total) {
            if (!op->theirs_fetched) {
                op->theirs_fetched = 1;
                if (fetch_runs(&op->theirs, rec->dst_pid, rec->dst_inline, rec->dst_iov_addr,
                               rec->dst_niov) != 0)
                    op->theirs.n = 0;
            }
            if (op->theirs.n > 0)
                work += copy_chunks(op);
        }
        if (atomic_load_explicit(&rec->copied, memory_order_acquire) == rec->total) {
            sender_report(op);
            work++;
        }
    }
    if (op->reported && state == SHM_BULK_FREE)
        sender_op_end(op);
    return work;
}

/* ---------------------------------------------------------------- receiver */

/* Every byte is copied: give the record back to the sender at once (it
 * may be waiting for a free one), keeping only what the report needs. */
static void receiver_hand_back(struct bulk_op *op)
{
    struct shm_bulk_record *rec = op->rec;
    op->err = atomic_load(&rec->failed);
    atomic_store_explicit(&rec->state, SHM_BULK_FREE, memory_order_seq_cst);
    uz_shm_wake_if_sleeping(op->peer);
    run_list_free(&op->mine);
    run_list_free(&op->theirs);
    op->rec = NULL;
    op->handed_back = 1;
}

/* Accept an offer with our memory: its runs, or (staged) our unpack
 * function.  We copy unless the sender is staged. */
int uz_shm_bulk_pull(int peer, const struct uz_bulk_desc *desc, const struct uz_bulk_mem *mem, size_t total,
                     void *owner)
{
    const struct uz_bulk_mem *stage = mem->ctx ? mem : NULL;
    const struct iovec *iov = stage ? NULL : mem->iov;
    int niov = stage ? 0 : mem->niov;
    uint64_t nrec = peer < uz_shm.nlocal ? uz_shm.hdr->bulk_records_per_rank : shm_link_bulk_records(peer);
    if (desc->record >= nrec)
        return uz_err_make(MPI_ERR_INTERN, "bulk transfer names record %u of %llu", desc->record,
                           (unsigned long long)nrec);
    struct shm_bulk_record *rec = their_record(peer, desc->record);
    if (atomic_load_explicit(&rec->state, memory_order_acquire) != SHM_BULK_OFFERED ||
        atomic_load_explicit(&rec->generation, memory_order_relaxed) != desc->generation ||
        rec->total < total)
        return uz_err_make(MPI_ERR_INTERN, "stale or inconsistent bulk transfer from local rank %d", peer);
    if (stage && rec->src_staged)
        return uz_err_make(MPI_ERR_INTERN, "bulk transfer from local rank %d: both sides staged", peer);
    if (nreceiver_ops == receiver_ops_cap) {
        int cap = receiver_ops_cap ? 2 * receiver_ops_cap : 16;
        struct bulk_op *n = malloc(sizeof(*n) * cap);
        if (!n)
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory receiving a large message");
        for (int i = 0; i < nreceiver_ops; i++) {     /* not realloc: inline run lists point into each op */
            n[i] = receiver_ops[i];
            run_list_moved(&n[i].mine, &receiver_ops[i].mine);
            run_list_moved(&n[i].theirs, &receiver_ops[i].theirs);
        }
        free(receiver_ops);
        receiver_ops = n;
        receiver_ops_cap = cap;
    }
    struct bulk_op *op = &receiver_ops[nreceiver_ops];
    memset(op, 0, sizeof(*op));
    op->peer = peer;
    op->peer_pid = rec->src_pid;
    op->rec = rec;
    op->owner = owner;
    op->generation = desc->generation;
    op->sender_copies = rec->src_staged != 0;
    if (stage)
        op->stage = *stage;
    else
        op->prefault = shm_prefault_wanted(iov, niov, total);
    if ((!stage && run_list_index(&op->mine, iov, niov, 0) != 0) ||
        (!op->sender_copies &&
         fetch_runs(&op->theirs, rec->src_pid, rec->src_inline, rec->src_iov_addr, rec->src_niov) != 0)) {
        run_list_free(&op->mine);
        run_list_free(&op->theirs);
        return uz_err_make(MPI_ERR_OTHER, "cannot read the sender's memory description (local rank %d)", peer);
    }
    op->in_use = 1;
    nreceiver_ops++;
    uz_shm_bulk_active_ops++;
    /* A short receive takes only part of what was offered. */
    rec->total = total;
    if (niov <= SHM_BULK_INLINE_IOV) {
        if (niov)
            memcpy(rec->dst_inline, iov, sizeof(*iov) * niov);
        rec->dst_iov_addr = 0;
    } else {
        rec->dst_iov_addr = (uint64_t)(uintptr_t)iov;
    }
    /* We copy everything ourselves, in one piece, when the sender has its
     * own copying to do (it pulls what we offered it: cutting the message
     * for a busy helper costs a second system call, and both directions
     * then go at the cross-memory-attach ceiling, bench/copy_ceiling), or
     * when our caller reads the bytes next (a reduction: bytes the
     * sender's core wrote would have to cross back to ours).  A record
     * without our runs is one the sender cannot help with. */
    int alone = !op->sender_copies && (offers_to[peer] > 0 || (mem->copy_alone && total <= read_alone_max));
    rec->dst_niov = alone ? 0 : (uint32_t)niov;     /* 0 also when we are staged */
    rec->dst_pid = uz_shm.my_ctl->pid;
    if (alone)
        rec->chunk = total ? total : 1;
    atomic_store_explicit(&rec->state, SHM_BULK_ACCEPTED, memory_order_seq_cst);
    uz_shm_link_bulk += peer >= uz_shm.nlocal;
    uz_shm_wake_if_sleeping(peer);
    if (total == 0)
        atomic_store(&rec->copied, 0);
    if (!op->sender_copies) {
        copy_chunks(op);
        if (atomic_load_explicit(&rec->copied, memory_order_acquire) == rec->total)
            receiver_hand_back(op);
    }
    return MPI_SUCCESS;
}

/* Receive completions are reported after the scan, because a callback may
 * start another pull and grow receiver_ops under our feet. */
struct finished { void *owner; int err; };

/* Close the gaps finished receive operations left. */
static void compact_receivers(void)
{
    int k = 0;
    for (int i = 0; i < nreceiver_ops; i++) {
        if (!receiver_ops[i].in_use)
            continue;
        if (k != i) {
            receiver_ops[k] = receiver_ops[i];
            run_list_moved(&receiver_ops[k].mine, &receiver_ops[i].mine);
            run_list_moved(&receiver_ops[k].theirs, &receiver_ops[i].theirs);
        }
        k++;
    }
    nreceiver_ops = k;
}

/* A process of another job died (shm_link.c).  Nobody will take or hand
 * back our offers to it: forget them without reporting (the request layer
 * fails those sends itself, peer_failed, and MPI_Finalize must not wait
 * for them).  A pull from it whose sender was to copy, or died half-way
 * through a chunk, would never finish: end it with an error now. */
void shm_bulk_forget_peer(int peer)
{
    uint32_t n;
    struct bulk_op *ops = peer >= uz_shm.nlocal && link_sender_ops[peer - uz_shm.nlocal] ? offer_ops(peer, &n)
                                                                                        : NULL;
    for (uint32_t i = 0; ops && i < n; i++)
        if (ops[i].in_use)
            sender_op_end(&ops[i]);     /* no bulk_done now, nor later */
    struct finished *fin = nreceiver_ops ? malloc(sizeof(*fin) * (size_t)nreceiver_ops) : NULL;
    int nfin = 0;
    for (int i = 0; fin && i < nreceiver_ops; i++) {
        struct bulk_op *op = &receiver_ops[i];
        if (!op->in_use || op->peer != peer)
            continue;
        fin[nfin].owner = op->owner;
        fin[nfin++].err = op->handed_back ? op->err : ESRCH;
        run_list_free(&op->mine);
        run_list_free(&op->theirs);
        op->in_use = 0;
        uz_shm_bulk_active_ops--;
    }
    compact_receivers();
    for (int i = 0; i < nfin; i++)
        uz_shm.up->bulk_done(fin[i].owner, fin[i].err);
    free(fin);
}

static int progress_receiver(struct bulk_op *op, struct finished *fin)
{
    if (!op->handed_back) {
        struct shm_bulk_record *rec = op->rec;
        if (!op->sender_copies && atomic_load_explicit(&rec->next, memory_order_relaxed) < rec->total)
            copy_chunks(op);
        if (atomic_load_explicit(&rec->copied, memory_order_acquire) != rec->total)
            return 0;
        receiver_hand_back(op);
    }
    op->in_use = 0;
    uz_shm_bulk_active_ops--;
    fin->owner = op->owner;
    fin->err = op->err;
    return 1;
}

/* Would progress move a transfer forward now?  The sleeper's last look
 * (shm_wait.c): a transfer that only waits for the other side may sleep,
 * because that side rings us at each step we wait for (accepting the
 * offer, copying the last byte, handing the record back).  Treating every
 * transfer in flight as work kept a rank that shares its core polling for
 * a whole time slice while the peer it waited for could not run: 2-6 ms
 * per 32 KiB Exscan step at 8 ranks on 2 cores.  The loads are seq_cst to
 * pair with the peer's seq_cst store before it reads our `sleeping` flag. */
static int sender_ready(const struct bulk_op *op)
{
    const struct shm_bulk_record *rec = op->rec;
    if (op->reported)
        return 0;       /* only recycling is left: the next offer does it */
    unsigned state = atomic_load_explicit(&rec->state, memory_order_seq_cst);
    if (state == SHM_BULK_FREE)
        return 1;
    if (state != SHM_BULK_ACCEPTED)
        return 0;
    if (atomic_load_explicit(&rec->copied, memory_order_seq_cst) == rec->total)
        return 1;
    return (sender_helps || op->stage.ctx) && rec->dst_niov > 0 &&
           atomic_load_explicit(&rec->next, memory_order_relaxed) < rec->total;
}

static int receiver_ready(const struct bulk_op *op)
{
    if (op->handed_back)
        return 1;
    const struct shm_bulk_record *rec = op->rec;
    if (!op->sender_copies && atomic_load_explicit(&rec->next, memory_order_relaxed) < rec->total)
        return 1;
    return atomic_load_explicit(&rec->copied, memory_order_seq_cst) == rec->total;
}

int shm_bulk_ready(void)
{
    if (!uz_shm_bulk_active_ops)
        return 0;
    int want = nsender_ops;
    for (uint64_t i = 0; i < uz_shm.hdr->bulk_records_per_rank && want > 0; i++) {
        if (sender_ops[i].in_use) {
            want--;
            if (sender_ready(&sender_ops[i]))
                return 1;
        }
    }
    for (int k = 0; k < link_ops_cap && want > 0; k++) {
        uint32_t n = link_sender_ops[k] ? shm_link_bulk_records(uz_shm.nlocal + k) : 0;
        for (uint32_t i = 0; i < n && want > 0; i++)
            if (link_sender_ops[k][i].in_use) {
                want--;
                if (sender_ready(&link_sender_ops[k][i]))
                    return 1;
            }
    }
    for (int i = 0; i < nreceiver_ops; i++)
        if (receiver_ops[i].in_use && receiver_ready(&receiver_ops[i]))
            return 1;
    return 0;
}

int shm_bulk_progress(void)
{
    if (!uz_shm_bulk_active_ops)
        return 0;
    int work = 0;
    uint64_t nrec = uz_shm.hdr->bulk_records_per_rank;
    /* Offers take the lowest free record, so while waiting for one of
     * them this stops after a few entries instead of reading all of them. */
    int want = nsender_ops;
    for (uint64_t i = 0; i < nrec && want > 0; i++) {
        if (sender_ops[i].in_use) {
            want--;
            work += progress_sender(&sender_ops[i]);
        }
    }
    for (int k = 0; k < link_ops_cap && want > 0; k++) {
        uint32_t n = link_sender_ops[k] ? shm_link_bulk_records(uz_shm.nlocal + k) : 0;
        for (uint32_t i = 0; i < n && want > 0; i++)
            if (link_sender_ops[k][i].in_use) {
                want--;
                work += progress_sender(&link_sender_ops[k][i]);
            }
    }
    struct finished fin[16];
    int nfin = 0;
    for (int i = 0; i < nreceiver_ops && nfin < 16; i++)
        if (receiver_ops[i].in_use)
            nfin += progress_receiver(&receiver_ops[i], &fin[nfin]);
    compact_receivers();
    for (int i = 0; i < nfin; i++)
        uz_shm.up->bulk_done(fin[i].owner, fin[i].err);
    return work + nfin;
}
