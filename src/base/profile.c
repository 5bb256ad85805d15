/*
 * profile.c — the counters of the traffic profile and the file each rank
 * writes (profile.h; the format is described in docs/profile.md).
 *
 * Time is read from the time-stamp counter on x86-64 (a few nanoseconds,
 * against some twenty for clock_gettime) and converted to nanoseconds with
 * the rate measured between uz_profile_start and uz_profile_stop against
 * CLOCK_MONOTONIC; elsewhere clock_gettime is the counter.  Counters are
 * plain adds, atomic only under MPI_THREAD_MULTIPLE, where several threads
 * may be inside MPI at once.
 */
#include "base/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "base/params.h"
#include "base/runtime.h"

int uz_profile_on;

/* Message sizes: bucket 0 holds empty messages, bucket k >= 1 sizes in
 * [2^(k-1), 2^k); the last one everything larger. */
enum { SIZE_BUCKETS = 41, CLASSES = 2 };

struct call_count {
    uint64_t calls, ticks, msgs, bytes;
};

struct peer_count {
    uint64_t msgs, bytes;
};

static struct call_count calls[UZ_PROFILE_CALL_SLOTS];
static const char *call_names[UZ_PROFILE_CALL_SLOTS];
static struct peer_count *peers[CLASSES];  /* [class][world rank]; [size]: outside MPI_COMM_WORLD */
static uint64_t sizes[CLASSES][SIZE_BUCKETS];
static int rank, size;
static char dir[4096];          /* where this rank's file goes */
static uint64_t start_ticks, start_ns;
static int started;                 /* between start and stop, paused or not */
static uint64_t paused_at, paused_ns;   /* MPI_Pcontrol(0): when, and how long in all */

/* The procedure this thread is inside, or -1; bytes sent outside any
 * (a progress thread) go to slot UZ_PROFILE_CALL_SLOTS - 1. */
static _Thread_local int current = -1;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ticks_now(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return mono_ns();
#endif
}

static inline void add(uint64_t *counter, uint64_t n)
{
    if (UZ_UNLIKELY(uz_rt.thread_multiple))
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    else
        *counter += n;
}

/* ------------------------------------------------------------- counting */

uint64_t uz_profile_begin(int call)
{
    if (current >= 0 || (unsigned)call >= UZ_PROFILE_CALL_SLOTS)
        return 0;
    current = call;
    return ticks_now() | 1;     /* never 0, which means "not timed" */
}

void uz_profile_end(uint64_t t0, const char *name)
{
    int call = current;
    current = -1;
    if (call < 0)
        return;
    uint64_t t = ticks_now();
    add(&calls[call].calls, 1);
    add(&calls[call].ticks, t > t0 ? t - t0 : 0);
    call_names[call] = name;
}

static int size_bucket(size_t bytes)
{
    int b = bytes ? 64 - __builtin_clzll((unsigned long long)bytes) : 0;
    return b < SIZE_BUCKETS ? b : SIZE_BUCKETS - 1;
}

void uz_profile_count_send(int world, size_t bytes, int collective)
{
    int cls = collective != 0;
    int slot = world >= 0 && world < size ? world : size;
    add(&peers[cls][slot].msgs, 1);
    add(&peers[cls][slot].bytes, bytes);
    add(&sizes[cls][size_bucket(bytes)], 1);
    struct call_count *c = &calls[current >= 0 ? current : UZ_PROFILE_CALL_SLOTS - 1];
    add(&c->msgs, 1);
    add(&c->bytes, bytes);
}

/* ------------------------------------------------------- start and stop */

void uz_profile_start(int world_rank, int world_size, const char *spawned_job)
{
    if (!uz_config.profile || !uz_config.profile[0] || world_size < 1)
        return;
    if (spawned_job)
        snprintf(dir, sizeof dir, "%s/job-%s", uz_config.profile, spawned_job);
    else
        snprintf(dir, sizeof dir, "%s", uz_config.profile);
    memset(calls, 0, sizeof calls);
    memset(sizes, 0, sizeof sizes);
    for (int c = 0; c < CLASSES; c++) {
        free(peers[c]);
        peers[c] = calloc((size_t)world_size + 1, sizeof *peers[c]);
        if (!peers[c]) {
            fprintf(stderr, "Uzura rank %d: UZURA_PROFILE: out of memory; not profiling\n", world_rank);
            return;
        }
    }
    rank = world_rank;
    size = world_size;
    start_ns = mono_ns();
    start_ticks = ticks_now();
    paused_ns = 0;
    started = 1;
    uz_profile_on = 1;
}

void uz_profile_control(int level)
{
    if (!started || (level != 0) == uz_profile_on)
        return;
    if (level == 0) {
        paused_at = mono_ns();
        uz_profile_on = 0;
    } else {
        paused_ns += mono_ns() - paused_at;
        uz_profile_on = 1;
    }
}

static const char *class_word(int c)
{
    return c ? "coll" : "p2p";
}

static void write_counts(FILE *f, double ns_per_tick, uint64_t elapsed_ns)
{
    fprintf(f, "uzura-profile 1\nrank %d\nsize %d\nhost %s\nelapsed_ns %llu\n", rank, size,
            uz_rt.processor_name, (unsigned long long)elapsed_ns);
    for (int i = 0; i < UZ_PROFILE_CALL_SLOTS; i++) {
        const struct call_count *c = &calls[i];
        if (!c->calls && !c->msgs)
            continue;
        const char *name = call_names[i] ? call_names[i] : "(outside_MPI_calls)";
        fprintf(f, "call %s %llu %llu %llu %llu\n", name, (unsigned long long)c->calls,
                (unsigned long long)((double)c->ticks * ns_per_tick), (unsigned long long)c->msgs,
                (unsigned long long)c->bytes);
    }
    for (int c = 0; c < CLASSES; c++) {
        for (int p = 0; p <= size; p++)
            if (peers[c][p].msgs)
                fprintf(f, "send %s %d %llu %llu\n", class_word(c), p < size ? p : -1,
                        (unsigned long long)peers[c][p].msgs, (unsigned long long)peers[c][p].bytes);
        for (int b = 0; b < SIZE_BUCKETS; b++)
            if (sizes[c][b])
                fprintf(f, "size %s %d %llu\n", class_word(c), b, (unsigned long long)sizes[c][b]);
    }
    fputs("end\n", f);
}

/* DIR/rank-N.prof, written under a temporary name and renamed, so that a
 * reader never sees half a file. */
static int write_file(double ns_per_tick, uint64_t elapsed_ns)
{
    if (mkdir(uz_config.profile, 0777) != 0 && errno != EEXIST)
        return -errno;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return -errno;
    char path[sizeof dir + 32], tmp[sizeof dir + 40];
    snprintf(path, sizeof path, "%s/rank-%d.prof", dir, rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -errno;
    write_counts(f, ns_per_tick, elapsed_ns);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int err = errno ? errno : EIO;
        remove(tmp);
        return -err;
    }
    return 0;
}

void uz_profile_stop(void)
{
    if (!started)
        return;
    uz_profile_control(1);      /* ends a pause, counting its length */
    uz_profile_on = 0;
    started = 0;
    uint64_t ticks = ticks_now() - start_ticks;
    uint64_t elapsed_ns = mono_ns() - start_ns;
    double ns_per_tick = ticks ? (double)elapsed_ns / (double)ticks : 1.0;
    int err = write_file(ns_per_tick, elapsed_ns - paused_ns);
    if (err)
        fprintf(stderr, "Uzura rank %d: UZURA_PROFILE: cannot write %s/rank-%d.prof: %s\n", rank, dir, rank,
                strerror(-err));
    for (int c = 0; c < CLASSES; c++) {
        free(peers[c]);
        peers[c] = NULL;
    }
}
