/*
 * profile.h — mpiexec's side of the traffic profile (docs/profile.md): the
 * ranks' files merged into one job profile (profile_read.c), drawn as SVG
 * (profile_svg.c) and written out as a report with a text summary
 * (profile_report.c).  The library's side is src/base/profile.c.
 */
#ifndef MPIEXEC_PROFILE_H
#define MPIEXEC_PROFILE_H

#include <stdint.h>
#include <stdio.h>

/* As in src/base/profile.c: bucket 0 empty messages, bucket k >= 1 sizes in
 * [2^(k-1), 2^k). */
enum { PROFILE_SIZE_BUCKETS = 41, PROFILE_CLASSES = 2 };   /* class 0 p2p, 1 coll */

struct profile_call {
    char name[64];
    uint64_t calls, ns, msgs, bytes;    /* all ranks; messages sent during the calls */
    uint64_t *rank_ns;          /* [size] */
};

struct profile {
    int size;                   /* ranks of the job */
    int found;                  /* rank files read */
    char *present;              /* [size] */
    uint64_t *msgs[PROFILE_CLASSES], *bytes[PROFILE_CLASSES];  /* [from * size + to] */
    uint64_t outside_msgs[PROFILE_CLASSES], outside_bytes[PROFILE_CLASSES];  /* to other jobs */
    uint64_t sizes[PROFILE_CLASSES][PROFILE_SIZE_BUCKETS];
    uint64_t *elapsed_ns, *mpi_ns;  /* [size] */
    struct profile_call *calls;
    int ncalls;
};

/* Read DIR/rank-*.prof.  0, or -1 after printing why (no files, files that
 * disagree, a malformed file). */
int profile_read(const char *dir, struct profile *pf);
void profile_free(struct profile *pf);
/* Calls sorted by time inside MPI, longest first. */
void profile_sort_calls(struct profile *pf);

/* The pictures, each a standalone SVG document that may also be inlined in
 * HTML. */
void profile_svg_heatmap(FILE *f, const struct profile *pf, int cls);
void profile_svg_sizes(FILE *f, const struct profile *pf);
void profile_svg_time_per_rank(FILE *f, const struct profile *pf);
void profile_svg_time_per_call(FILE *f, const struct profile *pf);

/* "1.50 MiB", "12 B". */
void profile_format_bytes(char *buf, size_t len, double bytes);
/* The bucket's lower bound as "0", "1", "2", ... "512", "1K", ... */
void profile_bucket_label(char *buf, size_t len, int bucket);

/* Merge DIR's rank files, write the report files there and the summary to
 * `out`.  `expected`: ranks the job had (0: unknown).  0, or 1 after
 * printing why. */
int profile_report(const char *dir, int expected, FILE *out);

#endif /* MPIEXEC_PROFILE_H */
