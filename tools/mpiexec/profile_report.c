/*
 * profile_report.c — turn a directory of rank profiles into the report:
 * the pictures as SVG files, report.html with all of them inline,
 * matrix.csv (every flow: kind, from, to, messages, bytes) and summary.txt,
 * the text that mpiexec also prints at exit (docs/profile.md).
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

/* Lines of the summary's lists. */
enum { TOP_TALKERS = 10, TOP_CALLS = 10 };

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "mpiexec: profile: cannot write %s\n", path);
    return f;
}

/* ------------------------------------------------------------- summary */

struct flow {
    int from, to;
    uint64_t bytes, msgs;
};

static int by_bytes(const void *a, const void *b)
{
    const struct flow *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->from != y->from ? x->from - y->from : x->to - y->to;
}

static void summary_talkers(FILE *out, const struct profile *pf)
{
    size_t p = (size_t)pf->size, n = 0, nonzero = 0;
    for (size_t i = 0; i < p * p; i++)
        nonzero += pf->msgs[0][i] + pf->msgs[1][i] != 0;
    struct flow *flows = malloc((nonzero ? nonzero : 1) * sizeof *flows);
    if (!flows)
        return;
    for (size_t i = 0; i < p * p; i++) {
        uint64_t bytes = pf->bytes[0][i] + pf->bytes[1][i], msgs = pf->msgs[0][i] + pf->msgs[1][i];
        if (msgs)
            flows[n++] = (struct flow){ (int)(i / p), (int)(i % p), bytes, msgs };
    }
    qsort(flows, n, sizeof *flows, by_bytes);
    fprintf(out, "  top talkers (bytes sent, point-to-point and collective):\n");
    for (size_t i = 0; i < n && i < TOP_TALKERS; i++)
        fprintf(out, "    %5d -> %-5d %14llu bytes %10llu messages\n", flows[i].from, flows[i].to,
                (unsigned long long)flows[i].bytes, (unsigned long long)flows[i].msgs);
    if (n == 0)
        fprintf(out, "    (no messages)\n");
    free(flows);
}

static void summary_calls(FILE *out, const struct profile *pf)
{
    fprintf(out, "  time inside MPI by procedure (all ranks):\n");
    char b[32];
    for (int i = 0, shown = 0; i < pf->ncalls && shown < TOP_CALLS; i++) {
        const struct profile_call *c = &pf->calls[i];
        if (!c->calls)
            continue;
        profile_format_bytes(b, sizeof b, (double)c->bytes);
        fprintf(out, "    %-24s %12.6f s %10llu calls %10llu messages %12s\n", c->name,
                (double)c->ns / 1e9, (unsigned long long)c->calls, (unsigned long long)c->msgs, b);
        shown++;
    }
}

/* The spread of time inside MPI over the ranks: a wide one points at load
 * imbalance (the ranks with more time inside wait for the others). */
static void summary_ranks(FILE *out, const struct profile *pf)
{
    int lo = -1, hi = -1;
    double lo_share = 0, hi_share = 0;
    for (int r = 0; r < pf->size; r++) {
        if (!pf->present[r] || !pf->elapsed_ns[r])
            continue;
        double share = 100.0 * (double)pf->mpi_ns[r] / (double)pf->elapsed_ns[r];
        if (lo < 0 || share < lo_share)
            lo = r, lo_share = share;
        if (hi < 0 || share > hi_share)
            hi = r, hi_share = share;
    }
    if (lo >= 0 && pf->size > 1)
        fprintf(out, "  inside MPI: least rank %d (%.1f%%), most rank %d (%.1f%%)\n", lo, lo_share, hi, hi_share);
}

static void summary_write(FILE *out, const struct profile *pf, const char *dir, int expected)
{
    uint64_t elapsed = 0, all = 0, inside = 0, msgs[2] = { 0, 0 }, bytes[2] = { 0, 0 };
    for (int r = 0; r < pf->size; r++) {
        elapsed = pf->elapsed_ns[r] > elapsed ? pf->elapsed_ns[r] : elapsed;
        all += pf->elapsed_ns[r];
        inside += pf->mpi_ns[r];
    }
    for (int c = 0; c < PROFILE_CLASSES; c++)
        for (size_t i = 0; i < (size_t)pf->size * (size_t)pf->size; i++) {
            msgs[c] += pf->msgs[c][i];
            bytes[c] += pf->bytes[c][i];
        }
    char b0[32], b1[32];
    profile_format_bytes(b0, sizeof b0, (double)bytes[0]);
    profile_format_bytes(b1, sizeof b1, (double)bytes[1]);
    fprintf(out, "Uzura profile: %d ranks, %.3f s from MPI_Init to MPI_Finalize; %.1f%% of it inside MPI\n",
            pf->size, (double)elapsed / 1e9, all ? 100.0 * (double)inside / (double)all : 0.0);
    if (pf->found < pf->size || (expected && expected != pf->size))
        fprintf(out, "  only %d of %d ranks wrote a profile (the others did not reach MPI_Finalize)\n",
                pf->found, expected ? expected : pf->size);
    fprintf(out, "  sent point-to-point: %llu messages, %s; collective: %llu messages, %s\n",
            (unsigned long long)msgs[0], b0, (unsigned long long)msgs[1], b1);
    if (pf->outside_msgs[0] + pf->outside_msgs[1])
        fprintf(out, "  and %llu messages to processes of other jobs (not in the matrix)\n",
                (unsigned long long)(pf->outside_msgs[0] + pf->outside_msgs[1]));
    summary_ranks(out, pf);
    summary_talkers(out, pf);
    summary_calls(out, pf);
    fprintf(out, "  report: %s/report.html\n", dir);
}

/* --------------------------------------------------------------- files */

static void write_matrix_csv(FILE *f, const struct profile *pf)
{
    static const char *const word[PROFILE_CLASSES] = { "p2p", "coll" };
    fputs("kind,from,to,messages,bytes\n", f);
    size_t p = (size_t)pf->size;
    for (int c = 0; c < PROFILE_CLASSES; c++)
        for (size_t i = 0; i < p * p; i++)
            if (pf->msgs[c][i])
                fprintf(f, "%s,%zu,%zu,%llu,%llu\n", word[c], i / p, i % p,
                        (unsigned long long)pf->msgs[c][i], (unsigned long long)pf->bytes[c][i]);
}

static void html_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<' || *s == '>' || *s == '&')
            fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : "&amp;", f);
        else
            fputc(*s, f);
    }
}

/* The pictures, each into its own file and into the page. */
static int write_pictures(const char *dir, const struct profile *pf, FILE *html)
{
    static const char *const files[] = { "heatmap-p2p.svg", "heatmap-coll.svg", "sizes.svg",
                                         "time-rank.svg", "time-call.svg" };
    for (int i = 0; i < 5; i++) {
        FILE *f = open_in(dir, files[i]);
        if (!f)
            return -1;
        for (int pass = 0; pass < 2; pass++) {
            FILE *to = pass ? html : f;
            if (i < 2)
                profile_svg_heatmap(to, pf, i);
            else if (i == 2)
                profile_svg_sizes(to, pf);
            else if (i == 3)
                profile_svg_time_per_rank(to, pf);
            else
                profile_svg_time_per_call(to, pf);
        }
        if (fclose(f) != 0)
            return -1;
    }
    return 0;
}

static int write_html(const char *dir, const struct profile *pf, const char *summary)
{
    FILE *f = open_in(dir, "report.html");
    if (!f)
        return -1;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><title>Uzura profile</title>\n"
          "<style>body{font-family:sans-serif;margin:2em} svg{display:block;margin:1.5em 0}"
          " pre{background:#f6f6f6;padding:1em}</style></head>\n<body>\n<h1>Uzura traffic profile</h1>\n<pre>",
          f);
    html_escaped(f, summary);
    fputs("</pre>\n<p>Point-to-point: messages of sends on a communicator's point-to-point context. "
          "Collective: the messages collective algorithms send (collectives through shared memory "
          "move data without messages and show only as time). See docs/profile.md.</p>\n", f);
    int rc = write_pictures(dir, pf, f);
    fputs("</body></html>\n", f);
    return fclose(f) != 0 || rc ? -1 : 0;
}

int profile_report(const char *dir, int expected, FILE *out)
{
    struct profile pf;
    if (profile_read(dir, &pf) < 0) {
        profile_free(&pf);
        return 1;
    }
    profile_sort_calls(&pf);
    char *summary = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&summary, &len);
    int rc = mem ? 0 : 1;
    if (mem) {
        summary_write(mem, &pf, dir, expected);
        fclose(mem);
        fputs(summary, out);
        FILE *f = open_in(dir, "summary.txt");
        FILE *csv = open_in(dir, "matrix.csv");
        if (f)
            fputs(summary, f);
        if (csv)
            write_matrix_csv(csv, &pf);
        rc = !f || !csv;
        if (f && fclose(f) != 0)
            rc = 1;
        if (csv && fclose(csv) != 0)
            rc = 1;
        if (write_html(dir, &pf, summary) < 0)
            rc = 1;
        if (rc)
            fprintf(stderr, "mpiexec: profile: the report in %s is incomplete\n", dir);
    }
    free(summary);
    profile_free(&pf);
    return rc;
}
