/*
 * object_arena.c — where every object a user handle can name is allocated:
 * one range of address space reserved at the first allocation and never
 * unmapped, so that validating a handle is safe for any value.
 *
 * A garbage handle (an unmapped address, a pointer into the stack, a
 * freed object) must give MPI_ERR_COMM, MPI_ERR_TYPE, ... rather than a
 * segmentation fault when its magic word is read.  Checking with the
 * kernel (mincore, a pipe write) costs a system call per call; instead
 * handles are only ever addresses inside this arena, and uz_arena_holds()
 * (object.h) rejects any other value with a subtract, a rotate and one
 * compare before anything is loaded through it.  An address that passes
 * is always readable: the whole range is mapped PROT_READ up front (pages
 * never written read as the kernel's zero page, whose zero magic matches
 * no kind), and grows PROT_READ|PROT_WRITE from the bottom as objects are
 * allocated.  A read-only private mapping is not charged against the
 * commit limit, so reserving gigabytes costs nothing but address space.
 *
 * Objects are carved in multiples of 64 bytes (UZ_OBJECT_ALIGN) from the
 * bottom, which also keeps each on its own cache lines; a freed object
 * goes on the free list of its size and is reused by the next object of
 * that size.  Its magic stays UZ_MAGIC_FREED meanwhile, so a stale handle
 * is rejected until the slot holds a new object (as in MPICH, a handle
 * that is reused then names the new object).  The list link lives in the
 * header's bytes after the magic, which a dead object does not use.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "base/object.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
/* LeakSanitizer does not look inside mmap'd memory for pointers: what the
 * objects point at (a group's rank list, a datatype's layout) would be
 * reported as leaked while the objects live.  The writable part of the
 * arena is a root region instead, registered as it grows. */
#define SCAN_FOR_POINTERS(p, n) __lsan_register_root_region(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#define SCAN_FOR_POINTERS(p, n) ((void)(p), (void)(n))
#endif

struct uz_object_arena uz_object_arena;

/* Largest reservation tried first, halved while the kernel refuses (a
 * ulimit -v, a 32-bit address space), down to the smallest still useful. */
static const size_t RESERVE_MAX = (size_t)1 << 36;     /* 64 GiB */
static const size_t RESERVE_MIN = (size_t)1 << 26;     /* 64 MiB */
/* Made writable this much at a time: one mprotect per many objects. */
static const size_t GROW_STEP = (size_t)1 << 20;

/* Objects are at most this large (a communicator is under 1 KiB). */
enum { MAX_CLASSES = 64 };

struct free_slot {
    uint32_t magic;             /* UZ_MAGIC_FREED while on the list */
    uint32_t pad;
    struct free_slot *next;     /* in the header's unused bytes */
};

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *base, *top, *writable_end, *reserve_end;
static struct free_slot *free_lists[MAX_CLASSES + 1];

static int reserve(void)
{
    for (size_t len = RESERVE_MAX; len >= RESERVE_MIN; len /= 2) {
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        /* mmap returns page-aligned memory, which is 64-byte aligned. */
        base = top = writable_end = p;
        reserve_end = base + len;
        uz_object_arena.base = (uintptr_t)base;
        atomic_store_explicit(&uz_object_arena.slots, len >> UZ_OBJECT_ALIGN_SHIFT, memory_order_release);
        return 1;
    }
    return 0;
}

/* Carve `bytes` from the top, making more of the range writable first. */
static void *carve(size_t bytes)
{
    if (base == NULL && !reserve())
        return NULL;
    if ((size_t)(reserve_end - top) < bytes)
        return NULL;
    if (top + bytes > writable_end) {
        size_t grow = (size_t)(top + bytes - writable_end);
        grow = (grow + GROW_STEP - 1) / GROW_STEP * GROW_STEP;
        if (grow > (size_t)(reserve_end - writable_end))
            grow = (size_t)(reserve_end - writable_end);
        if (mprotect(writable_end, grow, PROT_READ | PROT_WRITE) != 0)
            return NULL;
        SCAN_FOR_POINTERS(writable_end, grow);
        writable_end += grow;
    }
    void *p = top;
    top += bytes;
    return p;
}

void *uz_object_alloc(size_t size)
{
    size_t cls = (size + UZ_OBJECT_ALIGN - 1) / UZ_OBJECT_ALIGN;
    if (cls == 0 || cls > MAX_CLASSES)
        return NULL;
    size_t bytes = cls * UZ_OBJECT_ALIGN;
    pthread_mutex_lock(&arena_lock);
    struct free_slot *s = free_lists[cls];
    void *p;
    if (s != NULL) {
        free_lists[cls] = s->next;
        p = s;
    } else {
        p = carve(bytes);
    }
    pthread_mutex_unlock(&arena_lock);
    if (p != NULL) {
        UNPOISON(p, bytes);
        memset(p, 0, bytes);
    }
    return p;
}

void uz_object_free(void *obj, size_t size)
{
    if (obj == NULL)
        return;
    size_t cls = (size + UZ_OBJECT_ALIGN - 1) / UZ_OBJECT_ALIGN;
    struct free_slot *s = obj;
    uz_object_destroy(obj);     /* if the caller has not already */
    /* A dead object's body is poisoned under AddressSanitizer, so that the
     * library touching it is reported; the header stays readable for the
     * handle checks. */
    POISON((unsigned char *)obj + sizeof(*s), cls * UZ_OBJECT_ALIGN - sizeof(*s));
    pthread_mutex_lock(&arena_lock);
    s->next = free_lists[cls];
    free_lists[cls] = s;
    pthread_mutex_unlock(&arena_lock);
}
