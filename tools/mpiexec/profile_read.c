/*
 * profile_read.c — read the ranks' profile files (DIR/rank-N.prof, written
 * by src/base/profile.c) and merge them into one job profile.
 *
 * The files are line-oriented text: "size P", then "call NAME CALLS NS
 * MSGS BYTES", "send p2p|coll TO MSGS BYTES" (TO -1: a process outside the job)
 * and "size p2p|coll BUCKET COUNT" lines, ending with "end" (a file without
 * it was cut short and is refused).
 */
#include "profile.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int bad(const char *path, int line, const char *why)
{
    fprintf(stderr, "mpiexec: profile %s line %d: %s\n", path, line, why);
    return -1;
}

static int class_of(const char *word)
{
    return strcmp(word, "p2p") == 0 ? 0 : strcmp(word, "coll") == 0 ? 1 : -1;
}

static int alloc_job(struct profile *pf, int size)
{
    size_t n = (size_t)size;
    pf->size = size;
    pf->present = calloc(n, 1);
    pf->elapsed_ns = calloc(n, sizeof(uint64_t));
    pf->mpi_ns = calloc(n, sizeof(uint64_t));
    int ok = pf->present && pf->elapsed_ns && pf->mpi_ns;
    for (int c = 0; c < PROFILE_CLASSES; c++) {
        pf->msgs[c] = calloc(n * n, sizeof(uint64_t));
        pf->bytes[c] = calloc(n * n, sizeof(uint64_t));
        ok = ok && pf->msgs[c] && pf->bytes[c];
    }
    return ok ? 0 : -1;
}

static struct profile_call *call_find(struct profile *pf, const char *name)
{
    for (int i = 0; i < pf->ncalls; i++)
        if (strcmp(pf->calls[i].name, name) == 0)
            return &pf->calls[i];
    struct profile_call *grown = realloc(pf->calls, (size_t)(pf->ncalls + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    pf->calls = grown;
    struct profile_call *c = &pf->calls[pf->ncalls];
    *c = (struct profile_call){ .rank_ns = calloc((size_t)pf->size, sizeof(uint64_t)) };
    if (!c->rank_ns)
        return NULL;
    snprintf(c->name, sizeof c->name, "%s", name);
    pf->ncalls++;
    return c;
}

/* One line of rank `rank`'s file; 0, or the reason it is malformed. */
static const char *read_line(struct profile *pf, int rank, const char *line)
{
    char kind[16], word[64];
    unsigned long long a, b, c, d;
    int to;
    if (sscanf(line, "elapsed_ns %llu", &a) == 1) {
        pf->elapsed_ns[rank] = a;
    } else if (sscanf(line, "call %63s %llu %llu %llu %llu", word, &a, &b, &c, &d) == 5) {
        struct profile_call *call = call_find(pf, word);
        if (!call)
            return "out of memory";
        call->calls += a;
        call->ns += b;
        call->msgs += c;
        call->bytes += d;
        call->rank_ns[rank] += b;
        pf->mpi_ns[rank] += b;
    } else if (sscanf(line, "send %15s %d %llu %llu", kind, &to, &a, &b) == 4) {
        int cls = class_of(kind);
        if (cls < 0 || to < -1 || to >= pf->size)
            return "bad send line";
        if (to < 0) {
            pf->outside_msgs[cls] += a;
            pf->outside_bytes[cls] += b;
        } else {
            pf->msgs[cls][(size_t)rank * (size_t)pf->size + (size_t)to] += a;
            pf->bytes[cls][(size_t)rank * (size_t)pf->size + (size_t)to] += b;
        }
    } else if (sscanf(line, "size %15s %d %llu", kind, &to, &a) == 3) {
        int cls = class_of(kind);
        if (cls < 0 || to < 0 || to >= PROFILE_SIZE_BUCKETS)
            return "bad size line";
        pf->sizes[cls][to] += a;
    } else if (strncmp(line, "uzura-profile ", 14) != 0 && strncmp(line, "rank ", 5) != 0
               && strncmp(line, "size ", 5) != 0 && strncmp(line, "host ", 5) != 0) {
        return "unknown line";
    }
    return NULL;
}

static int read_file(struct profile *pf, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return bad(path, 0, "cannot open");
    char line[512];
    int n = 0, rank = -1, size = -1, ended = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        n++;
        line[strcspn(line, "\n")] = '\0';
        if (n == 1) {
            if (strcmp(line, "uzura-profile 1") != 0)
                rc = bad(path, n, "not a Uzura profile (version 1)");
        } else if (sscanf(line, "rank %d", &rank) == 1 || strcmp(line, "end") == 0)
            ended = strcmp(line, "end") == 0;
        else if (sscanf(line, "size %d", &size) == 1 && !strchr(line + 5, ' ')) {
            if (pf->size == 0 && (size < 1 || alloc_job(pf, size) < 0))
                rc = bad(path, n, "bad size or out of memory");
            else if (size != pf->size)
                rc = bad(path, n, "its job size differs from the other ranks' files");
            else if (rank < 0 || rank >= size || pf->present[rank])
                rc = bad(path, n, "bad or repeated rank");
        } else if (pf->size == 0 || rank < 0) {
            rc = bad(path, n, "counts before the rank and size lines");
        } else {
            const char *why = read_line(pf, rank, line);
            if (why)
                rc = bad(path, n, why);
        }
    }
    fclose(f);
    if (rc == 0 && !ended)
        return bad(path, n, "the file ends before its \"end\" line (cut short)");
    if (rc == 0)
        pf->present[rank] = 1;
    return rc;
}

int profile_read(const char *dir, struct profile *pf)
{
    *pf = (struct profile){ 0 };
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "mpiexec: profile: cannot open the directory %s\n", dir);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "rank-", 5) != 0 || len < 6 || strcmp(e->d_name + len - 5, ".prof") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rc = read_file(pf, path);
        pf->found += rc == 0;
    }
    closedir(d);
    if (rc == 0 && pf->found == 0) {
        fprintf(stderr, "mpiexec: profile: no rank-N.prof files in %s (did the ranks reach MPI_Finalize?)\n",
                dir);
        rc = -1;
    }
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const struct profile_call *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

void profile_sort_calls(struct profile *pf)
{
    qsort(pf->calls, (size_t)pf->ncalls, sizeof *pf->calls, by_time);
}

void profile_free(struct profile *pf)
{
    for (int i = 0; i < pf->ncalls; i++)
        free(pf->calls[i].rank_ns);
    free(pf->calls);
    for (int c = 0; c < PROFILE_CLASSES; c++) {
        free(pf->msgs[c]);
        free(pf->bytes[c]);
    }
    free(pf->present);
    free(pf->elapsed_ns);
    free(pf->mpi_ns);
    *pf = (struct profile){ 0 };
}
