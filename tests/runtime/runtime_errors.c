/*
 * runtime_errors.c — error handlers and error codes: MPI_ERRORS_RETURN,
 * user handlers called with the right communicator and code, error classes
 * and strings of every predefined class, user-added classes, codes and
 * strings, MPI_Comm_call_errhandler, and a procedure that fails (a spawn
 * of a missing program) naming itself in its message.
 */
#include "uztest.h"

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

int main(int argc, char **argv)
{
    int rank, cls, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* The default is MPI_ERRORS_ARE_FATAL. */
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");

    /* Every predefined class is its own class and has a description. */
    for (int c = 0; c <= MPI_ERR_ABI; c++) {
        CHECK_MPI(MPI_Error_class(c, &cls));
        CHECK(cls == c, "class of %d is %d", c, cls);
        CHECK_MPI(MPI_Error_string(c, text, &len));
        CHECK(len > 0 && (int)strlen(text) == len, "class %d has no description", c);
    }
    MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
    CHECK(strstr(text, "truncated") != NULL, "MPI_ERR_TRUNCATE described as \"%s\"", text);

    /* MPI_ERRORS_RETURN: the call returns a code whose string names it. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(NULL, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(uzt_class(rc) == MPI_ERR_COUNT, "class %d", uzt_class(rc));
    MPI_Error_string(rc, text, &len);
    CHECK(strcmp(text, "MPI_Send: invalid count -1 (argument count)") == 0, "string \"%s\"", text);

    /* A user handler sees the communicator and the code; the call returns it. */
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    rc = MPI_Send(NULL, 1, MPI_INT, 0, -3, MPI_COMM_WORLD);
    CHECK(handler_calls == 1 && handler_code == rc && handler_comm == MPI_COMM_WORLD,
          "user handler: %d calls, code %d (returned %d)", handler_calls, handler_code, rc);
    CHECK(uzt_class(rc) == MPI_ERR_TAG, "class %d", uzt_class(rc));
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "MPI_Comm_call_errhandler");
    MPI_Errhandler got;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == eh, "MPI_Comm_get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);                   /* still attached: stays alive */
    rc = MPI_Send(NULL, 1, MPI_INT, 0, -3, MPI_COMM_WORLD);
    CHECK(handler_calls == 3, "handler gone after MPI_Errhandler_free while attached");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Errors that belong to no communicator go to MPI_COMM_SELF's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Info_free(NULL);
    CHECK(uzt_class(rc) == MPI_ERR_ARG, "MPI_Info_free(NULL): class %d", uzt_class(rc));

    /* User classes, codes and strings. */
    int myclass, mycode, lastused, attrflag;
    CHECK_MPI(MPI_Add_error_class(&myclass));
    CHECK_MPI(MPI_Add_error_code(myclass, &mycode));
    CHECK(myclass > MPI_ERR_LASTCODE && mycode > myclass, "class %d code %d", myclass, mycode);
    CHECK_MPI(MPI_Add_error_string(mycode, "my own error"));
    MPI_Error_class(mycode, &cls);
    CHECK(cls == myclass, "user code's class %d, expected %d", cls, myclass);
    MPI_Error_string(mycode, text, &len);
    CHECK(strcmp(text, "my own error") == 0, "user string \"%s\"", text);
    rc = MPI_Add_error_code(12345678, &mycode);
    CHECK(uzt_class(rc) == MPI_ERR_ARG, "adding a code to no class: class %d", uzt_class(rc));
    /* Removal goes in the reverse order (MPI-4.1 §9.5): a code or class
     * that still has a string, or a class that still has codes, stays. */
    rc = MPI_Remove_error_code(mycode);
    CHECK(uzt_class(rc) == MPI_ERR_ARG, "removing a code with a string: class %d", uzt_class(rc));
    rc = MPI_Remove_error_class(myclass);
    CHECK(uzt_class(rc) == MPI_ERR_ARG, "removing a class with codes: class %d", uzt_class(rc));
    CHECK_MPI(MPI_Remove_error_string(mycode));
    CHECK_MPI(MPI_Remove_error_code(mycode));
    CHECK_MPI(MPI_Add_error_string(myclass, "my own class"));
    rc = MPI_Remove_error_class(myclass);
    CHECK(uzt_class(rc) == MPI_ERR_ARG, "removing a class with a string: class %d", uzt_class(rc));
    CHECK_MPI(MPI_Remove_error_string(myclass));
    CHECK_MPI(MPI_Remove_error_class(myclass));
    (void)lastused;
    (void)attrflag;

    /* A procedure that cannot do what it is asked says why and names
     * itself (MPI_Comm_spawn was the example of one not implemented yet;
     * it is now, and a missing program is its own error). */
    MPI_Comm inter;
    rc = MPI_Comm_spawn("/nonexistent/uzura-no-such-program", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                        &inter, MPI_ERRCODES_IGNORE);
    CHECK(uzt_class(rc) == MPI_ERR_SPAWN, "spawning a missing program: class %d", uzt_class(rc));
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_Comm_spawn") != NULL, "spawn message \"%s\"", text);
    return uzt_finish("runtime_errors");
}
