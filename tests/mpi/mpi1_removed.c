/*
 * mpi1_removed.c — an MPI-1 style program: the procedures MPI-3.0 removed
 * (MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hvector/hindexed/struct with
 * the MPI_LB and MPI_UB markers, MPI_Errhandler_create/set/get) give the
 * MPI-1 results: addresses, bounds and extents with sticky markers, struct
 * layouts that carry every field of an array of C structs to another rank,
 * and an error handler round trip that the handler proves by running.
 * Built by mpi1_removed.sh with the mpicc wrapper (which also checks the
 * deprecation warnings); MPI_ERRORS_RETURN only after the handler test.
 */
#include <stddef.h>

#include "uztest.h"

struct particle {
    double x[3];
    int id;
    char tag;
};

static void check_bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint ub, int size, const char *what)
{
    MPI_Aint got_lb = -1, got_ub = -1, got_extent = -1, lb2, extent2;
    int got_size = -1;
    CHECK_MPI(MPI_Type_lb(t, &got_lb));
    CHECK_MPI(MPI_Type_ub(t, &got_ub));
    CHECK_MPI(MPI_Type_extent(t, &got_extent));
    MPI_Type_size(t, &got_size);
    MPI_Type_get_extent(t, &lb2, &extent2);
    CHECK(got_lb == lb && got_ub == ub && got_extent == ub - lb && got_size == size,
          "%s: lb %ld ub %ld extent %ld size %d, expected lb %ld ub %ld extent %ld size %d", what,
          (long)got_lb, (long)got_ub, (long)got_extent, got_size, (long)lb, (long)ub, (long)(ub - lb), size);
    CHECK(lb2 == got_lb && extent2 == got_extent, "%s: MPI_Type_get_extent disagrees", what);
}

/* The bound markers: explicit, sticky, one side each. */
static void markers(void)
{
    MPI_Datatype t1, t2, lbonly, t3, t4, ub0;
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d1[3] = { -8, 0, 20 };
    MPI_Datatype ty1[3] = { MPI_LB, MPI_INT, MPI_UB };
    CHECK_MPI(MPI_Type_struct(3, bl, d1, ty1, &t1));
    check_bounds(t1, -8, 20, 4, "struct {LB -8, int 0, UB 20}");
    /* Three copies: the markers of each copy count, so lb stays at the
     * first copy's and ub is the last copy's. */
    CHECK_MPI(MPI_Type_contiguous(3, t1, &t2));
    check_bounds(t2, -8, 20 + 2 * 28, 12, "contiguous(3) of it");

    /* A lower marker alone: ub still comes from the data, and stays so in
     * a struct with more data beyond (the MPI-1 rule; both-sided stickiness
     * would give 4 there). */
    MPI_Aint d2[2] = { -4, 0 };
    MPI_Datatype ty2[2] = { MPI_LB, MPI_INT };
    CHECK_MPI(MPI_Type_struct(2, bl, d2, ty2, &lbonly));
    check_bounds(lbonly, -4, 4, 4, "struct {LB -4, int 0}");
    MPI_Aint d3[2] = { 0, 100 };
    MPI_Datatype ty3[2] = { lbonly, MPI_INT };
    CHECK_MPI(MPI_Type_struct(2, bl, d3, ty3, &t3));
    check_bounds(t3, -4, 104, 8, "struct {that at 0, int at 100}");

    /* An upper marker: no padding to the alignment. */
    MPI_Aint d4[3] = { 0, 8, 13 };
    MPI_Datatype ty4[3] = { MPI_DOUBLE, MPI_CHAR, MPI_UB };
    CHECK_MPI(MPI_Type_struct(3, bl, d4, ty4, &t4));
    check_bounds(t4, 0, 13, 9, "struct {double 0, char 8, UB 13}");
    /* Without it the same data is padded to the double's alignment. */
    MPI_Datatype t5;
    CHECK_MPI(MPI_Type_struct(2, bl, d4, ty4, &t5));
    check_bounds(t5, 0, 16, 9, "struct {double 0, char 8}");
    /* A marker with no data around it. */
    MPI_Aint d6[1] = { 24 };
    MPI_Datatype ty6[1] = { MPI_UB };
    CHECK_MPI(MPI_Type_struct(1, bl, d6, ty6, &ub0));
    check_bounds(ub0, 24, 24, 0, "struct {UB 24}");
    check_bounds(MPI_LB, 0, 0, 0, "MPI_LB");
    check_bounds(MPI_UB, 0, 0, 0, "MPI_UB");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_UB, name, &len);
    CHECK(strcmp(name, "MPI_UB") == 0, "name of MPI_UB: %s", name);
    MPI_Type_free(&t1);
    MPI_Type_free(&t2);
    MPI_Type_free(&lbonly);
    MPI_Type_free(&t3);
    MPI_Type_free(&t4);
    MPI_Type_free(&t5);
    MPI_Type_free(&ub0);
}

/* The MPI-1 idiom: a struct type from MPI_Address displacements with
 * MPI_UB at the end of the C struct, sent as an array. */
static void particles(int rank, int size)
{
    struct particle p[4], q[4];
    memset(p, 0x5a, sizeof(p));
    memset(q, 0xa5, sizeof(q));
    MPI_Aint base, addr[4];
    CHECK_MPI(MPI_Address(&p[0], &base));
    CHECK_MPI(MPI_Address(p[0].x, &addr[0]));
    CHECK_MPI(MPI_Address(&p[0].id, &addr[1]));
    CHECK_MPI(MPI_Address(&p[0].tag, &addr[2]));
    CHECK_MPI(MPI_Address(&p[1], &addr[3]));
    MPI_Aint want;
    MPI_Get_address(&p[0].id, &want);
    CHECK(addr[1] == want && addr[1] - base == offsetof(struct particle, id),
          "MPI_Address of p[0].id: %ld, MPI_Get_address %ld", (long)addr[1], (long)want);
    int bl[4] = { 3, 1, 1, 1 };
    MPI_Aint disp[4];
    for (int i = 0; i < 4; i++)
        disp[i] = addr[i] - base;
    MPI_Datatype types[4] = { MPI_DOUBLE, MPI_INT, MPI_CHAR, MPI_UB }, ptype;
    CHECK_MPI(MPI_Type_struct(4, bl, disp, types, &ptype));
    CHECK_MPI(MPI_Type_commit(&ptype));
    check_bounds(ptype, 0, sizeof(struct particle), 3 * 8 + 4 + 1, "particle");

    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++)
            p[i].x[k] = rank * 100 + i * 10 + k + 0.25;
        p[i].id = rank * 1000 + i;
        p[i].tag = (char)('a' + rank % 20 + i);
    }
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    CHECK_MPI(MPI_Sendrecv(p, 4, ptype, to, 1, q, 4, ptype, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++)
            CHECK(q[i].x[k] == from * 100 + i * 10 + k + 0.25, "q[%d].x[%d] = %g", i, k, q[i].x[k]);
        CHECK(q[i].id == from * 1000 + i, "q[%d].id = %d", i, q[i].id);
        CHECK(q[i].tag == (char)('a' + from % 20 + i), "q[%d].tag = %d", i, q[i].tag);
        /* The padding after the tag is not part of the type. */
        const unsigned char *pad = (const unsigned char *)&q[i].tag + 1;
        for (size_t b = 0; b < sizeof(struct particle) - offsetof(struct particle, tag) - 1; b++)
            CHECK(pad[b] == 0xa5, "q[%d] padding byte %zu written", i, b);
    }
    int n = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(p, 2, ptype, rank, 2, q, 4, ptype, rank, 2, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, ptype, &n);
    CHECK(n == 2, "MPI_Get_count with the struct type: %d", n);
    MPI_Type_free(&ptype);
}

/* hvector (stride in bytes) and hindexed (displacements in bytes). */
static void hvector_hindexed(int rank, int size)
{
    int a[12], b[12];
    for (int i = 0; i < 12; i++) {
        a[i] = rank * 100 + i;
        b[i] = -1;
    }
    MPI_Datatype hv, hi;
    CHECK_MPI(MPI_Type_hvector(3, 2, 4 * sizeof(int), MPI_INT, &hv));
    CHECK_MPI(MPI_Type_commit(&hv));
    check_bounds(hv, 0, (2 * 4 + 2) * sizeof(int), 6 * sizeof(int), "hvector(3, 2, 16 bytes)");
    int bl[3] = { 1, 3, 2 };
    MPI_Aint disp[3] = { 11 * sizeof(int), 0, 5 * sizeof(int) };
    CHECK_MPI(MPI_Type_hindexed(3, bl, disp, MPI_INT, &hi));
    CHECK_MPI(MPI_Type_commit(&hi));
    check_bounds(hi, 0, 12 * sizeof(int), 6 * sizeof(int), "hindexed");
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(hv, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nd == 1,
          "hvector envelope: combiner %d (%d %d %d)", combiner, ni, na, nd);
    CHECK(MPI_COMBINER_HVECTOR_INTEGER == MPI_COMBINER_HVECTOR, "MPI_COMBINER_HVECTOR_INTEGER");
    MPI_Type_get_envelope(hi, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_HINDEXED, "hindexed envelope: combiner %d", combiner);

    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    CHECK_MPI(MPI_Sendrecv(a, 1, hv, to, 3, b, 1, hv, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++) {
        int in = i % 4 < 2 && i < 10;
        CHECK(b[i] == (in ? from * 100 + i : -1), "hvector b[%d] = %d", i, b[i]);
    }
    for (int i = 0; i < 12; i++)
        b[i] = -1;
    CHECK_MPI(MPI_Sendrecv(a, 1, hi, to, 4, b, 6, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int order[6] = { 11, 0, 1, 2, 5, 6 };
    for (int i = 0; i < 6; i++)
        CHECK(b[i] == from * 100 + order[i], "hindexed b[%d] = %d, expected %d", i, b[i], from * 100 + order[i]);
    MPI_Type_free(&hv);
    MPI_Type_free(&hi);
}

static int handler_calls, handler_class;
static MPI_Comm handler_comm;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

/* MPI_Errhandler_create / set / get: the handler set is the one returned,
 * and it is the one that runs. */
static void errhandlers(int size)
{
    MPI_Handler_function *fn = count_errors;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Errhandler_create(fn, &eh));
    CHECK(eh != MPI_ERRHANDLER_NULL, "MPI_Errhandler_create gave MPI_ERRHANDLER_NULL");
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == eh, "MPI_Errhandler_get returned another handler");
    MPI_Errhandler_free(&got);
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_RANK && handler_comm == MPI_COMM_WORLD,
          "the handler ran %d times with class %d", handler_calls, handler_class);
    CHECK(uzt_class(rc) == MPI_ERR_RANK, "MPI_Send returned class %d", uzt_class(rc));
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_Errhandler_get after setting MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&eh));

    /* Errors name the old procedure. */
    MPI_Aint e;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    rc = MPI_Type_extent(MPI_DATATYPE_NULL, &e);
    MPI_Error_string(rc, text, &len);
    CHECK(uzt_class(rc) == MPI_ERR_TYPE && strstr(text, "MPI_Type_extent"), "MPI_Type_extent error: %s", text);
    rc = MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN);
    CHECK(uzt_class(rc) == MPI_ERR_COMM, "MPI_Errhandler_set(MPI_COMM_NULL): class %d", uzt_class(rc));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    errhandlers(size);
    markers();
    particles(rank, size);
    hvector_hindexed(rank, size);
    /* PMPI_ names exist too (the profiling interface). */
    MPI_Aint ext = 0;
    CHECK_MPI(PMPI_Type_extent(MPI_DOUBLE, &ext));
    CHECK(ext == sizeof(double), "PMPI_Type_extent(MPI_DOUBLE) = %ld", (long)ext);
    return uzt_finish("mpi1_removed");
}
