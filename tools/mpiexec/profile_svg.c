/*
 * profile_svg.c — the traffic profile's pictures, drawn as SVG by hand (no
 * plotting library): the rank × rank byte matrix as a heat map, the
 * message-size histogram, and time inside MPI per rank and per procedure as
 * bar charts.  Each is a standalone SVG document (no XML declaration, so
 * that report.html can inline it); cells and bars carry data-* attributes
 * with their exact numbers, for people hovering (<title>) and for tests.
 */
#include "profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_name[PROFILE_CLASSES] = { "point-to-point", "collective" };
static const char *const class_word[PROFILE_CLASSES] = { "p2p", "coll" };
static const char *const class_color[PROFILE_CLASSES] = { "#3b75af", "#ef8636" };

void profile_format_bytes(char *buf, size_t len, double bytes)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", bytes, unit[u]);
}

void profile_bucket_label(char *buf, size_t len, int bucket)
{
    static const char suffix[] = " KMGT";
    if (bucket == 0) {
        snprintf(buf, len, "0");
        return;
    }
    int shift = bucket - 1, s = 0;
    while (shift >= 10 && s < 4) {
        shift -= 10;
        s++;
    }
    if (s)
        snprintf(buf, len, "%llu%c", 1ULL << shift, suffix[s]);
    else
        snprintf(buf, len, "%llu", 1ULL << shift);
}

static void format_time(char *buf, size_t len, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g µs", ns / 1e3);
}

static void svg_open(FILE *f, int width, int height, const char *cls, const char *title)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", cls, width, height,
            width, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", title);
}

/* ------------------------------------------------------------ heat map */

/* White-blue, on a logarithmic scale so that small flows stay visible next
 * to large ones; no traffic at all is light grey. */
static void heat_color(char *buf, size_t len, uint64_t v, uint64_t max)
{
    if (v == 0) {
        snprintf(buf, len, "#eeeeee");
        return;
    }
    double t = max > 1 ? log1p((double)v) / log1p((double)max) : 1.0;
    int r = (int)(222 + t * (8 - 222)), g = (int)(235 + t * (48 - 235)), b = (int)(247 + t * (107 - 247));
    snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

/* Above this many ranks a cell stands for a block of ranks, so that the
 * picture stays a few thousand elements that a browser draws at once. */
enum { HEAT_MAX_CELLS = 128 };

/* Bytes and messages from ranks [f0, f1) to ranks [t0, t1). */
static void block_sum(const struct profile *pf, int cls, int f0, int f1, int t0, int t1, uint64_t *bytes,
                      uint64_t *msgs)
{
    *bytes = *msgs = 0;
    for (int from = f0; from < f1; from++)
        for (int to = t0; to < t1; to++) {
            size_t i = (size_t)from * (size_t)pf->size + (size_t)to;
            *bytes += pf->bytes[cls][i];
            *msgs += pf->msgs[cls][i];
        }
}

static void heat_cells(FILE *f, const struct profile *pf, int cls, int g, int left, int top, int cell)
{
    int p = pf->size, q = (p + g - 1) / g;
    uint64_t max = 0, bytes, msgs;
    for (int i = 0; i < q; i++)
        for (int j = 0; j < q; j++) {
            block_sum(pf, cls, i * g, i * g + g < p ? i * g + g : p, j * g, j * g + g < p ? j * g + g : p, &bytes,
                      &msgs);
            max = bytes > max ? bytes : max;
        }
    char text[32], color[16], range[64];
    fprintf(f, "<g class=\"cells\" data-kind=\"%s\" data-ranks=\"%d\" data-block=\"%d\">\n", class_word[cls], p, g);
    for (int i = 0; i < q; i++)
        for (int j = 0; j < q; j++) {
            int f1 = i * g + g < p ? i * g + g : p, t1 = j * g + g < p ? j * g + g : p;
            block_sum(pf, cls, i * g, f1, j * g, t1, &bytes, &msgs);
            heat_color(color, sizeof color, bytes, max);
            profile_format_bytes(text, sizeof text, (double)bytes);
            if (g > 1)
                snprintf(range, sizeof range, "%d-%d → %d-%d", i * g, f1 - 1, j * g, t1 - 1);
            else
                snprintf(range, sizeof range, "%d → %d", i, j);
            fprintf(f, "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                    "data-from=\"%d\" data-to=\"%d\" data-bytes=\"%llu\" data-msgs=\"%llu\">"
                    "<title>%s: %s in %llu messages</title></rect>\n",
                    left + j * cell, top + i * cell, cell, cell, color, i * g, j * g, (unsigned long long)bytes,
                    (unsigned long long)msgs, range, text, (unsigned long long)msgs);
        }
    fputs("</g>\n", f);
    /* Legend: the scale from the smallest to the largest flow. */
    int lx = left + q * cell + 30;
    fputs("<defs><linearGradient id=\"heat\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
          "<stop offset=\"0\" stop-color=\"#deebf7\"/><stop offset=\"1\" stop-color=\"#08306b\"/>"
          "</linearGradient></defs>\n", f);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"120\" fill=\"url(#heat)\"/>\n", lx, top);
    profile_format_bytes(text, sizeof text, (double)max);
    fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", lx + 22, top + 10, text);
    fprintf(f, "<text x=\"%d\" y=\"%d\">1 B (log scale)</text>\n", lx + 22, top + 120);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"#eeeeee\"/>\n", lx, top + 136);
    fprintf(f, "<text x=\"%d\" y=\"%d\">none</text>\n", lx + 22, top + 148);
}

void profile_svg_heatmap(FILE *f, const struct profile *pf, int cls)
{
    int p = pf->size, g = (p + HEAT_MAX_CELLS - 1) / HEAT_MAX_CELLS, q = (p + g - 1) / g;
    int cell = 480 / q;
    cell = cell > 40 ? 40 : cell < 3 ? 3 : cell;
    int left = 70, top = 60, grid = cell * q;
    int width = left + grid + 170, height = top + grid + 30;
    char title[160];
    snprintf(title, sizeof title, "Bytes sent, %s (row: sender, column: receiver%s)", class_name[cls],
             g > 1 ? "; a cell is a block of ranks" : "");
    svg_open(f, width, height, "heatmap", title);
    fprintf(f, "<text x=\"%d\" y=\"42\" text-anchor=\"middle\">to rank</text>\n", left + grid / 2);
    fprintf(f, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">from rank</text>\n",
            top + grid / 2, top + grid / 2);
    int step = (q + 15) / 16;
    for (int i = 0; i < q; i += step) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%d</text>\n",
                left + i * cell + cell / 2, top - 4, i * g);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\">%d</text>\n", left - 4,
                top + i * cell + cell / 2 + 4, i * g);
    }
    heat_cells(f, pf, cls, g, left, top, cell);
    fputs("</svg>\n", f);
}

/* ----------------------------------------------------------- histogram */

void profile_svg_sizes(FILE *f, const struct profile *pf)
{
    int lo = PROFILE_SIZE_BUCKETS, hi = -1;
    uint64_t max = 0;
    for (int c = 0; c < PROFILE_CLASSES; c++)
        for (int b = 0; b < PROFILE_SIZE_BUCKETS; b++)
            if (pf->sizes[c][b]) {
                lo = b < lo ? b : lo;
                hi = b > hi ? b : hi;
                max = pf->sizes[c][b] > max ? pf->sizes[c][b] : max;
            }
    int n = hi >= lo ? hi - lo + 1 : 0;
    int left = 70, top = 50, group = 34, plot = 200;
    int width = left + (n ? n : 6) * group + 40, height = top + plot + 80;
    width = width < 480 ? 480 : width;
    svg_open(f, width, height, "sizes", "Messages by size");
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">each bar: sizes from its label up to twice it "
            "(bytes)</text>\n", left, top + plot + 48);
    fprintf(f, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">messages</text>\n",
            top + plot / 2, top + plot / 2);
    if (!n) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">no messages</text>\n</svg>\n", left, top + plot / 2);
        return;
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, top + plot,
            left + n * group, top + plot);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%llu</text>\n", left - 4, top + 10,
            (unsigned long long)max);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", left - 4, top + plot);
    char label[32];
    for (int b = lo; b <= hi; b++) {
        int x = left + (b - lo) * group;
        for (int c = 0; c < PROFILE_CLASSES; c++) {
            uint64_t v = pf->sizes[c][b];
            int h = (int)((double)v / (double)max * plot + 0.5);
            fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"13\" height=\"%d\" fill=\"%s\" "
                    "data-kind=\"%s\" data-bucket=\"%d\" data-count=\"%llu\"><title>%llu %s messages</title></rect>\n",
                    x + 3 + c * 14, top + plot - h, h, class_color[c], class_word[c], b, (unsigned long long)v,
                    (unsigned long long)v, class_word[c]);
        }
        profile_bucket_label(label, sizeof label, b);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n",
                x + group / 2, top + plot + 14, label);
    }
    for (int c = 0; c < PROFILE_CLASSES; c++) {
        int y = top + plot + 58, x = left + c * 140;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, class_color[c], x + 16, y + 11, class_name[c]);
    }
    fputs("</svg>\n", f);
}

/* ---------------------------------------------------------- bar charts */

/* Series of a stacked bar: the procedures with the most time, then the
 * rest of MPI, then (per rank) the time outside MPI. */
enum { TOP_SERIES = 5, MAX_SERIES = TOP_SERIES + 2 };

struct hbar {
    char label[64];
    double value[MAX_SERIES];   /* stacked */
    char note[96];
};

struct series {
    int n;
    const char *name[MAX_SERIES];
    const char *color[MAX_SERIES];
};

static void hbars(FILE *f, const char *cls, const char *title, const struct hbar *rows, int n,
                  const struct series *ser)
{
    int left = 160, top = 50, row = 18, plot = 360;
    int legend_rows = (ser->n + 2) / 3;
    int width = left + plot + 280, height = top + n * row + 24 + 18 * legend_rows;
    double max = 0;
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int s = 0; s < ser->n; s++)
            sum += rows[i].value[s];
        max = sum > max ? sum : max;
    }
    svg_open(f, width, height, cls, title);
    for (int i = 0; i < n; i++) {
        int y = top + i * row, x = left;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6, y + 12, rows[i].label);
        for (int s = 0; s < ser->n; s++) {
            int w = max > 0 ? (int)(rows[i].value[s] / max * plot + 0.5) : 0;
            fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                    "data-label=\"%s\" data-series=\"%s\" data-value=\"%.0f\"><title>%s</title></rect>\n", x, y + 2,
                    w, row - 4, ser->color[s], rows[i].label, ser->name[s], rows[i].value[s], ser->name[s]);
            x += w;
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", x + 6, y + 12, rows[i].note);
    }
    for (int s = 0; s < ser->n; s++) {
        int x = left + (s % 3) * 200, y = top + n * row + 12 + (s / 3) * 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y, ser->color[s], x + 16, y + 11, ser->name[s]);
    }
    fputs("</svg>\n", f);
}

static const char *const palette[TOP_SERIES] = { "#3b75af", "#ef8636", "#519e3e", "#c53a32", "#8d69b8" };

/* Per rank, stacked: its time in each of the procedures with the most time
 * over all ranks (calls are sorted, profile_sort_calls), in the other
 * procedures, and outside MPI. */
void profile_svg_time_per_rank(FILE *f, const struct profile *pf)
{
    struct hbar *rows = calloc((size_t)pf->size, sizeof *rows);
    if (!rows)
        return;
    struct series ser = { 0 };
    for (int i = 0; i < pf->ncalls && ser.n < TOP_SERIES; i++)
        if (pf->calls[i].calls) {
            ser.name[ser.n] = pf->calls[i].name;
            ser.color[ser.n] = palette[ser.n];
            ser.n++;
        }
    int top = ser.n;
    ser.name[ser.n] = "other MPI";
    ser.color[ser.n++] = "#9aa5b1";
    ser.name[ser.n] = "outside MPI";
    ser.color[ser.n++] = "#e4e9ee";
    char t[32];
    for (int r = 0; r < pf->size; r++) {
        double in = (double)pf->mpi_ns[r], all = (double)pf->elapsed_ns[r], rest = in;
        snprintf(rows[r].label, sizeof rows[r].label, "rank %d", r);
        for (int i = 0, s = 0; i < pf->ncalls && s < top; i++)
            if (pf->calls[i].calls) {
                rows[r].value[s++] = (double)pf->calls[i].rank_ns[r];
                rest -= (double)pf->calls[i].rank_ns[r];
            }
        rows[r].value[top] = rest > 0 ? rest : 0;
        rows[r].value[top + 1] = all > in ? all - in : 0;
        format_time(t, sizeof t, in);
        if (pf->present[r])
            snprintf(rows[r].note, sizeof rows[r].note, "%s in MPI (%.1f%%)", t, all > 0 ? 100 * in / all : 0);
        else
            snprintf(rows[r].note, sizeof rows[r].note, "no profile");
    }
    hbars(f, "time-rank", "Time per rank, inside each MPI procedure and outside MPI", rows, pf->size, &ser);
    free(rows);
}

/* The procedures with the most time inside, all ranks together. */
enum { CALL_BARS = 25 };

void profile_svg_time_per_call(FILE *f, const struct profile *pf)
{
    struct hbar rows[CALL_BARS];
    int n = 0;
    char t[32], b[32];
    for (int i = 0; i < pf->ncalls && n < CALL_BARS; i++) {
        const struct profile_call *c = &pf->calls[i];
        if (!c->calls)
            continue;           /* bytes sent outside any call */
        struct hbar *h = &rows[n++];
        *h = (struct hbar){ .value = { (double)c->ns } };
        snprintf(h->label, sizeof h->label, "%s", c->name);
        format_time(t, sizeof t, (double)c->ns);
        profile_format_bytes(b, sizeof b, (double)c->bytes);
        snprintf(h->note, sizeof h->note, "%s, %llu calls, %llu messages, %s", t, (unsigned long long)c->calls,
                 (unsigned long long)c->msgs, b);
    }
    struct series ser = { 1, { "inside the call, all ranks" }, { "#3b75af" } };
    hbars(f, "time-call", "Time inside MPI per procedure (all ranks)", rows, n, &ser);
}
