/*
 * ops.c — MPI_Op_create from Fortran.
 *
 * C calls a user reduction as fn(invec, inoutvec, &len, &datatype) with a
 * C datatype handle and no way to pass state, so each Fortran function gets
 * a slot of its own with a C trampoline that knows the slot, converts the
 * datatype to its Fortran integer and calls the Fortran function (the
 * same call for `use mpi` and `use mpi_f08`: addresses, then the integer
 * length, then the handle).  There are NSLOTS slots for the operations alive
 * at one time; MPI_Op_free gives its slot back, and slots are handed out
 * round-robin so that an operation freed while a nonblocking reduction
 * still runs keeps its function for as long as possible.
 */
#include <pthread.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void fortran_user_fn(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);
typedef void fortran_user_fn_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Fint *datatype);

enum { NSLOTS = 64 };

static struct {
    uzf_proc fn;
    MPI_Op op;
    int used;
} slots[NSLOTS];
static int next_slot;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_slot(int i, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Fint fdt = PMPI_Type_c2f(*dt);
    ((fortran_user_fn *)slots[i].fn)(in, inout, len, &fdt);
}

static void call_slot_c(int i, void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    MPI_Fint fdt = PMPI_Type_c2f(*dt);
    ((fortran_user_fn_c *)slots[i].fn)(in, inout, len, &fdt);
}

/* One pair of trampolines per slot. */
#define FOR_EACH_SLOT(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) \
    X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) \
    X(28) X(29) X(30) X(31) X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) \
    X(43) X(44) X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) \
    X(58) X(59) X(60) X(61) X(62) X(63)
#define TRAMPOLINES(i)                                                              \
    static void slot_##i(void *a, void *b, int *n, MPI_Datatype *d)                 \
    {                                                                               \
        call_slot(i, a, b, n, d);                                                   \
    }                                                                               \
    static void slot_c_##i(void *a, void *b, MPI_Count *n, MPI_Datatype *d)         \
    {                                                                               \
        call_slot_c(i, a, b, n, d);                                                 \
    }
FOR_EACH_SLOT(TRAMPOLINES)
#define SMALL(i) slot_##i,
#define LARGE(i) slot_c_##i,
static MPI_User_function *const trampolines[NSLOTS] = { FOR_EACH_SLOT(SMALL) };
static MPI_User_function_c *const trampolines_c[NSLOTS] = { FOR_EACH_SLOT(LARGE) };

static int slot_claim(uzf_proc fn)
{
    pthread_mutex_lock(&slots_lock);
    int found = -1;
    for (int k = 0; k < NSLOTS && found < 0; k++) {
        int i = (next_slot + k) % NSLOTS;
        if (!slots[i].used) {
            slots[i].used = 1;
            slots[i].fn = fn;
            slots[i].op = MPI_OP_NULL;
            next_slot = (i + 1) % NSLOTS;
            found = i;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return found;
}

static void slot_set(int i, MPI_Op op, int used)
{
    pthread_mutex_lock(&slots_lock);
    slots[i].op = op;
    slots[i].used = used;
    pthread_mutex_unlock(&slots_lock);
}

static void slot_release(MPI_Op op)
{
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < NSLOTS; i++)
        if (slots[i].used && slots[i].op == op)
            slots[i].used = 0;
    pthread_mutex_unlock(&slots_lock);
}

static int op_create(uzf_proc fn, const MPI_Fint *commute, MPI_Fint *op, int large)
{
    int i = slot_claim(fn);
    if (i < 0)
        return uzf_raise(NULL, MPI_ERR_OTHER, "too many Fortran user-defined operations at once "
                         "(64); free some with MPI_OP_FREE");
    MPI_Op c = MPI_OP_NULL;
    int rc = large ? PMPI_Op_create_c(trampolines_c[i], uzf_logical(*commute), &c)
                   : PMPI_Op_create(trampolines[i], uzf_logical(*commute), &c);
    slot_set(i, c, rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS)
        *op = PMPI_Op_c2f(c);
    return rc;
}

int uzf_Op_create(uzf_proc user_fn, const MPI_Fint *commute, MPI_Fint *op)
{
    return op_create(user_fn, commute, op, 0);
}

int uzf_Op_create_c(uzf_proc user_fn, const MPI_Fint *commute, MPI_Fint *op)
{
    return op_create(user_fn, commute, op, 1);
}

int uzf_Op_free(MPI_Fint *op)
{
    MPI_Op c = PMPI_Op_f2c(*op), old = c;
    int rc = PMPI_Op_free(&c);
    if (rc == MPI_SUCCESS)
        slot_release(old);
    *op = PMPI_Op_c2f(c);
    return rc;
}
