/*
 * shm_rma.c — one-copy put and get of byte runs for one-sided operations
 * (uz_transport_ops.put/get), by cross-memory attach.
 *
 * The caller names the peer's memory by address, as the peer published it
 * (a window's base, say): process_vm_writev (put) or process_vm_readv
 * (get) copies between our runs and the peer's in one pass, without the
 * peer doing anything — UZURA's remote DMA, done by the kernel.  Each
 * system call takes up to SLICE runs of each side and may copy less than
 * asked (a fault on the peer's side ends it early), so the runs are walked
 * with two cursors until every byte is across.  Everything is copied
 * before the call returns: the completion argument is never used.
 *
 * Where cross-memory attach is not permitted (ptrace policy, seccomp,
 * containers; shm_segment.c probes it), caps.has_put_get is 0 and a call
 * fails with the reason rather than pretending.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "base/errors.h"
#include "transport/shm/shm_state.h"

enum { SLICE = 512 };           /* runs per system call (IOV_MAX is 1024) */

/* A position in a list of runs. */
struct run_cursor {
    const struct iovec *iov;
    int n;
    int i;
    size_t off;                 /* into iov[i] */
};

static void cursor_skip_empty(struct run_cursor *c)
{
    while (c->i < c->n && c->off == c->iov[c->i].iov_len) {
        c->i++;
        c->off = 0;
    }
}

/* Up to SLICE runs from the cursor, covering at most `limit` bytes;
 * returns how many and the bytes in *bytes (the cursor does not move). */
static int cursor_take(const struct run_cursor *c, struct iovec *out, size_t limit, size_t *bytes)
{
    int k = 0, i = c->i;
    size_t off = c->off, got = 0;
    for (; i < c->n && k < SLICE && got < limit; i++, off = 0) {
        size_t n = c->iov[i].iov_len - off;
        if (n == 0)
            continue;
        if (n > limit - got)
            n = limit - got;
        out[k].iov_base = (char *)c->iov[i].iov_base + off;
        out[k].iov_len = n;
        got += n;
        k++;
    }
    *bytes = got;
    return k;
}

static void cursor_advance(struct run_cursor *c, size_t len)
{
    while (len) {
        size_t n = c->iov[c->i].iov_len - c->off;
        if (n > len)
            n = len;
        c->off += n;
        len -= n;
        cursor_skip_empty(c);
    }
}

static size_t runs_bytes(const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    return total;
}

/* Copy all of `local` to (put) or from (get) the peer's `remote`. */
static int transfer(int peer, int is_put, const struct iovec *local, int nlocal, const struct iovec *remote,
                    int nremote)
{
    const char *what = is_put ? "put" : "get";
    if (peer < 0 || peer >= uz_shm.nlocal)
        return uz_err_make(MPI_ERR_RANK, "shm %s: no local rank %d", what, peer);
    if (!uz_shm.cma) {
        char why[512];
        uz_shm_describe(why, sizeof(why));
        return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION, "shm %s: cross-memory attach is not usable here; "
                           "large messages go by %s", what, why);
    }
    size_t total = runs_bytes(local, nlocal);
    if (total != runs_bytes(remote, nremote))
        return uz_err_make(MPI_ERR_ARG, "shm %s: %zu bytes of local runs against %zu of remote ones", what,
                           total, runs_bytes(remote, nremote));
    struct run_cursor lc = { local, nlocal, 0, 0 }, rc = { remote, nremote, 0, 0 };
    cursor_skip_empty(&lc);
    cursor_skip_empty(&rc);
    pid_t pid = shm_pid_of(peer);
    size_t done = 0;
    while (done < total) {
        struct iovec lv[SLICE], rv[SLICE];
        size_t lbytes, rbytes;
        int ln = cursor_take(&lc, lv, total - done, &lbytes);
        int rn = cursor_take(&rc, rv, lbytes, &rbytes);
        if (rbytes < lbytes)
            ln = cursor_take(&lc, lv, rbytes, &lbytes);
        ssize_t n = is_put ? process_vm_writev(pid, lv, (unsigned long)ln, rv, (unsigned long)rn, 0)
                           : process_vm_readv(pid, lv, (unsigned long)ln, rv, (unsigned long)rn, 0);
        if (n <= 0)
            return uz_err_make(MPI_ERR_OTHER, "shm %s of %zu bytes with local rank %d failed after %zu: %s",
                               what, total, peer, done, n < 0 ? strerror(errno) : "nothing copied");
        cursor_advance(&lc, (size_t)n);
        cursor_advance(&rc, (size_t)n);
        done += (size_t)n;
    }
    return 0;
}

int uz_shm_put(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp)
{
    return transfer(peer, 1, local, nlocal, remote, nremote);
}

int uz_shm_get(int peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
               struct uz_rma_completion *comp)
{
    return transfer(peer, 0, local, nlocal, remote, nremote);
}
