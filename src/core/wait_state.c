/*
 * wait_state.c — this rank's state page for mpiexec's hang diagnosis:
 * what the blocking MPI procedure that runs now waits for, written when a
 * wait is about to sleep (pt2pt/wait_note.h says when) and read by mpiexec
 * on --timeout or SIGUSR1 (tools/mpiexec/hang_query.c), without the rank's
 * help.
 *
 * The page exists only under Uzura's own mpiexec (UZURA_JOB_ID given),
 * which removes /dev/shm/uzura-<job>-* when the job ends however it ends;
 * under another process manager nobody would read or remove it.  It is
 * made once per process and stays mapped until exit: mpiexec may read it
 * at any moment, MPI_Finalize included.
 *
 * The text (base/state_page.h), one item per line, the communicator's
 * name last since it may hold blanks:
 *   blocked 1                     0 once the wait ended
 *   call MPI_Recv                 the procedure ("-": not known)
 *   coll CTX CALL SIZE MEMBERS NAME   a blocking collective: its call
 *                                 number on the communicator, and the
 *                                 world ranks of its group ("0,1,2", or
 *                                 "-" when too many to list)
 *   req KIND PEER_WORLD PEER TAG CTX SIZE NAME   each pending request;
 *                                 KIND recv, send, ssend, rsend, bsend or
 *                                 other; "*" for a wildcard
 *   more N                        requests left out for lack of room
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/params.h"
#include "base/runtime.h"
#include "base/state_page.h"
#include "core/comm.h"
#include "core/wait_state.h"
#include "pt2pt/wait_note.h"

static struct uz_state_page *page;

/* Appending to the page's text, never past its end. */
struct text {
    char *buf;
    size_t len, cap;
};

static int put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(struct text *t, const char *fmt, ...)
{
    if (t->len >= t->cap)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->cap - t->len) {
        t->buf[t->len] = '\0';          /* drop the piece that did not fit */
        return -1;
    }
    t->len += (size_t)n;
    return 0;
}

static const char *comm_name(const uz_comm *c)
{
    return c && c->name[0] ? c->name : "-";
}

static const char *request_kind(const uz_request *r)
{
    if (r->kind == UZ_REQ_RECV)
        return "recv";
    if (r->kind != UZ_REQ_SEND)
        return "other";
    switch (r->send_mode) {
    case UZ_SEND_SYNC: return "ssend";
    case UZ_SEND_READY: return "rsend";
    case UZ_SEND_BUFFERED: return "bsend";
    default: return "send";
    }
}

/* "*" for a wildcard, else the number. */
static const char *number_or_any(int v, int any, char *buf, size_t len)
{
    if (v == any)
        return "*";
    snprintf(buf, len, "%d", v);
    return buf;
}

static int put_request(struct text *t, uz_request *r)
{
    if (r->kind == UZ_REQ_PERSISTENT)
        r = r->child;                   /* the running round, if any */
    if (!r || uz_request_is_complete(r))
        return 0;
    const uz_comm *c = r->comm;
    char pw[16], p[16], tag[16];
    int peer_world = r->peer == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : r->peer_world;
    return put(t, "req %s %s %s %s %u %d %s\n", request_kind(r),
               number_or_any(peer_world, MPI_ANY_SOURCE, pw, sizeof pw),
               number_or_any(r->peer, MPI_ANY_SOURCE, p, sizeof p),
               number_or_any(r->tag, MPI_ANY_TAG, tag, sizeof tag), r->context_id,
               c ? (c->is_inter ? c->remote_size : c->size) : 0, comm_name(c));
}

enum { MEMBERS_MAX = 128 };

static void put_members(struct text *t, const uz_comm *c)
{
    if (c->is_inter || c->size > MEMBERS_MAX) {
        put(t, " -");
        return;
    }
    for (int i = 0; i < c->size; i++)
        put(t, "%c%d", i ? ',' : ' ', uz_group_world_rank(c->local_group, i));
}

static void put_note(struct text *t, const struct uz_wait_note *n)
{
    put(t, "call %s\n", n->call ? n->call : "-");
    if (n->coll_comm) {
        const uz_comm *c = n->coll_comm;
        put(t, "coll %u %u %d", c->context_id, n->coll_call, c->size);
        put_members(t, c);
        put(t, " %s\n", comm_name(c));
    }
    for (int i = 0; i < n->nreqs; i++) {
        if (n->reqs[i] && put_request(t, n->reqs[i]) < 0) {
            put(t, "more %d\n", n->nreqs - i);
            break;
        }
    }
}

static void publish(int blocked)
{
    /* Leave room for the "more" line. */
    struct text t = {page->text, 0, sizeof page->text - 32};
    uz_state_page_begin(page);
    put(&t, "blocked %d\n", blocked);
    if (blocked) {
        if (uz_wait_note)
            put_note(&t, uz_wait_note);
        else
            put(&t, "call -\n");
    }
    if (t.len > sizeof page->text - 32) {
        t.cap = sizeof page->text;
        put(&t, "more ?\n");
    }
    uz_state_page_end(page, t.len);
}

void uz_wait_state_open(void)
{
    uz_wait_note = NULL;                /* a previous run's note is gone with its frame */
    uz_wait_call = NULL;
    if (page) {
        uz_wait_publish = publish;
        return;
    }
    if (!uz_config.job_id || !uz_config.job_id[0] || uz_rt.singleton)
        return;
    char name[128];
    snprintf(name, sizeof name, "/dev/shm/uzura-%s-state-%d", uz_config.job_id, uz_rt.world_rank);
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;                         /* no diagnosis then; nothing else depends on it */
    void *p = MAP_FAILED;
    if (ftruncate(fd, UZ_STATE_PAGE_SIZE) == 0)
        p = mmap(NULL, UZ_STATE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        unlink(name);
        return;
    }
    page = p;
    publish(0);
    uz_wait_publish = publish;
}
