/*
 * runtime_errors_noobj.c — errors that belong to no communicator, window or
 * file (datatype, info and keyval calls, failing attribute callbacks): they
 * reach MPI_COMM_WORLD's handler until the program gives MPI_COMM_SELF one,
 * and MPI_COMM_SELF's from then on (MPI-4.1 §9.3, as MPICH does).
 */
#include "uztest.h"

static int world_calls, self_calls, last_class;

static void on_world(MPI_Comm *comm, int *code, ...)
{
    CHECK(*comm == MPI_COMM_WORLD, "world handler called for another communicator");
    world_calls++;
    MPI_Error_class(*code, &last_class);
}

static void on_self(MPI_Comm *comm, int *code, ...)
{
    CHECK(*comm == MPI_COMM_SELF, "self handler called for another communicator");
    self_calls++;
    MPI_Error_class(*code, &last_class);
}

static int failing_copy(MPI_Datatype t, int key, void *state, void *in, void *out, int *flag)
{
    (void)t; (void)key; (void)state; (void)in; (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

/* Three errors of calls that have no communicator: a null datatype, a
 * null info, and a datatype copy callback that fails. */
static void provoke(int expect_world, int expect_self)
{
    int size, rc;
    world_calls = self_calls = 0;
    last_class = -1;
    rc = MPI_Type_size(MPI_DATATYPE_NULL, &size);
    CHECK(uzt_class(rc) == MPI_ERR_TYPE, "MPI_Type_size(MPI_DATATYPE_NULL): class %d", uzt_class(rc));
    CHECK(last_class == (expect_world || expect_self ? MPI_ERR_TYPE : -1), "handler saw class %d",
          last_class);
    MPI_Info info = MPI_INFO_NULL;
    rc = MPI_Info_free(&info);
    CHECK(uzt_class(rc) == MPI_ERR_INFO || uzt_class(rc) == MPI_ERR_ARG,
          "MPI_Info_free(MPI_INFO_NULL): class %d", uzt_class(rc));

    MPI_Datatype t, dup = MPI_INT;
    int key;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_keyval(failing_copy, MPI_TYPE_NULL_DELETE_FN, &key, NULL));
    CHECK_MPI(MPI_Type_set_attr(t, key, &key));
    rc = MPI_Type_dup(t, &dup);
    CHECK(uzt_class(rc) == MPI_ERR_OTHER, "MPI_Type_dup with a failing copy: class %d", uzt_class(rc));
    CHECK(dup == MPI_DATATYPE_NULL, "a failed MPI_Type_dup returned a handle");
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free_keyval(&key));

    CHECK(world_calls == 3 * expect_world, "world handler called %d times", world_calls);
    CHECK(self_calls == 3 * expect_self, "self handler called %d times", self_calls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Errhandler world_eh, self_eh;
    CHECK_MPI(MPI_Comm_create_errhandler(on_world, &world_eh));
    CHECK_MPI(MPI_Comm_create_errhandler(on_self, &self_eh));

    /* Only MPI_COMM_WORLD's handler is the program's: it gets them, as in
     * programs written for MPI-3 (MPICH's attrerrtype, for one). */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh));
    provoke(1, 0);

    /* Once MPI_COMM_SELF has a handler of the program's, it gets them. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh));
    provoke(0, 1);

    /* Even when the program sets MPI_COMM_SELF back to the initial handler
     * kind, the choice stays with MPI_COMM_SELF. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    provoke(0, 0);

    CHECK_MPI(MPI_Errhandler_free(&world_eh));
    CHECK_MPI(MPI_Errhandler_free(&self_eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return uzt_finish("runtime_errors_noobj");
}
