/*
 * trace_stages.c — the ring of per-stage latency stamps (UZURA_TRACE=stages)
 * and UZURA_Trace_stages, which hands them to the program.
 *
 * The ring is allocated at MPI_Init only when tracing is on; a full ring
 * overwrites its oldest stamps (a program that reads after each phase
 * loses nothing).  The counter's rate is measured once at start-up
 * against CLOCK_MONOTONIC over 20 ms, which puts it within a few parts in
 * ten thousand: enough for stages of tens of nanoseconds and more.
 *
 * A program that cannot call UZURA_Trace_stages (an unmodified
 * application) gets what is left in the ring at MPI_Finalize as text, one
 * file per rank, with UZURA_TRACE_FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/params.h"
#include "base/runtime.h"
#include "base/trace_stages.h"

int uz_trace_stages;
uint64_t uz_trace_enqueued_at, uz_trace_arrived_at;

static UZURA_Stage_record *ring;
static uint64_t ring_cap, ring_head, ring_tail;   /* stamps [tail, head) are kept */
static uint32_t sends, recvs;
static double ticks_per_us = 1000.0;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void calibrate(void)
{
#if defined(__x86_64__)
    uint64_t n0 = mono_ns(), c0 = uz_trace_now();
    struct timespec pause = { 0, 20 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    uint64_t n1 = mono_ns(), c1 = uz_trace_now();
    if (n1 > n0 && c1 > c0)
        ticks_per_us = (double)(c1 - c0) * 1000.0 / (double)(n1 - n0);
#endif
}

int uz_trace_stages_init(void)
{
    if (uz_config.trace != UZ_TRACE_STAGES || uz_trace_stages)
        return MPI_SUCCESS;
    ring_cap = uz_config.trace_records > 0 ? (uint64_t)uz_config.trace_records : 1;
    ring = calloc(ring_cap, sizeof(*ring));
    if (!ring)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory for %llu stage stamps (UZURA_TRACE_RECORDS)",
                           (unsigned long long)ring_cap);
    ring_head = ring_tail = 0;
    sends = recvs = 0;
    calibrate();
    uz_trace_stages = 1;
    return MPI_SUCCESS;
}

/* UZURA_TRACE_FILE: "<stage> <seq> <tag> <peer> <time>" lines, oldest first. */
static void dump(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s.%d", uz_config.trace_file, uz_rt.world_rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "Uzura rank %d: UZURA_TRACE_FILE: cannot write %s; the stage stamps are lost\n",
                uz_rt.world_rank, path);
        return;
    }
    fprintf(f, "# Uzura stage stamps of world rank %d; time in ticks of %.3f per microsecond\n"
               "# stage seq tag peer time\n", uz_rt.world_rank, ticks_per_us);
    for (uint64_t i = ring_tail; i < ring_head; i++) {
        const UZURA_Stage_record *r = &ring[i % ring_cap];
        fprintf(f, "%s %u %d %d %llu\n", UZURA_Trace_stage_name(r->stage), r->seq, r->tag, r->peer,
                (unsigned long long)r->time);
    }
    fclose(f);
}

void uz_trace_stages_finalize(void)
{
    if (uz_trace_stages && uz_config.trace_file && uz_config.trace_file[0])
        dump();
    uz_trace_stages = 0;
    free(ring);
    ring = NULL;
    ring_cap = ring_head = ring_tail = 0;
}

void uz_trace_stamp(enum uz_stage stage, uint64_t time, uint32_t seq, int tag, int peer_world)
{
    UZURA_Stage_record *r = &ring[ring_head % ring_cap];
    r->time = time;
    r->seq = seq;
    r->tag = tag;
    r->peer = peer_world;
    r->stage = (uint16_t)stage;
    r->reserved = 0;
    if (++ring_head - ring_tail > ring_cap)
        ring_tail = ring_head - ring_cap;
}

uint32_t uz_trace_next_send(void)
{
    return ++sends;
}

uint32_t uz_trace_next_recv(void)
{
    return ++recvs;
}

/* -------------------------------------------------- the program's view */

UZ_EXPORT int UZURA_Trace_stages(UZURA_Stage_record *out, int max, int *count, double *rate)
{
    if (!count || max < 0 || (max > 0 && !out))
        return uz_err_make(MPI_ERR_ARG, "UZURA_Trace_stages: %s", !count ? "count is NULL"
                           : max < 0 ? "max is negative" : "out is NULL");
    uz_lock();
    int n = 0;
    while (n < max && ring_tail < ring_head)
        out[n++] = ring[ring_tail++ % ring_cap];
    uz_unlock();
    *count = n;
    if (rate)
        *rate = ticks_per_us;
    return MPI_SUCCESS;
}

UZ_EXPORT const char *UZURA_Trace_stage_name(int stage)
{
    static const char *const names[UZURA_STAGE_LAST + 1] = {
        [UZURA_STAGE_SEND_ENTRY] = "send_entry",
        [UZURA_STAGE_SEND_ENQUEUED] = "send_enqueued",
        [UZURA_STAGE_SEND_DATA] = "send_data",
        [UZURA_STAGE_SEND_COMPLETE] = "send_complete",
        [UZURA_STAGE_RECV_ENTRY] = "recv_entry",
        [UZURA_STAGE_ARRIVAL] = "arrival",
        [UZURA_STAGE_MATCH] = "match",
        [UZURA_STAGE_COPY] = "copy",
        [UZURA_STAGE_RECV_COMPLETE] = "recv_complete",
    };
    return stage > 0 && stage <= UZURA_STAGE_LAST ? names[stage] : NULL;
}
