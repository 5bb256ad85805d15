/*
 * hang_report.c — turning the ranks' state pages into the hang diagnosis:
 * one line per rank saying what it waits in, the collectives that some of
 * their communicator's ranks have not entered, and the cycles of the
 * wait-for graph (deadlocks).
 *
 * Pure text in, text out (no job, no I/O but the FILE given), so that
 * tests/launch/hang_report_test.c can feed it made-up pages.  The page
 * format is written down in src/core/wait_state.c.
 *
 * The wait-for graph: a rank blocked in a receive from X waits for X; in
 * a receive from any source, for every other rank; in a send (a
 * rendezvous or synchronous one: a standard eager send does not block),
 * for its destination; in a collective, for the ranks of the
 * communicator that are not in the same call.  Only blocked ranks are
 * nodes: a rank that runs may still send.  A cycle among blocked ranks
 * waits for ever; it is printed as "rank A waits in ... ← rank B waits in
 * ...", each rank waiting for the next (the last for the first).
 */
#include "hang_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NAME_MAX_LEN = 128, CALL_MAX_LEN = 64 };

struct hang_req {
    char kind[8];               /* recv, send, ssend, rsend, bsend, other */
    int peer_world;             /* -1: any source */
    int peer;                   /* in the communicator; -1: any */
    int tag;
    int tag_any;
    unsigned ctx;
    int size;
    char comm[NAME_MAX_LEN];    /* "-": no name */
};

struct hang_state {
    int has_page;
    int exited;
    int in_fence, finalized;    /* as mpiexec knows (HANG_RANK_*) */
    int blocked;
    char call[CALL_MAX_LEN];    /* "-": not known */
    int has_coll;
    unsigned coll_ctx, coll_call;
    int coll_size;
    int *members;               /* world ranks, NULL: not listed */
    int nmembers;
    char coll_comm[NAME_MAX_LEN];
    struct hang_req *reqs;
    int nreqs;
    int more;                   /* requests the page had no room for */
};

/* ------------------------------------------------------------ parsing */

static void copy_word(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "-");
}

/* "*" -> -1 (and *any = 1), else the number. */
static int number_or_any(const char *w, int *any)
{
    if (any)
        *any = w[0] == '*';
    return w[0] == '*' ? -1 : atoi(w);
}

static int *parse_members(const char *w, int *n)
{
    *n = 0;
    if (w[0] == '-')
        return NULL;
    int count = 1;
    for (const char *c = w; *c; c++)
        count += *c == ',';
    int *m = malloc(sizeof *m * (size_t)count);
    if (!m)
        return NULL;
    for (const char *c = w; *c;) {
        m[(*n)++] = atoi(c);
        c = strchr(c, ',');
        if (!c)
            break;
        c++;
    }
    return m;
}

/* Split off the first `n` blank-separated words of a line; the rest (the
 * communicator's name) stays in *rest. */
static int split_words(char *line, char **words, int n, char **rest)
{
    char *p = line;
    for (int i = 0; i < n; i++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        words[i] = p;
        p += strcspn(p, " ");
        if (*p)
            *p++ = '\0';
    }
    while (*p == ' ')
        p++;
    *rest = p;
    return 0;
}

static void parse_req(struct hang_state *s, char *line)
{
    char *w[6], *name;
    if (split_words(line, w, 6, &name) < 0)
        return;
    struct hang_req *n = realloc(s->reqs, sizeof *n * (size_t)(s->nreqs + 1));
    if (!n)
        return;
    s->reqs = n;
    struct hang_req *r = &n[s->nreqs++];
    copy_word(r->kind, sizeof r->kind, w[0]);
    r->peer_world = number_or_any(w[1], NULL);
    r->peer = number_or_any(w[2], NULL);
    r->tag = number_or_any(w[3], &r->tag_any);
    r->ctx = (unsigned)strtoul(w[4], NULL, 10);
    r->size = atoi(w[5]);
    copy_word(r->comm, sizeof r->comm, name[0] ? name : "-");
}

static void parse_coll(struct hang_state *s, char *line)
{
    char *w[4], *name;
    if (split_words(line, w, 4, &name) < 0)
        return;
    s->has_coll = 1;
    s->coll_ctx = (unsigned)strtoul(w[0], NULL, 10);
    s->coll_call = (unsigned)strtoul(w[1], NULL, 10);
    s->coll_size = atoi(w[2]);
    s->members = parse_members(w[3], &s->nmembers);
    copy_word(s->coll_comm, sizeof s->coll_comm, name[0] ? name : "-");
}

static void parse_page(struct hang_state *s, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return;
    s->has_page = 1;
    strcpy(s->call, "-");
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        char *rest = sp + 1;
        if (strcmp(line, "blocked") == 0)
            s->blocked = atoi(rest);
        else if (strcmp(line, "call") == 0)
            copy_word(s->call, sizeof s->call, rest);
        else if (strcmp(line, "coll") == 0)
            parse_coll(s, rest);
        else if (strcmp(line, "req") == 0)
            parse_req(s, rest);
        else if (strcmp(line, "more") == 0)
            s->more = atoi(rest) > 0 ? atoi(rest) : 1;
        /* unknown lines: a newer library's; skip them */
    }
    free(copy);
}

/* ----------------------------------------------------------- wording */

/* A growing string. */
struct str {
    char *buf;
    size_t len, cap;
};

static void sadd(struct str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sadd(struct str *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = (s->len + (size_t)n + 1) * 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return;
        s->buf = b;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

static void add_comm(struct str *o, const char *name, unsigned ctx, int size)
{
    if (strcmp(name, "-") == 0)
        sadd(o, "communicator #%u (size %d)", ctx, size);
    else if (strcmp(name, "MPI_COMM_WORLD") == 0)
        sadd(o, "%s", name);
    else
        sadd(o, "%s (size %d)", name, size);
}

static int is_recv(const struct hang_req *r)
{
    return strcmp(r->kind, "recv") == 0;
}

static int is_send(const struct hang_req *r)
{
    return strstr(r->kind, "send") != NULL;
}

/* "from 1, tag 7, MPI_COMM_WORLD" (with_kind: "recv from 1, ...") */
static void add_req(struct str *o, const struct hang_req *r, int with_kind)
{
    if (!is_recv(r) && !is_send(r)) {
        /* A nonblocking collective, generalized, RMA or I/O request. */
        sadd(o, "a request that is not point-to-point");
        if (r->size > 0) {
            sadd(o, " on ");
            add_comm(o, r->comm, r->ctx, r->size);
        }
        return;
    }
    if (with_kind)
        sadd(o, "%s ", r->kind);
    const char *dir = is_recv(r) ? "from" : "to";
    if (r->peer_world < 0)
        sadd(o, "%s any source", dir);
    else if (r->peer == r->peer_world)
        sadd(o, "%s %d", dir, r->peer_world);
    else
        sadd(o, "%s %d (its rank %d there)", dir, r->peer_world, r->peer);
    if (r->tag_any)
        sadd(o, ", any tag, ");
    else
        sadd(o, ", tag %d, ", r->tag);
    add_comm(o, r->comm, r->ctx, r->size);
}

/* The procedure whose name says what its one request is. */
static int call_names_request(const char *call)
{
    static const char *const calls[] = {"MPI_Recv", "MPI_Send", "MPI_Ssend", "MPI_Rsend",
                                        "MPI_Bsend", NULL};
    for (int i = 0; calls[i]; i++)
        if (strcmp(call, calls[i]) == 0)
            return 1;
    return 0;
}

/* "MPI_Recv(from 1, tag 7, MPI_COMM_WORLD)" */
static void add_wait(struct str *o, const struct hang_state *s)
{
    sadd(o, "%s", strcmp(s->call, "-") ? s->call : "an MPI call");
    if (s->has_coll) {
        sadd(o, "(");
        add_comm(o, s->coll_comm, s->coll_ctx, s->coll_size);
        sadd(o, ", call #%u)", s->coll_call);
        return;
    }
    if (s->nreqs == 0 && !s->more)
        return;
    sadd(o, "(");
    int named = s->nreqs == 1 && call_names_request(s->call);
    for (int i = 0; i < s->nreqs; i++) {
        if (i)
            sadd(o, "; ");
        add_req(o, &s->reqs[i], !named);
    }
    if (s->more)
        sadd(o, "%s%d more", s->nreqs ? "; " : "", s->more);
    sadd(o, ")");
}

/* What a rank is doing, after "rank N " / "(it ". */
static void add_doing(struct str *o, const struct hang_state *s)
{
    if (s->exited)
        sadd(o, "has exited");
    else if (s->in_fence)
        sadd(o, "waits in the process manager's fence (in MPI_Init or MPI_Finalize)");
    else if (s->finalized)
        sadd(o, "has finalized MPI");
    else if (!s->has_page)
        sadd(o, "has no state page (not started yet, or not an Uzura MPI program)");
    else if (!s->blocked)
        sadd(o, "is running, not blocked in MPI");
    else {
        sadd(o, "waits in ");
        add_wait(o, s);
    }
}

/* -------------------------------------------------------- collectives */

/* Blocked in MPI, as far as its page and mpiexec know: a node of the
 * wait-for graph. */
static int is_node(const struct hang_state *s)
{
    return s->has_page && !s->exited && !s->in_fence && !s->finalized && s->blocked;
}

static int in_same_call(const struct hang_state *a, const struct hang_state *b)
{
    return is_node(b) && b->has_coll && b->coll_ctx == a->coll_ctx &&
           b->coll_call == a->coll_call;
}

/* Is member m of rank i's collective missing from it? */
static int coll_missing(const struct hang_state *st, int size, int i, int m)
{
    return m >= 0 && m < size && m != i && !in_same_call(&st[i], &st[m]);
}

/* "rank 0,1,2 wait in MPI_Allreduce(MPI_COMM_WORLD, call #3); rank 3 has
 * not entered it (it waits in ...)": for the first rank of each call that
 * some members are missing from. */
static void report_collectives(FILE *out, const struct hang_state *st, int size)
{
    for (int i = 0; i < size; i++) {
        const struct hang_state *s = &st[i];
        if (!is_node(s) || !s->has_coll || !s->members)
            continue;
        int first = 1, missing = 0;
        for (int j = 0; j < i && first; j++)
            if (in_same_call(s, &st[j]))
                first = 0;
        for (int k = 0; k < s->nmembers; k++)
            missing += coll_missing(st, size, i, s->members[k]);
        if (!first || !missing)
            continue;
        struct str o = {0};
        int n = 0;
        for (int k = 0; k < s->nmembers; k++) {
            int m = s->members[k];
            if (m == i || (m >= 0 && m < size && in_same_call(s, &st[m]))) {
                sadd(&o, "%s%d", n ? "," : "rank ", m);
                n++;
            }
        }
        sadd(&o, " %s in ", n > 1 ? "wait" : "waits");
        add_wait(&o, s);
        for (int k = 0; k < s->nmembers; k++) {
            int m = s->members[k];
            if (!coll_missing(st, size, i, m))
                continue;
            sadd(&o, "; rank %d has not entered it (it ", m);
            add_doing(&o, &st[m]);
            sadd(&o, ")");
        }
        fprintf(out, "mpiexec: %s\n", o.buf ? o.buf : "");
        free(o.buf);
    }
}

/* ------------------------------------------------------ the wait-for graph */

struct graph {
    int size;
    int **edges;                /* [size] lists of ranks waited for */
    int *nedges;
};

static void edge_add(struct graph *g, int from, int to)
{
    if (to < 0 || to >= g->size || to == from)
        return;
    for (int k = 0; k < g->nedges[from]; k++)
        if (g->edges[from][k] == to)
            return;
    int *n = realloc(g->edges[from], sizeof *n * (size_t)(g->nedges[from] + 1));
    if (!n)
        return;
    g->edges[from] = n;
    n[g->nedges[from]++] = to;
}

static void graph_build(struct graph *g, const struct hang_state *st, int size)
{
    for (int i = 0; i < size; i++) {
        const struct hang_state *s = &st[i];
        if (!is_node(s))
            continue;
        for (int k = 0; k < s->nreqs; k++) {
            const struct hang_req *r = &s->reqs[k];
            if (!is_recv(r) && !is_send(r))
                continue;
            if (r->peer_world >= 0)
                edge_add(g, i, r->peer_world);
            else
                for (int j = 0; j < size; j++)
                    edge_add(g, i, j);
        }
        if (s->has_coll && s->members)
            for (int k = 0; k < s->nmembers; k++)
                if (coll_missing(st, size, i, s->members[k]))
                    edge_add(g, i, s->members[k]);
    }
    /* Only blocked ranks: drop edges to the others. */
    for (int i = 0; i < size; i++) {
        int n = 0;
        for (int k = 0; k < g->nedges[i]; k++)
            if (is_node(&st[g->edges[i][k]]))
                g->edges[i][n++] = g->edges[i][k];
        g->nedges[i] = n;
    }
}

enum { WHITE, GREY, BLACK };

/* Depth-first search from v; on a back edge to a grey rank, the cycle is
 * path[from that rank .. depth].  Returns its length (0: none). */
static int cycle_from(const struct graph *g, int v, int *colour, int *path, int depth, int *start)
{
    colour[v] = GREY;
    path[depth] = v;
    for (int k = 0; k < g->nedges[v]; k++) {
        int w = g->edges[v][k];
        if (colour[w] == GREY) {
            for (int d = 0; d <= depth; d++)
                if (path[d] == w) {
                    *start = d;
                    return depth - d + 1;
                }
        }
        if (colour[w] == WHITE) {
            int n = cycle_from(g, w, colour, path, depth + 1, start);
            if (n)
                return n;
        }
    }
    colour[v] = BLACK;
    return 0;
}

static int report_cycles(FILE *out, const struct hang_state *st, int size)
{
    struct graph g = {size, calloc((size_t)size, sizeof(int *)), calloc((size_t)size, sizeof(int))};
    int *colour = calloc((size_t)size, sizeof(int)), *path = calloc((size_t)size, sizeof(int));
    int found = 0;
    if (!g.edges || !g.nedges || !colour || !path)
        goto out;
    graph_build(&g, st, size);
    for (int v = 0; v < size; v++) {
        if (colour[v] != WHITE || !is_node(&st[v]))
            continue;
        int start = 0, n = cycle_from(&g, v, colour, path, 0, &start);
        if (!n)
            continue;
        struct str o = {0};
        sadd(&o, "deadlock: ");
        for (int k = 0; k < n; k++) {
            int r = path[start + k];
            sadd(&o, "%srank %d ", k ? " ← " : "", r);
            add_doing(&o, &st[r]);
        }
        fprintf(out, "mpiexec: %s\n", o.buf ? o.buf : "");
        free(o.buf);
        found++;
        /* The ranks still grey were on this search's path: done with them. */
        for (int k = 0; k < size; k++)
            if (colour[k] == GREY)
                colour[k] = BLACK;
    }
out:
    for (int i = 0; g.edges && i < size; i++)
        free(g.edges[i]);
    free(g.edges);
    free(g.nedges);
    free(colour);
    free(path);
    return found;
}

/* --------------------------------------------------------------- report */

int hang_report_print(FILE *out, const char *why, int size, const char *const *pages,
                      const int *flags)
{
    struct hang_state *st = calloc((size_t)size, sizeof *st);
    if (!st)
        return 0;
    int with_page = 0;
    for (int i = 0; i < size; i++) {
        int f = flags ? flags[i] : 0;
        st[i].exited = !!(f & HANG_RANK_EXITED);
        st[i].in_fence = !!(f & HANG_RANK_IN_FENCE);
        st[i].finalized = !!(f & HANG_RANK_FINALIZED);
        if (pages[i]) {
            parse_page(&st[i], pages[i]);
            with_page++;
        }
    }
    if (with_page) {
        fprintf(out, "mpiexec: hang diagnosis (%s): what each rank waits in\n", why);
        for (int i = 0; i < size; i++) {
            struct str o = {0};
            add_doing(&o, &st[i]);
            fprintf(out, "mpiexec:   rank %d %s\n", i, o.buf ? o.buf : "");
            free(o.buf);
        }
        report_collectives(out, st, size);
        if (!report_cycles(out, st, size))
            fprintf(out, "mpiexec: no cycle of waits among the blocked ranks\n");
        fflush(out);
    }
    for (int i = 0; i < size; i++) {
        free(st[i].members);
        free(st[i].reqs);
    }
    free(st);
    return with_page;
}
