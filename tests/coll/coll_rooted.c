/*
 * coll_rooted.c — Gather(v) and Scatter(v) within one host through the
 * shared area and by one copy between the root's buffer and each rank's
 * (issue 27), every byte checked: blocks from none to several area pieces,
 * irregular counts (some zero) for the v forms, MPI_IN_PLACE at the root,
 * and a strided type on one side only (the root's, or every other rank's),
 * back to back with changing roots so that the area's phases and the
 * root's plans are reused.
 *
 *   coll_rooted [gather-word scatter-word | mixed]
 *
 * With words (UZURA_COLL_GATHER's and UZURA_COLL_SCATTER's, "-" for any),
 * each blocking call on more than one rank must have chosen that algorithm
 * (the gather_algorithm and scatter_algorithm performance variables).
 * With "mixed", only the v forms with tiny and large blocks in one call
 * (tiny ones travel as messages, the others through the area), in rounds.
 */
#include "uztest.h"

static int rank, size;
static const char *want_word[2];        /* gather, scatter */
static int pvar_index[2];
static MPI_T_enum pvar_enum[2];

/* The contiguous case: one int per element.  The strided case: one int
 * every other int (the gaps must keep their sentinel). */
enum { SENTINEL = 0x5a5a5a5a };
static MPI_Datatype strided;

static int stride_of(MPI_Datatype t)
{
    return t == MPI_INT ? 1 : 2;
}

static int value(int owner, long e, int seq)
{
    return owner * 1000003 + (int)e * 7 + seq;
}

static const char *chosen_word(int which)
{
    static char name[64];
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int n, chosen = -1, v, len = sizeof(name);
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_handle_alloc(s, pvar_index[which], NULL, &h, &n);
    MPI_T_pvar_read(s, h, &chosen);
    MPI_T_pvar_handle_free(s, &h);
    MPI_T_pvar_session_free(&s);
    int items = 0;
    MPI_T_enum_get_info(pvar_enum[which], &items, NULL, NULL);
    for (int i = 0; i < items; i++) {
        len = sizeof(name);
        if (MPI_T_enum_get_item(pvar_enum[which], i, &v, name, &len) == MPI_SUCCESS && v == chosen)
            return name;
    }
    return "?";
}

static void check_choice(int gather, int v, const char *what)
{
    const char *want = want_word[gather ? 0 : 1];
    if (size < 2 || !want || strcmp(want, "-") == 0)
        return;
    if (gather && v && strcmp(want, "pull") == 0)
        want = "push";          /* the root's pulls are Gather's only */
    const char *got = chosen_word(gather ? 0 : 1);
    CHECK(strcmp(got, want) == 0, "%s chose %s, expected %s", what, got, want);
}

/* One call: `v` irregular counts, `root_type`/`leaf_type` the root's
 * buffer of blocks and every rank's own block. */
static void one(int gather, int v, long n, int root, int in_place, MPI_Datatype root_type, MPI_Datatype leaf_type,
                int seq)
{
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    long total = 0;
    /* Backwards with a one-element gap; rank i's count n + i%3 - 1 (the
     * last rank's 0 when v).  n < 0 (v forms): mixed sizes, rank i's from
     * mixed[], shifted by -n, so that one call has tiny blocks (by
     * message), blocks just either side of the v forms' message limits
     * (with more ranks than cores 4 KiB gathering, 512 bytes scattering;
     * with a core per rank COLL_PULL_MIN, and 4 KiB less a head where a
     * Scatterv block stops following its head), through the area, and
     * pushed or pulled. */
    static const long mixed[] = { 0, 2, 9000, 1, 1024, 70000, 128, 1025, 129, 0 };
    enum { NMIXED = sizeof(mixed) / sizeof(mixed[0]) };
    for (int i = size - 1; i >= 0; i--) {
        long c = n < 0 ? mixed[(i - n) % NMIXED] : v ? (i == size - 1 && size > 1 ? 0 : n + i % 3 - 1) : n;
        counts[i] = c < 0 ? 0 : (int)c;
        displs[i] = v ? (int)total : (int)(i * n);
        total += counts[i] + (v ? 1 : 0);
    }
    if (!v)
        total = size * n;
    int at_root = rank == root, ip = in_place && at_root;
    /* The root's own block is of the root's type. */
    int rs = stride_of(root_type), os = stride_of(at_root ? root_type : leaf_type), mine = counts[rank];
    long all_ints = total * rs + 1, mine_ints = (long)mine * os + 1;
    int *all = malloc(sizeof(int) * all_ints), *own = malloc(sizeof(int) * mine_ints);
    for (long i = 0; i < all_ints; i++)
        all[i] = SENTINEL;
    for (long i = 0; i < mine_ints; i++)
        own[i] = SENTINEL;
    if (gather) {
        int *src = ip ? all + (long)displs[rank] * rs : own;
        int st = ip ? rs : os;
        for (long e = 0; e < mine; e++)
            src[e * st] = value(rank, e, seq);
    } else if (at_root) {
        for (int i = 0; i < size; i++)
            for (long e = 0; e < counts[i]; e++)
                all[((long)displs[i] + e) * rs] = value(i, e, seq);
    }
    char what[200];
    snprintf(what, sizeof what, "%s%s n=%ld root=%d%s root %s, others %s", gather ? "gather" : "scatter",
             v ? "v" : "", n, root, ip ? " in place" : "", rs == 1 ? "contiguous" : "strided",
             stride_of(leaf_type) == 1 ? "contiguous" : "strided");
    void *ownp = ip ? MPI_IN_PLACE : own;
    int rc;
    /* The root's own block: its own type unless in place (then ignored). */
    if (gather && v)
        rc = MPI_Gatherv(ownp, mine, at_root ? root_type : leaf_type, all, counts, displs, root_type, root,
                         MPI_COMM_WORLD);
    else if (gather)
        rc = MPI_Gather(ownp, (int)n, at_root ? root_type : leaf_type, all, (int)n, root_type, root,
                        MPI_COMM_WORLD);
    else if (v)
        rc = MPI_Scatterv(all, counts, displs, root_type, ownp, mine, at_root ? root_type : leaf_type, root,
                          MPI_COMM_WORLD);
    else
        rc = MPI_Scatter(all, (int)n, root_type, ownp, (int)n, at_root ? root_type : leaf_type, root,
                         MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
    int bad = 0;
    if (gather && at_root) {
        for (int i = 0; i < size && !bad; i++)
            for (long e = 0; e < counts[i] && !bad; e++) {
                int got = all[((long)displs[i] + e) * rs], want = value(i, e, seq);
                if (got != want) {
                    CHECK(0, "%s: rank %d's element %ld is %d, expected %d", what, i, e, got, want);
                    bad = 1;
                }
            }
    } else if (!gather && !ip) {
        int st = os;
        for (long e = 0; e < mine && !bad; e++)
            if (own[e * st] != value(rank, e, seq)) {
                CHECK(0, "%s: element %ld is %d, expected %d", what, e, own[e * st], value(rank, e, seq));
                bad = 1;
            }
    }
    /* Nothing written outside the blocks. */
    int *check = gather ? all : own;
    long ints = gather ? all_ints : mine_ints;
    int st = gather ? rs : os;
    for (long i = 0; i < ints && !bad && (gather ? at_root : !ip); i++) {
        int inside = 0;
        if (i % st == 0 && i / st < (gather ? total : mine)) {
            long el = i / st;
            if (!gather)
                inside = 1;
            for (int r = 0; r < size && !inside; r++)
                inside = el >= displs[r] && el < (long)displs[r] + counts[r];
        }
        if (!inside && check[i] != SENTINEL) {
            CHECK(0, "%s: int %ld outside the blocks was overwritten (%d)", what, i, check[i]);
            bad = 1;
        }
    }
    check_choice(gather, v, what);
    free(counts);
    free(displs);
    free(all);
    free(own);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    MPI_Datatype types[3][2] = { { MPI_INT, MPI_INT }, { strided, MPI_INT }, { MPI_INT, strided } };
    if (argc > 2) {
        int provided;
        want_word[0] = argv[1];
        want_word[1] = argv[2];
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        const char *names[2] = { "gather_algorithm", "scatter_algorithm" };
        for (int w = 0; w < 2; w++) {
            CHECK_MPI(MPI_T_pvar_get_index(names[w], MPI_T_PVAR_CLASS_STATE, &pvar_index[w]));
            CHECK_MPI(MPI_T_pvar_get_info(pvar_index[w], NULL, NULL, NULL, NULL, NULL, &pvar_enum[w], NULL, NULL,
                                          NULL, NULL, NULL, NULL));
        }
    }
    /* Elements (ints): none, one, under a small-lane slot, around the
     * 16 KiB and 64 KiB switches, and several 64 KiB pieces. */
    static const long sizes[] = { 0, 1, 700, 4100, 17000, 70000 };
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    int seq = 0, only_mixed = argc == 2 && strcmp(argv[1], "mixed") == 0;
    /* Mixed sizes in one Gatherv/Scatterv, every root and every shift of
     * the sizes over the ranks (several rounds back to back with
     * "mixed"). */
    for (int round = 0; round < (only_mixed ? 4 : 1); round++) {
        /* The first round may set the shared area up itself; the later
         * ones meet one a barrier set up (the Scatterv ranks with tiny
         * blocks then skip the area's preamble, uz_shm_rooted). */
        if (round == 1)
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int shift = 1; shift <= 10; shift++)
            for (int ti = 0; ti < 3; ti++)
                for (int gather = 0; gather < 2; gather++)
                    for (int r = 0; r < 3; r++) {
                        /* (r == 1): at np 2 both ranks are root for every shift. */
                        int root = (r * (size / 2 + 1) + shift + (r == 1)) % size;
                        one(gather, 1, -shift, root, r == 1, types[ti][0], types[ti][1], ++seq);
                    }
    }
    for (int si = 0; si < NS && !only_mixed; si++)
        for (int ti = 0; ti < 3; ti++)
            for (int gather = 0; gather < 2; gather++)
                for (int v = 0; v < 2; v++)
                    for (int r = 0; r < 3; r++) {
                        int root = (r * (size / 2 + 1)) % size;
                        /* Zero-size blocks choose nothing: skip the check. */
                        if (sizes[si] == 0 && want_word[0] && strcmp(want_word[0], "-") != 0)
                            continue;
                        one(gather, v, sizes[si], root, r == 1, types[ti][0], types[ti][1], ++seq);
                    }
    MPI_Type_free(&strided);
    if (argc > 2)
        MPI_T_finalize();
    return uzt_finish("coll_rooted");
}
