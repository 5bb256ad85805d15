/*
 * hang_query.c — asking every rank what it is blocked in: on --timeout
 * (then the job is killed) and on SIGUSR1 (the job goes on).
 *
 * Nothing is asked of the ranks themselves: a rank stuck in MPI sleeps on
 * a futex or in poll() and would answer nothing.  Each rank keeps its
 * state in a page of shared memory (src/core/wait_state.c), which mpiexec
 * reads here for the ranks of its own host.  The front end of a multi-host
 * job asks each proxy (FRAME_HANG_QUERY); the proxy reads its ranks' pages
 * and sends each one back (FRAME_HANG_STATE); the front end prints the
 * diagnosis (hang_report.c) when every rank has answered or after
 * ANSWER_SECONDS, whichever is first.
 */
#include "hang_report.h"
#include "mpiexec.h"

#include "base/state_page.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* How long the front end waits for the proxies' answers. */
enum { ANSWER_SECONDS = 2 };

struct hang_query {
    int then_kill;              /* --timeout: kill the job after the report */
    double until;               /* give up waiting for answers */
    int answers;
    char **pages;               /* [size], NULL: no page (yet) */
    int *answered;              /* [size] */
};

/* Rank `rank`'s page on this host as text (malloc'd), or NULL. */
static char *page_read(const struct job *job, int rank)
{
    char name[128];
    snprintf(name, sizeof name, "/dev/shm/uzura-%s-state-%d", job->id, rank);
    int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, UZ_STATE_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    char *text = malloc(UZ_STATE_PAGE_SIZE);
    if (text && uz_state_page_read(p, text, UZ_STATE_PAGE_SIZE) < 0) {
        free(text);
        text = NULL;
    }
    munmap(p, UZ_STATE_PAGE_SIZE);
    return text;
}

static void query_free(struct hang_query *q, int size)
{
    for (int i = 0; q->pages && i < size; i++)
        free(q->pages[i]);
    free(q->pages);
    free(q->answered);
    free(q);
}

/* Print the diagnosis from the pages gathered, then end the query (and
 * the job, after --timeout). */
static void query_finish(struct job *job)
{
    struct hang_query *q = job->hang;
    job->hang = NULL;
    int *flags = calloc((size_t)job->size, sizeof *flags);
    for (int i = 0; flags && i < job->nranks; i++) {
        const struct rank *r = &job->ranks[i];
        if (r->rank >= 0 && r->rank < job->size)
            flags[r->rank] = (r->exited ? HANG_RANK_EXITED : 0) |
                             (r->pmi.in_barrier ? HANG_RANK_IN_FENCE : 0) |
                             (r->pmi.state == RANK_PMI_FINALIZED ? HANG_RANK_FINALIZED : 0);
    }
    char why[128];
    if (q->then_kill)
        snprintf(why, sizeof why, "timeout of %s s expired", job->opt->timeout_text);
    else
        snprintf(why, sizeof why, "asked by SIGUSR1; the job goes on");
    hang_report_print(stderr, why, job->size, (const char *const *)q->pages, flags);
    free(flags);
    int then_kill = q->then_kill;
    query_free(q, job->size);
    if (then_kill)
        job_fail(job, EXIT_TIMEOUT, "job exceeded timeout of %s s", job->opt->timeout_text);
}

void hang_query_start(struct job *job, int then_kill)
{
    if (job->hang) {                    /* one is on its way: let it kill if asked */
        job->hang->then_kill |= then_kill;
        return;
    }
    struct hang_query *q = calloc(1, sizeof *q);
    if (q) {
        q->pages = calloc((size_t)job->size, sizeof *q->pages);
        q->answered = calloc((size_t)job->size, sizeof *q->answered);
    }
    if (!q || !q->pages || !q->answered) {
        if (q)
            query_free(q, job->size);
        fputs("mpiexec: out of memory for the hang diagnosis\n", stderr);
        if (then_kill)
            job_fail(job, EXIT_TIMEOUT, "job exceeded timeout of %s s", job->opt->timeout_text);
        return;
    }
    q->then_kill = then_kill;
    job->hang = q;
    if (!job->remote) {
        for (int i = 0; i < job->nranks; i++) {
            int rank = job->ranks[i].rank;
            if (rank >= 0 && rank < job->size)
                q->pages[rank] = page_read(job, rank);
        }
        query_finish(job);
        return;
    }
    q->until = monotonic_now() + ANSWER_SECONDS;
    for (int i = 0; i < job->remote->nproxies; i++) {
        struct proxy *p = &job->remote->proxies[i];
        if (!p->done && p->link.out_fd >= 0) {
            frame_send(&p->link, FRAME_HANG_QUERY, -1, 0, NULL, 0);
            continue;
        }
        /* A proxy that is gone answers for none of its ranks. */
        for (int rank = 0; rank < job->size; rank++)
            if (job->remote->rank_node[rank] == p->node && !q->answered[rank]) {
                q->answered[rank] = 1;
                q->answers++;
            }
    }
    if (q->answers == job->size)
        query_finish(job);
}

/* Front end: a proxy's answer for one rank (an empty page: it has none). */
void hang_query_answer(struct job *job, int rank, const char *text, size_t len)
{
    struct hang_query *q = job->hang;
    if (!q || rank < 0 || rank >= job->size || q->answered[rank])
        return;
    q->answered[rank] = 1;
    q->answers++;
    if (len) {
        q->pages[rank] = malloc(len + 1);
        if (q->pages[rank]) {
            memcpy(q->pages[rank], text, len);
            q->pages[rank][len] = '\0';
        }
    }
    if (q->answers == job->size)
        query_finish(job);
}

void hang_query_check(struct job *job, double now)
{
    if (job->hang && now >= job->hang->until)
        query_finish(job);
}

double hang_query_deadline(const struct job *job)
{
    return job->hang ? job->hang->until : 0;
}

/* Proxy: answer the front end's query with each of our ranks' pages. */
void hang_query_proxy_answer(struct job *job)
{
    for (int i = 0; i < job->nranks; i++) {
        char *text = page_read(job, job->ranks[i].rank);
        frame_send(&job->up->link, FRAME_HANG_STATE, job->ranks[i].rank, 0, text,
                   text ? strlen(text) : 0);
        free(text);
    }
}

/* The job ends before the answers came: print what there is. */
void hang_query_end(struct job *job)
{
    if (job->hang) {
        job->hang->then_kill = 0;
        query_finish(job);
    }
}
