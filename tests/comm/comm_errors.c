/*
 * comm_errors.c — communicator errors and their classes: freeing the
 * predefined communicators, invalid arguments to the constructors,
 * intercommunicator calls on intracommunicators, and errors raised through
 * the communicator's own handler, which new communicators inherit.
 * (Group, keyval and topology errors are in comm_group.c, comm_attr.c
 * and comm_topo.c.)
 */
#include "uztest.h"

static int n, me;

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS && uzt_class(rc) == cls, "%s: rc %d class %d, expected class %d", what,
          rc, rc ? uzt_class(rc) : 0, cls);
}

static int handler_calls;
static MPI_Comm handler_comm;
static int handler_class;

static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Predefined communicators cannot be freed; nor can MPI_COMM_NULL. */
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF, nul = MPI_COMM_NULL;
    expect_class(MPI_Comm_free(&w), MPI_ERR_COMM, "free MPI_COMM_WORLD");
    expect_class(MPI_Comm_free(&s), MPI_ERR_COMM, "free MPI_COMM_SELF");
    expect_class(MPI_Comm_free(&nul), MPI_ERR_COMM, "free MPI_COMM_NULL");
    CHECK(w == MPI_COMM_WORLD && s == MPI_COMM_SELF, "a failed free changed the handle");
    int size;
    CHECK_MPI(MPI_Comm_size(w, &size));     /* still usable */

    MPI_Comm c = MPI_COMM_NULL;
    expect_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, "split with colour -5");
    expect_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
                 "split_type 12345");
    expect_class(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "dup of MPI_COMM_NULL");
    CHECK(c == MPI_COMM_NULL, "a failed constructor wrote its output");

    int r;
    MPI_Group g;
    expect_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &r), MPI_ERR_COMM, "remote_size of an intracomm");
    expect_class(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM, "remote_group of an intracomm");
    expect_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM, "merge of an intracomm");
    expect_class(MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 0, &c), MPI_ERR_RANK,
                 "intercomm_create with local_leader 1 of 1");
    expect_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, me, 0, &c), MPI_ERR_RANK,
                 "intercomm_create with myself as the remote leader");
    expect_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, n, 0, &c), MPI_ERR_RANK,
                 "intercomm_create with remote_leader out of range");

    /* A group that is not part of the communicator. */
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (n > 1)
        expect_class(MPI_Comm_create(MPI_COMM_SELF, world, &c), MPI_ERR_GROUP,
                     "create with a group larger than the communicator");
    expect_class(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c), MPI_ERR_TAG,
                 "create_group with tag -1");
    MPI_Group_free(&world);

    char longname[MPI_MAX_OBJECT_NAME + 10];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    expect_class(MPI_Comm_set_name(MPI_COMM_WORLD, longname), MPI_ERR_ARG, "name too long");

    /* Errors go to the communicator's handler, and a new communicator
     * inherits it. */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
    MPI_Comm d, dd;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_MPI(MPI_Comm_set_errhandler(d, eh));
    CHECK_MPI(MPI_Comm_dup(d, &dd));
    MPI_Errhandler_free(&eh);
    handler_calls = 0;
    MPI_Comm_split(dd, -3, 0, &c);
    CHECK(handler_calls == 1 && handler_comm == dd && handler_class == MPI_ERR_ARG,
          "inherited handler: %d calls, class %d", handler_calls, handler_class);
    handler_calls = 0;
    MPI_Comm_remote_size(d, &r);
    CHECK(handler_calls == 1 && handler_comm == d && handler_class == MPI_ERR_COMM,
          "handler on d: %d calls, class %d", handler_calls, handler_class);
    MPI_Comm_free(&dd);
    MPI_Comm_free(&d);

    /* The message names the function and the argument. */
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Comm_split(MPI_COMM_WORLD, -7, 0, &c);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "MPI_Comm_split") && strstr(msg, "-7"), "message '%s'", msg);
    return uzt_finish("comm_errors");
}
