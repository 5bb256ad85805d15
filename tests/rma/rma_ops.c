/*
 * rma_ops.c — every one-sided operation under every synchronisation mode on
 * every window flavour.
 *
 * Operations: MPI_Put, MPI_Get, MPI_Accumulate (MPI_SUM into one block that
 * every origin adds to, MPI_REPLACE into a block of its own),
 * MPI_Get_accumulate (MPI_SUM, MPI_NO_OP), MPI_Fetch_and_op (MPI_SUM on an
 * element of the origin's own and on one that every origin adds to),
 * MPI_Compare_and_swap (a compare that matches and one that does not), and
 * the request forms MPI_Rput, MPI_Rget, MPI_Raccumulate and
 * MPI_Rget_accumulate, each completed with MPI_Wait.  Request-based
 * operations are valid only in passive-target epochs (MPI-4.1 §12.3.5), so
 * under fence and post/start/complete/wait they are not issued and their
 * slots must stay as they were.
 *
 * Synchronisation: MPI_Win_fence; MPI_Win_post/start/complete/wait with the
 * group of all ranks (self included); MPI_Win_lock exclusive and shared
 * with MPI_Win_unlock, one target at a time; MPI_Win_lock_all with
 * MPI_Win_flush per target (after which a Get must read back what the Put
 * wrote), with MPI_Win_flush_local per target (after which the origin's
 * results are there), and with MPI_Win_flush_local_all then
 * MPI_Win_flush_all.
 *
 * Flavours: MPI_Win_create on malloc'd memory (disp_unit sizeof(int)),
 * MPI_Win_allocate (disp_unit 1: displacements in bytes),
 * MPI_Win_allocate_shared on the MPI_COMM_TYPE_SHARED communicator (whose
 * ranks are the targets), and MPI_Win_create_dynamic with MPI_Win_attach,
 * the targets' addresses exchanged with MPI_Get_address and MPI_Allgather.
 *
 * Every rank targets every rank, (rank+1)%size first and itself last.
 * Every value depends on origin, target, position and operation, and every
 * element of every target window and every origin result buffer is
 * checked.  Then MPI_Put_c/MPI_Get_c (MPI 4) once, and a 4 MiB Put and Get
 * once.
 */
#include "uztest.h"

#define B 8 /* elements per block */

enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAV };
static const char *flav_name[] = { "create", "allocate", "allocate_shared", "dynamic" };

enum { S_FENCE, S_PSCW, S_LOCK_EXCL, S_LOCK_SHARED, S_FLUSH, S_FLUSH_LOCAL, S_FLUSH_ALL, NSYNC };
static const char *sync_name[] = { "fence", "pscw", "lock_exclusive", "lock_shared", "lock_all+flush",
                                   "lock_all+flush_local", "lock_all+flush_all" };

/* Operation kinds, to vary the values. */
enum { K_PUT, K_ACC, K_REPL, K_GACC, K_FOP, K_FOPS, K_CAS, K_RPUT, K_RACC, K_RGACC };

/* Window layout, in ints: per-origin blocks where origins write, shared
 * blocks where they only read or where every origin accumulates. */
struct layout {
    int put, get, acc, repl, gacc, noop, fop, cas, rput, rget, racc, rgacc, n;
};

struct rwin {
    int flavour;
    MPI_Comm comm;
    int me, n;
    MPI_Win win;
    MPI_Group grp;
    int *mem;       /* this rank's window memory */
    void *alloc;    /* what to free (create, dynamic) */
    int du;         /* disp_unit in bytes */
    MPI_Aint *base; /* per target: displacement of element 0 */
    struct layout L;
};

/* Origin buffers: one block (or element) per target. */
struct obufs {
    int *put, *get, *acc, *repl, *gacc, *gacc_res, *noop_res, *fop, *fop_res, *fops, *fops_res;
    int *cas, *cas_cmp, *cas_res, *rput, *rget, *racc, *rgacc, *rgacc_res, *readback;
};

static int wrank, wsize;

static int ival(int t, int e)
{
    return (t + 1) * 1000000 + e * 3 + 1;
}

static int val(int o, int t, int i, int k)
{
    uint32_t x = (uint32_t)(o * 131 + t * 17 + i * 7 + k * 1009 + 5) * 2654435761u;
    return (int)((x >> 12) & 0xfffff) + 1;
}

static MPI_Aint disp(const struct rwin *w, int t, int idx)
{
    return MPI_Aint_add(w->base[t], (MPI_Aint)idx * (MPI_Aint)sizeof(int) / w->du);
}

static void make_layout(struct layout *L, int n)
{
    int o = 0;
    L->put = o, o += n * B;
    L->get = o, o += B;
    L->acc = o, o += B;
    L->repl = o, o += n * B;
    L->gacc = o, o += n * B;
    L->noop = o, o += B;
    L->fop = o, o += n + 1; /* [n] is the element every origin adds to */
    L->cas = o, o += 2 * n;
    L->rput = o, o += n * B;
    L->rget = o, o += B;
    L->racc = o, o += B;
    L->rgacc = o, o += n * B;
    L->n = o;
}

static void win_open(struct rwin *w, int flavour)
{
    memset(w, 0, sizeof(*w));
    w->flavour = flavour;
    if (flavour == F_SHARED)
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &w->comm));
    else
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm));
    MPI_Comm_rank(w->comm, &w->me);
    MPI_Comm_size(w->comm, &w->n);
    make_layout(&w->L, w->n);
    MPI_Aint bytes = (MPI_Aint)w->L.n * sizeof(int);
    w->base = calloc(w->n, sizeof(MPI_Aint));
    switch (flavour) {
    case F_CREATE:
        w->du = sizeof(int);
        w->alloc = w->mem = malloc(bytes);
        CHECK_MPI(MPI_Win_create(w->mem, bytes, w->du, MPI_INFO_NULL, w->comm, &w->win));
        break;
    case F_ALLOCATE:
        w->du = 1;
        CHECK_MPI(MPI_Win_allocate(bytes, w->du, MPI_INFO_NULL, w->comm, &w->mem, &w->win));
        break;
    case F_SHARED:
        w->du = sizeof(int);
        CHECK_MPI(MPI_Win_allocate_shared(bytes, w->du, MPI_INFO_NULL, w->comm, &w->mem, &w->win));
        break;
    case F_DYNAMIC: {
        w->du = 1;
        w->alloc = w->mem = malloc(bytes);
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, w->comm, &w->win));
        CHECK_MPI(MPI_Win_attach(w->win, w->mem, bytes));
        MPI_Aint mine;
        CHECK_MPI(MPI_Get_address(w->mem, &mine));
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, w->base, 1, MPI_AINT, w->comm));
        break;
    }
    }
    CHECK_MPI(MPI_Win_get_group(w->win, &w->grp));
}

static void win_close(struct rwin *w)
{
    if (w->flavour == F_DYNAMIC)
        CHECK_MPI(MPI_Win_detach(w->win, w->mem));
    CHECK_MPI(MPI_Group_free(&w->grp));
    CHECK_MPI(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    free(w->alloc);
    free(w->base);
    CHECK_MPI(MPI_Comm_free(&w->comm));
}

static void obufs_alloc(struct obufs *b, int n)
{
    int **all[] = { &b->put, &b->get, &b->acc, &b->repl, &b->gacc, &b->gacc_res, &b->noop_res, &b->fop,
                    &b->fop_res, &b->fops, &b->fops_res, &b->cas, &b->cas_cmp, &b->cas_res, &b->rput,
                    &b->rget, &b->racc, &b->rgacc, &b->rgacc_res, &b->readback };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        *all[i] = calloc((size_t)n * B, sizeof(int));
}

static void obufs_free(struct obufs *b)
{
    int *all[] = { b->put, b->get, b->acc, b->repl, b->gacc, b->gacc_res, b->noop_res, b->fop, b->fop_res,
                   b->fops, b->fops_res, b->cas, b->cas_cmp, b->cas_res, b->rput, b->rget, b->racc,
                   b->rgacc, b->rgacc_res, b->readback };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
}

/* Fill the origin buffers for target t; result buffers get a value no
 * target holds. */
static void obufs_fill(struct obufs *b, const struct rwin *w, int t)
{
    int o = w->me, tb = t * B;
    const struct layout *L = &w->L;
    for (int i = 0; i < B; i++) {
        b->put[tb + i] = val(o, t, i, K_PUT);
        b->acc[tb + i] = val(o, t, i, K_ACC);
        b->repl[tb + i] = val(o, t, i, K_REPL);
        b->gacc[tb + i] = val(o, t, i, K_GACC);
        b->rput[tb + i] = val(o, t, i, K_RPUT);
        b->racc[tb + i] = val(o, t, i, K_RACC);
        b->rgacc[tb + i] = val(o, t, i, K_RGACC);
        b->get[tb + i] = b->gacc_res[tb + i] = b->noop_res[tb + i] = b->rget[tb + i] = b->rgacc_res[tb + i] =
            b->readback[tb + i] = -1;
    }
    b->fop[t] = val(o, t, 0, K_FOP);
    b->fops[t] = val(o, t, 0, K_FOPS);
    b->fop_res[t] = b->fops_res[t] = -1;
    b->cas[2 * t] = val(o, t, 0, K_CAS);
    b->cas[2 * t + 1] = val(o, t, 1, K_CAS);
    b->cas_cmp[2 * t] = ival(t, L->cas + 2 * o);         /* matches */
    b->cas_cmp[2 * t + 1] = ival(t, L->cas + 2 * o + 1) + 1; /* does not */
    b->cas_res[2 * t] = b->cas_res[2 * t + 1] = -1;
}

/* Issue every operation to target t (the request forms only when
 * passive), waiting for each request. */
static void issue(struct obufs *b, struct rwin *w, int t, int passive)
{
    int o = w->me, tb = t * B;
    const struct layout *L = &w->L;
    MPI_Win win = w->win;
    CHECK_MPI(MPI_Put(&b->put[tb], B, MPI_INT, t, disp(w, t, L->put + o * B), B, MPI_INT, win));
    CHECK_MPI(MPI_Get(&b->get[tb], B, MPI_INT, t, disp(w, t, L->get), B, MPI_INT, win));
    CHECK_MPI(MPI_Accumulate(&b->acc[tb], B, MPI_INT, t, disp(w, t, L->acc), B, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&b->repl[tb], B, MPI_INT, t, disp(w, t, L->repl + o * B), B, MPI_INT, MPI_REPLACE,
                             win));
    CHECK_MPI(MPI_Get_accumulate(&b->gacc[tb], B, MPI_INT, &b->gacc_res[tb], B, MPI_INT, t,
                                 disp(w, t, L->gacc + o * B), B, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, &b->noop_res[tb], B, MPI_INT, t, disp(w, t, L->noop), B, MPI_INT,
                                 MPI_NO_OP, win));
    CHECK_MPI(MPI_Fetch_and_op(&b->fop[t], &b->fop_res[t], MPI_INT, t, disp(w, t, L->fop + o), MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&b->fops[t], &b->fops_res[t], MPI_INT, t, disp(w, t, L->fop + w->n), MPI_SUM, win));
    for (int j = 0; j < 2; j++)
        CHECK_MPI(MPI_Compare_and_swap(&b->cas[2 * t + j], &b->cas_cmp[2 * t + j], &b->cas_res[2 * t + j], MPI_INT, t,
                                       disp(w, t, L->cas + 2 * o + j), win));
    if (!passive)
        return;
    MPI_Request rq;
    CHECK_MPI(MPI_Rput(&b->rput[tb], B, MPI_INT, t, disp(w, t, L->rput + o * B), B, MPI_INT, win, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the Rput request set");
    CHECK_MPI(MPI_Rget(&b->rget[tb], B, MPI_INT, t, disp(w, t, L->rget), B, MPI_INT, win, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* A completed Rget has its data, before any flush or unlock. */
    for (int i = 0; i < B; i++)
        CHECK(b->rget[tb + i] == ival(t, L->rget + i), "Rget from %d [%d] right after MPI_Wait: %d, expected %d", t,
              i, b->rget[tb + i], ival(t, L->rget + i));
    CHECK_MPI(MPI_Raccumulate(&b->racc[tb], B, MPI_INT, t, disp(w, t, L->racc), B, MPI_INT, MPI_SUM, win, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Rget_accumulate(&b->rgacc[tb], B, MPI_INT, &b->rgacc_res[tb], B, MPI_INT, t,
                                  disp(w, t, L->rgacc + o * B), B, MPI_INT, MPI_SUM, win, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < B; i++)
        CHECK(b->rgacc_res[tb + i] == ival(t, L->rgacc + o * B + i),
              "Rget_accumulate from %d [%d] right after MPI_Wait: %d, expected %d", t, i, b->rgacc_res[tb + i],
              ival(t, L->rgacc + o * B + i));
}

static const char *ctx_f, *ctx_s;

/* The origin's results from target t, once the operations are complete at
 * the origin. */
static void check_origin(const struct obufs *b, const struct rwin *w, int t, int passive)
{
    int o = w->me, tb = t * B, n = w->n;
    const struct layout *L = &w->L;
#define OCHK(what, got, exp) \
    CHECK((got) == (exp), "%s/%s: %s from target %d: %d, expected %d", ctx_f, ctx_s, what, t, (got), (exp))
    for (int i = 0; i < B; i++) {
        OCHK("Get", b->get[tb + i], ival(t, L->get + i));
        OCHK("Get_accumulate(SUM) result", b->gacc_res[tb + i], ival(t, L->gacc + o * B + i));
        OCHK("Get_accumulate(NO_OP) result", b->noop_res[tb + i], ival(t, L->noop + i));
        if (passive) {
            OCHK("Rget", b->rget[tb + i], ival(t, L->rget + i));
            OCHK("Rget_accumulate result", b->rgacc_res[tb + i], ival(t, L->rgacc + o * B + i));
        }
    }
    OCHK("Fetch_and_op result", b->fop_res[t], ival(t, L->fop + o));
    /* Where every origin adds, the fetched value is the start plus what some
     * of the others added before: between the start and the end less our
     * own part. */
    long long lo = ival(t, L->fop + n), hi = lo;
    for (int r = 0; r < n; r++)
        if (r != o)
            hi += val(r, t, 0, K_FOPS);
    CHECK(b->fops_res[t] >= lo && b->fops_res[t] <= hi,
          "%s/%s: shared Fetch_and_op from %d fetched %d, not in [%lld, %lld]", ctx_f, ctx_s, t, b->fops_res[t], lo,
          hi);
    OCHK("Compare_and_swap (matching) result", b->cas_res[2 * t], ival(t, L->cas + 2 * o));
    OCHK("Compare_and_swap (not matching) result", b->cas_res[2 * t + 1], ival(t, L->cas + 2 * o + 1));
#undef OCHK
}

static const char *slot_name[] = { "Put", "Get", "Accumulate(SUM)", "Accumulate(REPLACE)", "Get_accumulate(SUM)",
                                   "Get_accumulate(NO_OP)", "Fetch_and_op", "Compare_and_swap", "Rput", "Rget",
                                   "Raccumulate", "Rget_accumulate" };

static int slot_start(const struct layout *L, int s)
{
    const int starts[] = { L->put, L->get, L->acc, L->repl, L->gacc, L->noop,
                           L->fop, L->cas, L->rput, L->rget, L->racc, L->rgacc };
    return starts[s];
}

/* Which slot element e is in, for messages. */
static int slot_of(const struct layout *L, int e)
{
    int s = 0;
    while (s + 1 < 12 && e >= slot_start(L, s + 1))
        s++;
    return s;
}

/* This rank's window memory once every origin's epoch is over. */
static void check_target(const struct rwin *w, int passive)
{
    int me = w->me, n = w->n;
    const struct layout *L = &w->L;
    int *exp = malloc(L->n * sizeof(int));
    for (int e = 0; e < L->n; e++)
        exp[e] = ival(me, e);
    for (int o = 0; o < n; o++) {
        for (int i = 0; i < B; i++) {
            exp[L->put + o * B + i] = val(o, me, i, K_PUT);
            exp[L->acc + i] += val(o, me, i, K_ACC);
            exp[L->repl + o * B + i] = val(o, me, i, K_REPL);
            exp[L->gacc + o * B + i] += val(o, me, i, K_GACC);
            if (passive) {
                exp[L->rput + o * B + i] = val(o, me, i, K_RPUT);
                exp[L->racc + i] += val(o, me, i, K_RACC);
                exp[L->rgacc + o * B + i] += val(o, me, i, K_RGACC);
            }
        }
        exp[L->fop + o] += val(o, me, 0, K_FOP);
        exp[L->fop + n] += val(o, me, 0, K_FOPS);
        exp[L->cas + 2 * o] = val(o, me, 0, K_CAS);
    }
    int bad = 0;
    for (int e = 0; e < L->n; e++)
        if (w->mem[e] != exp[e] && bad++ < 5) {
            int at = slot_of(L, e);
            CHECK(0, "%s/%s: target element %d (%s slot + %d) is %d, expected %d", ctx_f, ctx_s, e,
                  slot_name[at], e - slot_start(L, at), w->mem[e], exp[e]);
        }
    CHECK(bad == 0, "%s/%s: %d wrong target elements", ctx_f, ctx_s, bad);
    free(exp);
}

static void init_mem(struct rwin *w)
{
    for (int e = 0; e < w->L.n; e++)
        w->mem[e] = ival(w->me, e);
}

static void round_(struct rwin *w, int sync)
{
    int me = w->me, n = w->n;
    int passive = sync >= S_LOCK_EXCL;
    struct obufs b;
    obufs_alloc(&b, n);
    for (int t = 0; t < n; t++)
        obufs_fill(&b, w, t);
    ctx_f = flav_name[w->flavour];
    ctx_s = sync_name[sync];

    if (passive) {
        /* Local stores to the window in an epoch of its own, then everyone
         * may start. */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
        init_mem(w);
        CHECK_MPI(MPI_Win_unlock(me, w->win));
        CHECK_MPI(MPI_Barrier(w->comm));
    } else {
        init_mem(w);
    }

    switch (sync) {
    case S_FENCE:
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
        for (int j = 1; j <= n; j++)
            issue(&b, w, (me + j) % n, 0);
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
        for (int t = 0; t < n; t++)
            check_origin(&b, w, t, 0);
        check_target(w, 0);
        break;
    case S_PSCW:
        CHECK_MPI(MPI_Win_post(w->grp, 0, w->win));
        CHECK_MPI(MPI_Win_start(w->grp, 0, w->win));
        for (int j = 1; j <= n; j++)
            issue(&b, w, (me + j) % n, 0);
        CHECK_MPI(MPI_Win_complete(w->win));
        for (int t = 0; t < n; t++)
            check_origin(&b, w, t, 0);
        CHECK_MPI(MPI_Win_wait(w->win));
        check_target(w, 0);
        break;
    case S_LOCK_EXCL:
    case S_LOCK_SHARED:
        for (int j = 1; j <= n; j++) {
            int t = (me + j) % n;
            CHECK_MPI(MPI_Win_lock(sync == S_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, w->win));
            issue(&b, w, t, 1);
            CHECK_MPI(MPI_Win_unlock(t, w->win));
            check_origin(&b, w, t, 1);
        }
        break;
    case S_FLUSH:
    case S_FLUSH_LOCAL:
        CHECK_MPI(MPI_Win_lock_all(0, w->win));
        for (int j = 1; j <= n; j++) {
            int t = (me + j) % n;
            issue(&b, w, t, 1);
            if (sync == S_FLUSH_LOCAL) {
                CHECK_MPI(MPI_Win_flush_local(t, w->win));
                check_origin(&b, w, t, 1);
                continue;
            }
            CHECK_MPI(MPI_Win_flush(t, w->win));
            check_origin(&b, w, t, 1);
            /* Complete at the target too: a Get now reads what the Put wrote. */
            CHECK_MPI(MPI_Get(&b.readback[t * B], B, MPI_INT, t, disp(w, t, w->L.put + me * B), B, MPI_INT, w->win));
            CHECK_MPI(MPI_Win_flush(t, w->win));
            for (int i = 0; i < B; i++)
                CHECK(b.readback[t * B + i] == val(me, t, i, K_PUT),
                      "%s/%s: read back from %d after flush [%d]: %d, expected %d", ctx_f, ctx_s, t, i,
                      b.readback[t * B + i], val(me, t, i, K_PUT));
        }
        CHECK_MPI(MPI_Win_unlock_all(w->win));
        break;
    case S_FLUSH_ALL:
        CHECK_MPI(MPI_Win_lock_all(0, w->win));
        for (int j = 1; j <= n; j++)
            issue(&b, w, (me + j) % n, 1);
        CHECK_MPI(MPI_Win_flush_local_all(w->win));
        for (int t = 0; t < n; t++)
            check_origin(&b, w, t, 1);
        CHECK_MPI(MPI_Win_flush_all(w->win));
        for (int t = 0; t < n; t++)
            CHECK_MPI(MPI_Get(&b.readback[t * B], B, MPI_INT, t, disp(w, t, w->L.put + me * B), B, MPI_INT, w->win));
        CHECK_MPI(MPI_Win_flush_all(w->win));
        for (int t = 0; t < n; t++)
            for (int i = 0; i < B; i++)
                CHECK(b.readback[t * B + i] == val(me, t, i, K_PUT),
                      "%s/%s: read back from %d after flush_all [%d]: %d, expected %d", ctx_f, ctx_s, t, i,
                      b.readback[t * B + i], val(me, t, i, K_PUT));
        CHECK_MPI(MPI_Win_unlock_all(w->win));
        break;
    }

    if (passive) {
        /* Every origin has unlocked; the owner's lock makes their updates
         * visible to its loads. */
        CHECK_MPI(MPI_Barrier(w->comm));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w->win));
        check_target(w, 1);
        CHECK_MPI(MPI_Win_unlock(me, w->win));
    }
    obufs_free(&b);
}

/* MPI_Put_c and MPI_Get_c with MPI_Count counts, in a fence epoch. */
static void large_count_forms(void)
{
#if MPI_VERSION >= 4
    enum { N = 1000 };
    int *mem, src[N], got[N];
    MPI_Win win;
    int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize;
    CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < N; i++) {
        mem[i] = -1;
        src[i] = val(wrank, to, i, 77);
        got[i] = -1;
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put_c(src, (MPI_Count)N, MPI_INT, to, 0, (MPI_Count)N, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == val(from, wrank, i, 77), "MPI_Put_c [%d]: %d, expected %d", i, mem[i], val(from, wrank, i, 77));
    /* Get the second half of the next rank's window into the first half. */
    CHECK_MPI(MPI_Get_c(got, (MPI_Count)N / 2, MPI_INT, to, N / 2, (MPI_Count)N / 2, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int exp = i < N / 2 ? val(wrank, to, N / 2 + i, 77) : -1;
        CHECK(got[i] == exp, "MPI_Get_c [%d]: %d, expected %d", i, got[i], exp);
    }
    CHECK_MPI(MPI_Win_free(&win));
#endif
}

/* 4 MiB Put to the next rank and Get back, under lock_all. */
static void big_transfer(void)
{
    const size_t N = 4u << 20;
    unsigned char *mem, *src = malloc(N), *got = malloc(N);
    MPI_Win win;
    int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize;
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, wrank, 0, win));
    memset(mem, 0, N);
    CHECK_MPI(MPI_Win_unlock(wrank, win));
    uzt_fill(src, N, wrank, 4);
    memset(got, 0, N);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_MPI(MPI_Put(src, (int)N, MPI_BYTE, to, 0, (int)N, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_flush(to, win));
    CHECK_MPI(MPI_Get(got, (int)N, MPI_BYTE, to, 0, (int)N, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_flush(to, win));
    long bad = uzt_verify(got, N, wrank, 4);
    CHECK(bad < 0, "4 MiB Get back from %d: first wrong byte at %ld", to, bad);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, wrank, 0, win));
    bad = uzt_verify(mem, N, from, 4);
    CHECK(bad < 0, "4 MiB Put from %d: first wrong byte at %ld", from, bad);
    CHECK_MPI(MPI_Win_unlock(wrank, win));
    CHECK_MPI(MPI_Win_free(&win));
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    for (int f = 0; f < NFLAV; f++) {
        struct rwin w;
        win_open(&w, f);
        for (int s = 0; s < NSYNC; s++)
            round_(&w, s);
        win_close(&w);
    }
    large_count_forms();
    big_transfer();
    return uzt_finish("rma_ops");
}
