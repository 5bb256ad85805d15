/*
 * mpit_errors.c — every MPI_T procedure's error returns: each one called
 * before MPI_T_init_thread says MPI_T_ERR_NOT_INITIALIZED; then invalid
 * indices, handles, sessions, names and items, and the refusals of
 * writing, starting and resetting, each with its own code.  Also the
 * counting of MPI_T_init_thread / MPI_T_finalize, before MPI_Init and
 * after MPI_Finalize.  (MPI_T has no error handler: codes are returned.)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(call, want)                                                                    \
    do {                                                                                      \
        int got_ = (call);                                                                    \
        if (got_ != (want)) {                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s returned %d, expected %s (%d)\n", __FILE__, __LINE__, \
                    #call, got_, #want, (want));                                              \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

static void noop_cb(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *u)
{
    (void)e, (void)r, (void)s, (void)u;
}

/* Every procedure but MPI_T_init_thread, with arguments that would be
 * fine once the interface is initialized. */
static void all_not_initialized(void)
{
    const int NI = MPI_T_ERR_NOT_INITIALIZED;
    int i = 0, n = 0, len = 0;
    char buf[64];
    MPI_Count c;
    MPI_Datatype dt;
    MPI_Aint disp;
    MPI_T_enum en = MPI_T_ENUM_NULL;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_session ps = MPI_T_PVAR_SESSION_NULL;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    MPI_T_event_registration er = NULL;
    MPI_T_source_order order;
    MPI_Info info;
    EXPECT(MPI_T_finalize(), NI);
    EXPECT(MPI_T_cvar_get_num(&n), NI);
    EXPECT(MPI_T_cvar_get_info(0, buf, &len, &i, &dt, &en, buf, &len, &i, &i), NI);
    EXPECT(MPI_T_cvar_get_index("UZURA_VERBOSE", &i), NI);
    EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &ch, &n), NI);
    EXPECT(MPI_T_cvar_handle_free(&ch), NI);
    EXPECT(MPI_T_cvar_read(ch, buf), NI);
    EXPECT(MPI_T_cvar_write(ch, buf), NI);
    EXPECT(MPI_T_enum_get_info(en, &n, buf, &len), NI);
    EXPECT(MPI_T_enum_get_item(en, 0, &i, buf, &len), NI);
    EXPECT(MPI_T_pvar_get_num(&n), NI);
    EXPECT(MPI_T_pvar_get_info(0, buf, &len, &i, &i, &dt, &en, buf, &len, &i, &i, &i, &i), NI);
    EXPECT(MPI_T_pvar_get_index("eager_sent", MPI_T_PVAR_CLASS_COUNTER, &i), NI);
    EXPECT(MPI_T_pvar_session_create(&ps), NI);
    EXPECT(MPI_T_pvar_session_free(&ps), NI);
    EXPECT(MPI_T_pvar_handle_alloc(ps, 0, NULL, &ph, &n), NI);
    EXPECT(MPI_T_pvar_handle_free(ps, &ph), NI);
    EXPECT(MPI_T_pvar_start(ps, ph), NI);
    EXPECT(MPI_T_pvar_stop(ps, ph), NI);
    EXPECT(MPI_T_pvar_read(ps, ph, buf), NI);
    EXPECT(MPI_T_pvar_write(ps, ph, buf), NI);
    EXPECT(MPI_T_pvar_reset(ps, ph), NI);
    EXPECT(MPI_T_pvar_readreset(ps, ph, buf), NI);
    EXPECT(MPI_T_category_get_num(&n), NI);
    EXPECT(MPI_T_category_get_info(0, buf, &len, buf, &len, &n, &n, &n), NI);
    EXPECT(MPI_T_category_get_index("uzura", &i), NI);
    EXPECT(MPI_T_category_get_cvars(0, 1, &i), NI);
    EXPECT(MPI_T_category_get_pvars(0, 1, &i), NI);
    EXPECT(MPI_T_category_get_events(0, 1, &i), NI);
    EXPECT(MPI_T_category_get_categories(0, 1, &i), NI);
    EXPECT(MPI_T_category_get_num_events(0, &n), NI);
    EXPECT(MPI_T_category_changed(&n), NI);
    EXPECT(MPI_T_source_get_num(&n), NI);
    EXPECT(MPI_T_source_get_info(0, buf, &len, buf, &len, &order, &c, &c, &info), NI);
    EXPECT(MPI_T_source_get_timestamp(0, &c), NI);
    EXPECT(MPI_T_event_get_num(&n), NI);
    n = 1;
    EXPECT(MPI_T_event_get_info(0, buf, &len, &i, &dt, &disp, &n, &en, &info, buf, &len, &i), NI);
    EXPECT(MPI_T_event_get_index("rendezvous_started", &i), NI);
    EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &er), NI);
    EXPECT(MPI_T_event_handle_free(er, NULL, NULL), NI);
    EXPECT(MPI_T_event_handle_get_info(er, &info), NI);
    EXPECT(MPI_T_event_handle_set_info(er, MPI_INFO_NULL), NI);
    EXPECT(MPI_T_event_register_callback(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, noop_cb), NI);
    EXPECT(MPI_T_event_callback_get_info(er, MPI_T_CB_REQUIRE_NONE, &info), NI);
    EXPECT(MPI_T_event_callback_set_info(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), NI);
    EXPECT(MPI_T_event_set_dropped_handler(er, NULL), NI);
    EXPECT(MPI_T_event_read(NULL, 0, buf), NI);
    EXPECT(MPI_T_event_copy(NULL, buf), NI);
    EXPECT(MPI_T_event_get_timestamp(NULL, &c), NI);
    EXPECT(MPI_T_event_get_source(NULL, &i), NI);
}

static void invalid_indices(void)
{
    const int II = MPI_T_ERR_INVALID_INDEX;
    int ncvar, npvar, ncat, nev, nsrc, i, n = 1, len = 0;
    char buf[64];
    MPI_Count c;
    MPI_T_cvar_handle ch;
    MPI_T_pvar_handle ph;
    MPI_T_pvar_session ps;
    MPI_T_event_registration er;
    MPI_Datatype dt;
    MPI_Aint disp;
    MPI_T_cvar_get_num(&ncvar);
    MPI_T_pvar_get_num(&npvar);
    MPI_T_category_get_num(&ncat);
    MPI_T_event_get_num(&nev);
    MPI_T_source_get_num(&nsrc);
    EXPECT(MPI_T_cvar_get_info(ncvar, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), II);
    EXPECT(MPI_T_cvar_get_info(-1, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), II);
    EXPECT(MPI_T_cvar_handle_alloc(ncvar, NULL, &ch, &n), II);
    EXPECT(MPI_T_pvar_get_info(npvar, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), II);
    MPI_T_pvar_session_create(&ps);
    EXPECT(MPI_T_pvar_handle_alloc(ps, npvar, NULL, &ph, &n), II);
    EXPECT(MPI_T_pvar_handle_alloc(ps, -1, NULL, &ph, &n), II);
    MPI_T_pvar_session_free(&ps);
    EXPECT(MPI_T_category_get_info(ncat, buf, &len, buf, &len, &n, &n, &n), II);
    EXPECT(MPI_T_category_get_cvars(ncat, 1, &i), II);
    EXPECT(MPI_T_category_get_pvars(ncat, 1, &i), II);
    EXPECT(MPI_T_category_get_events(ncat, 1, &i), II);
    EXPECT(MPI_T_category_get_categories(-1, 1, &i), II);
    EXPECT(MPI_T_category_get_num_events(ncat, &n), II);
    EXPECT(MPI_T_event_get_info(nev, buf, &len, NULL, &dt, &disp, &n, NULL, NULL, NULL, NULL, NULL), II);
    EXPECT(MPI_T_event_handle_alloc(nev, NULL, MPI_INFO_NULL, &er), II);
    EXPECT(MPI_T_source_get_info(nsrc, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL), II);
    EXPECT(MPI_T_source_get_timestamp(nsrc, &c), II);
}

static void invalid_names(void)
{
    const int IN = MPI_T_ERR_INVALID_NAME;
    int i;
    EXPECT(MPI_T_cvar_get_index("UZURA_NO_SUCH_TUNABLE", &i), IN);
    EXPECT(MPI_T_cvar_get_index("VERBOSE", &i), IN);        /* the name has its UZURA_ prefix */
    EXPECT(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &i), IN);
    /* A name with the wrong class is no match either. */
    EXPECT(MPI_T_pvar_get_index("eager_sent", MPI_T_PVAR_CLASS_LEVEL, &i), IN);
    EXPECT(MPI_T_category_get_index("no_such_category", &i), IN);
    EXPECT(MPI_T_event_get_index("no_such_event", &i), IN);
    EXPECT(MPI_T_cvar_get_index("UZURA_VERBOSE", &i), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_get_index("eager_sent", MPI_T_PVAR_CLASS_COUNTER, &i), MPI_SUCCESS);
    EXPECT(MPI_T_category_get_index("uzura", &i), MPI_SUCCESS);
    EXPECT(MPI_T_event_get_index("unexpected_message_arrived", &i), MPI_SUCCESS);
}

static void invalid_handles_and_sessions(void)
{
    const int IH = MPI_T_ERR_INVALID_HANDLE, IS = MPI_T_ERR_INVALID_SESSION;
    char buf[64] = { 0 };
    int n, i, idx;
    MPI_Count c;
    MPI_Info info;

    /* cvar handles: null, freed */
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL, stale;
    EXPECT(MPI_T_cvar_read(ch, buf), IH);
    EXPECT(MPI_T_cvar_write(ch, buf), IH);
    EXPECT(MPI_T_cvar_handle_free(&ch), IH);
    MPI_T_cvar_get_index("UZURA_VERBOSE", &idx);
    EXPECT(MPI_T_cvar_handle_alloc(idx, NULL, &ch, &n), MPI_SUCCESS);
    stale = ch;
    EXPECT(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
    if (ch != MPI_T_CVAR_HANDLE_NULL) {
        fprintf(stderr, "FAIL: MPI_T_cvar_handle_free left the handle set\n");
        failures++;
    }
    EXPECT(MPI_T_cvar_read(stale, buf), IH);

    /* enums */
    EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, buf, &n), IH);
    EXPECT(MPI_T_enum_get_item((MPI_T_enum)buf, 0, &i, NULL, NULL), IH);

    /* sessions: null, freed */
    MPI_T_pvar_session ps = MPI_T_PVAR_SESSION_NULL, other, stale_s;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    MPI_T_pvar_get_index("eager_sent", MPI_T_PVAR_CLASS_COUNTER, &idx);
    EXPECT(MPI_T_pvar_session_free(&ps), IS);
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n), IS);
    EXPECT(MPI_T_pvar_session_create(&ps), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n), MPI_SUCCESS);
    EXPECT(n, 1);
    /* A handle belongs to its session only. */
    EXPECT(MPI_T_pvar_read(other, ph, buf), IH);
    EXPECT(MPI_T_pvar_start(other, ph), IH);
    EXPECT(MPI_T_pvar_handle_free(other, &ph), IH);
    /* MPI_T_PVAR_ALL_HANDLES is no handle to read or write. */
    EXPECT(MPI_T_pvar_read(ps, MPI_T_PVAR_ALL_HANDLES, buf), IH);
    EXPECT(MPI_T_pvar_readreset(ps, MPI_T_PVAR_ALL_HANDLES, buf), IH);
    EXPECT(MPI_T_pvar_write(ps, MPI_T_PVAR_ALL_HANDLES, buf), IH);
    EXPECT(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_read(ps, MPI_T_PVAR_HANDLE_NULL, buf), IH);
    stale_s = ps;
    EXPECT(MPI_T_pvar_session_free(&ps), MPI_SUCCESS);
    EXPECT(ps == MPI_T_PVAR_SESSION_NULL, 1);
    EXPECT(MPI_T_pvar_read(stale_s, ph, buf), IS);
    EXPECT(MPI_T_pvar_start(stale_s, ph), IS);
    EXPECT(MPI_T_pvar_stop(stale_s, ph), IS);
    EXPECT(MPI_T_pvar_reset(stale_s, ph), IS);
    EXPECT(MPI_T_pvar_readreset(stale_s, ph, buf), IS);
    EXPECT(MPI_T_pvar_write(stale_s, ph, buf), IS);
    EXPECT(MPI_T_pvar_handle_free(stale_s, &ph), IS);
    EXPECT(MPI_T_pvar_session_free(&stale_s), IS);
    EXPECT(MPI_T_pvar_session_free(&other), MPI_SUCCESS);

    /* A pvar bound to a communicator needs one. */
    MPI_T_pvar_get_index("comm_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL, &idx);
    MPI_T_pvar_session_create(&ps);
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n), IH);
    MPI_Comm null = MPI_COMM_NULL;
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, &null, &ph, &n), IH);
    MPI_T_pvar_session_free(&ps);

    /* event registrations and instances */
    MPI_T_event_registration er = NULL, stale_r;
    EXPECT(MPI_T_event_handle_free(er, NULL, NULL), IH);
    EXPECT(MPI_T_event_handle_get_info(er, &info), IH);
    EXPECT(MPI_T_event_handle_set_info(er, MPI_INFO_NULL), IH);
    EXPECT(MPI_T_event_register_callback(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, noop_cb), IH);
    EXPECT(MPI_T_event_callback_get_info(er, MPI_T_CB_REQUIRE_NONE, &info), IH);
    EXPECT(MPI_T_event_callback_set_info(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), IH);
    EXPECT(MPI_T_event_set_dropped_handler(er, NULL), IH);
    EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &er), MPI_SUCCESS);
    /* A safety level that is none of the four. */
    EXPECT(MPI_T_event_register_callback(er, (MPI_T_cb_safety)5, MPI_INFO_NULL, NULL, noop_cb), MPI_T_ERR_INVALID);
    stale_r = er;
    EXPECT(MPI_T_event_handle_free(er, NULL, NULL), MPI_SUCCESS);
    EXPECT(MPI_T_event_set_dropped_handler(stale_r, NULL), IH);
    /* No callback runs here: no instance is valid. */
    EXPECT(MPI_T_event_read((MPI_T_event_instance)buf, 0, buf), IH);
    EXPECT(MPI_T_event_copy((MPI_T_event_instance)buf, buf), IH);
    EXPECT(MPI_T_event_get_timestamp((MPI_T_event_instance)buf, &c), IH);
    EXPECT(MPI_T_event_get_source(NULL, &i), IH);
}

/* Refusals that depend on what the variable is. */
static void refusals(void)
{
    int idx, n;
    char buf[64] = { 0 };
    MPI_T_cvar_handle ch;
    /* A value mpiexec gives: never. */
    MPI_T_cvar_get_index("UZURA_LOCAL_RANK", &idx);
    MPI_T_cvar_handle_alloc(idx, NULL, &ch, &n);
    int v = 3;
    EXPECT(MPI_T_cvar_write(ch, &v), MPI_T_ERR_CVAR_SET_NEVER);
    MPI_T_cvar_handle_free(&ch);
    /* A word an enum does not have. */
    MPI_T_cvar_get_index("UZURA_COLL_BCAST", &idx);
    MPI_T_cvar_handle_alloc(idx, NULL, &ch, &n);
    v = 99;
    EXPECT(MPI_T_cvar_write(ch, &v), MPI_T_ERR_INVALID);
    MPI_T_cvar_handle_free(&ch);

    MPI_T_pvar_session ps;
    MPI_T_pvar_handle ph;
    MPI_T_pvar_session_create(&ps);
    /* Continuous, read-only levels: no start/stop, no write, no reset. */
    MPI_T_pvar_get_index("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL, &idx);
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_start(ps, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_stop(ps, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_reset(ps, ph), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_write(ps, ph, buf), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_readreset(ps, ph, buf), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_read(ps, ph, buf), MPI_SUCCESS);
    /* A transport's own counter cannot be read and reset in one step. */
    MPI_T_pvar_get_index("udp_retransmits", MPI_T_PVAR_CLASS_COUNTER, &idx);
    EXPECT(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_readreset(ps, ph, buf), MPI_T_ERR_PVAR_NO_ATOMIC);
    EXPECT(MPI_T_pvar_reset(ps, ph), MPI_SUCCESS);
    MPI_T_pvar_session_free(&ps);

    /* Items of an enum. */
    MPI_T_enum en;
    MPI_T_cvar_get_info(idx = 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    MPI_T_cvar_get_index("UZURA_SHM_CMA", &idx);
    EXPECT(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    int items = 0, value = -1, len = sizeof(buf);
    EXPECT(MPI_T_enum_get_info(en, &items, buf, &len), MPI_SUCCESS);
    EXPECT(items, 3);
    EXPECT(strcmp(buf, "UZURA_SHM_CMA"), 0);
    EXPECT(MPI_T_enum_get_item(en, 3, &value, buf, &len), MPI_T_ERR_INVALID_ITEM);
    EXPECT(MPI_T_enum_get_item(en, -1, &value, buf, &len), MPI_T_ERR_INVALID_ITEM);
    len = sizeof(buf);
    EXPECT(MPI_T_enum_get_item(en, 2, &value, buf, &len), MPI_SUCCESS);
    EXPECT(strcmp(buf, "off"), 0);
    EXPECT(len, 4);
    EXPECT(value, 2);
}

int main(int argc, char **argv)
{
    int provided = -1;
    all_not_initialized();
    EXPECT(MPI_T_init_thread(12345, &provided), MPI_T_ERR_INVALID);
    EXPECT(MPI_T_cvar_get_num(&provided), MPI_T_ERR_NOT_INITIALIZED);

    /* Before MPI_Init, counted: two initializations need two finalizations. */
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    EXPECT(provided, MPI_THREAD_SINGLE);
    EXPECT(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    EXPECT(provided, MPI_THREAD_MULTIPLE);
    invalid_indices();
    invalid_names();
    invalid_handles_and_sessions();
    refusals();
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);
    int n;
    EXPECT(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);

    /* Open across MPI_Init and MPI_Finalize, and again after. */
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    MPI_Init(&argc, &argv);
    EXPECT(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    MPI_Finalize();
    EXPECT(MPI_T_category_get_num(&n), MPI_SUCCESS);
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    EXPECT(MPI_T_event_get_num(&n), MPI_SUCCESS);
    EXPECT(n, 4);
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);

    printf("mpit_errors: %s (%d failures)\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
