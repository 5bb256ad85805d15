/*
 * dt_check.h — helpers for the datatype tests: read a type's layout back
 * by packing a buffer of numbered ints, compare it with a hand-computed
 * list, and check bounds.
 */
#ifndef DT_CHECK_H
#define DT_CHECK_H

#include "uztest.h"

/* A buffer of ints where the int at index i (relative to DT_BASE, so that
 * negative displacements work) holds i. */
enum { DT_BASE = 8192, DT_SPAN = 3 * 8192 };

static __attribute__((unused)) int *dt_numbers(void)
{
    static int *buf;
    if (buf == NULL) {
        buf = malloc(DT_SPAN * sizeof(int));
        for (int i = 0; i < DT_SPAN; i++)
            buf[i] = i - DT_BASE;
    }
    return buf + DT_BASE;
}

/* Pack `count` elements of t (a type made of ints) from the numbered
 * buffer; returns how many ints were packed into out. */
static __attribute__((unused)) int dt_indices(MPI_Datatype t, int count, int *out, int max)
{
    int size = 0, pos = 0;
    MPI_Type_commit(&t);        /* a local copy of the handle: harmless */
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
    if (size / (int)sizeof(int) > max) {
        CHECK(0, "type too large for the check buffer");
        return 0;
    }
    CHECK_MPI(MPI_Pack(dt_numbers(), count, t, out, max * (int)sizeof(int), &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, size);
    return pos / (int)sizeof(int);
}

/* Check that t packs exactly the int indices `want` (n of them). */
#define CHECK_MAP(t, count, want, n) dt_check_map(__FILE__, __LINE__, #t, t, count, want, n)

static __attribute__((unused)) void dt_check_map(const char *file, int line, const char *name, MPI_Datatype t, int count,
                         const int *want, int n)
{
    int got[4096];
    int k = dt_indices(t, count, got, 4096);
    if (k != n) {
        uzt_fail(file, line, "%s: packs %d ints, expected %d", name, k, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            uzt_fail(file, line, "%s: packed int %d is index %d, expected %d", name, i, got[i],
                     want[i]);
            return;
        }
    }
}

/* Size, lb, extent, true lb and true extent in one line. */
#define CHECK_BOUNDS(t, sz, lb_, ext, tlb, text) \
    dt_check_bounds(__FILE__, __LINE__, #t, t, sz, lb_, ext, tlb, text)

static __attribute__((unused)) void dt_check_bounds(const char *file, int line, const char *name, MPI_Datatype t,
                            MPI_Count size, MPI_Aint lb, MPI_Aint extent, MPI_Aint true_lb,
                            MPI_Aint true_extent)
{
    MPI_Count s, l, e, tl, te;
    MPI_Aint la, ea, tla, tea;
    int si;
    MPI_Type_size_x(t, &s);
    MPI_Type_size(t, &si);
    MPI_Type_get_extent_x(t, &l, &e);
    MPI_Type_get_true_extent_c(t, &tl, &te);
    MPI_Type_get_extent(t, &la, &ea);
    MPI_Type_get_true_extent(t, &tla, &tea);
    if (s != size || si != size || l != lb || e != extent || tl != true_lb || te != true_extent ||
        la != lb || ea != extent || tla != true_lb || tea != true_extent)
        uzt_fail(file, line, "%s: size %lld lb %lld extent %lld true_lb %lld true_extent %lld, "
                 "expected %lld %lld %lld %lld %lld", name, (long long)s, (long long)l,
                 (long long)e, (long long)tl, (long long)te, (long long)size, (long long)lb,
                 (long long)extent, (long long)true_lb, (long long)true_extent);
}

/* Both types pack the same bytes from the same buffer, and agree on size
 * and bounds. */
static __attribute__((unused)) int dt_same_map(MPI_Datatype a, MPI_Datatype b, int count)
{
    static int x[4096], y[4096];
    MPI_Count sa, sb, la, lb, ea, eb, ta, tb, tea, teb;
    MPI_Type_size_x(a, &sa);
    MPI_Type_size_x(b, &sb);
    MPI_Type_get_extent_x(a, &la, &ea);
    MPI_Type_get_extent_x(b, &lb, &eb);
    MPI_Type_get_true_extent_x(a, &ta, &tea);
    MPI_Type_get_true_extent_x(b, &tb, &teb);
    if (sa != sb || la != lb || ea != eb || ta != tb || tea != teb)
        return 0;
    int pa = 0, pb = 0;
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    if (sa * count > (MPI_Count)sizeof(x))
        return 0;
    CHECK_MPI(MPI_Pack(dt_numbers(), count, a, x, sizeof(x), &pa, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(dt_numbers(), count, b, y, sizeof(y), &pb, MPI_COMM_WORLD));
    return pa == pb && memcmp(x, y, (size_t)pa) == 0;
}

/* Error handlers that return, for every object errors can go to here. */
static __attribute__((unused)) void dt_errors_return(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

#define CHECK_CLASS(call, cls) \
    do { int rc_ = (call); CHECK(uzt_class(rc_) == (cls), "%s: error class %d, expected %s (%d)", \
                                 #call, uzt_class(rc_), #cls, cls); } while (0)

#endif /* DT_CHECK_H */
