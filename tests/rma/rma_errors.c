/*
 * rma_errors.c — wrong uses of one-sided communication get the right error
 * class (MPI_ERRORS_RETURN on the windows, on MPI_COMM_WORLD and on
 * MPI_COMM_SELF, whose handler errors on MPI_WIN_NULL go to):
 *
 *  - MPI_Put, MPI_Get, MPI_Accumulate outside any epoch: MPI_ERR_RMA_SYNC;
 *  - MPI_Win_unlock without MPI_Win_lock, MPI_Win_unlock_all without
 *    MPI_Win_lock_all, MPI_Win_flush outside a passive epoch,
 *    MPI_Win_complete without MPI_Win_start, MPI_Win_wait without
 *    MPI_Win_post, MPI_Win_lock and MPI_Win_fence inside a lock_all epoch:
 *    MPI_ERR_RMA_SYNC;
 *  - a negative target rank and a rank of the group's size (MPI_Put in a
 *    lock_all epoch, MPI_Win_lock): MPI_ERR_RANK;
 *  - MPI_WIN_NULL given to MPI_Win_fence, MPI_Put, MPI_Win_lock,
 *    MPI_Win_free: MPI_ERR_WIN;
 *  - a negative displacement on a window that is not dynamic: an error,
 *    MPI_ERR_DISP or MPI_ERR_RMA_RANGE.
 *
 * The standard does not require an implementation to detect every
 * erroneous use; the errors that MPICH 5.0.2 does not detect are required
 * only of Uzura (MPI_Get_library_version contains "Uzura"), and elsewhere
 * an error, if returned, must still have the right class:
 *  - a displacement past the end of the target window (MPI_Put at the
 *    size, MPI_Get crossing the end, MPI_Accumulate past the end), and a
 *    dynamic window's unattached memory: MPI_ERR_RMA_RANGE, from the call
 *    or from the MPI_Win_unlock that ends the epoch;
 *  - MPI_SUM on MPI_BYTE (MPI_Accumulate, MPI_Get_accumulate,
 *    MPI_Fetch_and_op): MPI_ERR_OP;
 *  - MPI_Win_lock or MPI_Win_lock_all on a window created with
 *    no_locks=true: MPI_ERR_RMA_SYNC;
 *  - MPI_Rput in a fence epoch (request-based operations need a passive
 *    one): MPI_ERR_RMA_SYNC.
 * For Uzura, MPI_Error_string of every returned code also names the
 * function that failed.
 *
 * Memory an undetected out-of-range access writes to lies inside
 * buffers allocated for that, never outside them.
 */
#include "uztest.h"

static int rank, size, is_uzura;

#define STRICT 0
#define OPTIONAL 1 /* detection optional: required of Uzura only */

static int expect_(int rc, int cls, const char *fn, int optional, const char *call, int line)
{
    if (rc == MPI_SUCCESS) {
        if (optional && !is_uzura)
            return 0;
        uzt_fail(__FILE__, line, "%s succeeded, expected error class %d", call, cls);
        return 0;
    }
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    if (uzt_class(rc) != cls)
        uzt_fail(__FILE__, line, "%s: error class %d, expected %d (%s)", call, uzt_class(rc), cls, msg);
    if (is_uzura && fn && !strstr(msg, fn))
        uzt_fail(__FILE__, line, "%s: message \"%s\" does not name %s", call, msg, fn);
    return 1;
}
#define EXPECT(call, cls, fn, optional) expect_((call), (cls), (fn), (optional), #call, __LINE__)

static MPI_Win make_win(int *mem, int n, MPI_Info info)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, n * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    return win;
}

/* Window ints, and ints of memory before and behind them. */
enum { WN = 16, SLACK = 64 };

static void sync_errors(void)
{
    int *mem = calloc(SLACK + WN + SLACK, sizeof(int)), x[4] = { 1, 2, 3, 4 };
    MPI_Win win = make_win(mem + SLACK, WN, MPI_INFO_NULL);
    int t = (rank + 1) % size;

    EXPECT(MPI_Put(x, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Put", STRICT);
    EXPECT(MPI_Get(x, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Get", STRICT);
    EXPECT(MPI_Accumulate(x, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC, "MPI_Accumulate", STRICT);
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock", STRICT);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all", STRICT);
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", STRICT);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete", STRICT);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait", STRICT);

    CHECK_MPI(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", STRICT);
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence", STRICT);
    /* Ranks: in a valid epoch, so that only the rank is wrong. */
    int bad_rank = -1000;
    CHECK(bad_rank != MPI_PROC_NULL && bad_rank != MPI_ANY_SOURCE && bad_rank != MPI_ROOT, "-1000 is a constant");
    EXPECT(MPI_Put(x, 1, MPI_INT, bad_rank, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Put", STRICT);
    EXPECT(MPI_Put(x, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Put", STRICT);
    EXPECT(MPI_Get(x, 1, MPI_INT, bad_rank, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Get", STRICT);
    /* Negative displacement on a window that is not dynamic. */
    int rc = MPI_Put(x, 1, MPI_INT, t, -1, 1, MPI_INT, win);
    CHECK(rc != MPI_SUCCESS && (uzt_class(rc) == MPI_ERR_DISP || uzt_class(rc) == MPI_ERR_RMA_RANGE),
          "MPI_Put at displacement -1: rc %d class %d, expected MPI_ERR_DISP or MPI_ERR_RMA_RANGE", rc, uzt_class(rc));
    CHECK_MPI(MPI_Win_unlock_all(win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, bad_rank, 0, win), MPI_ERR_RANK, "MPI_Win_lock", STRICT);
    EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, size, 0, win), MPI_ERR_RANK, "MPI_Win_lock", STRICT);

    /* The window still works after all that. */
    int got = -1, v = 4242 + rank;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, t, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(&got, 1, MPI_INT, t, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(got == v, "after the errors: read back %d, expected %d", got, v);

    /* Request-based operations outside a passive epoch. */
    MPI_Request rq = MPI_REQUEST_NULL;
    if (EXPECT(MPI_Rput(x, 1, MPI_INT, t, 2, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC, "MPI_Rput", OPTIONAL) == 0 &&
        rq != MPI_REQUEST_NULL)
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Win_fence(0, win));

    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
}

/* Wait for an operation's outcome: its own rc, or the unlock's. */
static int op_then_unlock(int rc, int t, MPI_Win win)
{
    int rc2 = MPI_Win_unlock(t, win);
    if (rc != MPI_SUCCESS) {
        CHECK(rc2 == MPI_SUCCESS, "unlock after a failed operation: %d", rc2);
        return rc;
    }
    return rc2;
}

static void range_errors(void)
{
    int *mem = calloc(SLACK + WN + SLACK, sizeof(int)), x[4] = { 1, 2, 3, 4 }, y[4];
    MPI_Win win = make_win(mem + SLACK, WN, MPI_INFO_NULL);
    int t = (rank + 1) % size;

    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    int rc = MPI_Put(x, 1, MPI_INT, t, WN, 1, MPI_INT, win);
    rc = op_then_unlock(rc, t, win);
    expect_(rc, MPI_ERR_RMA_RANGE, NULL, OPTIONAL, "MPI_Put at the window's end (from the call or the unlock)",
            __LINE__);

    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    rc = MPI_Get(y, 2, MPI_INT, t, WN - 1, 2, MPI_INT, win);
    rc = op_then_unlock(rc, t, win);
    expect_(rc, MPI_ERR_RMA_RANGE, NULL, OPTIONAL, "MPI_Get crossing the window's end (from the call or the unlock)",
            __LINE__);

    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    rc = MPI_Accumulate(x, 4, MPI_INT, t, WN + 2, 4, MPI_INT, MPI_SUM, win);
    rc = op_then_unlock(rc, t, win);
    expect_(rc, MPI_ERR_RMA_RANGE, NULL, OPTIONAL,
            "MPI_Accumulate past the window's end (from the call or the unlock)", __LINE__);

    /* MPI_SUM is not defined on MPI_BYTE. */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Accumulate(x, 4, MPI_BYTE, t, 0, 4, MPI_BYTE, MPI_SUM, win), MPI_ERR_OP, "MPI_Accumulate", OPTIONAL);
    EXPECT(MPI_Get_accumulate(x, 4, MPI_BYTE, y, 4, MPI_BYTE, t, 0, 4, MPI_BYTE, MPI_SUM, win), MPI_ERR_OP,
           "MPI_Get_accumulate", OPTIONAL);
    EXPECT(MPI_Fetch_and_op(x, y, MPI_BYTE, t, 0, MPI_SUM, win), MPI_ERR_OP, "MPI_Fetch_and_op", OPTIONAL);
    CHECK_MPI(MPI_Win_unlock(t, win));

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    /* A dynamic window: memory that is not attached. */
    static int spare[16];
    MPI_Aint *addr = malloc(size * sizeof(MPI_Aint)), mine;
    CHECK_MPI(MPI_Get_address(spare, &mine));
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    rc = MPI_Put(x, 1, MPI_INT, t, addr[t], 1, MPI_INT, win);
    rc = op_then_unlock(rc, t, win);
    expect_(rc, MPI_ERR_RMA_RANGE, NULL, OPTIONAL,
            "MPI_Put to unattached memory of a dynamic window (from the call or the unlock)", __LINE__);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_free(&win));
    free(addr);
}

static void no_locks(void)
{
    int mem[WN];
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "no_locks", "true"));
    MPI_Win win = make_win(mem, WN, info);
    CHECK_MPI(MPI_Info_free(&info));
    int t = (rank + 1) % size;
    if (!EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", OPTIONAL))
        CHECK_MPI(MPI_Win_unlock(t, win)); /* not detected: undo */
    if (!EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all", OPTIONAL))
        CHECK_MPI(MPI_Win_unlock_all(win));
    /* Fences are fine there. */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
}

static void null_window(void)
{
    int x = 0;
    MPI_Win null = MPI_WIN_NULL;
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_fence", STRICT);
    EXPECT(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Put", STRICT);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_lock", STRICT);
    EXPECT(MPI_Win_free(&null), MPI_ERR_WIN, "MPI_Win_free", STRICT);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    CHECK_MPI(MPI_Get_library_version(ver, &len));
    is_uzura = strstr(ver, "Uzura") != NULL;

    sync_errors();
    range_errors();
    no_locks();
    null_window();
    return uzt_finish("rma_errors");
}
