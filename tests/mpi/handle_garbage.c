/*
 * handle_garbage.c — handles that name no object of their kind (issue 22)
 * return that kind's error class under MPI_ERRORS_RETURN instead of
 * crashing: unmapped addresses, -8, a pointer to a stack variable or to
 * malloc'd memory, a pointer into the middle of a live object, a freed
 * object, an object of another kind, and predefined values the standard
 * leaves unused.  Valid handles keep working afterwards.
 */
#include <stdint.h>

#include "uztest.h"

static int bad_comm(MPI_Comm c, const char *what)
{
    int x = 0, n = 0, failures = uzt_failures;
    CHECK(uzt_class(MPI_Comm_size(c, &n)) == MPI_ERR_COMM, "MPI_Comm_size(%s)", what);
    CHECK(uzt_class(MPI_Comm_rank(c, &n)) == MPI_ERR_COMM, "MPI_Comm_rank(%s)", what);
    CHECK(uzt_class(MPI_Barrier(c)) == MPI_ERR_COMM, "MPI_Barrier(%s)", what);
    CHECK(uzt_class(MPI_Send(&x, 1, MPI_INT, 0, 0, c)) == MPI_ERR_COMM, "MPI_Send(%s)", what);
    CHECK(uzt_class(MPI_Allreduce(&x, &n, 1, MPI_INT, MPI_SUM, c)) == MPI_ERR_COMM, "MPI_Allreduce(%s)", what);
    MPI_Group g;
    CHECK(uzt_class(MPI_Comm_group(c, &g)) == MPI_ERR_COMM, "MPI_Comm_group(%s)", what);
    return uzt_failures - failures;
}

static void bad_type(MPI_Datatype t, const char *what)
{
    int x[4] = { 0 }, n = 0;
    MPI_Aint lb, ext;
    CHECK(uzt_class(MPI_Type_size(t, &n)) == MPI_ERR_TYPE, "MPI_Type_size(%s)", what);
    CHECK(uzt_class(MPI_Type_get_extent(t, &lb, &ext)) == MPI_ERR_TYPE, "MPI_Type_get_extent(%s)", what);
    CHECK(uzt_class(MPI_Send(x, 1, t, 0, 0, MPI_COMM_SELF)) == MPI_ERR_TYPE, "MPI_Send(%s)", what);
    MPI_Datatype nt;
    CHECK(uzt_class(MPI_Type_contiguous(2, t, &nt)) == MPI_ERR_TYPE, "MPI_Type_contiguous(%s)", what);
    MPI_Datatype c = t;
    CHECK(uzt_class(MPI_Type_commit(&c)) == MPI_ERR_TYPE, "MPI_Type_commit(%s)", what);
}

static void bad_group(MPI_Group g, const char *what)
{
    int n;
    CHECK(uzt_class(MPI_Group_size(g, &n)) == MPI_ERR_GROUP, "MPI_Group_size(%s)", what);
    CHECK(uzt_class(MPI_Group_rank(g, &n)) == MPI_ERR_GROUP, "MPI_Group_rank(%s)", what);
}

static void bad_info(MPI_Info info, const char *what)
{
    char v[8];
    int flag, n;
    CHECK(uzt_class(MPI_Info_get(info, "k", 7, v, &flag)) == MPI_ERR_INFO, "MPI_Info_get(%s)", what);
    CHECK(uzt_class(MPI_Info_get_nkeys(info, &n)) == MPI_ERR_INFO, "MPI_Info_get_nkeys(%s)", what);
    CHECK(uzt_class(MPI_Info_set(info, "k", "v")) == MPI_ERR_INFO, "MPI_Info_set(%s)", what);
}

static void bad_op(MPI_Op op, const char *what)
{
    int c, x = 1, y;
    CHECK(uzt_class(MPI_Op_commutative(op, &c)) == MPI_ERR_OP, "MPI_Op_commutative(%s)", what);
    CHECK(uzt_class(MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD)) == MPI_ERR_OP, "MPI_Allreduce(%s)",
          what);
}

static void bad_errhandler(MPI_Errhandler e, const char *what)
{
    CHECK(uzt_class(MPI_Comm_set_errhandler(MPI_COMM_SELF, e)) == MPI_ERR_ERRHANDLER,
          "MPI_Comm_set_errhandler(%s)", what);
}

static void bad_request(MPI_Request r, const char *what)
{
    MPI_Request q = r;
    int flag;
    CHECK(uzt_class(MPI_Wait(&q, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "MPI_Wait(%s)", what);
    q = r;
    CHECK(uzt_class(MPI_Test(&q, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "MPI_Test(%s)", what);
}

static void bad_message(MPI_Message m, const char *what)
{
    int x;
    MPI_Message q = m;
    CHECK(uzt_class(MPI_Mrecv(&x, 1, MPI_INT, &q, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "MPI_Mrecv(%s)", what);
}

/* Addresses that nothing in the process maps, on x86-64 and aarch64. */
#define UNMAPPED ((void *)(uintptr_t)0x12345678)
#define MINUS_8 ((void *)(intptr_t)-8)
#define KERNEL_HALF ((void *)(uintptr_t)0xffff800000001000ull)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    long on_stack[64] = { 0 };
    void *on_heap = calloc(1, 4096);
    void *garbage[] = { UNMAPPED, MINUS_8, KERNEL_HALF, on_stack, on_heap };
    const char *names[] = { "0x12345678", "-8", "a kernel address", "a stack variable", "malloc'd memory" };
    enum { NGARBAGE = sizeof(garbage) / sizeof(garbage[0]) };

    for (int i = 0; i < NGARBAGE; i++) {
        bad_comm((MPI_Comm)garbage[i], names[i]);
        bad_type((MPI_Datatype)garbage[i], names[i]);
        bad_group((MPI_Group)garbage[i], names[i]);
        bad_info((MPI_Info)garbage[i], names[i]);
        bad_op((MPI_Op)garbage[i], names[i]);
        bad_errhandler((MPI_Errhandler)garbage[i], names[i]);
        bad_request((MPI_Request)garbage[i], names[i]);
        bad_message((MPI_Message)garbage[i], names[i]);
    }

    /* Predefined values the standard ABI leaves unused, and the null
     * handles where a real object is needed. */
    bad_comm((MPI_Comm)(uintptr_t)0x103, "unused predefined 0x103");
    bad_comm(MPI_COMM_NULL, "MPI_COMM_NULL");
    bad_type((MPI_Datatype)(uintptr_t)0x2ff, "unused predefined 0x2ff");
    bad_type((MPI_Datatype)(uintptr_t)0x3ff, "unused predefined 0x3ff");
    bad_group((MPI_Group)(uintptr_t)0x10a, "unused predefined 0x10a");
    bad_info((MPI_Info)(uintptr_t)0x132, "unused predefined 0x132");
    bad_op((MPI_Op)(uintptr_t)0x3e, "unused predefined 0x3e");
    bad_errhandler((MPI_Errhandler)(uintptr_t)0x144, "unused predefined 0x144");
    bad_request((MPI_Request)(uintptr_t)0x181, "unused predefined 0x181");

    /* Live objects of other kinds, a pointer into a live object, freed
     * objects. */
    MPI_Comm dup;
    MPI_Group group;
    MPI_Datatype vec;
    MPI_Info info;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_group(MPI_COMM_WORLD, &group);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Info_create(&info);
    bad_comm((MPI_Comm)group, "a group");
    bad_comm((MPI_Comm)vec, "a datatype");
    bad_comm((MPI_Comm)((char *)dup + 8), "the middle of a communicator");
    bad_comm((MPI_Comm)((char *)dup + 64), "a communicator's second cache line");
    bad_type((MPI_Datatype)dup, "a communicator");
    bad_type((MPI_Datatype)info, "an info object");
    bad_group((MPI_Group)dup, "a communicator");
    bad_info((MPI_Info)group, "a group");
    bad_op((MPI_Op)vec, "a datatype");
    bad_errhandler((MPI_Errhandler)info, "an info object");
    bad_request((MPI_Request)dup, "a communicator");
    bad_message((MPI_Message)group, "a group");

    /* A group only the user holds (the world's group lives on in
     * MPI_COMM_WORLD after MPI_Group_free). */
    MPI_Group mine;
    int zero = 0;
    MPI_Group_incl(group, 1, &zero, &mine);
    MPI_Comm stale_comm = dup;
    MPI_Group stale_group = mine;
    MPI_Datatype stale_type = vec;
    MPI_Info stale_info = info;
    MPI_Comm_free(&dup);
    MPI_Group_free(&group);
    MPI_Group_free(&mine);
    MPI_Type_free(&vec);
    MPI_Info_free(&info);
    bad_comm(stale_comm, "a freed communicator");
    bad_group(stale_group, "a freed group");
    bad_type(stale_type, "a freed datatype");
    bad_info(stale_info, "a freed info object");
    int x = 0;
    MPI_Request done;
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &done);
    MPI_Request stale_request = done;
    MPI_Wait(&done, MPI_STATUS_IGNORE);
    bad_request(stale_request, "a completed and freed request");

    /* Integer handles of garbage convert back to the null handle. */
    CHECK(MPI_Comm_fromint(MPI_Comm_toint((MPI_Comm)UNMAPPED)) == MPI_COMM_NULL, "toint of garbage");
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(stale_comm)) == MPI_COMM_NULL, "toint of a freed communicator");

    /* The error handler of a garbage communicator is MPI_COMM_SELF's: the
     * error message still names the function. */
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Comm_size((MPI_Comm)UNMAPPED, &len), text, &len);
    CHECK(strstr(text, "MPI_Comm_size") && strstr(text, "comm"), "message: \"%s\"", text);

    /* Valid handles still work. */
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2, "allreduce after the garbage: %d", sum);
    free(on_heap);
    return uzt_finish("handle_garbage");
}
