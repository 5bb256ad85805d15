/*
 * mpit_cvars.c — control variables: one per tunable, each described, found
 * by name, read; written before MPI_Init (UZURA_EAGER_LIMIT, which MPI_Init
 * then uses: a 2000-byte message goes by rendezvous) and refused while MPI
 * runs; a tunable read on every use written while MPI runs and taking
 * effect (UZURA_IO_CB_BUFFER: the cb_buffer_size of a file opened after);
 * the launcher's never writable; enums and strings; the categories that
 * hold them.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "uzio.h"
#include "uztest.h"

static int cvar(const char *name, MPI_T_cvar_handle *h, int *count)
{
    int idx = -1, n = 0;
    CHECK_EQ(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_cvar_handle_alloc(idx, NULL, h, &n), MPI_SUCCESS);
    if (count)
        *count = n;
    return idx;
}

static int scope_of(int idx)
{
    int scope = -1;
    CHECK_EQ(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope), MPI_SUCCESS);
    return scope;
}

static void every_variable(void)
{
    int n = 0;
    CHECK_EQ(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n > 50, "only %d control variables", n);
    int in_categories = 0, ncat = 0;
    for (int i = 0; i < n; i++) {
        char name[128], desc[1024];
        int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, bind, scope, idx, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_EQ(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc, &desc_len, &bind, &scope),
                 MPI_SUCCESS);
        CHECK(strncmp(name, "UZURA_", 6) == 0, "cvar %d is %s", i, name);
        CHECK(desc_len > 10, "%s has no help", name);
        CHECK_EQ(bind, MPI_T_BIND_NO_OBJECT);
        CHECK_EQ(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
        CHECK_EQ(idx, i);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_DOUBLE || dt == MPI_CHAR, "%s type", name);
        if (en != MPI_T_ENUM_NULL)
            CHECK(dt == MPI_INT, "%s: an enum of something else than int", name);
        MPI_T_cvar_handle h;
        CHECK_EQ(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        CHECK_EQ(count, dt == MPI_CHAR ? 512 : 1);
        char *buf = malloc((size_t)count * 8);
        CHECK_EQ(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
        free(buf);
        CHECK_EQ(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    }
    /* Each is in one category, and "uzura" holds every other category. */
    CHECK_EQ(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub;
        CHECK_EQ(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, &nsub), MPI_SUCCESS);
        in_categories += nc;
        int *list = malloc(sizeof(int) * (size_t)(nc + 1));
        CHECK_EQ(MPI_T_category_get_cvars(c, nc, list), MPI_SUCCESS);
        for (int k = 0; k < nc; k++)
            CHECK(list[k] >= 0 && list[k] < n, "category %d lists cvar %d", c, list[k]);
        free(list);
        if (c == 0) {
            CHECK_EQ(nsub, ncat - 1);
            int *subs = malloc(sizeof(int) * (size_t)ncat);
            CHECK_EQ(MPI_T_category_get_categories(0, ncat - 1, subs), MPI_SUCCESS);
            for (int k = 0; k < ncat - 1; k++)
                CHECK_EQ(subs[k], k + 1);
            free(subs);
        } else {
            CHECK_EQ(nsub, 0);
        }
    }
    CHECK_EQ(in_categories, n);
    int stamp1, stamp2, udp;
    CHECK_EQ(MPI_T_category_changed(&stamp1), MPI_SUCCESS);
    CHECK_EQ(MPI_T_category_changed(&stamp2), MPI_SUCCESS);
    CHECK_EQ(stamp1, stamp2);
    /* The udp tunables are in the udp category. */
    int idx, list[64], nc;
    char name[64];
    CHECK_EQ(MPI_T_category_get_index("udp", &udp), MPI_SUCCESS);
    CHECK_EQ(MPI_T_category_get_info(udp, NULL, NULL, NULL, NULL, &nc, NULL, NULL), MPI_SUCCESS);
    CHECK(nc > 10 && nc <= 64, "udp has %d tunables", nc);
    CHECK_EQ(MPI_T_category_get_cvars(udp, 64, list), MPI_SUCCESS);
    for (int k = 0; k < nc && k < 64; k++) {
        int len = sizeof(name);
        MPI_T_cvar_get_info(list[k], name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        CHECK(strncmp(name, "UZURA_UDP_", 10) == 0, "%s in udp", name);
    }
    CHECK_EQ(MPI_T_cvar_get_index("UZURA_UDP_WINDOW", &idx), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    every_variable();

    /* Before MPI_Init: a tunable read there may be written, and is. */
    MPI_T_cvar_handle eager;
    int eager_idx = cvar("UZURA_EAGER_LIMIT", &eager, NULL);
    CHECK_EQ(scope_of(eager_idx), MPI_T_SCOPE_LOCAL);
    unsigned long long limit = 0;
    CHECK_EQ(MPI_T_cvar_read(eager, &limit), MPI_SUCCESS);
    if (!getenv("UZURA_EAGER_LIMIT"))
        CHECK_EQ(limit, 0);     /* automatic: pt2pt_init.c */
    limit = 1024;
    CHECK_EQ(MPI_T_cvar_write(eager, &limit), MPI_SUCCESS);
    limit = 0;
    CHECK_EQ(MPI_T_cvar_read(eager, &limit), MPI_SUCCESS);
    CHECK_EQ(limit, 1024);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* MPI_Init took it; now it is read-only. */
    CHECK_EQ(MPI_T_cvar_read(eager, &limit), MPI_SUCCESS);
    CHECK_EQ(limit, 1024);
    CHECK_EQ(scope_of(eager_idx), MPI_T_SCOPE_READONLY);
    limit = 4096;
    CHECK_EQ(MPI_T_cvar_write(eager, &limit), MPI_T_ERR_CVAR_SET_NOT_NOW);
    CHECK_EQ(MPI_T_cvar_handle_free(&eager), MPI_SUCCESS);
    if (size > 1 && rank < 2) {
        /* A 2000-byte message, eager under the default, now goes by rendezvous. */
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        int idx, count;
        unsigned long long rndv = 0;
        char msg[2000] = { 0 };
        MPI_T_pvar_session_create(&s);
        MPI_T_pvar_get_index("rendezvous_sent", MPI_T_PVAR_CLASS_COUNTER, &idx);
        MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count);
        MPI_T_pvar_start(s, h);
        if (rank == 0)
            MPI_Send(msg, sizeof(msg), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(msg, sizeof(msg), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_T_pvar_read(s, h, &rndv);
        CHECK_EQ(rndv, rank == 0 ? 1 : 0);
        MPI_T_pvar_session_free(&s);
    }

    /* Read on every use: writable while MPI runs, on every rank alike. */
    MPI_T_cvar_handle cb;
    int cb_idx = cvar("UZURA_IO_CB_BUFFER", &cb, NULL);
    CHECK_EQ(scope_of(cb_idx), MPI_T_SCOPE_ALL_EQ);
    unsigned long long bytes = 1 << 20;
    CHECK_EQ(MPI_T_cvar_write(cb, &bytes), MPI_SUCCESS);
    char path[512];
    uzio_scratch_name(path, sizeof(path), "mpit_cvars", "", ".dat");
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    MPI_Info used;
    char value[64] = "";
    int flag = 0, vlen = sizeof(value);
    CHECK_MPI(MPI_File_get_info(fh, &used));
    MPI_Info_get_string(used, "cb_buffer_size", &vlen, value, &flag);
    CHECK(flag && strcmp(value, "1048576") == 0, "cb_buffer_size is \"%s\" after writing UZURA_IO_CB_BUFFER", value);
    MPI_Info_free(&used);
    MPI_File_close(&fh);
    CHECK_EQ(MPI_T_cvar_handle_free(&cb), MPI_SUCCESS);

    /* An enum: written by an item's value, read back. */
    MPI_T_cvar_handle bcast;
    int bcast_idx = cvar("UZURA_COLL_BCAST", &bcast, NULL);
    MPI_T_enum en;
    CHECK_EQ(MPI_T_cvar_get_info(bcast_idx, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    int items = 0, binomial = -1;
    CHECK_EQ(MPI_T_enum_get_info(en, &items, NULL, NULL), MPI_SUCCESS);
    CHECK_EQ(items, 5);
    for (int i = 0; i < items; i++) {
        char word[32];
        int len = sizeof(word), v;
        CHECK_EQ(MPI_T_enum_get_item(en, i, &v, word, &len), MPI_SUCCESS);
        if (strcmp(word, "binomial") == 0)
            binomial = v;
    }
    CHECK(binomial > 0, "no binomial item");
    CHECK_EQ(MPI_T_cvar_write(bcast, &binomial), MPI_SUCCESS);
    int now = -1;
    CHECK_EQ(MPI_T_cvar_read(bcast, &now), MPI_SUCCESS);
    CHECK_EQ(now, binomial);
    int data = rank == 0 ? 42 : 0;
    MPI_Bcast(&data, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_EQ(data, 42);
    /* The broadcast took it: the state variable names the same item. */
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int idx, n, chosen = -1;
    MPI_T_enum states;
    CHECK_EQ(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_get_index("bcast_algorithm", MPI_T_PVAR_CLASS_STATE, &idx), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, &states, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(states == en, "bcast_algorithm's values are not UZURA_COLL_BCAST's words");
    CHECK_EQ(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &n), MPI_SUCCESS);
    CHECK_EQ(MPI_T_pvar_read(s, h, &chosen), MPI_SUCCESS);
    CHECK_EQ(chosen, size > 1 ? binomial : 0);      /* one process broadcasts nothing */
    MPI_T_pvar_session_free(&s);
    now = 0;        /* auto again */
    CHECK_EQ(MPI_T_cvar_write(bcast, &now), MPI_SUCCESS);
    MPI_T_cvar_handle_free(&bcast);

    /* A string, and what mpiexec gave: constant, never written. */
    MPI_T_cvar_handle net, job;
    int count = 0;
    cvar("UZURA_NET", &net, &count);
    CHECK_EQ(count, 512);
    char text[512];
    CHECK_EQ(MPI_T_cvar_read(net, text), MPI_SUCCESS);
    if (!getenv("UZURA_NET"))
        CHECK_EQ(strcmp(text, "tcp"), 0);
    CHECK_EQ(MPI_T_cvar_write(net, "udp"), MPI_T_ERR_CVAR_SET_NOT_NOW);
    MPI_T_cvar_handle_free(&net);
    int job_idx = cvar("UZURA_JOB_ID", &job, NULL);
    CHECK_EQ(scope_of(job_idx), MPI_T_SCOPE_CONSTANT);
    CHECK_EQ(MPI_T_cvar_write(job, "x"), MPI_T_ERR_CVAR_SET_NEVER);
    MPI_T_cvar_handle_free(&job);

    /* UZURA_VERBOSE: this rank's own, any time. */
    MPI_T_cvar_handle verbose;
    int verbose_idx = cvar("UZURA_VERBOSE", &verbose, NULL);
    CHECK_EQ(scope_of(verbose_idx), MPI_T_SCOPE_LOCAL);
    int v = 0, verbosity = -1;
    CHECK_EQ(MPI_T_cvar_write(verbose, &v), MPI_SUCCESS);
    MPI_T_cvar_get_info(verbose_idx, NULL, NULL, &verbosity, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK_EQ(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    MPI_T_cvar_handle_free(&verbose);

    int rc = uzt_finish("mpit_cvars");
    MPI_T_finalize();
    return rc;
}
