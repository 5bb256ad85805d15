/*
 * alloc_kinds.c — memory allocation kinds (MPI-4.1 §12.4.3): the two kinds
 * every MPI library has, "system" (memory from the system's allocator,
 * malloc and the like) and "mpi" (memory MPI allocates: MPI_Alloc_mem,
 * MPI_Win_allocate, MPI_Win_allocate_shared, the restrictors "alloc_mem",
 * "win_allocate", "win_allocate_shared" that narrow it).  Uzura moves data
 * of both with the CPU; accelerator kinds ("cuda:device", ...) are not
 * supported and are left out of what is reported, as the standard lets a
 * library do with kinds it does not support.
 *
 * The requested kinds come from Session_init's info (for that session) or
 * the environment mpiexec -memory-alloc-kinds sets (for the World Model);
 * default "mpi,system".  What is reported is the supported part, in the
 * order requested: the key only says what may be used, it changes nothing
 * about how memory is allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "base/params.h"
#include "core/alloc_kinds.h"
#include "core/comm.h"
#include "core/info.h"
#include "core/session.h"

static const char *const mpi_restrictors[] = { "alloc_mem", "win_allocate", "win_allocate_shared" };

static int mpi_restrictor_known(const char *r, size_t len)
{
    for (size_t i = 0; i < sizeof mpi_restrictors / sizeof mpi_restrictors[0]; i++)
        if (strlen(mpi_restrictors[i]) == len && strncmp(mpi_restrictors[i], r, len) == 0)
            return 1;
    return 0;
}

/* One entry "kind[:restrictor...]" of length len: supported? */
static int entry_supported(const char *e, size_t len)
{
    const char *colon = memchr(e, ':', len);
    size_t kind_len = colon ? (size_t)(colon - e) : len;
    if (kind_len == 6 && strncmp(e, "system", 6) == 0)
        return !colon;                  /* "system" has no restrictors */
    if (kind_len != 3 || strncmp(e, "mpi", 3) != 0)
        return 0;
    for (const char *r = colon; r; ) {
        const char *start = r + 1, *end = e + len;
        const char *next = memchr(start, ':', (size_t)(end - start));
        size_t rlen = (size_t)((next ? next : end) - start);
        if (!mpi_restrictor_known(start, rlen))
            return 0;
        r = next;
    }
    return 1;
}

/* Is the entry e (len bytes) already in the list out? */
static int listed(const char *out, const char *e, size_t len)
{
    for (const char *p = out; *p; ) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, e, len) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

char *uz_alloc_kinds_supported(const char *requested)
{
    size_t cap = strlen(requested) + 1;
    char *out = calloc(cap, 1);
    if (!out)
        return NULL;
    size_t used = 0;
    for (const char *p = requested; *p; ) {
        size_t n = strcspn(p, ",");
        /* Blanks around an entry are not part of it. */
        const char *e = p;
        size_t len = n;
        while (len && (*e == ' ' || *e == '\t'))
            e++, len--;
        while (len && (e[len - 1] == ' ' || e[len - 1] == '\t'))
            len--;
        if (len && entry_supported(e, len) && !listed(out, e, len)) {
            if (used)
                out[used++] = ',';
            memcpy(out + used, e, len);
            used += len;
            out[used] = '\0';
        }
        p += n + (p[n] == ',');
    }
    return out;
}

const char *uz_alloc_kinds_world(void)
{
    static char *world;
    if (!world) {
        const char *asked = uz_config.memory_alloc_kinds && uz_config.memory_alloc_kinds[0]
                                ? uz_config.memory_alloc_kinds : UZ_ALLOC_KINDS_DEFAULT;
        world = uz_alloc_kinds_supported(asked);
    }
    return world ? world : UZ_ALLOC_KINDS_DEFAULT;
}

/* Entries of `have` that are also in `asked` (both already supported lists). */
static char *intersect(const char *have, const char *asked)
{
    char *out = calloc(strlen(asked) + 1, 1);
    if (!out)
        return NULL;
    size_t used = 0;
    for (const char *p = asked; *p; ) {
        size_t n = strcspn(p, ",");
        if (n && listed(have, p, n) && !listed(out, p, n)) {
            if (used)
                out[used++] = ',';
            memcpy(out + used, p, n);
            used += n;
            out[used] = '\0';
        }
        p += n + (p[n] == ',');
    }
    return out;
}

int uz_alloc_kinds_report(const uz_comm *c, uz_info *info)
{
    const char *have = c->session && c->session->alloc_kinds ? c->session->alloc_kinds
                                                             : uz_alloc_kinds_world();
    const char *given = c->info ? uz_info_lookup(c->info, UZ_ALLOC_KINDS_KEY) : NULL;
    if (!given)
        return uz_info_set(info, UZ_ALLOC_KINDS_KEY, have) ? -1 : 0;
    char *asked = uz_alloc_kinds_supported(given);
    char *both = asked ? intersect(have, asked) : NULL;
    int err = !both || uz_info_set(info, UZ_ALLOC_KINDS_KEY, both);
    free(asked);
    free(both);
    return err ? -1 : 0;
}
