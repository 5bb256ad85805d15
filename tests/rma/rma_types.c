/*
 * rma_types.c — derived datatypes on the origin and the target side of
 * MPI_Put, MPI_Get, MPI_Accumulate (MPI_SUM) and MPI_Get_accumulate
 * (MPI_SUM, the result in a third layout).
 *
 * Layouts of twelve int or twelve double elements: a predefined type with
 * count 12, contiguous, vector, vector with count 2 (extent not a multiple
 * of the stride), vector with a negative stride (negative lower bound),
 * indexed with blocks out of address order, indexed_block, a resized
 * struct of one basic type with count 2, and a 2-D subarray.  Each case
 * pairs two different layouts (origin contiguous and target vector, and
 * the other way round, and so on).  Layouts of {int, double} structs with
 * gaps, three different ones, are used for Put and Get only: accumulate
 * operations need every basic component of both types to be the same
 * predefined type (MPI-4.1 §12.3.4).
 *
 * The expected bytes come from explicit lists of element offsets written
 * here, not from the library's datatype engine.  Every byte of the target
 * window region (and, for Get and Get_accumulate, of the origin and
 * result buffers) is checked: elements in the footprint hold the right
 * value and everything else keeps its background pattern.
 *
 * All cases run in one epoch, each in a region of its own, three times:
 * MPI_Win_create (disp_unit 1) with fences, MPI_Win_allocate (disp_unit 8)
 * with lock_all, MPI_Win_allocate_shared (disp_unit 4) with fences.  Each
 * rank targets (rank+1)%size, itself at one rank.
 */
#include <stddef.h>

#include "uztest.h"

enum { EL_INT, EL_DOUBLE };
enum { MAXEL = 12 };

struct lay {
    const char *name;
    MPI_Datatype type;
    int count;
    int nel;
    MPI_Aint off[MAXEL]; /* byte offsets, in type-map order, all instances */
    int kind[MAXEL];
};

enum { L_BASIC, L_CONTIG, L_VECTOR, L_VEC2, L_NEGVEC, L_INDEXED, L_IBLOCK, L_STRUCT, L_SUBARRAY, L_MIXA, L_MIXB,
       L_MIXC, NLAY };
static const char *lay_name[] = { "predefined", "contiguous", "vector", "vector*2", "vector(-stride)", "indexed",
                                  "indexed_block", "struct*2", "subarray", "struct{int,double}A",
                                  "struct{int,double}B", "struct{int,double}C" };

/* The layout `id` of twelve elements of `kind` (ignored for the mixed ones). */
static struct lay build(int id, int kind)
{
    struct lay l;
    memset(&l, 0, sizeof(l));
    l.name = lay_name[id];
    MPI_Datatype bt = kind == EL_INT ? MPI_INT : MPI_DOUBLE;
    MPI_Aint es = kind == EL_INT ? 4 : 8;
    int n = 0;
    l.count = 1;
    switch (id) {
    case L_BASIC:
        l.type = bt;
        l.count = 12;
        for (int i = 0; i < 12; i++)
            l.off[n++] = i * es;
        break;
    case L_CONTIG:
        MPI_Type_contiguous(12, bt, &l.type);
        for (int i = 0; i < 12; i++)
            l.off[n++] = i * es;
        break;
    case L_VECTOR:
        MPI_Type_vector(4, 3, 5, bt, &l.type);
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 3; j++)
                l.off[n++] = (b * 5 + j) * es;
        break;
    case L_VEC2: /* extent 7 elements */
        MPI_Type_vector(2, 3, 4, bt, &l.type);
        l.count = 2;
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < 2; b++)
                for (int j = 0; j < 3; j++)
                    l.off[n++] = (c * 7 + b * 4 + j) * es;
        break;
    case L_NEGVEC:
        MPI_Type_vector(3, 4, -6, bt, &l.type);
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 4; j++)
                l.off[n++] = (-6 * b + j) * es;
        break;
    case L_INDEXED: {
        int bl[] = { 5, 4, 3 }, d[] = { 7, 0, 14 };
        MPI_Type_indexed(3, bl, d, bt, &l.type);
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < bl[b]; j++)
                l.off[n++] = (d[b] + j) * es;
        break;
    }
    case L_IBLOCK: {
        int d[] = { 9, 1, 13, 5 };
        MPI_Type_create_indexed_block(4, 3, d, bt, &l.type);
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 3; j++)
                l.off[n++] = (d[b] + j) * es;
        break;
    }
    case L_STRUCT: { /* {3 at 0, 3 at 5} resized to 10 elements, count 2 */
        int bl[] = { 3, 3 };
        MPI_Aint d[] = { 0, 5 * es };
        MPI_Datatype ts[] = { bt, bt }, tmp;
        MPI_Type_create_struct(2, bl, d, ts, &tmp);
        MPI_Type_create_resized(tmp, 0, 10 * es, &l.type);
        MPI_Type_free(&tmp);
        l.count = 2;
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < 2; b++)
                for (int j = 0; j < 3; j++)
                    l.off[n++] = (c * 10 + b * 5 + j) * es;
        break;
    }
    case L_SUBARRAY: {
        int sizes[] = { 6, 8 }, sub[] = { 3, 4 }, st[] = { 2, 3 };
        MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, bt, &l.type);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                l.off[n++] = ((2 + r) * 8 + 3 + c) * es;
        break;
    }
    case L_MIXA: { /* {int at 0, double at 8}, extent 16, count 3 */
        int bl[] = { 1, 1 };
        MPI_Aint d[] = { 0, 8 };
        MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE };
        MPI_Type_create_struct(2, bl, d, ts, &l.type);
        l.count = 3;
        for (int c = 0; c < 3; c++) {
            l.kind[n] = EL_INT, l.off[n++] = c * 16;
            l.kind[n] = EL_DOUBLE, l.off[n++] = c * 16 + 8;
        }
        break;
    }
    case L_MIXB: { /* {int at 4, double at 16}, resized to 32, count 3 */
        int bl[] = { 1, 1 };
        MPI_Aint d[] = { 4, 16 };
        MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE }, tmp;
        MPI_Type_create_struct(2, bl, d, ts, &tmp);
        MPI_Type_create_resized(tmp, 0, 32, &l.type);
        MPI_Type_free(&tmp);
        l.count = 3;
        for (int c = 0; c < 3; c++) {
            l.kind[n] = EL_INT, l.off[n++] = c * 32 + 4;
            l.kind[n] = EL_DOUBLE, l.off[n++] = c * 32 + 16;
        }
        break;
    }
    case L_MIXC: { /* one struct of six blocks out of address order */
        int bl[] = { 1, 1, 1, 1, 1, 1 };
        MPI_Aint d[] = { 0, 56, 12, 40, 28, 16 };
        MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE };
        MPI_Type_create_struct(6, bl, d, ts, &l.type);
        for (int i = 0; i < 6; i++)
            l.kind[n] = i % 2 ? EL_DOUBLE : EL_INT, l.off[n++] = d[i];
        break;
    }
    }
    l.nel = n;
    if (id < L_MIXA)
        for (int i = 0; i < n; i++)
            l.kind[i] = kind;
    if (l.type != bt)
        MPI_Type_commit(&l.type);
    return l;
}

enum { OP_PUT, OP_GET, OP_ACC, OP_GACC, NOPK };
static const char *op_name[] = { "Put", "Get", "Accumulate(SUM)", "Get_accumulate(SUM)" };

struct tcase {
    int op, kind, o, t, r; /* layouts of origin, target, result */
};

enum { MAXCASES = 96, REGION = 1024, ORG = 256 /* where the type's origin is in a region */ };
static struct tcase cases[MAXCASES];
static int ncases;

static void add_cases(void)
{
    static const int ipairs[][2] = {
        { L_CONTIG, L_VECTOR }, { L_VECTOR, L_CONTIG },     { L_INDEXED, L_CONTIG }, { L_CONTIG, L_INDEXED },
        { L_STRUCT, L_SUBARRAY }, { L_SUBARRAY, L_STRUCT }, { L_VEC2, L_IBLOCK },    { L_NEGVEC, L_VECTOR },
        { L_BASIC, L_SUBARRAY }, { L_IBLOCK, L_NEGVEC },    { L_SUBARRAY, L_VEC2 },
    };
    static const int dpairs[][2] = {
        { L_CONTIG, L_VECTOR },  { L_VECTOR, L_CONTIG }, { L_INDEXED, L_SUBARRAY },
        { L_SUBARRAY, L_INDEXED }, { L_NEGVEC, L_STRUCT }, { L_BASIC, L_VEC2 },
    };
    static const int mpairs[][2] = { { L_MIXA, L_MIXB }, { L_MIXB, L_MIXC }, { L_MIXC, L_MIXA }, { L_MIXA, L_MIXA } };
    int ni = sizeof(ipairs) / sizeof(ipairs[0]), nd = sizeof(dpairs) / sizeof(dpairs[0]);
    for (int op = 0; op < NOPK; op++) {
        for (int i = 0; i < ni; i++)
            cases[ncases++] = (struct tcase){ op, EL_INT, ipairs[i][0], ipairs[i][1], ipairs[(i + 1) % ni][1] };
        for (int i = 0; i < nd; i++)
            cases[ncases++] = (struct tcase){ op, EL_DOUBLE, dpairs[i][0], dpairs[i][1], dpairs[(i + 2) % nd][0] };
        if (op == OP_PUT || op == OP_GET)
            for (int i = 0; i < 4; i++)
                cases[ncases++] = (struct tcase){ op, EL_INT, mpairs[i][0], mpairs[i][1], 0 };
    }
}

static int rank, size;

/* The value of element j in buffers of `who` for case c (role 0: origin
 * data, 1: target contents); doubles are exact. */
static long elval(int who, int c, int j, int role)
{
    return (long)(who + 1) * 100000 + (long)c * 100 + j * 3 + role * 50 + 1;
}

static void put_el(unsigned char *p, int kind, long v)
{
    if (kind == EL_INT) {
        int x = (int)v;
        memcpy(p, &x, 4);
    } else {
        double x = (double)v + 0.25;
        memcpy(p, &x, 8);
    }
}

/* Add `v` to the element (as the target's MPI_SUM would). */
static void add_el(unsigned char *p, int kind, long v)
{
    if (kind == EL_INT) {
        int x;
        memcpy(&x, p, 4);
        x += (int)v;
        memcpy(p, &x, 4);
    } else {
        double x;
        memcpy(&x, p, 8);
        x += (double)v + 0.25;
        memcpy(p, &x, 8);
    }
}

/* A region: background bytes, then the layout's elements set to values. */
static void fill_region(unsigned char *reg, int who, int c, int seq, const struct lay *l, int role)
{
    uzt_fill(reg, REGION, who, seq * 1000 + c);
    if (l)
        for (int j = 0; j < l->nel; j++)
            put_el(reg + ORG + l->off[j], l->kind[j], elval(who, c, j, role));
}

static int compare_region(const unsigned char *got, const unsigned char *exp, const char *what, int c,
                          const char *flav)
{
    for (int i = 0; i < REGION; i++)
        if (got[i] != exp[i]) {
            const struct tcase *k = &cases[c];
            CHECK(0,
                  "%s: case %d %s %s origin %s -> target %s: %s byte %d (type origin %+d) is 0x%02x, expected 0x%02x",
                  flav, c, op_name[k->op], k->kind == EL_INT ? "int" : "double", lay_name[k->o], lay_name[k->t], what,
                  i, i - ORG, got[i], exp[i]);
            return 1;
        }
    return 0;
}

enum { P_CREATE_FENCE, P_ALLOCATE_LOCKALL, P_SHARED_FENCE, NPASS };
static const char *pass_name[] = { "create+fence", "allocate+lock_all", "allocate_shared+fence" };

static void run_pass(int pass, struct lay (*lays)[NLAY])
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    size_t bytes = (size_t)ncases * REGION;
    unsigned char *mem = NULL, *obuf = malloc(bytes), *rbuf = malloc(bytes), *exp = malloc(REGION);
    int du;
    MPI_Win win;
    MPI_Comm comm = MPI_COMM_WORLD;
    if (pass == P_CREATE_FENCE) {
        du = 1;
        mem = malloc(bytes);
        CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, du, MPI_INFO_NULL, comm, &win));
    } else if (pass == P_ALLOCATE_LOCKALL) {
        du = 8;
        CHECK_MPI(MPI_Win_allocate((MPI_Aint)bytes, du, MPI_INFO_NULL, comm, &mem, &win));
    } else {
        du = 4;
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm));
        int n;
        MPI_Comm_size(comm, &n);
        if (n != size) { /* not every rank on one node: the shared pass needs them to be */
            MPI_Comm_free(&comm);
            free(obuf), free(rbuf), free(exp);
            return;
        }
        CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)bytes, du, MPI_INFO_NULL, comm, &mem, &win));
    }
    int passive = pass == P_ALLOCATE_LOCKALL;

    /* The target contents, the origin data, the result buffers. */
    if (passive)
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int c = 0; c < ncases; c++) {
        const struct tcase *k = &cases[c];
        const struct lay *lo = &lays[k->kind][k->o], *lt = &lays[k->kind][k->t], *lr = &lays[k->kind][k->r];
        fill_region(mem + (size_t)c * REGION, rank, c, 1, k->op == OP_PUT ? NULL : lt, 1);
        fill_region(obuf + (size_t)c * REGION, rank, c, 2, k->op == OP_GET ? NULL : lo, 0);
        fill_region(rbuf + (size_t)c * REGION, rank, c, 3, NULL, 0);
        (void)lr;
    }
    if (passive) {
        CHECK_MPI(MPI_Win_unlock(rank, win));
        CHECK_MPI(MPI_Barrier(comm));
        CHECK_MPI(MPI_Win_lock_all(0, win));
    } else {
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    }

    for (int c = 0; c < ncases; c++) {
        const struct tcase *k = &cases[c];
        const struct lay *lo = &lays[k->kind][k->o], *lt = &lays[k->kind][k->t], *lr = &lays[k->kind][k->r];
        unsigned char *ob = obuf + (size_t)c * REGION + ORG, *rb = rbuf + (size_t)c * REGION + ORG;
        MPI_Aint td = ((MPI_Aint)c * REGION + ORG) / du;
        switch (k->op) {
        case OP_PUT:
            CHECK_MPI(MPI_Put(ob, lo->count, lo->type, to, td, lt->count, lt->type, win));
            break;
        case OP_GET:
            CHECK_MPI(MPI_Get(ob, lo->count, lo->type, to, td, lt->count, lt->type, win));
            break;
        case OP_ACC:
            CHECK_MPI(MPI_Accumulate(ob, lo->count, lo->type, to, td, lt->count, lt->type, MPI_SUM, win));
            break;
        case OP_GACC:
            CHECK_MPI(MPI_Get_accumulate(ob, lo->count, lo->type, rb, lr->count, lr->type, to, td, lt->count,
                                         lt->type, MPI_SUM, win));
            break;
        }
    }

    if (passive) {
        CHECK_MPI(MPI_Win_unlock_all(win));
        CHECK_MPI(MPI_Barrier(comm));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    } else {
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    }

    int bad = 0;
    for (int c = 0; c < ncases && bad < 10; c++) {
        const struct tcase *k = &cases[c];
        const struct lay *lo = &lays[k->kind][k->o], *lt = &lays[k->kind][k->t], *lr = &lays[k->kind][k->r];
        /* This rank's window region, written by `from`. */
        fill_region(exp, rank, c, 1, k->op == OP_PUT ? NULL : lt, 1);
        if (k->op == OP_PUT)
            for (int j = 0; j < lt->nel; j++)
                put_el(exp + ORG + lt->off[j], lt->kind[j], elval(from, c, j, 0));
        if (k->op == OP_ACC || k->op == OP_GACC)
            for (int j = 0; j < lt->nel; j++)
                add_el(exp + ORG + lt->off[j], lt->kind[j], elval(from, c, j, 0));
        bad += compare_region(mem + (size_t)c * REGION, exp, "target", c, pass_name[pass]);
        /* The origin buffer: written by Get only. */
        fill_region(exp, rank, c, 2, k->op == OP_GET ? NULL : lo, 0);
        if (k->op == OP_GET)
            for (int j = 0; j < lo->nel; j++)
                put_el(exp + ORG + lo->off[j], lo->kind[j], elval(to, c, j, 1));
        bad += compare_region(obuf + (size_t)c * REGION, exp, "origin", c, pass_name[pass]);
        /* The result buffer: written by Get_accumulate only. */
        fill_region(exp, rank, c, 3, NULL, 0);
        if (k->op == OP_GACC)
            for (int j = 0; j < lr->nel; j++)
                put_el(exp + ORG + lr->off[j], lr->kind[j], elval(to, c, j, 1));
        bad += compare_region(rbuf + (size_t)c * REGION, exp, "result", c, pass_name[pass]);
    }

    if (passive)
        CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Win_free(&win));
    if (pass == P_CREATE_FENCE)
        free(mem);
    if (comm != MPI_COMM_WORLD)
        CHECK_MPI(MPI_Comm_free(&comm));
    free(obuf), free(rbuf), free(exp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static struct lay lays[2][NLAY];
    for (int k = 0; k < 2; k++)
        for (int id = 0; id < NLAY; id++)
            lays[k][id] = build(id, k);
    add_cases();
    CHECK(ncases <= MAXCASES, "too many cases");

    /* The explicit offsets agree with the types' sizes, and no layout
     * reaches outside its region. */
    for (int k = 0; k < 2; k++)
        for (int id = 0; id < NLAY; id++) {
            const struct lay *l = &lays[k][id];
            int sz, want = 0;
            MPI_Type_size(l->type, &sz);
            for (int j = 0; j < l->nel; j++) {
                want += l->kind[j] == EL_INT ? 4 : 8;
                CHECK(ORG + l->off[j] >= 0 && ORG + l->off[j] + 8 <= REGION, "%s: offset %ld outside the region",
                      l->name, (long)l->off[j]);
            }
            CHECK_EQ((long)sz * l->count, want);
        }

    for (int p = 0; p < NPASS; p++)
        run_pass(p, lays);

    for (int k = 0; k < 2; k++)
        for (int id = 0; id < NLAY; id++)
            if (id != L_BASIC)
                MPI_Type_free(&lays[k][id].type);
    return uzt_finish("rma_types");
}
