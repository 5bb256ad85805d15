/*
 * io_views.c — file views (MPI 4.1 section 14.3): MPI_File_set_view with
 * displacements, etypes other than MPI_BYTE and filetypes from every kind
 * of constructor (vector, subarray, darray with block and cyclic
 * distributions, struct with holes, resized with a changed lb and extent,
 * indexed, a derived etype), written collectively and independently (the
 * latter from a strided memory type, through an explicit offset and then
 * the individual pointer), and read back through the same view.
 *
 * What the file should hold is computed here from the constructors'
 * definitions, element by element, without MPI's type machinery; after
 * every case rank 0 reads the whole file through a plain byte view and
 * compares every byte (holes keep the fill written beforehand, and nothing
 * lies past the last element).  MPI_File_get_view must return predefined
 * etypes and filetypes as they are and derived ones as new handles that
 * the caller frees (checked with MPI_Type_get_envelope, through a
 * MPI_COMBINER_DUP if that is what comes back, the size and the extent,
 * and freed before the view is used, which must not disturb it);
 * MPI_File_get_type_extent, MPI_File_get_byte_offset and
 * MPI_File_get_position are checked against the computed layout.
 *
 * The key case: a 3-D array of doubles (element = its global index)
 * block-distributed over a MPI_Dims_create grid with subarrays, behind a
 * header, written with MPI_File_write_all and read back with
 * MPI_File_read_all under other decompositions: slabs along the last axis
 * into a memory array with ghost cells, and a cyclic darray (collectively
 * and then independently).
 */
#include "uztest.h"
#include "uzio.h"
#include <unistd.h>
#include <time.h>

static int rank, size;
static int pd[2]; /* the 2-D process grid of the darray cases */
static char path[512];
static MPI_File fh;

#define FILL 0xEE /* bytes the cases never write */

/* ------------------------------------------------------------------ */
/* Scratch file and whole-file checks                                  */
/* ------------------------------------------------------------------ */

/* One name per run, made by rank 0 (the ranks may be on different hosts
 * sharing the directory, so each cannot make its own). */
static void make_path(const char *tag)
{
    uzio_scratch_name(path, (int)sizeof path, "uzura_", tag, ".dat");
}

/* Writes by other ranks become visible to a reader after sync, barrier,
 * sync (section 14.6.1, non-atomic mode). */
static void sync_all(void)
{
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
}

static void byte_view(void)
{
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
}

/* Empty the file, then fill [0, len) so that holes have a known value. */
static void reset_file(long len)
{
    byte_view();
    CHECK_MPI(MPI_File_set_size(fh, 0));
    if (rank == 0 && len > 0) {
        unsigned char *b = malloc(len);
        memset(b, FILL, len);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    sync_all();
}

/* Collective: the file must be exactly exp[0, len). */
static void check_file(const unsigned char *exp, long len, const char *what)
{
    byte_view();
    MPI_Offset fsize = -1;
    CHECK_MPI(MPI_File_get_size(fh, &fsize));
    CHECK(fsize == len, "%s: file size %lld, expected %ld", what, (long long)fsize, len);
    if (rank != 0)
        return;
    unsigned char *got = malloc(len + 64);
    MPI_Status st;
    int cnt = -1;
    CHECK_MPI(MPI_File_read_at(fh, 0, got, (int)len + 64, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == len, "%s: read %d bytes of the file, expected %ld", what, cnt, len);
    long bad = 0;
    for (long i = 0; i < len && i < cnt; i++)
        if (got[i] != exp[i] && bad++ < 5)
            CHECK(0, "%s: file byte %ld is 0x%02x, expected 0x%02x", what, i, got[i], exp[i]);
    CHECK(bad == 0, "%s: %ld file bytes wrong", what, bad);
    free(got);
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static void commit_if_derived(MPI_Datatype *t)
{
    if (!is_named(*t))
        CHECK_MPI(MPI_Type_commit(t));
}

/* MPI_File_get_view returns "new datatypes with typemaps equal to" the
 * view's (section 14.3), so a duplicate is as good as a copy of the
 * constructor (MPICH returns a duplicate of the duplicate it keeps): look
 * through any number of them.  Returns whether *inner is a new handle to
 * free. */
static int unwrap_dup(MPI_Datatype t, MPI_Datatype *inner)
{
    int ni, na, nd, comb, fresh = 0;
    *inner = t;
    for (;;) {
        MPI_Type_get_envelope(*inner, &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_DUP)
            return fresh;
        int i0;
        MPI_Aint a0;
        MPI_Datatype next;
        CHECK_MPI(MPI_Type_get_contents(*inner, 0, 0, 1, &i0, &a0, &next));
        if (fresh)
            MPI_Type_free(inner);
        *inner = next;
        fresh = !is_named(next);
    }
}

static long block_len(long g, int p, int c)
{
    return g / p + (c < g % p);
}

static long block_start(long g, int p, int c)
{
    return c * (g / p) + (c < g % p ? c : g % p);
}

/* ------------------------------------------------------------------ */
/* The cases: for each, the view of rank r and, computed independently, */
/* the absolute byte offset of each element that rank r writes.        */
/* ------------------------------------------------------------------ */

struct vcase {
    const char *name;
    int esz;           /* bytes per memory element: 4 = MPI_INT, 1 = MPI_BYTE */
    int epe;           /* memory elements per etype */
    int etype_comb;    /* what MPI_Type_get_envelope must say of the returned etype */
    int ftype_comb;    /* ... and of the returned filetype */
    long (*count)(int r);
    void (*offsets)(int r, long *off);
    void (*view)(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft);
    void (*check_ft)(MPI_Datatype ft); /* optional: more about the returned filetype */
};

/* One tile of a plain vector: blocks of 2 ints at a stride of 2*size+1
 * ints (a one-int gap after the last rank's block); the displacement
 * places each rank's blocks. */
#define V1_COUNT 5
static long v1_count(int r)
{
    (void)r;
    return 2 * V1_COUNT;
}
static void v1_offsets(int r, long *off)
{
    for (long k = 0; k < 2 * V1_COUNT; k++)
        off[k] = 24 + 8L * r + (k / 2) * (2L * size + 1) * 4 + (k % 2) * 4;
}
static void v1_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    *disp = 24 + 8 * r;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_vector(V1_COUNT, 2, 2 * size + 1, MPI_INT, ft));
}
static void v1_check(MPI_Datatype ft)
{
    int ni, na, nd, comb, ints[3] = {0};
    MPI_Aint addrs[1];
    MPI_Datatype types[1] = {MPI_DATATYPE_NULL}, inner;
    int dup = unwrap_dup(ft, &inner);
    ft = inner;
    MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb);
    CHECK(ni == 3 && na == 0 && nd == 1, "vector envelope %d %d %d", ni, na, nd);
    if (ni != 3 || nd != 1)
        return;
    CHECK_MPI(MPI_Type_get_contents(ft, 3, 0, 1, ints, addrs, types));
    CHECK(ints[0] == V1_COUNT && ints[1] == 2 && ints[2] == 2 * size + 1, "vector contents %d %d %d", ints[0],
          ints[1], ints[2]);
    CHECK(types[0] == MPI_INT, "vector of something other than MPI_INT");
    if (dup)
        MPI_Type_free(&inner);
}

/* A vector of 4 blocks of 3 ints at a stride of 3*size ints, resized to
 * 12*size ints so that the tiles of all ranks interleave; two tiles. */
static long v2_count(int r)
{
    (void)r;
    return 24;
}
static void v2_offsets(int r, long *off)
{
    for (long k = 0; k < 24; k++)
        off[k] = 20 + 12L * r + (k / 12) * 48L * size + (k % 12 / 3) * 12L * size + (k % 3) * 4;
}
static void v2_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    MPI_Datatype v;
    *disp = 20 + 12 * r;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_vector(4, 3, 3 * size, MPI_INT, &v));
    CHECK_MPI(MPI_Type_create_resized(v, 0, 48L * size, ft));
    MPI_Type_free(&v);
}

/* A 13 x 7 int array in Fortran order behind 40 bytes; rank r owns a block
 * of rows, so its part is a strided set of short columns. */
#define S_ROWS 13
#define S_COLS 7
static long s_count(int r)
{
    return block_len(S_ROWS, size, r) * S_COLS;
}
static void s_offsets(int r, long *off)
{
    long nr = block_len(S_ROWS, size, r), r0 = block_start(S_ROWS, size, r);
    for (long k = 0; k < nr * S_COLS; k++)
        off[k] = 40 + ((r0 + k % nr) + (k / nr) * S_ROWS) * 4;
}
static void s_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    int sizes[2] = {S_ROWS, S_COLS};
    int sub[2] = {(int)block_len(S_ROWS, size, r), S_COLS};
    int starts[2] = {(int)block_start(S_ROWS, size, r), 0};
    *disp = 40;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, ft));
}

/* A 10 x 11 int array distributed with MPI_Type_create_darray over the
 * pd[0] x pd[1] grid (ranks in row-major order over the grid whatever the
 * array order).  The k-th element of a rank's buffer is the k-th element
 * it owns in the array's storage order. */
struct dacfg {
    int order, distrib[2], darg[2];
    long disp;
};
static const struct dacfg da_block = {MPI_ORDER_C, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                                      {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, 0};
static const struct dacfg da_cyclic = {MPI_ORDER_FORTRAN, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC},
                                       {3, MPI_DISTRIBUTE_DFLT_DARG}, 4};
static const int da_g[2] = {10, 11};

static int da_coord(const struct dacfg *c, int d, int g)
{
    if (c->distrib[d] == MPI_DISTRIBUTE_BLOCK) {
        int b = c->darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? (da_g[d] + pd[d] - 1) / pd[d] : c->darg[d];
        return g / b;
    }
    int k = c->darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : c->darg[d];
    return g / k % pd[d];
}

static long da_enum(const struct dacfg *c, int r, long *off)
{
    long n = 0;
    for (long lin = 0; lin < (long)da_g[0] * da_g[1]; lin++) {
        int i, j;
        if (c->order == MPI_ORDER_C)
            i = lin / da_g[1], j = lin % da_g[1];
        else
            i = lin % da_g[0], j = lin / da_g[0];
        if (da_coord(c, 0, i) * pd[1] + da_coord(c, 1, j) != r)
            continue;
        if (off)
            off[n] = c->disp + lin * 4;
        n++;
    }
    return n;
}

static void da_view(const struct dacfg *c, int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    *disp = c->disp;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_create_darray(size, r, 2, da_g, c->distrib, c->darg, pd, c->order, MPI_INT, ft));
}

static long dab_count(int r) { return da_enum(&da_block, r, NULL); }
static void dab_offsets(int r, long *off) { da_enum(&da_block, r, off); }
static void dab_view(int r, MPI_Offset *d, MPI_Datatype *e, MPI_Datatype *f) { da_view(&da_block, r, d, e, f); }
static long dac_count(int r) { return da_enum(&da_cyclic, r, NULL); }
static void dac_offsets(int r, long *off) { da_enum(&da_cyclic, r, off); }
static void dac_view(int r, MPI_Offset *d, MPI_Datatype *e, MPI_Datatype *f) { da_view(&da_cyclic, r, d, e, f); }

/* A struct with holes, etype MPI_BYTE: 2 ints at 0, a double at 16, 3
 * chars at 28 (19 bytes of 31), resized to 40*size bytes; each rank's
 * tiles start 40*r bytes further, from an odd displacement; three tiles. */
static long st_map(long j)
{
    return j < 8 ? j : j < 16 ? 16 + (j - 8) : 28 + (j - 16);
}
static long st_count(int r)
{
    (void)r;
    return 3 * 19;
}
static void st_offsets(int r, long *off)
{
    for (long k = 0; k < 3 * 19; k++)
        off[k] = 3 + 40L * r + (k / 19) * 40L * size + st_map(k % 19);
}
static void st_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    int bl[3] = {2, 1, 3};
    MPI_Aint dis[3] = {0, 16, 28};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, s;
    *disp = 3 + 40 * r;
    *et = MPI_BYTE;
    CHECK_MPI(MPI_Type_create_struct(3, bl, dis, ty, &s));
    CHECK_MPI(MPI_Type_create_resized(s, 0, 40L * size, ft));
    MPI_Type_free(&s);
}

/* A changed lower bound: 2 ints at byte 8+8r, resized to lb 4 and extent
 * E = 8*size+8.  Tile i is placed at disp + i*E and keeps its typemap's
 * displacements (the lb does not shift them); three tiles. */
static long rl_ext(void)
{
    return 8L * size + 8;
}
static long rl_count(int r)
{
    (void)r;
    return 6;
}
static void rl_offsets(int r, long *off)
{
    for (long k = 0; k < 6; k++)
        off[k] = 16 + (k / 2) * rl_ext() + 8 + 8L * r + (k % 2) * 4;
}
static void rl_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    MPI_Aint d = 8 + 8L * r;
    MPI_Datatype h;
    *disp = 16;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_create_hindexed_block(1, 2, &d, MPI_INT, &h));
    CHECK_MPI(MPI_Type_create_resized(h, 4, rl_ext(), ft));
    MPI_Type_free(&h);
}
static void rl_check(MPI_Datatype ft)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(ft, &lb, &ext);
    MPI_Type_get_true_extent(ft, &tlb, &text);
    CHECK(lb == 4 && ext == rl_ext(), "returned filetype lb %ld extent %ld, expected 4 %ld", (long)lb, (long)ext,
          rl_ext());
    CHECK(tlb == 8 + 8L * rank && text == 8, "returned filetype true lb %ld extent %ld", (long)tlb, (long)text);
}

/* Indexed: blocks of 1, 3, 2 ints at 0, 2, 7, resized to 10*size ints;
 * rank r's tiles start 40*r bytes in; two tiles. */
static const int ix_pos[6] = {0, 2, 3, 4, 7, 8};
static long ix_count(int r)
{
    (void)r;
    return 12;
}
static void ix_offsets(int r, long *off)
{
    for (long k = 0; k < 12; k++)
        off[k] = 40L * r + (k / 6) * 40L * size + ix_pos[k % 6] * 4;
}
static void ix_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    int bl[3] = {1, 3, 2}, dis[3] = {0, 2, 7};
    MPI_Datatype ix;
    *disp = 40 * r;
    *et = MPI_INT;
    CHECK_MPI(MPI_Type_indexed(3, bl, dis, MPI_INT, &ix));
    CHECK_MPI(MPI_Type_create_resized(ix, 0, 40L * size, ft));
    MPI_Type_free(&ix);
}

/* Predefined etype and filetype: each rank's 5 ints after a 16-byte
 * header; get_view must hand back MPI_INT itself. */
static long pr_count(int r)
{
    (void)r;
    return 5;
}
static void pr_offsets(int r, long *off)
{
    for (long k = 0; k < 5; k++)
        off[k] = 16 + 20L * r + 4 * k;
}
static void pr_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    *disp = 16 + 20 * r;
    *et = MPI_INT;
    *ft = MPI_INT;
}

/* A derived etype (a pair of ints) and a filetype of one pair resized to
 * 8*size bytes: offsets, positions and byte offsets count pairs. */
static long pa_count(int r)
{
    (void)r;
    return 8;
}
static void pa_offsets(int r, long *off)
{
    for (long k = 0; k < 8; k++)
        off[k] = 4 + 8L * r + (k / 2) * 8L * size + (k % 2) * 4;
}
static void pa_view(int r, MPI_Offset *disp, MPI_Datatype *et, MPI_Datatype *ft)
{
    *disp = 4 + 8 * r;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, et));
    CHECK_MPI(MPI_Type_create_resized(*et, 0, 8L * size, ft));
}

static const struct vcase cases[] = {
    {"vector", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_VECTOR, v1_count, v1_offsets, v1_view, v1_check},
    {"resized vector", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_RESIZED, v2_count, v2_offsets, v2_view, NULL},
    {"subarray", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_SUBARRAY, s_count, s_offsets, s_view, NULL},
    {"darray block", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_DARRAY, dab_count, dab_offsets, dab_view, NULL},
    {"darray cyclic", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_DARRAY, dac_count, dac_offsets, dac_view, NULL},
    {"struct with holes", 1, 1, MPI_COMBINER_NAMED, MPI_COMBINER_RESIZED, st_count, st_offsets, st_view, NULL},
    {"resized lb", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_RESIZED, rl_count, rl_offsets, rl_view, rl_check},
    {"indexed", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_RESIZED, ix_count, ix_offsets, ix_view, NULL},
    {"predefined", 4, 1, MPI_COMBINER_NAMED, MPI_COMBINER_NAMED, pr_count, pr_offsets, pr_view, NULL},
    {"derived etype", 4, 2, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_RESIZED, pa_count, pa_offsets, pa_view, NULL},
};

/* ------------------------------------------------------------------ */
/* Running one case                                                    */
/* ------------------------------------------------------------------ */

/* MPI_File_get_view right after set_view: same displacement and
 * representation; etype and filetype are the user's predefined handles or
 * new derived ones of the same constructor, size and extent, which are
 * freed here. */
static void check_view(const struct vcase *c, const char *what, MPI_Offset disp, MPI_Datatype et,
                       MPI_Datatype ft)
{
    MPI_Offset d = -1;
    MPI_Datatype e = MPI_DATATYPE_NULL, f = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING] = "";
    CHECK_MPI(MPI_File_get_view(fh, &d, &e, &f, rep));
    CHECK(d == disp, "%s: get_view displacement %lld, expected %lld", what, (long long)d, (long long)disp);
    CHECK(strcmp(rep, "native") == 0, "%s: get_view datarep '%s'", what, rep);
    MPI_Datatype mine[2] = {et, ft}, got[2] = {e, f};
    int want[2] = {c->etype_comb, c->ftype_comb};
    for (int i = 0; i < 2; i++) {
        int ni, na, nd, comb, s0, s1;
        MPI_Aint lb0, x0, lb1, x1;
        MPI_Datatype inner;
        int dup = unwrap_dup(got[i], &inner);
        MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
        CHECK(comb == want[i], "%s: returned %s has combiner %d, expected %d", what, i ? "filetype" : "etype",
              comb, want[i]);
        if (dup)
            MPI_Type_free(&inner);
        if (want[i] == MPI_COMBINER_NAMED)
            CHECK(got[i] == mine[i], "%s: predefined %s not returned as is", what, i ? "filetype" : "etype");
        else
            CHECK(got[i] != mine[i], "%s: derived %s returned as the user's handle", what, i ? "filetype" : "etype");
        MPI_Type_size(mine[i], &s0);
        MPI_Type_size(got[i], &s1);
        MPI_Type_get_extent(mine[i], &lb0, &x0);
        MPI_Type_get_extent(got[i], &lb1, &x1);
        CHECK(s0 == s1 && lb0 == lb1 && x0 == x1, "%s: returned %s size %d lb %ld extent %ld, set %d %ld %ld",
              what, i ? "filetype" : "etype", s1, (long)lb1, (long)x1, s0, (long)lb0, (long)x0);
        MPI_Aint fx = -1;
        CHECK_MPI(MPI_File_get_type_extent(fh, got[i], &fx));
        CHECK(fx == x1, "%s: MPI_File_get_type_extent %ld, extent %ld", what, (long)fx, (long)x1);
    }
    if (c->check_ft)
        c->check_ft(f);
    if (c->etype_comb != MPI_COMBINER_NAMED)
        CHECK_MPI(MPI_Type_free(&e));
    if (c->ftype_comb != MPI_COMBINER_NAMED)
        CHECK_MPI(MPI_Type_free(&f));
}

/* The file every rank's writes make: FILL, then each element of each rank
 * where its offsets say.  Also checks that the cases do not overlap. */
static unsigned char *expected_file(const struct vcase *c, int seq, long len)
{
    unsigned char *exp = malloc(len), *set = calloc(len, 1);
    memset(exp, FILL, len);
    for (int r = 0; r < size; r++) {
        long n = c->count(r);
        long *off = malloc((n + 1) * sizeof *off);
        c->offsets(r, off);
        for (long k = 0; k < n; k++)
            for (int b = 0; b < c->esz; b++) {
                long p = off[k] + b;
                CHECK(p >= 0 && p < len && !set[p], "%s: test layout broken at %ld", c->name, p);
                if (p < 0 || p >= len)
                    continue;
                set[p] = 1;
                exp[p] = uzt_byte(r, seq, k * c->esz + b);
            }
        free(off);
    }
    free(set);
    return exp;
}

static void run_case(const struct vcase *c, int indep, int seq)
{
    char what[128];
    snprintf(what, sizeof what, "%s (%s)", c->name, indep ? "independent" : "collective");
    long n = c->count(rank), esz = c->esz, epe = c->epe;
    long *off = malloc((n + 1) * sizeof *off);
    c->offsets(rank, off);
    long end = 0, len;
    for (long k = 0; k < n; k++)
        if (off[k] + esz > end)
            end = off[k] + esz;
    MPI_Allreduce(&end, &len, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    reset_file(len);

    MPI_Offset disp;
    MPI_Datatype et, ft;
    c->view(rank, &disp, &et, &ft);
    commit_if_derived(&et);
    commit_if_derived(&ft);
    CHECK_MPI(MPI_File_set_view(fh, disp, et, ft, "native", MPI_INFO_NULL));
    check_view(c, what, disp, et, ft);
    /* The view holds its own reference: free ours before using it. */
    if (!is_named(et))
        MPI_Type_free(&et);
    if (!is_named(ft))
        MPI_Type_free(&ft);

    /* Element k is at k (contiguous) or 2k (strided) in memory. */
    MPI_Datatype mt = esz == 4 ? MPI_INT : MPI_BYTE, strided;
    CHECK_MPI(MPI_Type_create_resized(mt, 0, 2 * esz, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    long stride = indep ? 2 : 1;
    unsigned char *mem = malloc(2 * n * esz + 1), *back = malloc(2 * n * esz + 1);
    memset(mem, 0x77, 2 * n * esz + 1);
    for (long k = 0; k < n; k++)
        for (int b = 0; b < esz; b++)
            mem[k * stride * esz + b] = uzt_byte(rank, seq, k * esz + b);

    MPI_Status st;
    int cnt = -1;
    long h = n / 2 / epe * epe;
    if (!indep) {
        CHECK_MPI(MPI_File_write_all(fh, mem, (int)n, mt, &st));
        MPI_Get_count(&st, mt, &cnt);
        CHECK(cnt == n, "%s: write_all count %d, expected %ld", what, cnt, n);
    } else {
        CHECK_MPI(MPI_File_write_at(fh, 0, mem, (int)h, strided, &st));
        CHECK_MPI(MPI_File_seek(fh, h / epe, MPI_SEEK_SET));
        CHECK_MPI(MPI_File_write(fh, mem + 2 * h * esz, (int)(n - h), strided, &st));
        MPI_Get_count(&st, strided, &cnt);
        CHECK(cnt == n - h, "%s: write count %d, expected %ld", what, cnt, n - h);
    }
    MPI_Offset pos = -1, bo = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == n / epe, "%s: position %lld after writing, expected %ld", what, (long long)pos, n / epe);
    long probes[4] = {0, 1, n / epe / 2, n / epe - 1};
    for (int i = 0; i < 4; i++) {
        if (probes[i] < 0 || probes[i] >= n / epe)
            continue;
        CHECK_MPI(MPI_File_get_byte_offset(fh, probes[i], &bo));
        CHECK(bo == off[probes[i] * epe], "%s: byte offset of etype %ld is %lld, expected %ld", what, probes[i],
              (long long)bo, off[probes[i] * epe]);
    }
    sync_all();

    /* Back through the same view. */
    memset(back, 0x11, 2 * n * esz + 1);
    if (!indep) {
        CHECK_MPI(MPI_File_read_at_all(fh, 0, back, (int)n, mt, &st));
        MPI_Get_count(&st, mt, &cnt);
        CHECK(cnt == n, "%s: read_at_all count %d, expected %ld", what, cnt, n);
    } else {
        CHECK_MPI(MPI_File_read_at(fh, 0, back, (int)h, strided, &st));
        CHECK_MPI(MPI_File_read_at(fh, h / epe, back + 2 * h * esz, (int)(n - h), strided, &st));
    }
    long bad = 0;
    for (long k = 0; k < n; k++)
        for (int b = 0; b < esz; b++)
            if (back[k * stride * esz + b] != uzt_byte(rank, seq, k * esz + b) && bad++ < 3)
                CHECK(0, "%s: element %ld byte %d read back wrong", what, k, b);
    CHECK(bad == 0, "%s: %ld bytes read back wrong", what, bad);
    if (indep)
        for (long k = 0; k < n; k++)
            CHECK(back[(2 * k + 1) * esz] == 0x11, "%s: read wrote into the gap after element %ld", what, k);

    unsigned char *exp = rank == 0 ? expected_file(c, seq, len) : NULL;
    check_file(exp, len, what);
    free(exp);
    free(mem);
    free(back);
    free(off);
    MPI_Type_free(&strided);
}

/* ------------------------------------------------------------------ */
/* The 3-D array under three decompositions                            */
/* ------------------------------------------------------------------ */

#define NX 12
#define NY 10
#define NZ 9
#define HDR 256

static double gidx(long i, long j, long k)
{
    return (double)((i * NY + j) * NZ + k);
}

static void run_3d(void)
{
    const int g[3] = {NX, NY, NZ};
    const long total = (long)NX * NY * NZ;
    reset_file(0);

    /* A header that the views skip. */
    unsigned char hdr[HDR];
    uzt_fill(hdr, HDR, 99, 0);
    if (rank == 0)
        CHECK_MPI(MPI_File_write_at(fh, 0, hdr, HDR, MPI_BYTE, MPI_STATUS_IGNORE));

    /* Write: blocks of a 3-D process grid. */
    int dims[3] = {0, 0, 0}, c[3], sub[3], start[3];
    MPI_Dims_create(size, 3, dims);
    c[0] = rank / (dims[1] * dims[2]);
    c[1] = rank / dims[2] % dims[1];
    c[2] = rank % dims[2];
    for (int d = 0; d < 3; d++) {
        sub[d] = (int)block_len(g[d], dims[d], c[d]);
        start[d] = (int)block_start(g[d], dims[d], c[d]);
    }
    long n = (long)sub[0] * sub[1] * sub[2];
    double *buf = malloc((n + 1) * sizeof *buf);
    long k = 0;
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            for (int l = 0; l < sub[2]; l++)
                buf[k++] = gidx(start[0] + i, start[1] + j, start[2] + l);
    MPI_Datatype ft;
    CHECK_MPI(MPI_Type_create_subarray(3, g, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Barrier(MPI_COMM_WORLD); /* the header is written before set_view's collective */
    CHECK_MPI(MPI_File_set_view(fh, HDR, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);
    MPI_Status st;
    int cnt = -1;
    CHECK_MPI(MPI_File_write_all(fh, buf, (int)n, MPI_DOUBLE, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == n, "3-D write_all count %d, expected %ld", cnt, n);
    free(buf);
    sync_all();

    /* The file: the header, then every element in C order. */
    if (rank == 0) {
        long len = HDR + total * 8;
        unsigned char *exp = malloc(len);
        memcpy(exp, hdr, HDR);
        for (long e = 0; e < total; e++) {
            double v = (double)e;
            memcpy(exp + HDR + e * 8, &v, 8);
        }
        check_file(exp, len, "3-D array");
        free(exp);
    } else {
        check_file(NULL, HDR + total * 8, "3-D array");
    }

    /* Read 1: slabs along z into a memory array with a ghost layer. */
    int nz = (int)block_len(NZ, size, rank), z0 = (int)block_start(NZ, size, rank);
    if (nz > 0) {
        int psz[3] = {NX + 2, NY + 2, nz + 2}, pin[3] = {NX, NY, nz}, pst[3] = {1, 1, 1};
        int fsub[3] = {NX, NY, nz}, fst[3] = {0, 0, z0};
        long pn = (long)psz[0] * psz[1] * psz[2];
        double *pad = malloc(pn * sizeof *pad);
        for (long e = 0; e < pn; e++)
            pad[e] = -1.0;
        MPI_Datatype mt;
        CHECK_MPI(MPI_Type_create_subarray(3, psz, pin, pst, MPI_ORDER_C, MPI_DOUBLE, &mt));
        CHECK_MPI(MPI_Type_commit(&mt));
        CHECK_MPI(MPI_Type_create_subarray(3, g, fsub, fst, MPI_ORDER_C, MPI_DOUBLE, &ft));
        CHECK_MPI(MPI_Type_commit(&ft));
        CHECK_MPI(MPI_File_set_view(fh, HDR, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
        CHECK_MPI(MPI_File_read_all(fh, pad, 1, mt, &st));
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        CHECK(cnt == NX * NY * nz, "z-slab read_all count %d, expected %d", cnt, NX * NY * nz);
        long bad = 0;
        for (int i = 0; i < psz[0]; i++)
            for (int j = 0; j < psz[1]; j++)
                for (int l = 0; l < psz[2]; l++) {
                    double v = pad[((long)i * psz[1] + j) * psz[2] + l];
                    int inside = i >= 1 && i <= NX && j >= 1 && j <= NY && l >= 1 && l <= nz;
                    double want = inside ? gidx(i - 1, j - 1, z0 + l - 1) : -1.0;
                    if (v != want && bad++ < 5)
                        CHECK(0, "z-slab: padded (%d,%d,%d) = %g, expected %g", i, j, l, v, want);
                }
        CHECK(bad == 0, "z-slab: %ld elements wrong", bad);
        MPI_Type_free(&mt);
        MPI_Type_free(&ft);
        free(pad);
    } else {
        /* More ranks than planes (not with NZ = 9 at up to 8 ranks, but
         * kept correct): take part in the collectives with nothing. */
        CHECK_MPI(MPI_File_set_view(fh, HDR, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
        CHECK_MPI(MPI_File_read_all(fh, NULL, 0, MPI_DOUBLE, &st));
    }

    /* Read 2: a cyclic darray on a 2-D grid — cyclic(2) rows, cyclic
     * columns, z not distributed — collectively, then independently. */
    int p2[3] = {0, 0, 1};
    MPI_Dims_create(size, 2, p2);
    int distrib[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
    int darg[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    CHECK_MPI(MPI_Type_create_darray(size, rank, 3, g, distrib, darg, p2, MPI_ORDER_C, MPI_DOUBLE, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    int fts;
    MPI_Type_size(ft, &fts);
    long mine = 0;
    for (long i = 0; i < NX; i++)
        for (long j = 0; j < NY; j++)
            if ((i / 2 % p2[0]) * p2[1] + j % p2[1] == rank)
                mine += NZ;
    CHECK(fts == mine * 8, "cyclic darray size %d, expected %ld", fts, mine * 8);
    CHECK_MPI(MPI_File_set_view(fh, HDR, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);
    buf = malloc((mine + 1) * sizeof *buf);
    for (int pass = 0; pass < 2; pass++) {
        for (long e = 0; e < mine; e++)
            buf[e] = -1.0;
        if (pass == 0) {
            CHECK_MPI(MPI_File_read_all(fh, buf, (int)mine, MPI_DOUBLE, &st));
        } else {
            CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_read(fh, buf, (int)mine, MPI_DOUBLE, &st));
        }
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        CHECK(cnt == mine, "darray read count %d, expected %ld", cnt, mine);
        long e = 0, bad = 0;
        for (long i = 0; i < NX; i++)
            for (long j = 0; j < NY; j++) {
                if ((i / 2 % p2[0]) * p2[1] + j % p2[1] != rank)
                    continue;
                for (long l = 0; l < NZ; l++, e++)
                    if (buf[e] != gidx(i, j, l) && bad++ < 5)
                        CHECK(0, "darray %s: (%ld,%ld,%ld) read as %g", pass ? "read" : "read_all", i, j, l, buf[e]);
            }
        CHECK(bad == 0, "darray %s: %ld elements wrong", pass ? "read" : "read_all", bad);
    }
    free(buf);
}

/* ------------------------------------------------------------------ */

/* The view a file opens with, and type extents under "native". */
static void check_default_view(void)
{
    MPI_Offset d = -1;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING] = "";
    CHECK_MPI(MPI_File_get_view(fh, &d, &e, &f, rep));
    CHECK(d == 0 && e == MPI_BYTE && f == MPI_BYTE && strcmp(rep, "native") == 0,
          "default view: disp %lld, etype MPI_BYTE %d, filetype MPI_BYTE %d, datarep '%s'", (long long)d,
          e == MPI_BYTE, f == MPI_BYTE, rep);
    MPI_Aint x = -1;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &x));
    CHECK_EQ(x, (MPI_Aint)sizeof(int));
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &x));
    CHECK_EQ(x, (MPI_Aint)sizeof(double));
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 5, MPI_SHORT, &v);
    MPI_Type_commit(&v); /* MPICH refuses uncommitted types here */
    CHECK_MPI(MPI_File_get_type_extent(fh, v, &x));
    CHECK_EQ(x, (MPI_Aint)(12 * sizeof(short)));
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, pd);
    make_path("views");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    check_default_view();

    int seq = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int indep = 0; indep < 2; indep++)
            run_case(&cases[i], indep, seq++);
    run_3d();

    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    return uzt_finish("io_views");
}
