/*
 * coll_scan_area.c — MPI_Scan and MPI_Exscan on every element: predefined
 * and non-commutative user operations (rank order checked), contiguous and
 * derived datatypes with holes (which must stay untouched), in place or
 * not, vectors of one to many slot-sized pieces, back-to-back calls, on the
 * world and on a communicator of its ranks in reverse order; and
 * Exscan must leave rank 0's receive buffer as it was.
 *
 *   coll_scan_area [shm]    with "shm", also check (MPI_T state variable
 *                          scan_algorithm) that the shared area ran them
 *
 * CMake runs it with UZURA_COLL_SCAN=shm and a small UZURA_COLL_SHM_SLOT,
 * so that long vectors go through the area in many pieces.
 */
#include "uztest.h"

/* The communicator under test, and this rank's place in it. */
static MPI_Comm comm;
static int rank, size;

enum { SENTINEL = 0x5a5a5a5a };

/* A datatype case: each element `su` unsigned ints apart, its fields at
 * offsets fields[0..nf) (the rest are holes). */
struct tcase {
    const char *name;
    MPI_Datatype type;
    int su, nf, fields[2];
};
static struct tcase tcases[4];

static void make_tcases(void)
{
    MPI_Datatype strided, holey_pair, holey, pair;
    MPI_Type_create_resized(MPI_UNSIGNED, 0, 2 * sizeof(unsigned), &strided);
    MPI_Type_vector(2, 1, 2, MPI_UNSIGNED, &holey_pair);
    MPI_Type_create_resized(holey_pair, 0, 4 * sizeof(unsigned), &holey);
    MPI_Type_free(&holey_pair);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&strided);
    MPI_Type_commit(&holey);
    MPI_Type_commit(&pair);
    tcases[0] = (struct tcase){ "MPI_UNSIGNED", MPI_UNSIGNED, 1, 1, { 0 } };
    tcases[1] = (struct tcase){ "strided unsigned", strided, 2, 1, { 0 } };
    tcases[2] = (struct tcase){ "pair with holes", holey, 4, 2, { 0, 2 } };
    tcases[3] = (struct tcase){ "contiguous pair", pair, 2, 2, { 0, 1 } };
}

/* ------------------------------------------------ the user operation */

/* Affine maps x -> a x + b (mod 2^32) on pairs (a, b), "x op y" applying x
 * first: associative, and not commutative, so any change of rank order
 * shows in the result. */
static void compose(unsigned a1, unsigned b1, unsigned *a2, unsigned *b2)
{
    *b2 = *a2 * b1 + *b2;
    *a2 = *a2 * a1;
}

/* Called with the pair types of tcases[2] and [3] (layout from the type). */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const struct tcase *t = *dt == tcases[2].type ? &tcases[2] : &tcases[3];
    CHECK(*dt == tcases[2].type || *dt == tcases[3].type, "user function got an unknown datatype");
    unsigned *x = in, *y = inout;
    for (int k = 0; k < *len; k++) {
        unsigned *xe = x + k * t->su, *ye = y + k * t->su;
        compose(xe[t->fields[0]], xe[t->fields[1]], &ye[t->fields[0]], &ye[t->fields[1]]);
    }
}
static MPI_Op affine;

/* ------------------------------------------------------------ values */

/* Rank r's field f of element e in call `seq`: odd, as maps need. */
static inline unsigned val(int r, long e, int f, int seq)
{
    return (unsigned)((r + 1) * 100003 + e * 7 + f * 13 + seq * 101) * 2u + 1u;
}

static unsigned *alloc_fill(const struct tcase *t, long n, int seq, int filled)
{
    long len = n * t->su + 1;
    unsigned *b = malloc(sizeof(unsigned) * (size_t)len);
    for (long i = 0; i < len; i++)
        b[i] = SENTINEL;
    if (filled)
        for (long e = 0; e < n; e++)
            for (int f = 0; f < t->nf; f++)
                b[e * t->su + t->fields[f]] = val(rank, e, f, seq);
    return b;
}

/* The combination of ranks [0, upto) at element e. */
static void expected(const struct tcase *t, int user, long e, int upto, int seq, unsigned out[2])
{
    if (!user) {
        for (int f = 0; f < t->nf; f++) {
            out[f] = 0;
            for (int r = 0; r < upto; r++)
                out[f] += val(r, e, f, seq);
        }
        return;
    }
    out[0] = val(0, e, 0, seq);
    out[1] = val(0, e, 1, seq);
    for (int r = 1; r < upto; r++) {
        unsigned a = val(r, e, 0, seq), b = val(r, e, 1, seq);
        compose(out[0], out[1], &a, &b);
        out[0] = a;
        out[1] = b;
    }
}

static int is_field(const struct tcase *t, long i)
{
    for (int f = 0; f < t->nf; f++)
        if (i % t->su == t->fields[f])
            return 1;
    return 0;
}

/* Every element, and every hole (and the word past the end) untouched. */
static void check(const struct tcase *t, int user, const unsigned *b, long n, int upto, int seq, const char *what)
{
    for (long e = 0; e < n; e++) {
        unsigned want[2];
        expected(t, user, e, upto, seq, want);
        for (int f = 0; f < t->nf; f++)
            if (b[e * t->su + t->fields[f]] != want[f]) {
                CHECK(0, "%s: element %ld field %d is %u, expected %u", what, e, f, b[e * t->su + t->fields[f]],
                      want[f]);
                return;
            }
    }
    for (long i = 0; i < n * t->su + 1; i++)
        if ((i == n * t->su || !is_field(t, i)) && b[i] != SENTINEL) {
            CHECK(0, "%s: hole at word %ld overwritten (%u)", what, i, b[i]);
            return;
        }
}

/* Exscan's rank 0: the receive buffer exactly as it was. */
static void check_untouched(const unsigned *b, const unsigned *before, long words, const char *what)
{
    for (long i = 0; i < words; i++)
        if (b[i] != before[i]) {
            CHECK(0, "%s: rank 0's receive buffer changed at word %ld (%u, was %u)", what, i, b[i], before[i]);
            return;
        }
}

/* ------------------------------------------------------------- a call */

/* `reps` calls back to back, each with its own values, then the checks. */
static void test(const struct tcase *t, int user, long n, int exclusive, int in_place)
{
    enum { REPS = 3 };
    unsigned *sb[REPS], *rb[REPS], *before[REPS];
    long words = n * t->su + 1;
    char what[160];
    snprintf(what, sizeof(what), "%s %s %s n=%ld%s", exclusive ? "MPI_Exscan" : "MPI_Scan", t->name,
             user ? "affine (user)" : "MPI_SUM", n, in_place ? " in place" : "");
    MPI_Op op = user ? affine : MPI_SUM;
    for (int s = 0; s < REPS; s++) {
        sb[s] = alloc_fill(t, n, s, 1);
        rb[s] = alloc_fill(t, n, s, in_place);
        before[s] = malloc(sizeof(unsigned) * (size_t)words);
        memcpy(before[s], rb[s], sizeof(unsigned) * (size_t)words);
    }
    for (int s = 0; s < REPS; s++) {
        const void *in = in_place ? MPI_IN_PLACE : sb[s];
        if (exclusive)
            CHECK_MPI(MPI_Exscan(in, rb[s], (int)n, t->type, op, comm));
        else
            CHECK_MPI(MPI_Scan(in, rb[s], (int)n, t->type, op, comm));
    }
    for (int s = 0; s < REPS; s++) {
        if (exclusive && rank == 0)
            check_untouched(rb[s], before[s], words, what);
        else
            check(t, user, rb[s], n, exclusive ? rank : rank + 1, s, what);
        free(sb[s]);
        free(rb[s]);
        free(before[s]);
    }
}

/* With "shm": the shared area, not message passing, ran the last call. */
static void check_shm_ran(const char *what)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int idx, count, chosen = -1;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_get_index("scan_algorithm", MPI_T_PVAR_CLASS_STATE, &idx));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    CHECK_MPI(MPI_T_pvar_read(s, h, &chosen));
    MPI_T_enum states;
    char name[64];
    int len, value = -1, nstates = 0;
    CHECK_MPI(MPI_T_pvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, &states, NULL, NULL, NULL, NULL, NULL, NULL));
    len = sizeof(name);
    CHECK_MPI(MPI_T_enum_get_info(states, &nstates, name, &len));
    int found = 0;
    for (int i = 0; i < nstates; i++) {
        len = sizeof(name);
        CHECK_MPI(MPI_T_enum_get_item(states, i, &value, name, &len));
        if (value == chosen) {
            CHECK(strcmp(name, "shm") == 0, "%s: scan_algorithm says %s, not shm", what, name);
            found = 1;
        }
    }
    CHECK(found, "%s: scan_algorithm %d is none of its words", what, chosen);
    MPI_T_pvar_handle_free(s, &h);
    MPI_T_pvar_session_free(&s);
}

/* Every case on `c`. */
static void run_all(MPI_Comm c, int want_shm, const long *sizes, size_t nsizes)
{
    comm = c;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    for (int ti = 0; ti < 4; ti++)
        for (int user = 0; user < 2; user++) {
            if (user && tcases[ti].nf != 2)
                continue;
            for (size_t si = 0; si < nsizes; si++)
                for (int ex = 0; ex < 2; ex++)
                    for (int ip = 0; ip < 2; ip++) {
                        test(&tcases[ti], user, sizes[si], ex, ip);
                        if (want_shm && size > 1 && sizes[si] > 0)
                            check_shm_ran(tcases[ti].name);
                    }
        }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    int want_shm = argc > 1 && strcmp(argv[1], "shm") == 0;
    make_tcases();
    CHECK_MPI(MPI_Op_create(affine_fn, 0, &affine));
    /* Elements: none, one, within a small-lane slot, and many pieces. */
    static const long sizes[] = { 0, 1, 7, 1000, 5000, 40000 };
    run_all(MPI_COMM_WORLD, want_shm, sizes, sizeof(sizes) / sizeof(sizes[0]));
    /* Ranks in reverse order, on a communicator with an area of its own:
     * the area's slots follow ranks in the communicator, not the world. */
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm reversed;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &reversed));
    static const long some[] = { 7, 40000 };
    run_all(reversed, want_shm, some, 2);
    MPI_Comm_free(&reversed);
    comm = MPI_COMM_WORLD;
    MPI_Op_free(&affine);
    for (int ti = 1; ti < 4; ti++)
        MPI_Type_free(&tcases[ti].type);
    MPI_T_finalize();
    return uzt_finish("coll_scan_area");
}
