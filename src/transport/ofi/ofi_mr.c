/*
 * ofi_mr.c — the registration cache: memory given to the provider once and
 * found again by address range.
 *
 * Registering memory costs a system call and, on RDMA hardware, pinning
 * pages; a program sends from the same buffers again and again.  As the
 * seed paper's address translation (UZURA §4.2.4) keeps frequently used
 * translations in a small fast table on the NIC and the rest in a larger
 * one on the host, the cache has two levels: the last OFI_MR_HOT regions
 * used, looked through first, and the table of every region kept (up to
 * OFI_MR_MAX).  Regions are page-aligned; a lookup takes any region that
 * covers the range.  When the table is full the least recently used
 * region nobody holds is deregistered.
 *
 * Known limit: freed memory is not detected.  A buffer freed and another
 * mapped at the same addresses would reuse a stale registration; on the
 * software providers (tcp, udp) a registration is only a key for an
 * address range and this is harmless, on pinning hardware it is not.
 * libfabric's own cache (FI_MR_CACHE_MONITOR, used by verbs and efa
 * below us) watches unmapping there.
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "transport/ofi/ofi.h"

static struct ofi_mr table[OFI_MR_MAX];
static int nused;
static struct ofi_mr *hot[OFI_MR_HOT];
static uint64_t clock_now;
static uint64_t next_key = 1;

static int covers(const struct ofi_mr *r, uintptr_t lo, uintptr_t hi)
{
    return r->mr && r->lo <= lo && hi <= r->hi;
}

static void make_hot(struct ofi_mr *r)
{
    int i = 0;
    while (i < OFI_MR_HOT - 1 && hot[i] != r)
        i++;
    memmove(&hot[1], &hot[0], (size_t)i * sizeof(hot[0]));
    hot[0] = r;
}

static void forget_hot(struct ofi_mr *r)
{
    for (int i = 0; i < OFI_MR_HOT; i++)
        if (hot[i] == r) {
            memmove(&hot[i], &hot[i + 1], (size_t)(OFI_MR_HOT - 1 - i) * sizeof(hot[0]));
            hot[OFI_MR_HOT - 1] = NULL;
            return;
        }
}

static struct ofi_mr *find(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < OFI_MR_HOT && hot[i]; i++)
        if (covers(hot[i], lo, hi))
            return hot[i];
    for (int i = 0; i < OFI_MR_MAX; i++)
        if (covers(&table[i], lo, hi))
            return &table[i];
    return NULL;
}

static void deregister(struct ofi_mr *r)
{
    forget_hot(r);
    fi_close(&r->mr->fid);
    memset(r, 0, sizeof(*r));
    nused--;
}

/* A free entry, evicting the least recently used idle region if needed. */
static struct ofi_mr *free_entry(void)
{
    struct ofi_mr *lru = NULL;
    for (int i = 0; i < OFI_MR_MAX; i++) {
        if (!table[i].mr)
            return &table[i];
        if (!table[i].refs && (!lru || table[i].used < lru->used))
            lru = &table[i];
    }
    if (lru) {
        deregister(lru);
        uz_ofi.count.mr_evictions++;
    }
    return lru;
}

static int do_register(struct ofi_mr *r, uintptr_t lo, uintptr_t hi)
{
    uint64_t access = FI_SEND | FI_RECV;
    if (uz_ofi.rma)
        access |= FI_READ | FI_REMOTE_READ;
    uint64_t key = (uz_ofi.mr_mode & FI_MR_PROV_KEY) ? 0 : next_key++;
    int rc = fi_mr_reg(uz_ofi.domain, (void *)lo, hi - lo, access, 0, key, 0, &r->mr, NULL);
    if (rc)
        return rc;
    if (uz_ofi.mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(r->mr, &uz_ofi.ep->fid, 0)) == 0)
            rc = fi_mr_enable(r->mr);
        if (rc) {
            fi_close(&r->mr->fid);
            r->mr = NULL;
            return rc;
        }
    }
    r->lo = lo;
    r->hi = hi;
    r->desc = fi_mr_desc(r->mr);
    r->key = fi_mr_key(r->mr);
    r->refs = 0;
    nused++;
    return 0;
}

struct ofi_mr *ofi_mr_get(const void *addr, size_t len, int *err)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr & ~(page - 1);
    uintptr_t hi = ((uintptr_t)addr + (len ? len : 1) + page - 1) & ~(page - 1);
    struct ofi_mr *r = find(lo, hi);
    if (r) {
        uz_ofi.count.mr_hits++;
    } else {
        uz_ofi.count.mr_misses++;
        r = free_entry();
        if (!r) {
            *err = uz_err_make(MPI_ERR_OTHER, "ofi: all %d memory registrations are in use", OFI_MR_MAX);
            return NULL;
        }
        int rc = do_register(r, lo, hi);
        if (rc) {
            *err = uz_err_make(MPI_ERR_OTHER, "ofi: registering %zu bytes at %p failed: %s", (size_t)(hi - lo),
                               (void *)lo, ofi_lib.strerror(-rc));
            return NULL;
        }
    }
    r->refs++;
    r->used = ++clock_now;
    make_hot(r);
    return r;
}

void ofi_mr_put(struct ofi_mr *r)
{
    if (r && r->refs > 0)
        r->refs--;
}

uint64_t ofi_mr_remote_addr(const struct ofi_mr *r, const void *addr)
{
    if (uz_ofi.mr_mode & FI_MR_VIRT_ADDR)
        return (uint64_t)(uintptr_t)addr;
    return (uint64_t)((uintptr_t)addr - r->lo);
}

void ofi_mr_close_all(void)
{
    for (int i = 0; i < OFI_MR_MAX; i++)
        if (table[i].mr)
            deregister(&table[i]);
    memset(hot, 0, sizeof(hot));
    nused = 0;
}

#endif /* UZ_HAVE_LIBFABRIC */
