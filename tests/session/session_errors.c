/*
 * session_errors.c — session error handlers, session buffers and the
 * error cases of the Sessions model, with their classes:
 *   MPI_ERRORS_RETURN on a session, a user handler (invoked for a failing
 *   call and by MPI_Session_call_errhandler with a user error code), a
 *   communicator made from the session's group starting with its handler;
 *   MPI_Bsend on a session-derived communicator through the session's
 *   buffer (and MPI_BUFFER_AUTOMATIC), and MPI_ERR_BUFFER once detached;
 *   an invalid or finalized session handle (MPI_ERR_SESSION), an unknown
 *   process set (MPI_ERR_ARG naming it), n out of range, a bad
 *   thread_level, an error handler made for communicators; and
 *   MPI_Session_finalize with a communicator still alive (MPI_ERR_PENDING
 *   with "strict_finalize", allowed otherwise, as in MPICH).
 * The World model runs beside, so that errors that belong to no session
 * return through MPI_COMM_SELF.
 */
#include "session_util.h"

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void session_handler(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
}

static void check_user_handler(void)
{
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Session_create_errhandler(session_handler, &eh));
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, eh, &s));
    MPI_Errhandler got;
    CHECK_MPI(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "MPI_Session_get_errhandler does not give the handler of MPI_Session_init");
    MPI_Errhandler_free(&got);

    /* A failing call runs it with the error's code. */
    MPI_Group g = MPI_GROUP_NULL;
    int err = MPI_Group_from_session_pset(s, "mpi://nowhere", &g);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    CHECK_EQ(handler_calls, 1);
    CHECK_EQ(uzs_class(handler_code), MPI_ERR_ARG);
    CHECK(handler_session == s, "the handler was shown another session");

    /* MPI_Session_call_errhandler with a code of the program's own. */
    int cls, code;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_string(code, "session test error"));
    CHECK_MPI(MPI_Session_call_errhandler(s, code));
    CHECK_EQ(handler_calls, 2);
    CHECK_EQ(handler_code, code);
    CHECK_EQ(uzs_class(handler_code), cls);

    /* MPI_ERRORS_RETURN instead: the handler is no longer called. */
    CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    err = MPI_Session_call_errhandler(s, code);
    CHECK_EQ(err, MPI_SUCCESS);
    CHECK_EQ(handler_calls, 2);

    /* A communicator's handler cannot go on a session. */
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler(comm_handler, &ceh);
    err = MPI_Session_set_errhandler(s, ceh);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    MPI_Errhandler_free(&ceh);

    /* Communicators made from its groups with no handler start with the
     * session's (the user handler here). */
    CHECK_MPI(MPI_Session_set_errhandler(s, eh));
    MPI_Comm c = uzs_comm_from_pset(s, "mpi://SELF", "errors.user");
    CHECK_MPI(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == eh, "a communicator from the session's group lacks the session's handler");
    MPI_Errhandler_free(&got);
    MPI_Comm_free(&c);
    MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK_EQ(handler_calls, 2);
}

static void check_error_classes(void)
{
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info = MPI_INFO_NULL;

    int err = MPI_Session_get_pset_info(s, "mpi://NoSuchSet", &info);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    CHECK(uzs_message_has(err, "mpi://NoSuchSet"), "the message does not name the process set");
    err = MPI_Group_from_session_pset(s, "@qerty!#$", &g);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    CHECK(uzs_message_has(err, "@qerty!#$"), "the message does not name the process set");

    int n = 0, len = 64;
    char name[64];
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    err = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, name);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    len = 64;
    err = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, name);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);

    /* Errors of no session (an invalid handle) go to MPI_COMM_SELF. */
    err = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);
    err = MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);
    err = MPI_Session_set_errhandler(MPI_SESSION_NULL, MPI_ERRORS_RETURN);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);
    MPI_Session null = MPI_SESSION_NULL;
    err = MPI_Session_finalize(&null);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);
    MPI_Session stale = s;
    CHECK_MPI(MPI_Session_finalize(&s));
    err = MPI_Session_get_info(stale, &info);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);
    err = MPI_Session_finalize(&stale);
    CHECK_EQ(uzs_class(err), MPI_ERR_SESSION);

    /* Bad hints and handlers of MPI_Session_init, through its handler. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_LOTS");
    err = MPI_Session_init(info, MPI_ERRORS_RETURN, &s);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    MPI_Info_free(&info);
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler(comm_handler, &ceh);
    err = MPI_Session_init(MPI_INFO_NULL, ceh, &s);
    CHECK_EQ(uzs_class(err), MPI_ERR_ARG);
    MPI_Errhandler_free(&ceh);
}

/* Finalizing with a communicator still alive. */
static void check_finalize_with_live_comm(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "strict_finalize", "true");
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&info);
    MPI_Comm c = uzs_comm_from_pset(s, "mpi://WORLD", "errors.strict");
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    int err = MPI_Session_finalize(&s);
    CHECK_EQ(uzs_class(err), MPI_ERR_PENDING);
    CHECK(uzs_message_has(err, "2 communicators"), "the message does not count the communicators");
    CHECK(s != MPI_SESSION_NULL, "a refused finalize cleared the handle");
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Session_finalize(&s));

    /* Without the hint, as MPICH: it proceeds (erroneous by the standard);
     * the World model keeps the runtime up, so the communicator may still
     * be freed. */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    c = uzs_comm_from_pset(s, "mpi://WORLD", "errors.lenient");
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK_MPI(MPI_Barrier(c));
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Buffered sends on a session-derived communicator. */
static void check_buffers(void)
{
    MPI_Session s;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm c = uzs_comm_from_pset(s, "mpi://WORLD", "errors.bsend");
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    enum { N = 3000, MSGS = 3 };
    int bytes = MSGS * (N + MPI_BSEND_OVERHEAD);
    char *buffer = malloc(bytes);
    CHECK_MPI(MPI_Session_attach_buffer(s, buffer, bytes));
    int err = MPI_Session_attach_buffer(s, buffer, bytes);
    CHECK_EQ(uzs_class(err), MPI_ERR_BUFFER);
    unsigned char out[N], in[N];
    for (int round = 0; round < 2; round++) {
        /* Every message is buffered before any is received. */
        for (int m = 0; m < MSGS; m++) {
            uzs_fill(out, N, rank, round * 10 + m);
            CHECK_MPI(MPI_Bsend(out, N, MPI_BYTE, right, m, c));
        }
        for (int m = 0; m < MSGS; m++) {
            CHECK_MPI(MPI_Recv(in, N, MPI_BYTE, left, m, c, MPI_STATUS_IGNORE));
            long bad = uzs_verify(in, N, left, round * 10 + m);
            CHECK(bad < 0, "bsend round %d message %d: byte %ld wrong", round, m, bad);
        }
        if (round == 0) {
            CHECK_MPI(MPI_Session_flush_buffer(s));
        } else {
            MPI_Request r;
            CHECK_MPI(MPI_Session_iflush_buffer(s, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    }
    void *addr = NULL;
    int got = 0;
    CHECK_MPI(MPI_Session_detach_buffer(s, &addr, &got));
    CHECK(addr == buffer, "detach gave another address");
    CHECK_EQ(got, bytes);
    /* No buffer anywhere now. */
    err = MPI_Bsend(out, N, MPI_BYTE, right, 0, c);
    CHECK_EQ(uzs_class(err), MPI_ERR_BUFFER);
    err = MPI_Session_detach_buffer(s, &addr, &got);
    CHECK_EQ(uzs_class(err), MPI_ERR_BUFFER);

    /* MPI_BUFFER_AUTOMATIC, and a communicator buffer taking precedence. */
    CHECK_MPI(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    uzs_fill(out, N, rank, 50);
    CHECK_MPI(MPI_Bsend(out, N, MPI_BYTE, right, 1, c));
    CHECK_MPI(MPI_Recv(in, N, MPI_BYTE, left, 1, c, MPI_STATUS_IGNORE));
    CHECK(uzs_verify(in, N, left, 50) < 0, "bsend through MPI_BUFFER_AUTOMATIC: bytes wrong");
    CHECK_MPI(MPI_Comm_attach_buffer(c, buffer, bytes));
    uzs_fill(out, N, rank, 51);
    CHECK_MPI(MPI_Bsend(out, N, MPI_BYTE, right, 2, c));
    CHECK_MPI(MPI_Recv(in, N, MPI_BYTE, left, 2, c, MPI_STATUS_IGNORE));
    CHECK(uzs_verify(in, N, left, 51) < 0, "bsend through the communicator's buffer: bytes wrong");
    CHECK_MPI(MPI_Comm_detach_buffer(c, &addr, &got));
    CHECK_MPI(MPI_Session_detach_buffer(s, &addr, &got));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detach of MPI_BUFFER_AUTOMATIC gave %p", addr);
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Session_finalize(&s));
    free(buffer);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &uzs_rank);
    check_user_handler();
    check_error_classes();
    check_finalize_with_live_comm();
    check_buffers();
    int rc = uzs_verdict(MPI_COMM_WORLD, "session_errors");
    MPI_Finalize();
    return rc;
}
