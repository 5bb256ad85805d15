/*
 * state_page.h — the page in which a rank says what it is blocked in, for
 * mpiexec's hang diagnosis (docs/launch.md, "Hang diagnosis").
 *
 * Each rank started by mpiexec maps /dev/shm/uzura-<job>-state-<rank>
 * (one page, mode 0600) and rewrites it only when it is about to block in
 * a wait (core/wait_state.c); mpiexec, or the proxy of the rank's host,
 * reads it whenever asked, without the rank's help: a rank asleep on a
 * futex or in poll() answers no signal or message, but its page is there.
 *
 * The text is lines of words (core/wait_state.c writes them,
 * tools/mpiexec/hang_report.c reads them); text rather than a struct so
 * that a proxy forwards it as it is and the format can grow.
 *
 * A sequence lock guards it: the writer makes `seq` odd, writes, makes it
 * even; a reader copies and retries while seq was odd or changed.  The
 * writer is the only one, so it needs no atomic read-modify-write.  Both
 * the library and mpiexec (which does not link the library) include this.
 */
#ifndef UZ_BASE_STATE_PAGE_H
#define UZ_BASE_STATE_PAGE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { UZ_STATE_PAGE_SIZE = 4096 };

struct uz_state_page {
    _Atomic uint32_t seq;       /* odd while being written */
    uint32_t len;               /* bytes of text */
    char text[UZ_STATE_PAGE_SIZE - 8];
};

/* The writer: begin / end one update of the text. */
static inline void uz_state_page_begin(struct uz_state_page *p)
{
    uint32_t s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static inline void uz_state_page_end(struct uz_state_page *p, size_t len)
{
    p->len = (uint32_t)len;
    uint32_t s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_release);
}

/* The reader: copy the text into out[cap] (NUL-terminated); returns its
 * length, or -1 when every try met a write in progress. */
static inline int uz_state_page_read(const struct uz_state_page *p, char *out, size_t cap)
{
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = atomic_load_explicit(&p->seq, memory_order_acquire);
        if (s1 & 1)
            continue;
        size_t len = p->len;
        if (len >= cap)
            len = cap - 1;
        if (len > sizeof p->text)
            len = sizeof p->text;
        memcpy(out, (const char *)p->text, len);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&p->seq, memory_order_relaxed) == s1) {
            out[len] = '\0';
            return (int)len;
        }
    }
    return -1;
}

#endif /* UZ_BASE_STATE_PAGE_H */
