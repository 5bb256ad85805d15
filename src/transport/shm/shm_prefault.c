/*
 * shm_prefault.c — making the pages of a cold receive buffer present before
 * the kernel copies a large message into them.
 *
 * A receiver that pulls into memory it has never written (a buffer just
 * malloc'd) takes a page fault for every 4 KiB page inside
 * process_vm_readv: an exception, the fault itself, and the return into
 * the copy.  madvise(MADV_POPULATE_WRITE) (Linux 5.14) makes the same
 * pages present as writing would, in one call and without an exception
 * per page.  On the reference VM (bench/huge_send cold, 1 GiB, recycled
 * pages) sender and receiver together used 0.42-0.47 CPU seconds against
 * 0.44-0.50 without it (eleven runs each), and a receiver copying alone
 * (UZURA_SHM_BULK_HELP=0) 0.43-0.48 against 0.48-0.52 (eight).  The
 * sender's share needs nothing: process_vm_writev faults the receiver's
 * pages through get_user_pages, which takes no exception either.
 *
 * On pages that are present already MADV_POPULATE_WRITE gains nothing and
 * costs 0.2-0.3 us per page, half of what copying the page costs, so a
 * transfer asks for it only when the last page of its receive memory is
 * not present: a buffer that is reused, the usual case, pays one mincore
 * call (about 0.3 us), and only for messages of PREFAULT_MIN bytes or
 * more, where that is under 0.3% of the copy.  Not the first page: malloc
 * writes its own header just before a large block, in that page.
 *
 * Populating is invisible to the program: the pages are exactly those the
 * copy is about to write, and a range the kernel refuses (a guard page,
 * memory being unmapped) is simply left to the copy, which reports any
 * real fault.  EINVAL means a kernel older than 5.14 or memory it cannot
 * populate (device memory): the process stops trying.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/params.h"
#include "transport/shm/shm_state.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23      /* Linux 5.14 */
#endif

/* PREFAULT_MIN: see above.  A call per run costs about what a fault's
 * exception does, so runs shorter than a few pages (a strided receive)
 * would gain nothing. */
enum { PREFAULT_MIN = 1 << 20, PREFAULT_MIN_MEAN_RUN = 16 * 1024 };

static int unsupported;             /* MADV_POPULATE_WRITE said EINVAL: not tried again */
static uint64_t prefaulted_bytes;

static uintptr_t page_size(void)
{
    static uintptr_t size;
    if (!size)
        size = (uintptr_t)sysconf(_SC_PAGESIZE);
    return size;
}

int shm_prefault_wanted(const struct iovec *iov, int niov, size_t total)
{
    if (!uz_config.shm_bulk_prefault || unsupported || total < PREFAULT_MIN || niov < 1 ||
        total / (size_t)niov < PREFAULT_MIN_MEAN_RUN)
        return 0;
    for (int i = niov - 1; i >= 0; i--) {
        if (!iov[i].iov_len)
            continue;
        unsigned char present;
        uintptr_t last = (uintptr_t)iov[i].iov_base + iov[i].iov_len - 1;
        void *page = (void *)(last & ~(page_size() - 1));
        return mincore(page, page_size(), &present) == 0 && !(present & 1);
    }
    return 0;
}

static void populate(uintptr_t start, uintptr_t end)
{
    if (madvise((void *)start, end - start, MADV_POPULATE_WRITE) == 0)
        prefaulted_bytes += end - start;
    else if (errno == EINVAL)
        unsupported = 1;
}

void shm_prefault(const struct iovec *iov, int niov)
{
    uintptr_t mask = page_size() - 1, start = 0, end = 0;
    for (int i = 0; i < niov && !unsupported; i++) {
        if (!iov[i].iov_len)
            continue;
        uintptr_t s = (uintptr_t)iov[i].iov_base & ~mask;
        uintptr_t e = ((uintptr_t)iov[i].iov_base + iov[i].iov_len + mask) & ~mask;
        if (end && s <= end) {          /* runs on the same or adjacent pages: one call */
            if (e > end)
                end = e;
            continue;
        }
        if (end)
            populate(start, end);
        start = s;
        end = e;
    }
    if (end && !unsupported)
        populate(start, end);
}

uint64_t shm_prefaulted_bytes(void)
{
    return prefaulted_bytes;
}
